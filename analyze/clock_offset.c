/* clock_offset.c — the attribution's clock stage (attribute.c, result.h):
 * the parent's stamps and the worker's put on one clock before the
 * formula compares them.
 *
 * On the shared monotonic clock when the stamps are causal on it; else on
 * the kernel run's monotonic offset, the interval all its round trips
 * allow (docs/report.md, Clocks); else the worker's wall or mono stamps
 * moved by a per-vat NTP-style estimate.  Separate from attribute.c
 * because it is the one stage with state across deliveries (the run's
 * interval, the vats' estimates) and its own reasoning about offsets. */
#include "config.h"

#include <string.h>

#include "attribution.h"
#include "result.h"

/* a += b, unless that overflows: then 1. */
static int add_ovf(int64_t *a, int64_t b) {
  return __builtin_add_overflow(*a, b, a);
}

/* The parent's side, into a->P: on its mono clock if every record has one
 * (it never jumps) and the options allow.  Unmatched, only D and E go
 * there, and the kernel's upcall time is kept as a sum. */
static void parent_stamps(ips_analysis_t *a, const ips__vat_t *v, res_t *c) {
  int64_t *P = a->P;
  size_t i, last = c->k - 1;
  int pm = v->D.has_m && c->E.has_m;
  for (i = 0; i < c->nrec; i++)
    pm = pm && v->up[i].U.has_m && v->up[i].R.has_m;
  if (a->o.clock == IPS_CLOCK_WALL)
    pm = 0;
  c->have_pm = pm;
#define PS(s) (pm ? (s).m : (s).w)
  P[0] = PS(v->D);
  for (i = 0; i < c->nrec && !c->unmatched; i++) {
    P[1 + 2 * i] = PS(v->up[i].U);
    P[2 + 2 * i] = PS(v->up[i].R);
  }
  P[last] = PS(c->E);
  for (i = 0; i < c->nrec && c->unmatched && !c->kovf; i++)
    c->kovf = add_ovf(&c->kernel_recorded, PS(v->up[i].R) - PS(v->up[i].U));
#undef PS
}

/* Whether the worker's mono stamps and the parent's are causal on one
 * clock: each message stamped by its receiver after its sender. */
static int causal(const ips_analysis_t *a, const res_t *c) {
  const int64_t *P = a->P, *w = c->r->wmono;
  size_t i, last = c->k - 1;
  if (!c->have_pm || !c->have_wm)
    return 0;
  for (i = 0; i < c->k; i++) {
    if (i > 0 && w[i] < w[i - 1])
      return 0;
    if (c->unmatched && i != 0 && i != last) /* only D and E to compare */
      continue;
    /* parent sends D, R; the worker sends u, e: the receiver stamps last */
    if ((i == 0 || (i % 2 == 0 && i != last)) ? w[i] < P[i] : P[i] < w[i])
      return 0;
  }
  return 1;
}

/* The round trips of a delivery (docs/report.md, Clocks), each the
 * interval of offsets (worker - parent) its causality allows: the
 * delivery's, D -> d ... e -> E, [e - E, d - D] (first 1 leaves it out: no
 * e), and each of n upcalls', u -> U ... R -> r, [u - U, r - R].  *blo,
 * *bhi get the narrowest (the first of equals); returns whether they all
 * have an offset in common (*lo <= *hi, their intersection). */
static int round_trips(const int64_t *P, const int64_t *W, size_t n,
                       size_t first, int64_t *lo, int64_t *hi, int64_t *blo,
                       int64_t *bhi) {
  size_t last = 1 + 2 * n, i, j;
  for (i = first; i <= n; i++) {
    int64_t l, h;
    if (i == 0) {
      l = W[last] - P[last];
      h = W[0] - P[0];
    } else {
      j = 2 * i - 1;
      l = W[j] - P[j];
      h = W[j + 1] - P[j + 1];
    }
    if (i == first || h - l < *bhi - *blo) {
      *blo = l;
      *bhi = h;
    }
    if (i == first || l > *lo)
      *lo = l;
    if (i == first || h < *hi)
      *hi = h;
  }
  return *lo <= *hi;
}

/* NTP-style offset (worker - parent) from the round trips of this
 * delivery: its narrowest (smallest delay) is kept per vat when it beats
 * the best so far.  A delivery whose round trips have no offset in common
 * (a stamp contradicts the others) adds none of them: it uses the vat's
 * estimate, or with none yet its own narrowest, for itself alone. */
static void estimate(ips__vat_t *v, int slot, const int64_t *P,
                     const int64_t *W, size_t n, size_t first, int64_t *off,
                     int64_t *bound) {
  int64_t lo, hi, blo, bhi, d;
  int agree = round_trips(P, W, n, first, &lo, &hi, &blo, &bhi);
  /* Each bound is a difference of two stamps in [0, 2^62): the sums and
   * differences below fit. */
  d = bhi - blo;
  if (agree && (!v->has_est[slot] || d < v->est_delay[slot])) {
    v->has_est[slot] = 1;
    v->est_off[slot] = (blo + bhi) / 2;
    v->est_delay[slot] = d;
  }
  if (v->has_est[slot]) {
    *off = v->est_off[slot];
    *bound = v->est_delay[slot] / 2;
  } else {
    *off = (blo + bhi) / 2;
    *bound = d > 0 ? d / 2 : 0;
  }
}

/* SwingSet's monotime counts from the kernel's start: a worker's
 * CLOCK_MONOTONIC is ahead of it by a constant of the kernel run.  The
 * run's round trips bound it: the interval all of them allow, narrowed by
 * each delivery that agrees with it, gives the offset (its middle) and
 * the bound (half its width, rounded up).  Returns 1 with a->W and *dv on
 * that clock, 0 when the delivery's round trips leave it no offset in
 * common with themselves or the run's. */
static int mono_run(ips_analysis_t *a, res_t *c, ips_delivery_t *dv) {
  const int64_t *P = a->P, *w = c->r->wmono;
  int64_t lo, hi, blo, bhi, off;
  size_t i, last = c->k - 1;
  int agree;
  if (c->unmatched) { /* the delivery's own round trip only */
    int64_t p2[2] = {P[0], P[last]}, w2[2] = {w[0], w[last]};
    agree = round_trips(p2, w2, 0, 0, &lo, &hi, &blo, &bhi);
  } else {
    agree = round_trips(P, w, c->n, 0, &lo, &hi, &blo, &bhi);
  }
  if (a->has_mono_run) {
    if (a->mono_lo > lo)
      lo = a->mono_lo;
    if (a->mono_hi < hi)
      hi = a->mono_hi;
  }
  if (!agree || lo > hi)
    return 0;
  off = lo + (hi - lo) / 2;
  for (i = 0; i < c->k; i++) {
    a->W[i] = w[i] - off; /* both in (-2^62, 2^62) */
    if (!ips__attr_in_range(&a->W[i], 1))
      return 0;
  }
  a->has_mono_run = 1;
  a->mono_lo = lo;
  a->mono_hi = hi;
  dv->clock = 'm';
  dv->mono_offset = 1;
  dv->offset_ns = off;
  dv->bound_ns = (hi - lo) / 2 + (hi - lo) % 2;
  c->off = off;
  return 1;
}

/* The worker's wall or mono stamps moved by the estimated offset, into
 * a->W.  Truncated, W mirrors P where the worker has no stamp. */
static int shift_worker(ips_analysis_t *a, ips__vat_t *v, res_t *c,
                        ips_delivery_t *dv) {
  const ips__rec_t *r = c->r;
  int64_t *P = a->P, *W = a->W, off, bound;
  size_t i, last = c->k - 1;
  const int64_t *wsrc =
      c->have_ww && a->o.clock != IPS_CLOCK_MONO ? r->walls : r->wmono;
  int slot = (wsrc == r->walls ? 0 : 2) + (c->have_pm ? 1 : 0);
  if (c->unmatched) { /* the delivery's own round trip only */
    int64_t p2[2] = {P[0], P[last]}, w2[2] = {wsrc[0], wsrc[last]};
    estimate(v, slot, p2, w2, 0, 0, &off, &bound);
  } else if (c->truncated) { /* its stamped upcalls' round trips */
    estimate(v, slot, P, wsrc, c->m, 1, &off, &bound);
  } else {
    estimate(v, slot, P, wsrc, c->n, 0, &off, &bound);
  }
  for (i = 0; i < c->k; i++) {
    /* Truncated, W mirrors P where the worker has no stamp; a replay at
     * the cap, at E (its last stamp may not be e). */
    W[i] = c->truncated && (i == last || (!c->unmatched && i > 2 * c->m))
               ? P[i]
               : wsrc[i] - off; /* both in range */
    if (W[i] <= -IPS_STAMP_LIMIT || W[i] >= IPS_STAMP_LIMIT) {
      ips__skip_of(a, v, v->line, IPS_SKIP_RANGE,
                   "a worker stamp moved by the clock offset estimate");
      return -1;
    }
  }
  dv->clock = 'w';
  c->use_wall = wsrc == r->walls;
  c->off = off;
  dv->offset_ns = off;
  dv->bound_ns = bound;
  return 0;
}

/* Stage 3: both sides on one clock, in a->P and a->W. */
int ips__clock_offset(ips_analysis_t *a, ips__vat_t *v, res_t *c,
                      ips_delivery_t *dv) {
  int on_mono;
  parent_stamps(a, v, c);
  on_mono = causal(a, c);
  if (a->o.clock == IPS_CLOCK_MONO && (!c->have_pm || !c->have_wm)) {
    ips__skip_of(a, v, v->line, IPS_SKIP_CLOCK,
                 c->have_wm ? "the parent has no monotime"
                            : "the worker has no ipcstamp.mono");
    return -1;
  } else if (a->o.clock == IPS_CLOCK_WALL && !c->have_ww) {
    ips__skip_of(a, v, v->line, IPS_SKIP_CLOCK,
                 "the worker has no wall timestamps");
    return -1;
  }
  dv->pclock = c->have_pm ? 'm' : 'w';
  if (on_mono) {
    memcpy(a->W, c->r->wmono, c->k * sizeof *a->W);
    dv->clock = 'm';
    return 0;
  }
  if (c->have_pm && c->have_wm && a->o.clock != IPS_CLOCK_WALL &&
      mono_run(a, c, dv))
    return 0;
  if (a->o.clock == IPS_CLOCK_MONO) {
    ips__skip_of(a, v, v->line, IPS_SKIP_CLOCK,
                 "the worker's mono stamps fit no offset of the kernel run's");
    return -1;
  }
  return shift_worker(a, v, c, dv);
}

