/* annotate.c — the attribution's last stage (attribute.c, result.h):
 * what else is known of a delivery once its time is split.
 *
 * Its marks (marks.c), its CPU time and the off-CPU rest, whether a clock
 * jumped during it (a timequake) or its offset estimate does not fit it,
 * and the kernel's own time since the delivery before, less the heap
 * snapshots.  Separate because none of it changes the pipe / worker /
 * kernel split: it reads the stamps the earlier stages settled. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "marks.h"
#include "result.h"

static int64_t iabs(int64_t x) { return x < 0 ? -x : x; }

/* A timequake: wall and mono disagree over the same interval, on either
 * side; or, on one machine and one mono clock, the two sides' wall clocks
 * disagree (a worker whose wall clock is set apart, faked or stepped
 * before the delivery, shows as d - D differing between wall and mono). */
static int64_t quake_ns(const ips__vat_t *v, const res_t *c,
                        const ips_delivery_t *dv) {
  const ips__rec_t *r = c->r;
  size_t last = c->k - 1;
  int64_t q = 0, x;
  int same;
  if (v->D.has_m && c->E.has_m && (r->have & IPS__F_TIME))
    q = iabs((c->E.w - v->D.w) - (c->E.m - v->D.m));
  /* The worker's two lists stamp the same moments, but for a worker that
   * sends xsnap's own timestamps beside its mono stamps (ipcstamp-worker-
   * xs): xsnap stamps elsewhere in its loop (its e before a GC the mono e
   * comes after), so they are not compared. */
  same = c->have_ww && c->have_wm && !(r->have & IPS__F_XSMETER);
  if (same) {
    x = iabs((r->walls[last] - r->walls[0]) - (r->wmono[last] - r->wmono[0]));
    if (x > q)
      q = x;
  }
  if (dv->clock == 'm' && same) {
    x = iabs((r->walls[0] - v->D.w) -
             (r->wmono[0] - (dv->mono_offset ? dv->offset_ns : 0) - v->D.m));
    if (x > q)
      q = x;
  }
  return q;
}

/* Whether a transit of the delivery (send, and with the worker's stamps
 * on both sides of it upcall, reply and result) is below -bound: the
 * offset it was split with does not fit it.  Only the wall estimate can:
 * on the mono clock every transit is >= 0 (causal, or in the run's
 * interval). */
static int offset_mismatch(const res_t *c, const ips_delivery_t *dv) {
  const int64_t *P = dv->P, *W = dv->W;
  size_t i, last = c->k - 1, stamped;
  int64_t low;
  if (dv->clock != 'w')
    return 0;
  low = W[0] - P[0];
  if (!c->truncated && P[last] - W[last] < low)
    low = P[last] - W[last];
  /* a replay's upcalls are not paired (P mirrors W there) */
  stamped = c->unmatched ? 0 : c->truncated ? c->m : c->n;
  for (i = 0; i < stamped; i++) {
    if (P[1 + 2 * i] - W[1 + 2 * i] < low)
      low = P[1 + 2 * i] - W[1 + 2 * i];
    if (W[2 + 2 * i] - P[2 + 2 * i] < low)
      low = W[2 + 2 * i] - P[2 + 2 * i];
  }
  return low < -dv->bound_ns;
}

/* Stage 5: what else is known of the delivery. */
int ips__annotate(ips_analysis_t *a, ips__vat_t *v, res_t *c,
                  ips_delivery_t *dv) {
  const ips__rec_t *r = c->r;
  int64_t *P = a->P;
  size_t last = c->k - 1;
  int pc = c->have_pm;
  if (r->have & IPS__F_MARKS) {
    const char *why = ips__marks_build(a, r, dv, c->use_wall, c->off, c->k);
    if (why) {
      snprintf(c->d, sizeof c->d, "%s, see line %ld", why, c->line);
      ips__skip_of(a, v, v->line, IPS_SKIP_STAMPS, c->d);
      return -1;
    }
    dv->marks_dropped = r->mdropped;
    dv->marks_unbalanced = r->munbalanced;
  }
  if (r->have & IPS__F_CPU) {
    dv->has_cpu = 1;
    dv->cpu_ns = r->cpu_ns;
    /* cpu_ns also counts the worker's own system calls for its upcalls,
     * which fall in pipe segments: it may exceed the worker time a little,
     * and then nothing of the worker time was off the CPU. */
    dv->offcpu_ns = dv->worker > dv->cpu_ns ? dv->worker - dv->cpu_ns : 0;
    /* Off the CPU: runnable (measured) or blocked (the rest). */
    if (dv->has_runnable) {
      if (dv->runnable_ns > dv->offcpu_ns)
        dv->runnable_ns = dv->offcpu_ns;
      dv->blocked_ns = dv->offcpu_ns - dv->runnable_ns;
    }
  }
  dv->offset_mismatch = offset_mismatch(c, dv);
  dv->ring = a->ring_note;
  dv->quake_ns = quake_ns(v, c, dv);
  dv->quake = dv->quake_ns > a->o.quake_ns;
  if (dv->quake) /* the offset found before the quake is stale now */
    memset(v->has_est, 0, sizeof v->has_est);
  /* The kernel's own time since the last delivery ended, on this clock. */
  if (a->has_lastE[pc] && P[0] >= a->lastE[pc]) {
    int64_t sv = a->snap.save[pc], ld = a->snap.load[pc];
    dv->has_gap = 1;
    dv->gap_ns = P[0] - a->lastE[pc];
    /* The heap snapshots since are theirs, not the kernel's own time
     * (both lie between the two deliveries, unless a clock stepped). */
    dv->snap_save_ns = sv >= 0 && sv < dv->gap_ns ? sv : dv->gap_ns;
    dv->gap_ns -= dv->snap_save_ns;
    dv->snap_load_ns = ld >= 0 && ld < dv->gap_ns ? ld : dv->gap_ns;
    dv->gap_ns -= dv->snap_load_ns;
  }
  if (!a->has_lastE[pc] || P[last] > a->lastE[pc])
    a->lastE[pc] = P[last];
  a->has_lastE[pc] = 1;
  ips__snap_reset(&a->snap);
  if (r->have & IPS__F_COMPUTE) {
    dv->has_compute = 1;
    dv->compute = r->compute;
  }
  if (a->blocks) /* every delivery, whatever the filters */
    ips__blocks_delivery(a->blocks, dv, dv->compute, dv->has_compute);
  return 0;
}
