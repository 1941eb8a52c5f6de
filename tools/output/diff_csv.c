/* diff_csv.c — `ipcstamp diff --format csv`: one row per joined delivery,
 * in the order the join hands them out; per node its figures under
 * NAME_total_ns, NAME_pipe_ns, ... (empty where the node lacks it). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "output.h"

static const char *const part_cols[IPS_DIFF_NPARTS] = {
    "pipe_ns", "worker_ns", "kernel_ns", "unmatched_ns"};

/* ,"NAME_suffix": a node's column (a name comes from the user). */
static void col(FILE *f, const char *name, const char *suffix) {
  fputc(',', f);
  out_csv_column(f, name, suffix);
}

static void header(diff_out_t *o) {
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  int p;
  fputs("vat,deliveryNum,crank,block,method,divergence,nodes,slowest,"
        "fastest,ratio,part", o->out);
  for (i = 0; i < n; i++) {
    const char *name = ips_diff_node(o->d, i)->name;
    col(o->out, name, "total_ns");
    for (p = 0; p < IPS_DIFF_NPARTS; p++)
      col(o->out, name, part_cols[p]);
    col(o->out, name, "compute");
    col(o->out, name, "line");
    if (o->os)
      diff_os_csv_header(o->out, name);
  }
  if (o->os)
    fputs(",os_part,os_part_ns", o->out);
  fputc('\n', o->out);
  o->csv_header = 1;
}

static void side(FILE *f, const ips_diff_side_t *s) {
  int p;
  if (!s->present) {
    fputs(",,,,,,,", f);
    return;
  }
  fprintf(f, ",%" PRId64, s->total);
  for (p = 0; p < IPS_DIFF_NPARTS; p++)
    fprintf(f, ",%" PRId64, s->part[p]);
  fputc(',', f);
  if (s->has_compute)
    fprintf(f, "%lld", s->compute);
  fprintf(f, ",%ld", s->line);
}

void diff_delivery_csv(diff_out_t *o, const ips_diff_delivery_t *x) {
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  FILE *f = o->out;
  if (!o->csv_header)
    header(o);
  out_csv_text(f, x->vat);
  fprintf(f, ",%lld,", x->dnum);
  if (!x->replay) /* empty: a replay has no crank */
    fprintf(f, "%lld", x->crank);
  fputc(',', f);
  if (x->has_block)
    fprintf(f, "%lld", x->block);
  fputc(',', f);
  out_csv_text(f, x->method);
  fprintf(f, ",%s%s%s,%zu,",
          x->diverged & IPS_DIFF_DIV_COMPUTE ? "compute" : "",
          x->diverged == (IPS_DIFF_DIV_COMPUTE | IPS_DIFF_DIV_METHOD) ? "+" : "",
          x->diverged & IPS_DIFF_DIV_METHOD ? "method" : "", x->n_present);
  if (x->n_present > 1) {
    const ips_diff_side_t *s = &x->side[x->slowest], *q = &x->side[x->fastest];
    out_csv_text(f, ips_diff_node(o->d, x->slowest)->name);
    fputc(',', f);
    out_csv_text(f, ips_diff_node(o->d, x->fastest)->name);
    fprintf(f, ",%.4f,%s", q->total > 0 ? (double)s->total / (double)q->total
                                        : 1.0, ips_diff_part_name(x->part));
  } else {
    fputs(",,,", f);
  }
  for (i = 0; i < n; i++) {
    side(f, &x->side[i]);
    if (o->os)
      diff_os_csv_side(f, &x->side[i]);
  }
  if (o->os && x->os_part >= 0)
    fprintf(f, ",%s,%" PRId64, ips_diff_os_part_name(x->os_part),
            x->os_part_ns);
  else if (o->os)
    fputs(",,", f);
  fputc('\n', f);
}
