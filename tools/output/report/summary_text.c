/* summary_text.c — the report's summary as text: the counts, the table by
 * vat or by method, the splits, the marks by name, the slowest deliveries
 * and the skips. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "output/output.h"

static double pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}


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

/* The counts: what was attributed, read, skipped, cut, replayed, left
 * unmatched, and why deliveries were not attributed. */
static void counts_text(report_out_t *r, const ips_stats_t *st) {
  FILE *f = r->out;
  char b[IPS_US_BUF];
  const ips_totals_t *t = &st->all;
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
            ips_format_us(b, t->unmatched), pct(t->unmatched, t->total));
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
}

/* The kernel's restarts, the worker rings' joins, the offset mismatches
 * and the mono offsets of each kernel run. */
static void runs_text(report_out_t *r, const ips_analysis_t *a) {
  FILE *f = r->out;
  char b[2][IPS_US_BUF];
  const ips_stats_t *st = ips_analysis_stats(a);
  size_t i, nm;
  const ips_mono_run_t *mr;
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
  mr = ips_analysis_mono_runs(a, &nm);
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

/* The table of shares: by method, or by vat. */
static void table_text(report_out_t *r, const ips_analysis_t *a) {
  const ips_totals_t *t = &ips_analysis_stats(a)->all;
  size_t i, nv = ips_analysis_nvats(a);
  if (r->groups.by == IPS_GROUP_METHOD) {
    method_rows_text(r, t);
    return;
  }
  fprintf(r->out, "%-12s %8s %14s %6s %14s %6s %14s %6s %14s\n", "vat",
          "count", "pipe", "", "worker", "", "kernel", "", "total");
  for (i = 0; i < nv; i++) {
    const ips_vat_stats_t *v = ips_analysis_vat(a, i);
    if (v->t.n == 0 || (r->vat && strcmp(r->vat, v->vat)))
      continue;
    share_row(r, 12, v->vat, &v->t, -1);
  }
  share_row(r, 12, "all", t, -1);
}

/* Under the table: the kernel between deliveries, the snapshots, the CPU,
 * the pipe's split, the timequakes and the clocks' offsets. */
static void splits_text(report_out_t *r, const ips_analysis_t *a) {
  FILE *f = r->out;
  char b[2][IPS_US_BUF];
  const ips_stats_t *st = ips_analysis_stats(a);
  const ips_totals_t *t = &st->all;
  size_t i, nv = ips_analysis_nvats(a);
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
}

/* The VM's marks and spans summed by name. */
static void mark_names_text(report_out_t *r, const ips_analysis_t *a) {
  FILE *f = r->out;
  char b[3][IPS_US_BUF];
  size_t i, nm = ips_analysis_nmarks(a);
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

/* The slowest deliveries, each with its marks and spans. */
static void slowest_text(report_out_t *r, const ips_analysis_t *a) {
  FILE *f = r->out;
  char b[4][IPS_US_BUF];
  size_t i, nslow;
  const ips_slow_t *slow = ips_analysis_slowest(a, &nslow);
  if (!nslow)
    return;
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

void report_summary_text(report_out_t *r, const ips_analysis_t *a, int gap) {
  FILE *f = r->out;
  const ips_stats_t *st = ips_analysis_stats(a);
  int k;
  if (gap && st->all.n > 0)
    fputc('\n', f);
  counts_text(r, st);
  runs_text(r, a);
  table_text(r, a);
  splits_text(r, a);
  if (ips_analysis_nmarks(a))
    mark_names_text(r, a);
  slowest_text(r, a);
  if (st->skipped_lines || st->skipped_deliveries) {
    fprintf(f, "skipped:\n");
    for (k = 0; k < IPS_SKIP_N; k++)
      if (st->skipped[k])
        fprintf(f, "  %8" PRIu64 "  %s\n", st->skipped[k], ips_skip_message(k));
  }
  if (r->os)
    os_summary_text(f, a);
}
