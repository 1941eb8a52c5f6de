/* blocks.c — `ipcstamp blocks`: one row per block of a chain node, then a
 * summary (docs/blocks.md).  Text, JSON lines and CSV. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

const char *const blocks_part_names[BLK_PARTS] = {
    "block", "lag", "swingset", "deliveries", "pipe", "worker", "kernel",
    "unmatched", "snap_save", "snap_load", "kernel_own", "commit"};

/* Its deliveries' time: the sum of their parts (held at the bound, which
 * the block's own count of saturated sums already says). */
int64_t blocks_deliveries(const ips_block_t *b) {
  int64_t v = b->pipe;
  ips_sum_add(&v, b->worker);
  ips_sum_add(&v, b->kernel);
  ips_sum_add(&v, b->unmatched);
  return v;
}

/* A block's figure for part i, and whether it has one. */
static int part(const ips_block_t *b, int i, int64_t *v) {
  switch (i) {
    case BLK_BLOCK: *v = b->block_ns; return b->has_prev;
    case BLK_LAG: *v = b->lag_ns; return !b->bootstrap;
    case BLK_SWINGSET: *v = b->swingset_ns; return 1;
    case BLK_DELIVERIES: *v = blocks_deliveries(b); return 1;
    case BLK_PIPE: *v = b->pipe; return 1;
    case BLK_WORKER: *v = b->worker; return 1;
    case BLK_KERNEL: *v = b->kernel; return 1;
    case BLK_UNMATCHED: *v = b->unmatched; return 1;
    case BLK_SAVE: *v = b->snap_save; return 1;
    case BLK_LOAD: *v = b->snap_load; return 1;
    case BLK_OWN: *v = b->kernel_own; return 1;
    default: *v = b->commit_ns; return b->has_commit;
  }
}

int blocks_part(const blocks_out_t *o, int i, int64_t v[BLK_FIGURES]) {
  static const double pct[] = {50, 90, 99};
  int j;
  if (!o->h[i]->count)
    return 0;
  for (j = 0; j < 3; j++)
    v[j] = ips_hist_percentile(o->h[i], pct[j]);
  v[3] = o->h[i]->max;
  v[4] = o->sum[i];
  return 1;
}

int blocks_out_init(blocks_out_t *o, size_t top) {
  int i;
  o->top = top;
  o->slow = top ? calloc(top, sizeof *o->slow) : NULL;
  o->kept = top ? calloc(top, sizeof *o->kept) : NULL;
  o->order = top ? calloc(top, sizeof *o->order) : NULL;
  if (ips_slowest_init(&o->keeper, top) != 0 ||
      (top && (!o->slow || !o->kept || !o->order))) {
    blocks_out_free(o);
    return -1;
  }
  for (i = 0; i < BLK_PARTS; i++) {
    if (!(o->h[i] = malloc(sizeof *o->h[i]))) {
      blocks_out_free(o);
      return -1;
    }
    ips_hist_init(o->h[i]);
  }
  return 0;
}

void blocks_out_free(blocks_out_t *o) {
  int i;
  for (i = 0; i < BLK_PARTS; i++) {
    free(o->h[i]);
    o->h[i] = NULL;
  }
  free(o->slow);
  free(o->kept);
  free(o->order);
  o->slow = o->kept = NULL;
  o->order = NULL;
  ips_slowest_free(&o->keeper);
}

/* Among the slowest by swingset time (the analysis's keeper: ties keep
 * the earlier block), and then slow[] in their order again: blocks are
 * few, and a block displaces one rarely once the list is full. */
static void keep_slow(blocks_out_t *o, const ips_block_t *b) {
  size_t i;
  long slot = ips_slowest_slot(&o->keeper, b->swingset_ns, o->n);
  if (slot < 0)
    return;
  o->kept[slot] = *b;
  ips_slowest_order(&o->keeper, o->order);
  for (i = 0; i < o->keeper.n; i++)
    o->slow[i] = o->kept[o->order[i]];
  o->nslow = o->keeper.n;
}

/* The summary's figures: the bootstrap block is counted apart (it is the
 * chain's first run, not a block like the others). */
void blocks_add(blocks_out_t *o, const ips_block_t *b) {
  size_t i;
  int64_t v;
  int64_t c;
  int first = o->after_boot;
  o->saturated += b->saturated;
  if (b->bootstrap) {
    o->n_boot++;
    o->saturated += (uint64_t)ips_sum_add(&o->boot_ns, b->swingset_ns);
    o->after_boot = 1;
    return;
  }
  o->after_boot = 0;
  o->n++;
  o->n_del += b->n_deliveries;
  o->n_skip += b->n_skipped;
  c = o->computrons;
  o->saturated += (uint64_t)ips_sum_add(&c, b->computrons);
  o->computrons = c;
  o->n_save += b->n_save;
  o->n_load += b->n_load;
  for (i = 0; i < BLK_PARTS; i++)
    if (part(b, (int)i, &v)) {
      if (i == BLK_LAG && first) {
        o->has_first_lag = 1;
        o->first_lag_ns = v;
        continue;
      }
      ips_hist_add(o->h[i], v);
      o->saturated += (uint64_t)ips_sum_add(&o->sum[i], v);
    }
  keep_slow(o, b);
}

const char *blocks_ms(char *buf, int64_t ns) {
  int neg = ns < 0;
  uint64_t a = neg ? 0 - (uint64_t)ns : (uint64_t)ns;
  snprintf(buf, IPS_US_BUF, "%s%" PRIu64 ".%03" PRIu64, neg ? "-" : "",
           a / 1000000, (a / 1000) % 1000);
  return buf;
}

static const char *height(char *buf, const ips_block_t *b) {
  if (b->bootstrap)
    snprintf(buf, 24, "boot");
  else
    snprintf(buf, 24, "%lld", b->height);
  return buf;
}

void blocks_header_text(blocks_out_t *o) {
  fprintf(o->out,
          "%-8s %10s %9s %11s %11s %10s %10s %10s %10s %10s %10s %9s %5s %11s  %s\n",
          "height", "block", "lag", "swingset", "deliveries", "pipe",
          "worker", "kernel", "snap save", "snap load", "kernel own",
          "commit", "dlv", "computrons", "busiest vat; longest delivery");
  fprintf(o->out, "%-8s %10s %9s %11s (ms; swingset = deliveries + snap save + snap load + kernel own;"
                  " deliveries = pipe + worker + kernel%s)\n",
          "", "(ms)", "(s)", "(ms)", "");
}

void blocks_row_text(blocks_out_t *o, const ips_block_t *b) {
  char h[24], x[13][IPS_US_BUF];
  int64_t del = blocks_deliveries(b);
  fprintf(o->out,
          "%-8s %10s %9s %11s %11s %10s %10s %10s %10s %10s %10s %9s %5" PRIu64
          " %11lld  %s",
          height(h, b), b->has_prev ? blocks_ms(x[0], b->block_ns) : "-",
          b->bootstrap ? "-" : blocks_ms(x[1], b->lag_ns / 1000), blocks_ms(x[2], b->swingset_ns),
          blocks_ms(x[3], del), blocks_ms(x[4], b->pipe), blocks_ms(x[5], b->worker),
          blocks_ms(x[6], b->kernel), blocks_ms(x[7], b->snap_save), blocks_ms(x[8], b->snap_load),
          blocks_ms(x[9], b->kernel_own), b->has_commit ? blocks_ms(x[10], b->commit_ns) : "-",
          b->n_deliveries, b->computrons, *b->busy_vat ? b->busy_vat : "-");
  if (*b->dom_vat)
    fprintf(o->out, "; %s #%lld %s %s", b->dom_vat, b->dom_dnum, b->dom_desc,
            blocks_ms(x[11], b->dom_ns));
  if (b->unmatched)
    fprintf(o->out, " (unmatched %s)", blocks_ms(x[12], b->unmatched));
  if (b->n_skipped)
    fprintf(o->out, " (%" PRIu64 " not attributed)", b->n_skipped);
  fputc('\n', o->out);
}

void blocks_row_json(blocks_out_t *o, const ips_block_t *b) {
  yajl_gen g = o->g;
  yajl_gen_map_open(g);
  if (b->bootstrap) {
    out_str(g, "bootstrap");
    yajl_gen_bool(g, 1);
  } else {
    out_int(g, "height", b->height);
  }
  out_int(g, "line", b->line);
  out_kv(g, "clock", b->clock == 'm' ? "mono" : "wall");
  out_int(g, "chain_time", b->chain_time);
  if (b->has_prev) {
    out_int(g, "chain_interval_s", b->chain_interval);
    out_int(g, "block_ns", b->block_ns);
  }
  if (!b->bootstrap) {
    out_int(g, "lag_ns", b->lag_ns);
    out_int(g, "cosmos_ns", b->cosmos_ns);
  }
  out_int(g, "swingset_ns", b->swingset_ns);
  out_int(g, "pipe_ns", b->pipe);
  out_int(g, "worker_ns", b->worker);
  out_int(g, "kernel_ns", b->kernel);
  out_int(g, "unmatched_ns", b->unmatched);
  out_int(g, "snap_save_ns", b->snap_save);
  out_int(g, "snap_load_ns", b->snap_load);
  out_int(g, "kernel_own_ns", b->kernel_own);
  out_int(g, "saves", (long long)b->n_save);
  out_int(g, "loads", (long long)b->n_load);
  out_int(g, "compress_ns", b->compress_ns);
  out_int(g, "db_save_ns", b->dbsave_ns);
  if (b->has_commit)
    out_int(g, "commit_ns", b->commit_ns);
  out_int(g, "deliveries", (long long)b->n_deliveries);
  out_int(g, "not_attributed", (long long)b->n_skipped);
  out_int(g, "computrons", b->computrons);
  if (*b->busy_vat) {
    out_str(g, "busiest");
    yajl_gen_map_open(g);
    out_kv(g, "vat", b->busy_vat);
    out_int(g, "deliveries", (long long)b->busy_n);
    out_int(g, "total_ns", b->busy_ns);
    yajl_gen_map_close(g);
  }
  if (*b->dom_vat) {
    out_str(g, "longest");
    yajl_gen_map_open(g);
    out_kv(g, "vat", b->dom_vat);
    if (b->dom_crank >= 0)
      out_int(g, "crank", b->dom_crank);
    out_int(g, "delivery", b->dom_dnum);
    out_kv(g, "desc", b->dom_desc);
    out_int(g, "total_ns", b->dom_ns);
    out_int(g, "line", b->dom_line);
    yajl_gen_map_close(g);
  }
  if (*b->snap_vat) {
    out_str(g, "snapshots_of");
    yajl_gen_map_open(g);
    out_kv(g, "vat", b->snap_vat);
    out_int(g, "total_ns", b->snap_vat_ns);
    yajl_gen_map_close(g);
  }
  if (o->json_more)
    o->json_more(o->json_more_arg, g, 0);
  yajl_gen_map_close(g);
  out_flush(g, o->out, 1);
}

void blocks_header_csv(blocks_out_t *o) {
  fputs("height,bootstrap,line,clock,chain_time,chain_interval_s,block_ns,"
        "lag_ns,cosmos_ns,swingset_ns,pipe_ns,worker_ns,kernel_ns,"
        "unmatched_ns,snap_save_ns,snap_load_ns,kernel_own_ns,saves,loads,"
        "compress_ns,db_save_ns,commit_ns,deliveries,not_attributed,"
        "computrons,busiest_vat,busiest_ns,longest_vat,longest_delivery,"
        "longest_desc,longest_ns", o->out);
  if (o->csv_more)
    o->csv_more(o->json_more_arg, o->out, 1);
  fputc('\n', o->out);
}

/* A CSV field from the slogfile: quoted, its quotes doubled. */
#define csv_text out_csv_text

void blocks_row_csv(blocks_out_t *o, const ips_block_t *b) {
  FILE *f = o->out;
  if (b->bootstrap)
    fputs(",1,", f);
  else
    fprintf(f, "%lld,0,", b->height);
  fprintf(f, "%ld,%s,%lld,", b->line, b->clock == 'm' ? "mono" : "wall",
          b->chain_time);
  if (b->has_prev)
    fprintf(f, "%lld,%" PRId64 ",", b->chain_interval, b->block_ns);
  else
    fputs(",,", f);
  if (b->bootstrap)
    fputs(",,", f);
  else
    fprintf(f, "%" PRId64 ",%" PRId64 ",", b->lag_ns, b->cosmos_ns);
  fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
             ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64
             ",%" PRId64 ",%" PRId64 ",",
          b->swingset_ns, b->pipe, b->worker, b->kernel, b->unmatched,
          b->snap_save, b->snap_load, b->kernel_own, b->n_save, b->n_load,
          b->compress_ns, b->dbsave_ns);
  if (b->has_commit)
    fprintf(f, "%" PRId64, b->commit_ns);
  fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%lld,", b->n_deliveries, b->n_skipped,
          b->computrons);
  csv_text(f, b->busy_vat);
  fprintf(f, ",%" PRId64 ",", b->busy_ns);
  csv_text(f, b->dom_vat);
  fprintf(f, ",%lld,", b->dom_dnum);
  csv_text(f, b->dom_desc);
  fprintf(f, ",%" PRId64, b->dom_ns);
  if (o->csv_more)
    o->csv_more(o->json_more_arg, f, 0);
  fputc('\n', f);
}

/* Why a block was slow: its parts, largest first, with their share of
 * its swingset time, and what each is made of. */
static void explain(FILE *f, const ips_block_t *b) {
  struct { const char *name; int64_t ns; } p[3] = {
      {"deliveries", blocks_deliveries(b)},
      {"heap snapshots", b->snap_save + b->snap_load},
      {"kernel between deliveries", b->kernel_own}};
  char x[4][IPS_US_BUF];
  int i, j;
  for (i = 1; i < 3; i++)
    for (j = i; j > 0 && p[j].ns > p[j - 1].ns; j--) {
      __typeof__(p[0]) t = p[j];
      p[j] = p[j - 1];
      p[j - 1] = t;
    }
  fprintf(f, "  block %lld (line %ld): swingset %s ms =", b->height, b->line,
          blocks_ms(x[0], b->swingset_ns));
  for (i = 0; i < 3; i++) {
    double share = b->swingset_ns ? 100.0 * (double)p[i].ns / (double)b->swingset_ns : 0;
    fprintf(f, "%s %s %s ms (%.1f%%", i ? "," : "", p[i].name, blocks_ms(x[1], p[i].ns),
            share);
    if (!strcmp(p[i].name, "heap snapshots") && p[i].ns)
      fprintf(f, ": %" PRIu64 " saves %s ms, %" PRIu64 " loads %s ms; most %s %s ms",
              b->n_save, blocks_ms(x[2], b->snap_save), b->n_load,
              blocks_ms(x[3], b->snap_load), b->snap_vat, blocks_ms(x[1], b->snap_vat_ns));
    else if (!strcmp(p[i].name, "deliveries") && b->n_deliveries)
      fprintf(f, ": %" PRIu64 ", longest %s #%lld %s %s ms", b->n_deliveries,
              b->dom_vat, b->dom_dnum, b->dom_desc, blocks_ms(x[2], b->dom_ns));
    else if (!strcmp(p[i].name, "kernel between deliveries") && b->n_skipped)
      fprintf(f, ", with %" PRIu64 " deliveries not attributed", b->n_skipped);
    fputc(')', f);
  }
  fputc('\n', f);
}

void blocks_summary_text(blocks_out_t *o) {
  int64_t v[BLK_FIGURES];
  FILE *f = o->out;
  char x[IPS_US_BUF];
  size_t i, j;
  fprintf(f, "== blocks summary (times in milliseconds)\n");
  fprintf(f, "blocks: %" PRIu64 ", deliveries: %" PRIu64 " attributed, %" PRIu64
             " not attributed, computrons: %lld, heap snapshots: %" PRIu64
             " saves, %" PRIu64 " loads\n",
          o->n, o->n_del, o->n_skip, o->computrons, o->n_save, o->n_load);
  if (o->saturated)
    fprintf(f, "saturated: %" PRIu64 " sums passed the range of 64 bits and "
               "are shown at the bound (the input's times or computrons are "
               "out of any real range)\n", o->saturated);
  if (o->n_boot)
    fprintf(f, "bootstrap block: swingset %s (not in the figures below)\n",
            blocks_ms(x, o->boot_ns));
  if (o->has_first_lag)
    fprintf(f, "first block after bootstrap: lag %s (the time since genesis;"
               " not in the lag figures below)\n",
            blocks_ms(x, o->first_lag_ns));
  if (!o->n)
    return;
  fprintf(f, "%-12s %11s %11s %11s %11s %13s %8s\n", "part", "p50", "p90",
          "p99", "max", "total", "share");
  for (i = 0; i < BLK_PARTS; i++) {
    if (!blocks_part(o, (int)i, v))
      continue;
    fprintf(f, "%-12s", blocks_part_names[i]);
    for (j = 0; j < 4; j++)
      fprintf(f, " %11s", blocks_ms(x, v[j]));
    fprintf(f, " %13s", blocks_ms(x, v[4]));
    if (i >= BLK_DELIVERIES && i <= BLK_OWN && o->sum[BLK_SWINGSET])
      fprintf(f, " %7.1f%%", 100.0 * (double)o->sum[i] / (double)o->sum[BLK_SWINGSET]);
    fputc('\n', f);
  }
  if (o->nslow) {
    fprintf(f, "slowest blocks (by swingset time):\n");
    for (i = 0; i < o->nslow; i++)
      explain(f, &o->slow[i]);
  }
}

void blocks_summary_json(blocks_out_t *o) {
  static const char *const pname[BLK_FIGURES] = {"p50_ns", "p90_ns", "p99_ns",
                                                 "max_ns", "total_ns"};
  int64_t v[BLK_FIGURES];
  yajl_gen g = o->g;
  size_t i, j;
  yajl_gen_map_open(g);
  out_str(g, "summary");
  yajl_gen_map_open(g);
  out_int(g, "blocks", (long long)o->n);
  out_int(g, "bootstrap_blocks", (long long)o->n_boot);
  out_int(g, "bootstrap_swingset_ns", o->boot_ns);
  if (o->has_first_lag)
    out_int(g, "first_block_lag_ns", o->first_lag_ns);
  out_int(g, "deliveries", (long long)o->n_del);
  out_int(g, "not_attributed", (long long)o->n_skip);
  out_int(g, "computrons", o->computrons);
  out_int(g, "saves", (long long)o->n_save);
  out_int(g, "loads", (long long)o->n_load);
  if (o->saturated) /* only then: a real file's summary is as before */
    out_int(g, "saturated", (long long)o->saturated);
  out_str(g, "parts");
  yajl_gen_map_open(g);
  for (i = 0; i < BLK_PARTS; i++) {
    if (!blocks_part(o, (int)i, v))
      continue;
    out_str(g, blocks_part_names[i]);
    yajl_gen_map_open(g);
    out_int(g, "count", (long long)o->h[i]->count);
    for (j = 0; j < BLK_FIGURES; j++)
      out_int(g, pname[j], v[j]);
    yajl_gen_map_close(g);
  }
  yajl_gen_map_close(g);
  out_str(g, "slowest");
  yajl_gen_array_open(g);
  for (i = 0; i < o->nslow; i++) {
    const ips_block_t *b = &o->slow[i];
    yajl_gen_map_open(g);
    out_int(g, "height", b->height);
    out_int(g, "line", b->line);
    out_int(g, "swingset_ns", b->swingset_ns);
    out_int(g, "deliveries_ns", blocks_deliveries(b));
    out_int(g, "snapshots_ns", b->snap_save + b->snap_load);
    out_int(g, "kernel_own_ns", b->kernel_own);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  if (o->json_more)
    o->json_more(o->json_more_arg, g, 1);
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  out_flush(g, o->out, 1);
}
