/* blocks.c — `ipcstamp blocks`: one row per block of a chain node, then a
 * summary (docs/blocks.md).  Text, JSON lines and CSV. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

const blocks_field_t blocks_fields[BLK_NFIELDS] = {
#define TABLE(obj, name, csv, type, unit, in, when, value, text, m) \
  {#obj, #name, csv, text, in},
    IPS_BLOCK_FIELDS(TABLE)
#undef TABLE
};

/* The list's INT fields have a value; the others none here. */
#define VALUE_INT(i, when, value) \
  case i: *v = (int64_t)(value); return (when) != 0;
#define VALUE_BOOL(i, when, value)
#define VALUE_STR(i, when, value)

int blocks_value(const ips_block_t *b, int i, int64_t *v) {
  switch (i) {
#define VALUE(obj, name, csv, type, unit, in, when, value, text, m) \
  VALUE_##type(BLK_F_##obj##_##name, when, value)
    IPS_BLOCK_FIELDS(VALUE)
#undef VALUE
    default: return 0;
  }
}

int blocks_part(const blocks_out_t *o, size_t i, int64_t v[BLK_FIGURES],
                const char **name) {
  static const double pct[] = {50, 90, 99};
  int j;
  if (!o->h[i] || !o->h[i]->count)
    return 0;
  for (j = 0; j < 3; j++)
    v[j] = ips_hist_percentile(o->h[i], pct[j]);
  v[3] = o->h[i]->max;
  v[4] = o->sum[i];
  *name = blocks_fields[i].name;
  return (int)strlen(*name) - 3; /* less "_ns" */
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
  for (i = 0; i < BLK_NFIELDS; i++) {
    if (!(blocks_fields[i].in & IPS_IN_PART))
      continue;
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
  for (i = 0; i < BLK_NFIELDS; i++) {
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
  for (i = 0; i < BLK_NFIELDS; i++)
    if ((blocks_fields[i].in & IPS_IN_PART) && blocks_value(b, (int)i, &v)) {
      if (i == BLK_F_row_lag_ns && first) {
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
  int64_t del = ips_block_deliveries(b);
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

/* The JSON writers and CSV cells of the list's types. */
#define JSON_INT(g, key, v) out_int(g, key, (long long)(v))
#define JSON_BOOL(g, key, v) (out_str(g, key), yajl_gen_bool(g, v))
#define JSON_STR(g, key, v) out_kv(g, key, v)
#define CSV_INT(f, v) fprintf(f, "%lld", (long long)(v))
#define CSV_BOOL(f, v) fputc((v) ? '1' : '0', f)
#define CSV_STR(f, v) out_csv_text(f, v)
#define CSV_NONE_INT(f) ((void)0)
#define CSV_NONE_BOOL(f) fputc('0', f)
#define CSV_NONE_STR(f) ((void)0)

/* Into the JSON object obj ("row": the row itself), from *cur. */
static void json_obj(yajl_gen g, const char **cur, const char *obj) {
  if (!strcmp(*cur, obj))
    return;
  if (strcmp(*cur, "row"))
    yajl_gen_map_close(g);
  if (strcmp(obj, "row")) {
    out_str(g, obj);
    yajl_gen_map_open(g);
  }
  *cur = obj;
}

void blocks_row_json(blocks_out_t *o, const ips_block_t *b) {
  yajl_gen g = o->g;
  const char *cur = "row";
  yajl_gen_map_open(g);
#define JSON_FIELD(obj, name, csv, type, unit, in, when, value, text, m) \
  if (((in) & IPS_IN_JSON) && (when)) {                                  \
    json_obj(g, &cur, #obj);                                             \
    JSON_##type(g, #name, value);                                        \
  }
  IPS_BLOCK_FIELDS(JSON_FIELD)
#undef JSON_FIELD
  json_obj(g, &cur, "row");
  if (o->json_more)
    o->json_more(o->json_more_arg, g, 0);
  yajl_gen_map_close(g);
  out_flush(g, o->out, 1);
}

void blocks_header_csv(blocks_out_t *o) {
  const char *sep = "";
  size_t i;
  for (i = 0; i < BLK_NFIELDS; i++)
    if (blocks_fields[i].csv) {
      fprintf(o->out, "%s%s", sep, blocks_fields[i].csv);
      sep = ",";
    }
  if (o->csv_more)
    o->csv_more(o->json_more_arg, o->out, 1);
  fputc('\n', o->out);
}

void blocks_row_csv(blocks_out_t *o, const ips_block_t *b) {
  FILE *f = o->out;
  int sep = 0;
#define CSV_FIELD(obj, name, csv, type, unit, in, when, value, text, m) \
  if (csv) {                                                            \
    if (sep++)                                                          \
      fputc(',', f);                                                    \
    if (when)                                                           \
      CSV_##type(f, value);                                             \
    else                                                                \
      CSV_NONE_##type(f);                                               \
  }
  IPS_BLOCK_FIELDS(CSV_FIELD)
#undef CSV_FIELD
  if (o->csv_more)
    o->csv_more(o->json_more_arg, f, 0);
  fputc('\n', f);
}

/* Why a block was slow: its parts, largest first, with their share of
 * its swingset time, and what each is made of. */
static void explain(FILE *f, const ips_block_t *b) {
  struct { const char *name; int64_t ns; } p[3] = {
      {"deliveries", ips_block_deliveries(b)},
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

/* The parts the summary gives a share of swingset: its addends, and
 * their deliveries' sum. */
static int share(size_t i) {
  return (blocks_fields[i].in & IPS_IN_SPLIT) || i == BLK_F_row_deliveries_ns;
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
  for (i = 0; i < BLK_NFIELDS; i++) {
    const char *name;
    int len = blocks_part(o, i, v, &name);
    if (!len)
      continue;
    fprintf(f, "%-12.*s", len, name);
    for (j = 0; j < 4; j++)
      fprintf(f, " %11s", blocks_ms(x, v[j]));
    fprintf(f, " %13s", blocks_ms(x, v[4]));
    if (share(i) && o->sum[BLK_F_row_swingset_ns])
      fprintf(f, " %7.1f%%", 100.0 * (double)o->sum[i] /
                                 (double)o->sum[BLK_F_row_swingset_ns]);
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
#define SUMMARY_FIELD(name, unit, when, value, text, meaning) \
  if (when)                                                    \
    out_int(g, #name, (long long)(value));
  BLOCKS_SUMMARY_FIELDS(SUMMARY_FIELD)
#undef SUMMARY_FIELD
  out_str(g, "parts");
  yajl_gen_map_open(g);
  for (i = 0; i < BLK_NFIELDS; i++) {
    const char *name;
    int len = blocks_part(o, i, v, &name);
    if (!len)
      continue;
    yajl_gen_string(g, (const unsigned char *)name, (size_t)len);
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
    out_int(g, "deliveries_ns", ips_block_deliveries(b));
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
