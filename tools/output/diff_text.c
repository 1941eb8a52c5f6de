/* diff_text.c — `ipcstamp diff` as text: the divergences first, then who
 * was slow and where (docs/diff.md shows an example). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

static const char *name_of(const diff_out_t *o, size_t i) {
  return ips_diff_node(o->d, i)->name;
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

static double ratio(int64_t a, int64_t b) {
  return b > 0 ? (double)a / (double)b : a > 0 ? 99999.0 : 1.0;
}

/* "v9 #12 (crank 345, block 7) work" */
static void key_text(FILE *f, const ips_diff_delivery_t *x) {
  fprintf(f, "%s #%lld", x->vat, x->dnum);
  if (x->replay)
    fputs(" (replay", f);
  else
    fprintf(f, " (crank %lld", x->crank);
  if (x->has_block)
    fprintf(f, ", block %lld", x->block);
  fprintf(f, ") %s", x->method);
}

void diff_delivery_text(diff_out_t *o, const ips_diff_delivery_t *x) {
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  FILE *f = o->out;
  key_text(f, x);
  for (i = 0; i < n; i++) {
    if (x->side[i].present)
      fprintf(f, "  %s %.3f", name_of(o, i), ms(x->side[i].total));
    else
      fprintf(f, "  %s -", name_of(o, i));
  }
  if (x->n_present > 1)
    fprintf(f, "  slowest %s %.2fx (%s)", name_of(o, x->slowest),
            ratio(x->side[x->slowest].total, x->side[x->fastest].total),
            ips_diff_part_name(x->part));
  diff_os_delivery_text(f, x);
  if (x->diverged)
    fputs("  DIVERGENCE", f);
  fputc('\n', f);
}

static void divergence(diff_out_t *o, const ips_diff_delivery_t *x) {
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  FILE *f = o->out;
  fputs("  ", f);
  key_text(f, x);
  fprintf(f, ": %s%s%s differ\n",
          x->diverged & IPS_DIFF_DIV_COMPUTE ? "computrons" : "",
          x->diverged == (IPS_DIFF_DIV_COMPUTE | IPS_DIFF_DIV_METHOD)
              ? " and " : "",
          x->diverged & IPS_DIFF_DIV_METHOD ? "method" : "");
  for (i = 0; i < n; i++) {
    const ips_diff_side_t *s = &x->side[i];
    if (!s->present)
      continue;
    fprintf(f, "    %-12s ", name_of(o, i));
    if (s->has_compute)
      fprintf(f, "computrons %-12lld", s->compute);
    else
      fprintf(f, "computrons %-12s", "-");
    fprintf(f, " %-20s %s:%ld\n", s->method, ips_diff_node(o->d, i)->path,
            s->line);
  }
}

static void divergences(diff_out_t *o) {
  const ips_diff_stats_t *st = ips_diff_stats(o->d);
  const ips_diff_delivery_t *x;
  size_t i, k = ips_diff_divergences(o->d, &x);
  if (!st->divergences)
    return;
  fprintf(o->out, "DIVERGENCE: %" PRIu64 " deliveries differ between the "
                  "nodes (a consensus danger)%s\n", st->divergences,
          k < st->divergences ? "; the first:" : ":");
  for (i = 0; i < k; i++)
    divergence(o, &x[i]);
  fputc('\n', o->out);
}

static void files(diff_out_t *o) {
  const ips_diff_stats_t *st = ips_diff_stats(o->d);
  size_t i;
  fprintf(o->out, "%" PRIu64 " deliveries: %" PRIu64 " on every node, %"
          PRIu64 " on some, %" PRIu64 " on one only", st->joined, st->common,
          st->partial, st->single);
  if (st->crank_differs)
    fprintf(o->out, "; %" PRIu64 " at different cranks", st->crank_differs);
  if (st->window_full)
    fprintf(o->out, "; %" PRIu64 " left the window before every file "
            "reached them (--window)", st->window_full);
  fprintf(o->out, "\n\n%-12s %10s %10s %10s %10s %8s  %s\n", "node", "lines",
          "deliveries", "only-here", "missing", "skipped", "file");
  for (i = 0; i < st->n_nodes; i++) {
    const ips_diff_node_t *n = ips_diff_node(o->d, i);
    fprintf(o->out, "%-12s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10"
            PRIu64 " %8" PRIu64 "  %s\n", n->name, n->stats->lines,
            n->deliveries, n->only_here, n->missing,
            n->stats->skipped_lines + n->stats->skipped_deliveries, n->path);
  }
}

static void nodes(diff_out_t *o) {
  const ips_diff_stats_t *st = ips_diff_stats(o->d);
  int64_t fast = INT64_MAX;
  size_t i;
  for (i = 0; i < st->n_nodes; i++)
    if (ips_diff_node(o->d, i)->total < fast)
      fast = ips_diff_node(o->d, i)->total;
  fprintf(o->out, "\nPer node, over the %" PRIu64 " deliveries every node "
          "has (ms):\n%-12s %10s %10s %10s %10s %7s %8s %10s  %s\n",
          st->common, "node", "total", "pipe", "worker", "kernel", "ratio",
          "slowest", "over", "lost most in");
  for (i = 0; i < st->n_nodes; i++) {
    const ips_diff_node_t *n = ips_diff_node(o->d, i);
    fprintf(o->out, "%-12s %10.3f %10.3f %10.3f %10.3f %6.2fx %8" PRIu64
            " %10.3f  %s\n", n->name, ms(n->total), ms(n->part[IPS_DIFF_PIPE]),
            ms(n->part[IPS_DIFF_WORKER]), ms(n->part[IPS_DIFF_KERNEL]),
            ratio(n->total, fast), n->slowest, ms(n->over),
            n->over > 0 ? ips_diff_part_name(n->part_max) : "-");
  }
}

/* Each node's group where it is slow beyond its own ratio. */
static void beyond(diff_out_t *o) {
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  int any = 0;
  for (i = 0; i < n; i++) {
    const ips_diff_node_t *nd = ips_diff_node(o->d, i);
    if (nd->beyond_ns <= 0)
      continue;
    if (!any++)
      fputs("\nWhere each node is slow beyond its own ratio (a cause of its "
            "own):\n", o->out);
    fprintf(o->out, "  %-12s %s %s: %.3f ms lost beyond its ratio over all; "
            "%.2fx the fastest there, %.2fx its ratio; %s\n", nd->name,
            nd->beyond_vat, nd->beyond_method, ms(nd->beyond_ns),
            nd->beyond_ratio, nd->beyond_factor,
            ips_diff_part_name(nd->beyond_part));
  }
}

static void totals_row(diff_out_t *o, const int64_t *total, size_t slowest,
                       size_t fastest, int part) {
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  for (i = 0; i < n; i++)
    fprintf(o->out, " %10.3f", ms(total[i]));
  fprintf(o->out, "  %s %.2fx %s\n", name_of(o, slowest),
          ratio(total[slowest], total[fastest]), ips_diff_part_name(part));
}

static void header_nodes(diff_out_t *o, const char *first) {
  size_t i, n = ips_diff_stats(o->d)->n_nodes;
  fputs(first, o->out);
  for (i = 0; i < n; i++)
    fprintf(o->out, " %10.10s", name_of(o, i));
  fputs("  slowest, ratio, part\n", o->out);
}

static void groups(diff_out_t *o, size_t top) {
  size_t i, n = ips_diff_ngroups(o->d);
  if (!n)
    return;
  fputs("\nPer vat and method, busiest first (total ms):\n", o->out);
  header_nodes(o, "vat      method                   deliveries");
  for (i = 0; i < n && i < top; i++) {
    const ips_diff_group_t *g = ips_diff_group(o->d, i);
    fprintf(o->out, "%-8s %-24.24s %10" PRIu64, g->vat, g->method, g->n);
    totals_row(o, g->total, g->slowest, g->fastest, g->part_max);
  }
  if (n > top)
    fprintf(o->out, "(%zu more: --top)\n", n - top);
}

static void blocks(diff_out_t *o) {
  const ips_diff_block_t *b;
  size_t i, k = ips_diff_blocks_spread(o->d, &b);
  if (!k)
    return;
  fprintf(o->out, "\nBlocks where the nodes differ most, of %" PRIu64
          " (total ms of the deliveries every node has):\n",
          ips_diff_stats(o->d)->blocks);
  header_nodes(o, "block      deliveries");
  for (i = 0; i < k; i++) {
    fprintf(o->out, "%-10lld %10" PRIu64, b[i].height, b[i].n);
    totals_row(o, b[i].total, b[i].slowest, b[i].fastest, b[i].part_max);
  }
}

static void delivery_list(diff_out_t *o, const ips_diff_delivery_t *x,
                          size_t k) {
  size_t i;
  for (i = 0; i < k; i++) {
    fputs("  ", o->out);
    diff_delivery_text(o, &x[i]);
  }
}

static void slowest(diff_out_t *o) {
  const ips_diff_delivery_t *x;
  size_t i, n = ips_diff_stats(o->d)->n_nodes, k = ips_diff_spread(o->d, &x);
  if (k) {
    fputs("\nLargest differences (ms), slowest node, ratio to the fastest, "
          "the part that made it:\n", o->out);
    delivery_list(o, x, k);
  }
  for (i = 0; i < n; i++) {
    if (!(k = ips_diff_node_slowest(o->d, i, &x)))
      continue;
    fprintf(o->out, "\nWhere %s was slowest by most:\n", name_of(o, i));
    delivery_list(o, x, k);
  }
}

void diff_summary_text(diff_out_t *o) {
  divergences(o);
  files(o);
  nodes(o);
  if (o->os)
    diff_os_summary_text(o);
  beyond(o);
  groups(o, 20);
  blocks(o);
  slowest(o);
}
