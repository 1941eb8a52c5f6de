/* report.c — the report's text, JSON-lines and CSV output. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "output.h"

static const char *clock_name(char c) { return c == 'm' ? "mono" : "wall"; }

static double pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One delivery's text is built in memory and written with one fwrite: a
 * stdio call per figure was a quarter of the time of a report of many
 * small deliveries.  A delivery with many upcalls flushes as it goes. */
typedef struct {
  FILE *f;
  size_t n;
  char b[4096];
} tb_t;

/* Inlined: most calls are TB_LIT's, whose memcpy of a constant size is
 * then a move or two instead of a call. */
static inline __attribute__((always_inline)) void tb_put(tb_t *t,
                                                         const char *s,
                                                         size_t n) {
  if (t->n + n > sizeof t->b) {
    fwrite(t->b, 1, t->n, t->f);
    t->n = 0;
    if (n > sizeof t->b) {
      fwrite(s, 1, n, t->f);
      return;
    }
  }
  memcpy(t->b + t->n, s, n);
  t->n += n;
}

#define TB_LIT(t, lit) tb_put((t), (lit), sizeof(lit) - 1)

static void tb_str(tb_t *t, const char *s) { tb_put(t, s, strlen(s)); }

/* Straight into the buffer: formatting elsewhere and copying was a tenth
 * of the report's instructions. */
static void tb_us(tb_t *t, int64_t ns) {
  if (t->n + 32 > sizeof t->b) {
    fwrite(t->b, 1, t->n, t->f);
    t->n = 0;
  }
  t->n += ips_put_us(t->b + t->n, ns);
}

/* The segments' literals, " | worker " and so on, each in 16 bytes so that
 * it is copied as one constant-size move (a report prints some 600,000);
 * the row after the last is room for the last's copy to read. */
static const struct {
  char s[16];
  size_t n;
} seg_lit[IPS_SEG_N + 1] = {
#define SEG_LIT(s) {" | " s " ", sizeof(" | " s " ") - 1}
    SEG_LIT("send"),  SEG_LIT("worker"), SEG_LIT("upcall"),   SEG_LIT("kernel"),
    SEG_LIT("reply"), SEG_LIT("result"), SEG_LIT("unmatched"), {"", 0}
#undef SEG_LIT
};

/* The delivery's segments as the library walks them, a run at a time:
 * "send 1.0 | worker 2.0 | ...". */
static void tb_segments(tb_t *t, const ips_delivery_t *d) {
  int64_t len[64];
  unsigned char kind[64];
  size_t from = 0, got, j, skip = 3; /* no " | " before the first */
  while ((got = ips_delivery_segments(d, from, 64, len, kind)) > 0) {
    for (j = 0; j < got; j++) {
      if (t->n + 16 + 32 > sizeof t->b) {
        fwrite(t->b, 1, t->n, t->f);
        t->n = 0;
      }
      memcpy(t->b + t->n, seg_lit[kind[j]].s + skip, 16 - 3);
      t->n += seg_lit[kind[j]].n - skip;
      t->n += ips_put_us(t->b + t->n, len[j]);
      skip = 0;
    }
    from += got;
  }
}

static void tb_ll(tb_t *t, long long v) {
  char b[32];
  int n = 0;
  unsigned long long a = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do {
    b[sizeof b - 1 - n++] = (char)('0' + a % 10);
    a /= 10;
  } while (a);
  if (v < 0)
    b[sizeof b - 1 - n++] = '-';
  tb_put(t, b + sizeof b - n, (size_t)n);
}

void report_delivery_text(report_out_t *r, const ips_delivery_t *d) {
  size_t j;
  tb_t t;
  t.f = r->out;
  t.n = 0;
  if (d->replay) {
    TB_LIT(&t, "replay ");
  } else {
    TB_LIT(&t, "crank ");
    tb_ll(&t, d->crank);
    TB_LIT(&t, " ");
  }
  tb_str(&t, d->vat);
  TB_LIT(&t, " #");
  tb_ll(&t, d->dnum);
  TB_LIT(&t, " ");
  tb_str(&t, d->desc);
  if (d->ok)
    TB_LIT(&t, " [");
  else
    TB_LIT(&t, " (error) [");
  tb_str(&t, clock_name(d->clock));
  TB_LIT(&t, "] total ");
  tb_us(&t, d->total);
  TB_LIT(&t, " = pipe ");
  tb_us(&t, d->pipe);
  TB_LIT(&t, " + worker ");
  tb_us(&t, d->worker);
  TB_LIT(&t, " + kernel ");
  tb_us(&t, d->kernel);
  if (d->n_unmatched) {
    TB_LIT(&t, " + unmatched ");
    tb_us(&t, d->unmatched);
  }
  TB_LIT(&t, "\n  ");
  tb_segments(&t, d);
  TB_LIT(&t, "\n");
  /* The VM's own marks and spans, in time order, indented by
   * nesting, each with the worker stretch it starts in. */
  for (j = 0; j < d->n_marks; j++) {
    const ips_delivery_mark_t *m = &d->marks[j];
    int k;
    TB_LIT(&t, "    worker ");
    tb_ll(&t, (long long)m->wseg);
    TB_LIT(&t, ": ");
    for (k = 0; k < m->depth && k < 16; k++)
      TB_LIT(&t, "  ");
    if (m->kind == 's') {
      TB_LIT(&t, "span ");
      tb_str(&t, m->name);
      TB_LIT(&t, " ");
      tb_us(&t, m->dur);
    } else {
      TB_LIT(&t, "mark ");
      tb_str(&t, m->name);
    }
    TB_LIT(&t, " at +");
    tb_us(&t, m->at - d->W[0]);
    TB_LIT(&t, "\n");
  }
  if (d->marks_dropped || d->marks_unbalanced) {
    TB_LIT(&t, "    marks dropped ");
    tb_ll(&t, d->marks_dropped);
    TB_LIT(&t, ", unbalanced ");
    tb_ll(&t, d->marks_unbalanced);
    TB_LIT(&t, "\n");
  }
  if (d->has_wait) {
    /* transit + waiting (+ not measured) == pipe, to the ns */
    TB_LIT(&t, "  pipe ");
    tb_us(&t, d->pipe);
    TB_LIT(&t, " = transit ");
    tb_us(&t, d->pipe_transit);
    TB_LIT(&t, " + waiting for a CPU ");
    tb_us(&t, d->pipe_wait);
    TB_LIT(&t, " (worker ");
    tb_us(&t, d->wait_worker);
    TB_LIT(&t, ", kernel ");
    tb_us(&t, d->pipe_wait - d->wait_worker);
    TB_LIT(&t, ")");
    if (d->pipe_unsplit) {
      TB_LIT(&t, " + not measured ");
      tb_us(&t, d->pipe_unsplit);
    }
    TB_LIT(&t, "\n");
  }
  if (d->has_cpu || d->has_gap || d->quake || d->clock == 'w' ||
      d->mono_offset || d->has_runnable) {
    const char *sep = "";
    TB_LIT(&t, "  ");
    if (d->has_gap) {
      TB_LIT(&t, "kernel before ");
      tb_us(&t, d->gap_ns);
      sep = "; ";
    }
    if (d->snap_save_ns || d->snap_load_ns) { /* heap snapshots, apart */
      TB_LIT(&t, "; snapshot save ");
      tb_us(&t, d->snap_save_ns);
      TB_LIT(&t, " load ");
      tb_us(&t, d->snap_load_ns);
    }
    if (d->has_cpu) {
      tb_str(&t, sep);
      TB_LIT(&t, "worker on-cpu ");
      tb_us(&t, d->worker - d->offcpu_ns); /* the two add up to worker */
      TB_LIT(&t, " off-cpu ");
      tb_us(&t, d->offcpu_ns);
      if (d->has_runnable) { /* the two add up to off-cpu */
        TB_LIT(&t, " (runnable ");
        tb_us(&t, d->runnable_ns);
        TB_LIT(&t, ", blocked ");
        tb_us(&t, d->blocked_ns);
        TB_LIT(&t, ")");
      }
      sep = "; ";
    } else if (d->has_runnable) {
      tb_str(&t, sep);
      TB_LIT(&t, "worker runnable ");
      tb_us(&t, d->runnable_ns);
      sep = "; ";
    }
    if (d->clock == 'w' || d->mono_offset) {
      tb_str(&t, sep);
      if (d->mono_offset)
        TB_LIT(&t, "mono ");
      TB_LIT(&t, "offset ");
      tb_us(&t, d->offset_ns);
      TB_LIT(&t, " +- ");
      tb_us(&t, d->bound_ns);
      sep = "; ";
    }
    if (d->offset_mismatch) {
      tb_str(&t, sep);
      TB_LIT(&t, "OFFSET MISMATCH");
      sep = "; ";
    }
    if (d->ring == IPS_RING_LAPPED || d->ring == IPS_RING_MISSING) {
      tb_str(&t, sep);
      if (d->ring == IPS_RING_LAPPED)
        TB_LIT(&t, "RING LAPPED: its worker's stamps were overwritten before they were read");
      else
        TB_LIT(&t, "NO RING: no worker ring of --worker-rings has its stamps");
      sep = "; ";
    }
    if (d->quake) {
      tb_str(&t, sep);
      TB_LIT(&t, "TIMEQUAKE wall and mono differ by ");
      tb_us(&t, d->quake_ns);
    }
    TB_LIT(&t, "\n");
  }
  fwrite(t.b, 1, t.n, t.f);
  if (d->os)
    os_text(t.f, d->os);
}

/* ---- JSON ---------------------------------------------------------- */

#define gs out_str
#define gi out_int
#define gkv out_kv

/* The JSON writers of the field list's types (ipcstamp-analyze-fields.h):
 * key and value; a list's writers take the delivery, whose list it is. */
#define JSON_INT(g, key, d, v) gi(g, key, v)
#define JSON_BOOL(g, key, d, v) (gs(g, key), yajl_gen_bool(g, v))
#define JSON_STR(g, key, d, v) gkv(g, key, v)
#define JSON_SEGMENTS(g, key, d, n) json_segments(g, key, d, (size_t)(n))
#define JSON_SEGWAIT(g, key, d, n) json_segwait(g, key, d, (size_t)(n))
#define JSON_MARKS(g, key, d, n) json_marks(g, key, d, (size_t)(n))
#define JSON_BY(g, key, d, by) os_by_json(g, key, by)

static void json_segments(yajl_gen g, const char *key, const ips_delivery_t *d,
                          size_t ns) {
  size_t j;
  gs(g, key);
  yajl_gen_array_open(g);
  for (j = 0; j < ns; j++) {
    const char *name;
    int64_t v = ips_delivery_segment(d, j, &name);
    yajl_gen_array_open(g);
    gs(g, name);
    yajl_gen_integer(g, v);
    yajl_gen_array_close(g);
  }
  yajl_gen_array_close(g);
}

/* One per segment: its wait for a CPU, or null. */
static void json_segwait(yajl_gen g, const char *key, const ips_delivery_t *d,
                         size_t ns) {
  size_t j;
  gs(g, key);
  yajl_gen_array_open(g);
  for (j = 0; j < ns; j++) {
    int64_t w = ips_delivery_segment_wait(d, j);
    if (w < 0)
      yajl_gen_null(g);
    else
      yajl_gen_integer(g, w);
  }
  yajl_gen_array_close(g);
}

static void json_marks(yajl_gen g, const char *key, const ips_delivery_t *d,
                       size_t n) {
  size_t j;
  gs(g, key);
  yajl_gen_array_open(g);
  for (j = 0; j < n; j++) /* at: since the worker's d */
    out_mark(g, &d->marks[j], d->marks[j].at - d->W[0]);
  yajl_gen_array_close(g);
}

void report_delivery_json(report_out_t *r, const ips_delivery_t *d) {
  yajl_gen g = r->g;
  yajl_gen_map_open(g);
#define JSON_FIELD(name, type, unit, in, when, value, text, otel, meaning) \
  if (((in) & IPS_IN_JSON) && (when))                                        \
    JSON_##type(g, #name, d, value);
  IPS_DELIVERY_FIELDS(JSON_FIELD)
  IPS_OS_FIELDS(JSON_FIELD)
#undef JSON_FIELD
  yajl_gen_map_close(g);
  out_flush(r->g, r->out, 1);
}

#define csv_text out_csv_text

/* The CSV cells of the field list's types: empty where the delivery has
 * no such field (nothing is invented), but a flag is 1 or 0. */
#define CSV_INT(f, has, v) \
  (has ? (void)fprintf(f, "%lld", (long long)(v)) : (void)0)
#define CSV_BOOL(f, has, v) fputc((has) && (v) ? '1' : '0', f)
#define CSV_STR(f, has, v) (has ? csv_text(f, v) : (void)0)
#define CSV_SEGMENTS CSV_INT
#define CSV_SEGWAIT CSV_INT
#define CSV_MARKS CSV_INT
#define CSV_BY(f, has, by) (has ? csv_by(f, by) : (void)0)

/* A thread's time per system call in one cell: "fsync=ns read=ns". */
static void csv_by(FILE *f, const ips_os_by_t *by) {
  size_t i;
  for (i = 0; i < IPS_OS_BY && by[i].sc[0]; i++)
    fprintf(f, "%s%s=%lld", i ? " " : "", by[i].sc, (long long)by[i].ns);
}

/* The header: the list's fields for CSV, in its order. */
void report_csv_header(report_out_t *r) {
  const char *sep = "";
#define CSV_NAME(name, type, unit, in, when, value, text, otel, meaning) \
  if ((in) & IPS_IN_CSV) {                                                 \
    fputs(sep, r->out);                                                    \
    fputs(#name, r->out);                                                  \
    sep = ",";                                                             \
  }
  IPS_DELIVERY_FIELDS(CSV_NAME)
  if (r->os) {
    IPS_OS_FIELDS(CSV_NAME)
  }
#undef CSV_NAME
  fputc('\n', r->out);
}

void report_delivery_csv(report_out_t *r, const ips_delivery_t *d) {
  FILE *f = r->out;
  int first = 1;
#define CSV_CELL(name, type, unit, in, when, value, text, otel, meaning) \
  if ((in) & IPS_IN_CSV) {                                                 \
    if (!first)                                                            \
      fputc(',', f);                                                       \
    first = 0;                                                             \
    CSV_##type(f, (when), value);                                          \
  }
  IPS_DELIVERY_FIELDS(CSV_CELL)
  if (r->os) {
    IPS_OS_FIELDS(CSV_CELL)
  }
#undef CSV_CELL
  fputc('\n', f);
}

/* ---- summaries ----------------------------------------------------- */

/* ANSI colours of the three shares on a terminal (report_out_t.color): the
 * same as the HTML page's, as near as 8 colours go. */
#define C_PIPE "\033[33m"
#define C_WORKER "\033[34m"
#define C_KERNEL "\033[32m"
#define C_WARN "\033[35m"
#define C_BOLD "\033[1m"
#define C_OFF "\033[0m"

/* A share's figure and percentage, right-aligned like the header, in its
 * colour: padded first, so escapes never count in the width. */
static void share_cell(FILE *f, int color, const char *c, int64_t ns,
                       int64_t total) {
  char b[IPS_US_BUF], cell[64];
  snprintf(cell, sizeof cell, " %14s %5.1f%%", ips_format_us(b, ns),
           pct(ns, total));
  if (color)
    fprintf(f, "%s%s%s", c, cell, C_OFF);
  else
    fputs(cell, f);
}

/* One row of the summary's table; max (the slowest delivery's total) is
 * a last column when not negative (the table by method has it). */
static void share_row(const report_out_t *r, int width, const char *name,
                      const ips_totals_t *t, int64_t max) {
  FILE *f = r->out;
  char b[IPS_US_BUF], m[IPS_US_BUF];
  int bold = r->color && !strcmp(name, "all");
  fprintf(f, "%s%-*s %8" PRIu64, bold ? C_BOLD : "", width, name, t->n);
  share_cell(f, r->color, C_PIPE, t->pipe, t->total);
  share_cell(f, r->color, C_WORKER, t->worker, t->total);
  share_cell(f, r->color, C_KERNEL, t->kernel, t->total);
  fprintf(f, " %14s", ips_format_us(b, t->total));
  if (max >= 0)
    fprintf(f, " %14s", ips_format_us(m, max));
  fprintf(f, "%s\n", bold ? C_OFF : "");
}

/* A group's sums as totals, for the rows and the JSON. */
static ips_totals_t group_totals(const ips_group_t *g) {
  ips_totals_t t;
  memset(&t, 0, sizeof t);
  t.n = g->n;
  t.pipe = g->pipe;
  t.worker = g->worker;
  t.kernel = g->kernel;
  t.unmatched = g->unmatched;
  t.total = g->total;
  return t;
}

/* The table by method, busiest first: which method the time went to. */
static void method_rows_text(report_out_t *r, const ips_totals_t *all) {
  size_t i, n;
  const ips_group_t *g = ips_groups_sorted(&r->groups, &n);
  int64_t max = 0;
  int width = 12;
  /* As wide as the longest method, up to 40 (a longer one juts out). */
  for (i = 0; i < n; i++)
    if (strlen(g[i].name) > (size_t)width)
      width = strlen(g[i].name) > 40 ? 40 : (int)strlen(g[i].name);
  fprintf(r->out, "%-*s %8s %14s %6s %14s %6s %14s %6s %14s %14s\n",
          width, "method", "count", "pipe", "", "worker", "", "kernel", "", "total",
          "max");
  for (i = 0; i < n; i++) {
    ips_totals_t t = group_totals(&g[i]);
    share_row(r, width, g[i].name, &t, g[i].max);
    if (g[i].max > max)
      max = g[i].max;
  }
  share_row(r, width, "all", all, max);
  if (r->groups.over)
    fprintf(r->out, "(%" PRIu64 " deliveries under methods past the first "
                    "%d)\n", r->groups.over, IPS_GROUPS_MAX);
}

/* Under a slow delivery of the summary, its marks and spans. */
static void slow_marks_text(report_out_t *r, const ips_analysis_t *a,
                            size_t k) {
  char b[2][IPS_US_BUF];
  size_t i, n, more;
  const ips_delivery_mark_t *m = ips_analysis_slow_marks(a, k, &n, &more);
  for (i = 0; i < n; i++, m++)
    fprintf(r->out, "      worker %zu: %*s%s %s%s%s at +%s\n", m->wseg,
            2 * (m->depth < 16 ? m->depth : 16), "",
            m->kind == 's' ? "span" : "mark", m->name,
            m->kind == 's' ? " " : "",
            m->kind == 's' ? ips_format_us(b[0], m->dur) : "",
            ips_format_us(b[1], m->at));
  if (more)
    fprintf(r->out, "      ... %zu more marks and spans\n", more);
}

static void slow_marks_json(report_out_t *r, const ips_analysis_t *a,
                            size_t k) {
  yajl_gen g = r->g;
  size_t i, n, more;
  const ips_delivery_mark_t *m = ips_analysis_slow_marks(a, k, &n, &more);
  if (!m)
    return;
  out_str(g, "marks");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++)
    out_mark(g, &m[i], m[i].at);
  yajl_gen_array_close(g);
  if (more)
    out_int(g, "marks_more", (long long)more);
}

/* What "pipe" holds: how much of it was a receiver waiting for
 * a CPU, where the stamps carry the run-queue delays, and, on SwingSet's
 * own slogfiles, what the kernel's stamps are. */
static void pipe_split_text(report_out_t *r, const ips_stats_t *st) {
  FILE *f = r->out;
  const ips_wait_totals_t *t = &st->wait;
  char b[5][IPS_US_BUF];
  if (t->n_wait) {
    fprintf(f, "pipe over %" PRIu64 " deliveries with run-queue delays: %s = "
               "transit %s (%.1f%%) + waiting for a CPU %s (%.1f%%: worker "
               "%s, kernel %s)",
            t->n_wait, ips_format_us(b[0], t->wait_pipe),
            ips_format_us(b[1], t->pipe_transit),
            pct(t->pipe_transit, t->wait_pipe),
            ips_format_us(b[2], t->pipe_wait), pct(t->pipe_wait, t->wait_pipe),
            ips_format_us(b[3], t->wait_worker),
            ips_format_us(b[4], t->pipe_wait - t->wait_worker));
    if (t->pipe_unsplit)
      fprintf(f, " + not measured %s (%.1f%%)",
              ips_format_us(b[1], t->pipe_unsplit),
              pct(t->pipe_unsplit, t->wait_pipe));
    fputc('\n', f);
  }
  if (t->n_blocked)
    fprintf(f, "worker off-cpu %s = runnable %s (%.1f%%) + blocked %s (%.1f%%) "
               "over %" PRIu64 " deliveries with run-queue delays and cpu_ns\n",
            ips_format_us(b[0], t->split_offcpu),
            ips_format_us(b[1], t->split_runnable),
            pct(t->split_runnable, t->split_offcpu),
            ips_format_us(b[2], t->blocked), pct(t->blocked, t->split_offcpu),
            t->n_blocked);
  else if (t->n_runnable)
    fprintf(f, "worker runnable (off a CPU, waiting for one) %s over %" PRIu64
               " deliveries with run-queue delays\n",
            ips_format_us(b[0], t->runnable), t->n_runnable);
  if (!st->ipcstamp_parent && st->all.n)
    fprintf(f, "pipe on this file: the kernel's stamps are the times it wrote "
               "its deliver, syscall and result records (in JavaScript, around "
               "its own marshalling), so pipe holds the kernel's marshalling "
               "and waits as well as the transit%s\n",
            t->n_wait ? "; the worker's waits for a CPU are split out above"
                      : "");
}

/* Every deliver record not attributed: those counted by reason and the
 * skipped ones. */
static uint64_t not_attributed(const ips_stats_t *st) {
  return st->skipped_deliveries + st->all.n_local + st->n_meter_kill +
         st->n_error_unstamped + st->n_restart_cut;
}

void report_summary_text(report_out_t *r, const ips_analysis_t *a, int gap) {
  FILE *f = r->out;
  char b[4][IPS_US_BUF];
  const ips_stats_t *st = ips_analysis_stats(a);
  const ips_totals_t *t = &st->all;
  const ips_slow_t *slow;
  size_t i, nslow, nv = ips_analysis_nvats(a);
  int k;
  if (gap && t->n > 0)
    fputc('\n', f);
  fprintf(f, "== summary (times in microseconds)\n");
  fprintf(f, "deliveries: %" PRIu64 " attributed", t->n);
  if (!r->vat)
    fprintf(f, " (%" PRIu64 " on the mono clock, %" PRIu64
               " on wall clocks with an offset estimate)",
            t->n_mono, t->n_wall);
  fprintf(f, ", %" PRIu64 " not attributed\n", not_attributed(st));
  fprintf(f, "lines: %" PRIu64 " read, %" PRIu64 " skipped, %" PRIu64
             " other records ignored\n",
          st->lines, st->skipped_lines, st->other);
  /* A note, not a skip: the normal state of a busy node's flight recorder. */
  if (st->cut)
    fprintf(f, "cut at the start: %" PRIu64 " records of the delivery that began "
               "before the input does (a wrapped flight recorder's oldest: "
               "expected, not used)\n", st->cut);
  /* What only a real kernel's slogfile has: said only when present. */
  if (t->n_replay)
    fprintf(f, "replayed: %" PRIu64 " deliveries (after a restart; no crank)\n",
            t->n_replay);
  if (t->n_unmatched) {
    uint64_t replayed = t->n_unmatched - t->n_truncated;
    fprintf(f, "unmatched: %s (%.1f%%) not split between pipe and worker, in",
            ips_format_us(b[0], t->unmatched), pct(t->unmatched, t->total));
    if (replayed) /* (or a vat's testLog calls, which SwingSet never records) */
      fprintf(f, " %" PRIu64 " %sdeliveries with upcalls the kernel did "
                 "not record%s", replayed, t->n_replay ? "replayed " : "",
              t->n_truncated ? " and" : "");
    if (t->n_truncated)
      fprintf(f, " %" PRIu64 " deliveries past xsnap's 502 stamps",
              t->n_truncated);
    fputc('\n', f);
  }
  if (t->n_error)
    fprintf(f, "error results: %" PRIu64 "\n", t->n_error);
  if (t->n_local)
    fprintf(f, "without metering: %" PRIu64 " (local vats: not attributed)\n",
            t->n_local);
  if (st->n_meter_kill)
    fprintf(f, "killed by its meter: %" PRIu64 " (xsnap's compute, stack or "
               "allocate meter: no stamps, not attributed)\n",
            st->n_meter_kill);
  if (st->n_error_unstamped)
    fprintf(f, "errors without metering: %" PRIu64 " (not attributed)\n",
            st->n_error_unstamped);
  if (st->restarts)
    fprintf(f, "restarts: %" PRIu64 " (monotime went back: the kernel "
               "restarted and appended)\n", st->restarts);
  if (st->n_restart_cut)
    fprintf(f, "the kernel restarted before its result: %" PRIu64
               " (the next kernel made the crank again; not attributed)\n",
            st->n_restart_cut);
  if (r->worker_rings)
    fprintf(f, "%sworker rings: %" PRIu64 " deliveries joined, %" PRIu64
               " lapped, %" PRIu64 " in no ring (those split on xsnap's "
               "timestamps)%s\n", st->n_ring_lapped + st->n_ring_missing && r->color ? C_WARN : "",
            st->n_ring_joined, st->n_ring_lapped, st->n_ring_missing,
            st->n_ring_lapped + st->n_ring_missing && r->color ? C_OFF : "");
  if (st->n_offset_mismatch)
    fprintf(f, "%soffset mismatches: %" PRIu64 "%s (a transit below -bound: "
               "the offset estimate does not fit them)\n",
            r->color ? C_WARN : "", st->n_offset_mismatch,
            r->color ? C_OFF : "");
  {
    size_t nm;
    const ips_mono_run_t *mr = ips_analysis_mono_runs(a, &nm);
    for (i = 0; i < nm; i++)
      fprintf(f, "mono offset, kernel run %" PRIu64 " (worker CLOCK_MONOTONIC "
                 "- kernel monotime): %s +- %s over %" PRIu64
                 " deliveries\n", mr[i].run + 1,
              ips_format_us(b[0], mr[i].offset_ns),
              ips_format_us(b[1], mr[i].bound_ns), mr[i].deliveries);
    if (ips_analysis_mono_runs_over(a))
      fprintf(f, "mono offset: %" PRIu64 " more kernel runs\n",
              ips_analysis_mono_runs_over(a));
  }
  if (r->groups.by == IPS_GROUP_METHOD) {
    method_rows_text(r, t);
  } else {
    fprintf(f, "%-12s %8s %14s %6s %14s %6s %14s %6s %14s\n", "vat", "count",
            "pipe", "", "worker", "", "kernel", "", "total");
    for (i = 0; i < nv; i++) {
      const ips_vat_stats_t *v = ips_analysis_vat(a, i);
      if (v->t.n == 0 || (r->vat && strcmp(r->vat, v->vat)))
        continue;
      share_row(r, 12, v->vat, &v->t, -1);
    }
    share_row(r, 12, "all", t, -1);
  }
  if (t->n_gap)
    fprintf(f, "kernel between deliveries: %s over %" PRIu64 " gaps\n",
            ips_format_us(b[0], t->gap), t->n_gap);
  if (st->n_snap_save || st->n_snap_load)
    fprintf(f, "heap snapshots between deliveries (not in the kernel's): "
               "save %s in %" PRIu64 " gaps, load %s in %" PRIu64 "\n",
            ips_format_us(b[0], st->snap_save), st->n_snap_save,
            ips_format_us(b[1], st->snap_load), st->n_snap_load);
  if (t->n_cpu)
    fprintf(f, "worker on-cpu %s (%.1f%%), off-cpu %s (%.1f%%) over %" PRIu64
               " deliveries with cpu_ns\n",
            ips_format_us(b[0], t->cpu_worker - t->offcpu),
            pct(t->cpu_worker - t->offcpu, t->cpu_worker),
            ips_format_us(b[1], t->offcpu), pct(t->offcpu, t->cpu_worker),
            t->n_cpu);
  pipe_split_text(r, st);
  fprintf(f, "%stimequakes: %" PRIu64 "%s (wall and mono differ by more than %s)\n",
          r->color && t->n_quake ? C_WARN : "", t->n_quake,
          r->color && t->n_quake ? C_OFF : "", ips_format_us(b[0], r->quake_ns));
  for (i = 0; i < nv; i++) {
    const ips_vat_stats_t *v = ips_analysis_vat(a, i);
    if (!v->has_offset || (r->vat && strcmp(r->vat, v->vat)))
      continue;
    fprintf(f, "clock offset %s (worker - parent): %s +- %s\n", v->vat,
            ips_format_us(b[0], v->offset_ns), ips_format_us(b[1], v->bound_ns));
  }
  if (ips_analysis_nmarks(a)) {
    size_t nm = ips_analysis_nmarks(a);
    fprintf(f, "marks and spans by name: %14s %8s %14s %14s %14s\n", "marks",
            "spans", "span total", "span mean", "span max");
    for (i = 0; i < nm; i++) {
      const ips_mark_stats_t *m = ips_analysis_mark(a, i);
      fprintf(f, "  %-22s %14" PRIu64 " %8" PRIu64 " %14s %14s %14s\n",
              m->name, m->n_marks, m->n_spans, ips_format_us(b[0], m->span_ns),
              ips_format_us(b[1], m->n_spans ? m->span_ns / (int64_t)m->n_spans
                                             : 0),
              ips_format_us(b[2], m->span_max_ns));
    }
    if (ips_analysis_marks_over(a))
      fprintf(f, "  (%" PRIu64 " more marks or spans under names past the "
                 "first %u)\n",
              ips_analysis_marks_over(a), IPS_MAX_MARK_NAMES);
  }
  slow = ips_analysis_slowest(a, &nslow);
  if (nslow) {
    fprintf(f, "slowest deliveries:\n");
    for (i = 0; i < nslow; i++) {
      const ips_slow_t *s = &slow[i];
      char crank[32];
      if (s->crank < 0)
        snprintf(crank, sizeof crank, "replay");
      else
        snprintf(crank, sizeof crank, "crank %lld", s->crank);
      fprintf(f, "  %s %s #%lld %s: total %s (pipe %s, worker %s, kernel %s) line %ld\n",
              crank, s->vat, s->dnum, s->desc, ips_format_us(b[0], s->total),
              ips_format_us(b[1], s->pipe), ips_format_us(b[2], s->worker),
              ips_format_us(b[3], s->kernel), s->line);
      slow_marks_text(r, a, i);
    }
  }
  if (st->skipped_lines || st->skipped_deliveries) {
    fprintf(f, "skipped:\n");
    for (k = 0; k < IPS_SKIP_N; k++)
      if (st->skipped[k])
        fprintf(f, "  %8" PRIu64 "  %s\n", st->skipped[k], ips_skip_message(k));
  }
  if (r->os)
    os_summary_text(f, a);
}

static void totals_json(yajl_gen g, const ips_totals_t *t) {
#define TOTAL_FIELD(name, unit, value, meaning) gi(g, #name, (long long)(value));
  IPS_TOTALS_FIELDS(TOTAL_FIELD)
#undef TOTAL_FIELD
}

void report_summary_json(report_out_t *r, const ips_analysis_t *a) {
  yajl_gen g = r->g;
  const ips_stats_t *st = ips_analysis_stats(a);
  const ips_totals_t *t = &st->all;
  const ips_slow_t *slow;
  size_t i, nslow, nv = ips_analysis_nvats(a);
  int k;
  yajl_gen_map_open(g);
  gs(g, "summary");
  yajl_gen_map_open(g);
  totals_json(g, t);
  gi(g, "mono", (long long)t->n_mono);
  gi(g, "wall", (long long)t->n_wall);
  gi(g, "lines", (long long)st->lines);
  gi(g, "lines_skipped", (long long)st->skipped_lines);
  gi(g, "deliveries_skipped", (long long)st->skipped_deliveries);
  gs(g, "not_attributed");
  yajl_gen_map_open(g);
  gi(g, "LOCAL", (long long)t->n_local);
  gi(g, "METER", (long long)st->n_meter_kill);
  gi(g, "ERROR", (long long)st->n_error_unstamped);
  gi(g, "RESTART", (long long)st->n_restart_cut);
  yajl_gen_map_close(g);
  gi(g, "offset_mismatches", (long long)st->n_offset_mismatch);
  if (r->worker_rings) {
    gs(g, "worker_rings");
    yajl_gen_map_open(g);
    gi(g, "joined", (long long)st->n_ring_joined);
    gi(g, "lapped", (long long)st->n_ring_lapped);
    gi(g, "missing", (long long)st->n_ring_missing);
    yajl_gen_map_close(g);
  }
  {
    size_t nm, j;
    const ips_mono_run_t *mr = ips_analysis_mono_runs(a, &nm);
    gs(g, "mono_runs");
    yajl_gen_array_open(g);
    for (j = 0; j < nm; j++) {
      yajl_gen_map_open(g);
      gi(g, "run", (long long)mr[j].run + 1);
      gi(g, "offset_ns", mr[j].offset_ns);
      gi(g, "offset_bound_ns", mr[j].bound_ns);
      gi(g, "deliveries", (long long)mr[j].deliveries);
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
    if (ips_analysis_mono_runs_over(a))
      gi(g, "mono_runs_more", (long long)ips_analysis_mono_runs_over(a));
  }
  gi(g, "other_records", (long long)st->other);
  if (st->cut) /* only a file that starts mid-delivery has them */
    gi(g, "records_cut", (long long)st->cut);
  gi(g, "restarts", (long long)st->restarts);
  gi(g, "kernel_between_ns", t->gap);
  if (st->n_snap_save || st->n_snap_load) {
    gi(g, "snapshot_save_ns", st->snap_save);
    gi(g, "snapshot_load_ns", st->snap_load);
  }
  gi(g, "timequakes", (long long)t->n_quake);
  if (t->n_cpu) {
    gi(g, "cpu_ns", t->cpu);
    gi(g, "offcpu_ns", t->offcpu);
  }
  out_wait_totals(g, st);
  gs(g, "vats");
  yajl_gen_array_open(g);
  for (i = 0; i < nv; i++) {
    const ips_vat_stats_t *v = ips_analysis_vat(a, i);
    if (v->t.n == 0 || (r->vat && strcmp(r->vat, v->vat)))
      continue;
    yajl_gen_map_open(g);
    gkv(g, "vat", v->vat);
    totals_json(g, &v->t);
    if (v->has_offset) {
      gi(g, "offset_ns", v->offset_ns);
      gi(g, "offset_bound_ns", v->bound_ns);
    }
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  if (r->groups.by == IPS_GROUP_METHOD)
    out_methods(g, &r->groups);
  if (ips_analysis_nmarks(a))
    out_mark_names(g, a);
  gs(g, "slowest");
  yajl_gen_array_open(g);
  slow = ips_analysis_slowest(a, &nslow);
  for (i = 0; i < nslow; i++) {
    const ips_slow_t *s = &slow[i];
    yajl_gen_map_open(g);
    if (s->crank < 0) {
      gs(g, "replay");
      yajl_gen_bool(g, 1);
    } else {
      gi(g, "crank", s->crank);
    }
    gkv(g, "vat", s->vat);
    gi(g, "deliveryNum", s->dnum);
    gkv(g, "description", s->desc);
    gi(g, "total_ns", s->total);
    gi(g, "line", s->line);
    slow_marks_json(r, a, i);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  gs(g, "skipped");
  yajl_gen_map_open(g);
  for (k = 0; k < IPS_SKIP_N; k++)
    if (st->skipped[k])
      gi(g, ips_skip_name(k), (long long)st->skipped[k]);
  yajl_gen_map_close(g);
  if (r->os)
    os_summary_json(g, a);
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  out_flush(g, r->out, 1);
}

void report_summary_csv(report_out_t *r, const ips_analysis_t *a) {
  const ips_totals_t *t = &ips_analysis_stats(a)->all;
  size_t i, n;
  const ips_group_t *g = ips_groups_sorted(&r->groups, &n);
  int64_t max = 0;
  fprintf(r->out, "%s,deliveries,pipe_ns,worker_ns,kernel_ns,unmatched_ns,"
                  "total_ns,max_ns\n",
          r->groups.by == IPS_GROUP_METHOD ? "method" : "vat");
  for (i = 0; i < n; i++) {
    csv_text(r->out, g[i].name);
    fprintf(r->out, ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                    ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
            g[i].n, g[i].pipe, g[i].worker, g[i].kernel, g[i].unmatched,
            g[i].total, g[i].max);
    if (g[i].max > max)
      max = g[i].max;
  }
  /* "all" is not quoted: no vat or method can be mistaken for it. */
  fprintf(r->out, "all,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                  ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
          t->n, t->pipe, t->worker, t->kernel, t->unmatched, t->total, max);
}
