/* diff_json.c — `ipcstamp diff` as JSON lines: with --deliveries one
 * object per joined delivery, then one summary object (docs/diff.md).
 * Each node's figures carry the report's names (total_ns, pipe_ns,
 * worker_ns, kernel_ns, unmatched_ns, line, crank). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define gs out_str
#define gi out_int
#define gkv out_kv

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
  gi(g, "total_ns", total);
  for (p = 0; p < IPS_DIFF_NPARTS; p++)
    gi(g, part_keys[p], part[p]);
}

/* "ratio": a / b to 4 decimals (1 when b is 0). */
static void ratio(yajl_gen g, int64_t a, int64_t b) {
  char t[48];
  int n = snprintf(t, sizeof t, "%.4f", b > 0 ? (double)a / (double)b : 1.0);
  gs(g, "ratio");
  yajl_gen_number(g, t, (size_t)n);
}

static void side(diff_out_t *o, size_t i, const ips_diff_delivery_t *x) {
  const ips_diff_side_t *s = &x->side[i];
  yajl_gen g = o->g;
  yajl_gen_map_open(g);
  gkv(g, "name", ips_diff_node(o->d, i)->name);
  gi(g, "line", s->line);
  if (s->crank >= 0)
    gi(g, "crank", s->crank);
  if (s->has_block)
    gi(g, "block", s->block);
  if (s->has_compute)
    gi(g, "compute", s->compute);
  gkv(g, "method", s->method);
  gs(g, "ok");
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
  gkv(g, "vat", x->vat);
  gi(g, "deliveryNum", x->dnum);
  if (x->replay) {
    gs(g, "replay");
    yajl_gen_bool(g, 1);
  } else {
    gi(g, "crank", x->crank);
  }
  if (x->has_block)
    gi(g, "block", x->block);
  gkv(g, "method", x->method);
  gs(g, "divergence");
  yajl_gen_array_open(g);
  if (x->diverged & IPS_DIFF_DIV_COMPUTE)
    gs(g, "compute");
  if (x->diverged & IPS_DIFF_DIV_METHOD)
    gs(g, "method");
  yajl_gen_array_close(g);
  if (x->crank_differs) {
    gs(g, "crank_differs");
    yajl_gen_bool(g, 1);
  }
  if (x->n_present > 1) {
    gkv(g, "fastest", ips_diff_node(o->d, x->fastest)->name);
    gkv(g, "slowest", ips_diff_node(o->d, x->slowest)->name);
    gkv(g, "part", ips_diff_part_name(x->part));
    diff_os_delivery_json(g, x);
  }
  gs(g, "nodes");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++)
    if (x->side[i].present)
      side(o, i, x);
  yajl_gen_array_close(g);
  gs(g, "missing");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++)
    if (!x->side[i].present)
      gs(g, ips_diff_node(o->d, i)->name);
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
  gkv(g, "name", n->name);
  gkv(g, "path", n->path);
  gi(g, "lines", (long long)n->stats->lines);
  gi(g, "skipped", (long long)(n->stats->skipped_lines +
                               n->stats->skipped_deliveries));
  gi(g, "deliveries", (long long)n->deliveries);
  gi(g, "common", (long long)n->common);
  gi(g, "only_here", (long long)n->only_here);
  gi(g, "missing", (long long)n->missing);
  gi(g, "slowest", (long long)n->slowest);
  parts(g, n->total, n->part);
  ratio(g, n->total, fast);
  gs(g, "over_fastest");
  yajl_gen_map_open(g);
  gi(g, "total_ns", n->over);
  for (p = 0; p < IPS_DIFF_NPARTS; p++)
    gi(g, part_keys[p], n->over_part[p]);
  yajl_gen_map_close(g);
  gkv(g, "part", n->over > 0 ? ips_diff_part_name(n->part_max) : "");
  if (n->beyond_ns > 0) { /* where it is slow beyond its own ratio */
    char t[48];
    int k;
    gs(g, "beyond");
    yajl_gen_map_open(g);
    gkv(g, "vat", n->beyond_vat);
    gkv(g, "method", n->beyond_method);
    gi(g, "lost_ns", n->beyond_ns);
    k = snprintf(t, sizeof t, "%.4f", n->beyond_ratio);
    gs(g, "ratio");
    yajl_gen_number(g, t, (size_t)k);
    k = snprintf(t, sizeof t, "%.4f", n->beyond_factor);
    gs(g, "factor");
    yajl_gen_number(g, t, (size_t)k);
    gkv(g, "part", ips_diff_part_name(n->beyond_part));
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
  gkv(g, "fastest", ips_diff_node(o->d, fastest)->name);
  gkv(g, "slowest", ips_diff_node(o->d, slowest)->name);
  ratio(g, total[slowest], total[fastest]);
  gkv(g, "part", ips_diff_part_name(part_max));
  gs(g, "nodes");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++) {
    yajl_gen_map_open(g);
    gkv(g, "name", ips_diff_node(o->d, i)->name);
    parts(g, total[i], part[i]);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
}

static void groups(diff_out_t *o) {
  yajl_gen g = o->g;
  size_t i, n = ips_diff_ngroups(o->d);
  gs(g, "groups");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++) {
    const ips_diff_group_t *x = ips_diff_group(o->d, i);
    yajl_gen_map_open(g);
    gkv(g, "vat", x->vat);
    gkv(g, "method", x->method);
    gi(g, "deliveries", (long long)x->n);
    sums(o, x->total, (int64_t(*)[IPS_DIFF_NPARTS])x->part, x->slowest,
         x->fastest, x->part_max);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  gi(g, "groups_over", (long long)ips_diff_groups_over(o->d));
}

static void blocks(diff_out_t *o) {
  yajl_gen g = o->g;
  const ips_diff_block_t *b;
  size_t i, k = ips_diff_blocks_spread(o->d, &b);
  gs(g, "blocks_spread");
  yajl_gen_array_open(g);
  for (i = 0; i < k; i++) {
    yajl_gen_map_open(g);
    gi(g, "block", b[i].height);
    gi(g, "deliveries", (long long)b[i].n);
    sums(o, b[i].total, (int64_t(*)[IPS_DIFF_NPARTS])b[i].part, b[i].slowest,
         b[i].fastest, b[i].part_max);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
}

static void list(diff_out_t *o, const char *key, const ips_diff_delivery_t *x,
                 size_t k) {
  size_t i;
  gs(o->g, key);
  yajl_gen_array_open(o->g);
  for (i = 0; i < k; i++)
    delivery(o, &x[i]);
  yajl_gen_array_close(o->g);
}

static void counts(diff_out_t *o) {
  const ips_diff_stats_t *st = ips_diff_stats(o->d);
  yajl_gen g = o->g;
  gi(g, "joined", (long long)st->joined);
  gi(g, "common", (long long)st->common);
  gi(g, "partial", (long long)st->partial);
  gi(g, "single", (long long)st->single);
  gi(g, "divergences", (long long)st->divergences);
  gi(g, "crank_differs", (long long)st->crank_differs);
  gi(g, "window_full", (long long)st->window_full);
  gi(g, "blocks", (long long)st->blocks);
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
  gkv(g, "type", "diff-summary");
  k = ips_diff_divergences(o->d, &x);
  list(o, "divergence_list", x, k);
  counts(o);
  gs(g, "files");
  yajl_gen_array_open(g);
  for (i = 0; i < st->n_nodes; i++)
    node(o, i, fast);
  yajl_gen_array_close(g);
  groups(o);
  blocks(o);
  k = ips_diff_spread(o->d, &x);
  list(o, "spread", x, k);
  gs(g, "slowest_by_node");
  yajl_gen_map_open(g);
  for (i = 0; i < st->n_nodes; i++) {
    k = ips_diff_node_slowest(o->d, i, &x);
    list(o, ips_diff_node(o->d, i)->name, x, k);
  }
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  out_flush(g, o->out, 1);
}
