/* stats.c — what the analysis keeps of each delivery: the skips, the
 * filters, the sums per vat and over the input, the slowest deliveries;
 * and the delivery's way out to the caller (ips__account). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "marks.h"
#include "vat.h"

static const char *const skip_msgs[] = {
#define XX(name, msg) msg,
    IPS_SKIP_MAP(XX)
#undef XX
};

static const char *const skip_names[] = {
#define XX(name, msg) #name,
    IPS_SKIP_MAP(XX)
#undef XX
};

const char *ips_skip_name(int reason) {
  return reason >= 0 && reason < IPS_SKIP_N ? skip_names[reason] : "?";
}

const char *ips_skip_message(int reason) {
  return reason >= 0 && reason < IPS_SKIP_N ? skip_msgs[reason] : "?";
}

void ips__skip(ips_analysis_t *a, const char *vat, long line, int reason,
               const char *detail) {
  ips_skip_t sk;
  if (a->blocks && reason >= IPS_SKIP_ORPHAN)
    ips__blocks_skipped(a->blocks); /* its block says its time is unsplit */
  /* A delivery of a vat the filter hides is nobody's business; a bad line
   * may have been anybody's, so it always counts. */
  if (vat && a->vat_filter && strcmp(vat, a->vat_filter))
    return;
  a->st.skipped[reason]++;
  if (reason <= IPS_SKIP_TOO_LONG)
    a->st.skipped_lines++;
  else
    a->st.skipped_deliveries++;
  if (a->o.on_skip) {
    sk.reason = reason;
    sk.line = line;
    sk.detail = detail ? detail : "";
    a->o.on_skip(a->o.arg, &sk);
  }
}

/* Whether the delivery in progress of v passes the time and crank
 * filters (the vat filter is v->shown). */
static int in_window(const ips_analysis_t *a, const ips__vat_t *v) {
  const ips_stats_t *st = &a->st;
  int64_t t;
  /* A replayed delivery has no crank (-1): outside any crank window, but
   * shown when there is none. */
  if (v->crank < 0 ? a->o.crank_min > 0 || a->o.crank_max > 0
                   : v->crank < a->o.crank_min ||
                         (a->o.crank_max && v->crank > a->o.crank_max))
    return 0;
  if (!a->o.since_ns && !a->o.until_ns)
    return 1;
  /* On the clock the trace and the report measure from. */
  if (v->D.has_m && st->first_mono_ok)
    t = v->D.m - st->first_mono;
  else if (st->first_time_ok)
    t = v->D.w - st->first_time;
  else
    return 1;
  return t >= a->o.since_ns && (!a->o.until_ns || t < a->o.until_ns);
}

int ips__counts(const ips_analysis_t *a, const ips__vat_t *v) {
  return v->shown && in_window(a, v) &&
         !(a->o.limit && a->shown >= a->o.limit);
}

/* Whether a record of v's with no delivery in progress belongs to a
 * delivery that started before the input does: read before any deliver
 * record, it is one (a wrapped flight recorder's oldest records, a rotated
 * or tailed slogfile: the kernel runs one delivery at a time, so only the
 * first can have been cut).  Expected, not bad input: counted in st.cut,
 * which the summary notes, not skipped. */
int ips__cut_at_start(ips_analysis_t *a, const ips__vat_t *v) {
  if (a->delivered)
    return 0;
  if (v->shown) /* of the vats the filter shows, as skips are */
    a->st.cut++;
  return 1;
}

void ips__skip_of(ips_analysis_t *a, const ips__vat_t *v, long line,
                  int reason, const char *detail) {
  if (v && (!in_window(a, v) || (a->o.limit && a->shown >= a->o.limit)))
    return;
  ips__skip(a, v ? v->name : NULL, line, reason, detail);
}

/* *sum += v, held at the bound (ips_sum_add, the one policy), counted in
 * *sat when it is. */
static void sum(int64_t *sum, int64_t v, uint64_t *sat) {
  *sat += (uint64_t)ips_sum_add(sum, v);
}

static void add_wait(ips_wait_totals_t *t, const ips_delivery_t *d,
                     uint64_t *sat) {
  if (d->has_wait) { /* its whole pipe, split as it is */
    t->n_wait++;
    sum(&t->wait_pipe, d->pipe, sat);
    sum(&t->pipe_wait, d->pipe_wait, sat);
    sum(&t->pipe_transit, d->pipe_transit, sat);
    sum(&t->pipe_unsplit, d->pipe_unsplit, sat);
    sum(&t->wait_worker, d->wait_worker, sat);
  }
  if (d->has_runnable) {
    t->n_runnable++;
    sum(&t->runnable, d->runnable_ns, sat);
    if (d->has_cpu) {
      t->n_blocked++;
      sum(&t->blocked, d->blocked_ns, sat);
      sum(&t->split_offcpu, d->offcpu_ns, sat);
      sum(&t->split_runnable, d->runnable_ns, sat);
    }
  }
}

/* One place adds a delivery to a set's sums: a vat's and the whole
 * input's. */
static void add_totals(ips_totals_t *t, const ips_delivery_t *d,
                       uint64_t *sat) {
  t->n++;
  if (d->clock == 'm')
    t->n_mono++;
  else
    t->n_wall++;
  sum(&t->pipe, d->pipe, sat);
  sum(&t->worker, d->worker, sat);
  sum(&t->kernel, d->kernel, sat);
  sum(&t->total, d->total, sat);
  if (d->has_cpu) {
    t->n_cpu++;
    sum(&t->cpu, d->cpu_ns, sat);
    sum(&t->offcpu, d->offcpu_ns, sat);
    sum(&t->cpu_worker, d->worker, sat);
  }
  if (d->has_gap) {
    t->n_gap++;
    sum(&t->gap, d->gap_ns, sat);
  }
  if (d->quake)
    t->n_quake++;
  if (d->replay)
    t->n_replay++;
  if (d->n_unmatched) {
    t->n_unmatched++;
    sum(&t->unmatched, d->unmatched, sat);
  }
  if (d->truncated)
    t->n_truncated++;
  if (!d->ok)
    t->n_error++;
}

int64_t ips_stats_origin(const ips_stats_t *st, const ips_delivery_t *d) {
  if (d->pclock == 'm')
    return st->first_mono_ok ? st->first_mono : d->P[0];
  return st->first_time_ok ? st->first_time : d->P[0];
}

int64_t ips_stats_wall_ns(const ips_stats_t *st, const ips_delivery_t *d,
                          int64_t stamp) {
  if (d->pclock == 'w')
    return stamp;
  if (st->restarts && st->run_ok)
    return st->run_time + (stamp - st->run_mono);
  if (!st->first_time_ok || !st->first_mono_ok)
    return stamp;
  return st->first_time + (stamp - st->first_mono);
}

/* One of the slowest, in the slot the keeper gives (ties: arrival
 * order, which is file order). */
static void keep_slow(ips_analysis_t *a, const ips_delivery_t *d) {
  long slot = ips_slowest_slot(&a->keeper, d->total, a->shown);
  ips_slow_t *s;
  if (slot < 0)
    return;
  s = &a->slow[slot];
  snprintf(s->vat, sizeof s->vat, "%s", d->vat);
  snprintf(s->desc, sizeof s->desc, "%s", d->desc);
  s->crank = d->crank;
  s->dnum = d->dnum;
  s->line = d->line;
  s->pipe = d->pipe;
  s->worker = d->worker;
  s->kernel = d->kernel;
  s->total = d->total;
  ips__slow_marks_keep(&a->slow_marks[slot], d);
}

const ips_slow_t *ips_analysis_slowest(const ips_analysis_t *a, size_t *n) {
  size_t i;
  ips_slowest_order(&a->keeper, a->slow_order);
  for (i = 0; i < a->keeper.n; i++)
    a->slow_sorted[i] = a->slow[a->slow_order[i]];
  *n = a->keeper.n;
  return a->slow_sorted;
}

/* A result without worker stamps (dr[2] null): a local vat's delivery, or a
 * worker's error with no metering.  Counted, not skipped: nothing in the
 * file is wrong. */
void ips__count_unstamped(ips_analysis_t *a, ips__vat_t *v,
                          const ips__rec_t *r) {
  if (!ips__counts(a, v))
    return;
  if (r->ok) {
    v->s.t.n_local++;
    a->st.all.n_local++;
    return;
  }
  v->s.t.n_error++;
  a->st.all.n_error++;
  if (r->have & IPS__F_METERKILL)
    a->st.n_meter_kill++;
  else
    a->st.n_error_unstamped++;
}

/* The kernel run's mono offset as its latest delivery had it. */
static void keep_mono_run(ips_analysis_t *a, const ips_delivery_t *dv) {
  ips_mono_run_t *m = a->n_mono_runs ? &a->mono_runs[a->n_mono_runs - 1]
                                     : NULL;
  if (!m || m->run != a->st.restarts) {
    if (a->n_mono_runs == IPS_MAX_MONO_RUNS) {
      if (m->run != a->st.restarts) /* counted once per run */
        a->mono_runs_over++;
      return;
    }
    m = &a->mono_runs[a->n_mono_runs++];
    m->run = a->st.restarts;
    m->deliveries = 0;
  }
  m->offset_ns = dv->offset_ns;
  m->bound_ns = dv->bound_ns;
  m->deliveries++;
}

const ips_mono_run_t *ips_analysis_mono_runs(const ips_analysis_t *a,
                                             size_t *n) {
  *n = a->n_mono_runs;
  return a->mono_runs;
}

uint64_t ips_analysis_mono_runs_over(const ips_analysis_t *a) {
  return a->mono_runs_over;
}

void ips__account(ips_analysis_t *a, ips__vat_t *v, ips_delivery_t *dv) {
  if (!ips__counts(a, v) || (a->o.select && !a->o.select(a->o.arg, dv)))
    return;
  if (dv->clock == 'w') {
    v->s.has_offset = 1;
    v->s.offset_ns = dv->offset_ns;
    v->s.bound_ns = dv->bound_ns;
  }
  if (dv->mono_offset)
    keep_mono_run(a, dv);
  if (dv->offset_mismatch)
    a->st.n_offset_mismatch++;
  if (dv->ring == IPS_RING_JOINED)
    a->st.n_ring_joined++;
  else if (dv->ring == IPS_RING_LAPPED)
    a->st.n_ring_lapped++;
  else if (dv->ring == IPS_RING_MISSING)
    a->st.n_ring_missing++;
  add_totals(&v->s.t, dv, &a->st.saturated);
  add_totals(&a->st.all, dv, &a->st.saturated);
  if (dv->snap_save_ns) {
    a->st.n_snap_save++;
    sum(&a->st.snap_save, dv->snap_save_ns, &a->st.saturated);
  }
  if (dv->snap_load_ns) {
    a->st.n_snap_load++;
    sum(&a->st.snap_load, dv->snap_load_ns, &a->st.saturated);
  }
  add_wait(&a->st.wait, dv, &a->st.saturated);
  ips__os_account(a, dv);
  a->shown++;
  keep_slow(a, dv);
  if (dv->n_marks)
    ips__marks_count(a, dv);
  if (a->o.on_delivery)
    a->o.on_delivery(a->o.arg, dv);
}
