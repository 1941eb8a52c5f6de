/* diff_json.c — `ipcstamp diff` as JSON lines: with --deliveries one
 * object per joined delivery, then one summary object (docs/diff.md).
 * Each node's figures carry the report's names (total_ns, pipe_ns,
 * worker_ns, kernel_ns, unmatched_ns, line, crank). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

static const char *const part_keys[IPS_DIFF_NPARTS] = {
    "pipe_ns", "worker_ns", "kernel_ns", "unmatched_ns"};

int diff_out_open(diff_out_t *o) {
  if (o->format == REPORT_JSON && !(o->g = out_gen()))
    return -1;
  if (o->format == REPORT_HTML && diff_html_open(o) < 0)
    return -1;
  return 0;
}

void diff_out_free(diff_out_t *o) {
  if (o->g)
    yajl_gen_free(o->g);
  o->g = NULL;
  diff_html_free(o);
}

static void parts(yajl_gen g, int64_t total, const int64_t *part) {
  int p;
  out_int(g, "total_ns", total);
  for (p = 0; p < IPS_DIFF_NPARTS; p++)
    out_int(g, part_keys[p], part[p]);
}

/* "ratio": a / b to 4 decimals (1 when b is 0). */
static void ratio(yajl_gen g, int64_t a, int64_t b) {
  char t[48];
  int n = snprintf(t, sizeof t, "%.4f", b > 0 ? (double)a / (double)b : 1.0);
  out_str(g, "ratio");
  yajl_gen_number(g, t, (size_t)n);
}

static void side(diff_out_t *o, size_t i, const ips_diff_delivery_t *x) {
  const ips_diff_side_t *s = &x->side[i];
  yajl_gen g = o->g;
  yajl_gen_map_open(g);
  out_kv(g, "name", ips_diff_node(o->d, i)->name);
  out_int(g, "line", s->line);
  if (s->crank >= 0)
    out_int(g, "crank", s->crank);
  if (s->has_block)
    out_int(g, "block", s->block);
  if (s->has_compute)
    out_int(g, "compute", s->compute);
  out_kv(g, "method", s->method);
  out_str(g, "ok");
  yajl_gen_bool(g, s->ok);
  parts(g, s->total, s->part);
  ratio(g, s->total, x->side[x->fastest].total);
  diff_os_side_json(g, s);
  yajl_gen_map_close(g);
}

static void delivery(diff_out_t *o, const ips_diff_delivery_t *x) {
  yajl_gen g = o->g;
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  yajl_gen_map_open(g);
  out_kv(g, "vat", x->vat);
  out_int(g, "deliveryNum", x->dnum);
  if (x->replay) {
    out_str(g, "replay");
    yajl_gen_bool(g, 1);
  } else {
    out_int(g, "crank", x->crank);
  }
  if (x->has_block)
    out_int(g, "block", x->block);
  out_kv(g, "method", x->method);
  out_str(g, "divergence");
  yajl_gen_array_open(g);
  if (x->diverged & IPS_DIFF_DIV_COMPUTE)
    out_str(g, "compute");
  if (x->diverged & IPS_DIFF_DIV_METHOD)
    out_str(g, "method");
  yajl_gen_array_close(g);
  if (x->crank_differs) {
    out_str(g, "crank_differs");
    yajl_gen_bool(g, 1);
  }
  if (x->n_present > 1) {
    out_kv(g, "fastest", ips_diff_node(o->d, x->fastest)->name);
    out_kv(g, "slowest", ips_diff_node(o->d, x->slowest)->name);
    out_kv(g, "part", ips_diff_part_name(x->part));
    diff_os_delivery_json(g, x);
  }
  out_str(g, "nodes");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++)
    if (x->side[i].present)
      side(o, i, x);
  yajl_gen_array_close(g);
  out_str(g, "missing");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++)
    if (!x->side[i].present)
      out_str(g, ips_diff_node(o->d, i)->name);
  yajl_gen_array_close(g);
  yajl_gen_map_close(g);
}

void diff_delivery_json(diff_out_t *o, const ips_diff_delivery_t *x) {
  delivery(o, x);
  out_flush(o->g, o->out, 1);
}

static void node(diff_out_t *o, size_t i, int64_t fast) {
  const ips_diff_node_t *n = ips_diff_node(o->d, i);
  yajl_gen g = o->g;
  int p;
  yajl_gen_map_open(g);
  out_kv(g, "name", n->name);
  out_kv(g, "path", n->path);
  out_int(g, "lines", (long long)n->stats->lines);
  out_int(g, "skipped", (long long)(n->stats->skipped_lines +
                               n->stats->skipped_deliveries));
  out_int(g, "deliveries", (long long)n->deliveries);
  out_int(g, "common", (long long)n->common);
  out_int(g, "only_here", (long long)n->only_here);
  out_int(g, "missing", (long long)n->missing);
  out_int(g, "slowest", (long long)n->slowest);
  parts(g, n->total, n->part);
  ratio(g, n->total, fast);
  out_str(g, "over_fastest");
  yajl_gen_map_open(g);
  out_int(g, "total_ns", n->over);
  for (p = 0; p < IPS_DIFF_NPARTS; p++)
    out_int(g, part_keys[p], n->over_part[p]);
  yajl_gen_map_close(g);
  out_kv(g, "part", n->over > 0 ? ips_diff_part_name(n->part_max) : "");
  if (n->beyond_ns > 0) { /* where it is slow beyond its own ratio */
    char t[48];
    int k;
    out_str(g, "beyond");
    yajl_gen_map_open(g);
    out_kv(g, "vat", n->beyond_vat);
    out_kv(g, "method", n->beyond_method);
    out_int(g, "lost_ns", n->beyond_ns);
    k = snprintf(t, sizeof t, "%.4f", n->beyond_ratio);
    out_str(g, "ratio");
    yajl_gen_number(g, t, (size_t)k);
    k = snprintf(t, sizeof t, "%.4f", n->beyond_factor);
    out_str(g, "factor");
    yajl_gen_number(g, t, (size_t)k);
    out_kv(g, "part", ips_diff_part_name(n->beyond_part));
    yajl_gen_map_close(g);
  }
  if (o->os)
    diff_os_node_json(g, n);
  yajl_gen_map_close(g);
}

/* A row of sums, one per node: {"name", total_ns, pipe_ns, ...}. */
static void sums(diff_out_t *o, const int64_t *total,
                 int64_t (*part)[IPS_DIFF_NPARTS], size_t slowest,
                 size_t fastest, int part_max) {
  yajl_gen g = o->g;
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  out_kv(g, "fastest", ips_diff_node(o->d, fastest)->name);
  out_kv(g, "slowest", ips_diff_node(o->d, slowest)->name);
  ratio(g, total[slowest], total[fastest]);
  out_kv(g, "part", ips_diff_part_name(part_max));
  out_str(g, "nodes");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++) {
    yajl_gen_map_open(g);
    out_kv(g, "name", ips_diff_node(o->d, i)->name);
    parts(g, total[i], part[i]);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
}

static void groups(diff_out_t *o) {
  yajl_gen g = o->g;
  size_t i, n = ips_diff_ngroups(o->d);
  out_str(g, "groups");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++) {
    const ips_diff_group_t *x = ips_diff_group(o->d, i);
    yajl_gen_map_open(g);
    out_kv(g, "vat", x->vat);
    out_kv(g, "method", x->method);
    out_int(g, "deliveries", (long long)x->n);
    sums(o, x->total, (int64_t(*)[IPS_DIFF_NPARTS])x->part, x->slowest,
         x->fastest, x->part_max);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  out_int(g, "groups_over", (long long)ips_diff_groups_over(o->d));
}

static void blocks(diff_out_t *o) {
  yajl_gen g = o->g;
  const ips_diff_block_t *b;
  size_t i, k = ips_diff_blocks_spread(o->d, &b);
  out_str(g, "blocks_spread");
  yajl_gen_array_open(g);
  for (i = 0; i < k; i++) {
    yajl_gen_map_open(g);
    out_int(g, "block", b[i].height);
    out_int(g, "deliveries", (long long)b[i].n);
    sums(o, b[i].total, (int64_t(*)[IPS_DIFF_NPARTS])b[i].part, b[i].slowest,
         b[i].fastest, b[i].part_max);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
}

static void list(diff_out_t *o, const char *key, const ips_diff_delivery_t *x,
                 size_t k) {
  size_t i;
  out_str(o->g, key);
  yajl_gen_array_open(o->g);
  for (i = 0; i < k; i++)
    delivery(o, &x[i]);
  yajl_gen_array_close(o->g);
}

static void counts(diff_out_t *o) {
  const ips_diff_stats_t *st = ips_diff_stats(o->d);
  yajl_gen g = o->g;
  out_int(g, "joined", (long long)st->joined);
  out_int(g, "common", (long long)st->common);
  out_int(g, "partial", (long long)st->partial);
  out_int(g, "single", (long long)st->single);
  out_int(g, "divergences", (long long)st->divergences);
  out_int(g, "crank_differs", (long long)st->crank_differs);
  out_int(g, "window_full", (long long)st->window_full);
  out_int(g, "blocks", (long long)st->blocks);
}

void diff_summary_json(diff_out_t *o) {
  const ips_diff_stats_t *st = ips_diff_stats(o->d);
  const ips_diff_delivery_t *x;
  yajl_gen g = o->g;
  int64_t fast = INT64_MAX;
  size_t i, k;
  for (i = 0; i < st->n_nodes; i++)
    if (ips_diff_node(o->d, i)->total < fast)
      fast = ips_diff_node(o->d, i)->total;
  yajl_gen_map_open(g);
  out_kv(g, "type", "diff-summary");
  k = ips_diff_divergences(o->d, &x);
  list(o, "divergence_list", x, k);
  counts(o);
  out_str(g, "files");
  yajl_gen_array_open(g);
  for (i = 0; i < st->n_nodes; i++)
    node(o, i, fast);
  yajl_gen_array_close(g);
  groups(o);
  blocks(o);
  k = ips_diff_spread(o->d, &x);
  list(o, "spread", x, k);
  out_str(g, "slowest_by_node");
  yajl_gen_map_open(g);
  for (i = 0; i < st->n_nodes; i++) {
    k = ips_diff_node_slowest(o->d, i, &x);
    list(o, ips_diff_node(o->d, i)->name, x, k);
  }
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  out_flush(g, o->out, 1);
}
