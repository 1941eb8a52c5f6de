/* diff_os.c — `ipcstamp diff --os`: the operating system's parts of the
 * joined deliveries in each format (docs/diff.md, "With recordings").
 * The parts and their comparison are the library's (ips_diff_side_t.os,
 * ips_diff_delivery_t.os_part, ips_diff_node_t.os_over); their names are
 * report's fields (os_pipe_cpu_wait_ns, os_kernel_disk_ns, ...). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "output.h"

/* The parts a side has: the delivery's, and the gap's before it when it
 * has one. */
static int nparts(const ips_diff_side_t *s) {
  return s->has_os_before ? IPS_DIFF_OS_NPARTS : IPS_DIFF_OS_DELIVERY;
}

void diff_os_side_json(yajl_gen g, const ips_diff_side_t *s) {
  int p;
  if (!s->has_os)
    return;
  out_str(g, "os");
  yajl_gen_map_open(g);
  for (p = 0; p < nparts(s); p++)
    out_int(g, ips_diff_os_part_key(p), s->os[p]);
  yajl_gen_map_close(g);
}

void diff_os_delivery_json(yajl_gen g, const ips_diff_delivery_t *x) {
  if (x->os_part < 0)
    return;
  out_kv(g, "os_part", ips_diff_os_part_name(x->os_part));
  out_int(g, "os_part_ns", x->os_part_ns);
}

void diff_os_node_json(yajl_gen g, const ips_diff_node_t *n) {
  int p;
  out_str(g, "os");
  yajl_gen_map_open(g);
  out_int(g, "deliveries", (long long)n->os_deliveries);
  out_str(g, "over_fastest");
  yajl_gen_map_open(g);
  for (p = 0; p < IPS_DIFF_OS_NPARTS; p++)
    out_int(g, ips_diff_os_part_key(p), n->os_over[p]);
  yajl_gen_map_close(g);
  out_kv(g, "part", n->os_part_max >= 0
                        ? ips_diff_os_part_name(n->os_part_max) : "");
  out_kv(g, "before_part", n->os_before_max >= 0
                               ? ips_diff_os_part_name(n->os_before_max)
                               : "");
  yajl_gen_map_close(g);
}

void diff_os_csv_header(FILE *f, const char *name) {
  int p;
  for (p = 0; p < IPS_DIFF_OS_NPARTS; p++) {
    /* "NAME_os_pipe_cpu_wait_ns": the node's prefix (from the user),
     * report's field */
    fputc(',', f);
    out_csv_column(f, name, ips_diff_os_part_key(p));
  }
}

void diff_os_csv_side(FILE *f, const ips_diff_side_t *s) {
  int p;
  for (p = 0; p < IPS_DIFF_OS_NPARTS; p++) {
    fputc(',', f);
    if (s->present && s->has_os && p < nparts(s))
      fprintf(f, "%" PRId64, s->os[p]);
  }
}

void diff_os_delivery_text(FILE *f, const ips_diff_delivery_t *x) {
  if (x->os_part >= 0)
    fprintf(f, " os %s +%.3f", ips_diff_os_part_name(x->os_part),
            (double)x->os_part_ns / 1e6);
}

/* The three parts of [from, to) node n is most over the fastest by. */
static void top_parts(FILE *f, const ips_diff_node_t *n, int from, int to) {
  int done[IPS_DIFF_OS_NPARTS] = {0}, k, p;
  for (k = 0; k < 3; k++) {
    int best = -1;
    for (p = from; p < to; p++)
      if (!done[p] && n->os_over[p] > 0 &&
          (best < 0 || n->os_over[p] > n->os_over[best]))
        best = p;
    if (best < 0)
      break;
    done[best] = 1;
    fprintf(f, "%s%s %.3f", k ? ", " : " ", ips_diff_os_part_name(best),
            (double)n->os_over[best] / 1e6);
  }
  if (!k)
    fputs(" -", f);
}

void diff_os_summary_text(diff_out_t *o) {
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  fputs("\nPer node, what the operating system saw (--os): its time over "
        "the fastest node's, the largest parts (ms):\n", o->out);
  for (i = 0; i < n; i++) {
    const ips_diff_node_t *nd = ips_diff_node(o->d, i);
    fprintf(o->out, "%-12s %" PRIu64 " deliveries:", nd->name,
            nd->os_deliveries);
    top_parts(o->out, nd, 0, IPS_DIFF_OS_DELIVERY);
    fputs("; before them (over the shortest gap):", o->out);
    top_parts(o->out, nd, IPS_DIFF_OS_BEFORE, IPS_DIFF_OS_NPARTS);
    fputc('\n', o->out);
  }
}
