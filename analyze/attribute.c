/* attribute.c — a deliver-result turned into an ips_delivery_t, in the
 * stages of docs/analyze.md, each a function that either hands on or
 * skips the delivery with the reason:
 *
 *   validate  the result is of the delivery in progress, has a metering
 *             this reader knows and nothing dropped;
 *   align     the worker's stamps paired with the kernel's records: all,
 *             a replay's (console lines the kernel did not record), or
 *             xsnap's truncated prefix; the kinds and the ranges checked;
 *   clock     both lists on one clock: the shared monotonic one when the
 *             stamps are causal on it, else the worker's moved by the
 *             NTP-style offset estimate;
 *   attribute the formula (proto/attribution.c), the only copy;
 *   annotate  marks, CPU, timequakes and the kernel's time before it;
 *
 * then stats.c counts it and hands it to the caller. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "attribution.h"
#include "marks.h"
#include "vat.h"

/* One result on its way through the stages. */
typedef struct {
  const ips__rec_t *r;
  long line;            /* the result's line */
  ips__pst_t E;
  size_t nrec;          /* the kernel's upcall records */
  size_t n;             /* upcalls attributed (the worker's, on replay) */
  size_t k;             /* stamps per side: 2 + 2n */
  size_t nw;            /* the worker's stamps in the metering */
  size_t m;             /* truncated: the upcalls the worker stamped */
  int have_ww, have_wm; /* the worker's wall stamps, its mono ones */
  int have_pm;          /* the parent's stamps are on its mono clock */
  int unmatched, truncated;
  int64_t kernel_recorded; /* unmatched: the kernel's R - U, summed */
  int kovf;                /* ... and that sum overflowed */
  int use_wall;         /* clock 'w': the worker's wall stamps were moved */
  int64_t off;          /* ... by this offset */
  char d[160];          /* a skip's detail */
} res_t;

/* Stage 1.  Returns 0 to go on; otherwise the delivery is done with. */
static int validate(ips_analysis_t *a, ips__vat_t *v, res_t *c) {
  const ips__rec_t *r = c->r;
  if (!ips__matches(v, r)) {
    if (ips__cut_at_start(a, v))
      return -1;
    snprintf(c->d, sizeof c->d,
             "deliver-result of %s (no delivery in progress)", v->name);
    ips__skip_of(a, v, c->line, IPS_SKIP_ORPHAN, c->d);
    return -1;
  }
  v->open = 0;
  c->n = c->nrec = v->n_up; /* v->up[] stays readable until the next D */
  v->n_up = 0;
  if (v->bad) {
    v->bad = 0;
    return -1;
  }
  if (c->n > 0 && !v->up[c->n - 1].has_R) {
    ips__skip_of(a, v, v->line, IPS_SKIP_STAMPS,
                 "the last syscall has no result");
    return -1;
  }
  if (r->have & IPS__F_DRNULL) {
    ips__count_unstamped(a, v, r);
    return -1;
  }
  if (!(r->have & IPS__F_METER)) {
    ips__skip_of(a, v, v->line, IPS_SKIP_NOSTAMPS,
                 "dr has no metering object");
    return -1;
  }
  /* v2 is v1 plus marks (issue 14). */
  if ((r->have & IPS__F_IPSV) &&
      (r->ipsv < 1 || r->ipsv > IPS_METERING_VERSION_MAX)) {
    snprintf(c->d, sizeof c->d,
             "ipcstamp.v %ld at line %ld (this reader knows 1 to %d)",
             r->ipsv, c->line, IPS_METERING_VERSION_MAX);
    ips__skip_of(a, v, v->line, IPS_SKIP_VERSION, c->d);
    return -1;
  }
  if (r->dropped > 0) {
    snprintf(c->d, sizeof c->d, "%lld stamps dropped, see line %ld",
             r->dropped, c->line);
    ips__skip_of(a, v, v->line, IPS_SKIP_DROPPED, c->d);
    return -1;
  }
  c->have_ww = (r->have & IPS__F_WALLS) != 0;
  c->have_wm = (r->have & IPS__F_WMONO) != 0;
  if (!c->have_ww && !c->have_wm) {
    ips__skip_of(a, v, v->line, IPS_SKIP_NOSTAMPS,
                 "metering has neither timestamps nor ipcstamp.mono");
    return -1;
  }
  return 0;
}

/* A worker whose console lines are not upcalls (its stamps count the
 * syscalls alone): the console records are not its upcalls, and go. */
static void drop_console(ips_analysis_t *a, ips__vat_t *v, res_t *c) {
  size_t i, j = 0;
  for (i = 0; i < c->nrec; i++)
    j += !v->up[i].console;
  if (j < c->nrec && c->nw == 2 + 2 * j) {
    a->st.other += c->nrec - j; /* records of nothing we attribute */
    for (i = j = 0; i < c->nrec; i++)
      if (!v->up[i].console)
        v->up[j++] = v->up[i];
    c->n = c->nrec = j;
    c->k = c->nw;
  }
}

/* The first stamp of the delivery that is out of [0, 2^62), as text for
 * the skip (NULL when all are in range). */
static int in_range(int64_t x) { return x >= 0 && x < IPS_STAMP_LIMIT; }
static int pst_in_range(const ips__pst_t *s) {
  return in_range(s->w) && (!s->has_m || in_range(s->m));
}
static const char *out_of_range(const ips__vat_t *v, const res_t *c) {
  const ips__rec_t *r = c->r;
  size_t i, k = c->truncated ? c->nw : c->k;
  if (!pst_in_range(&v->D))
    return "the deliver record's time or monotime";
  for (i = 0; i < c->nrec; i++)
    if (!pst_in_range(&v->up[i].U) || !pst_in_range(&v->up[i].R))
      return "a syscall record's time or monotime";
  if (!pst_in_range(&c->E))
    return "the deliver-result record's time or monotime";
  for (i = 0; i < k; i++)
    if (((r->have & IPS__F_WALLS) && !in_range(r->walls[i])) ||
        ((r->have & IPS__F_WMONO) && !in_range(r->wmono[i])))
      return "a worker stamp in the metering";
  if ((r->have & IPS__F_CPU) && !in_range(r->cpu_ns))
    return "the metering's cpu_ns";
  return NULL;
}

/* Whether the metering's kinds are d (u r)* e, k of them. */
static int kinds_ok(const ips__rec_t *r, size_t k) {
  size_t i;
  for (i = 0; i < k; i++) {
    char want = i == 0 ? 'd' : i == k - 1 ? 'e' : (i & 1) ? 'u' : 'r';
    if (r->kinds[i] != want)
      return 0;
  }
  return 1;
}

/* Stage 2: the worker's stamps against the kernel's records. */
static int align(ips_analysis_t *a, ips__vat_t *v, res_t *c) {
  const ips__rec_t *r = c->r;
  const char *bad;
  int xsnap;
  c->k = 2 + 2 * c->n;
  /* ipcstamp-worker-xs sends xsnap's own timestamps beside its mono
   * stamps; cut at xsnap's cap they are fewer, and not used. */
  if (c->have_ww && c->have_wm && r->n_walls != r->n_wmono)
    c->have_ww = 0;
  c->nw = c->have_wm ? r->n_wmono : r->n_walls;
  /* xsnap keeps at most IPS__XSNAP_MAX_STAMPS stamps (its MAX_TIMESTAMPS)
   * for its calls, console lines included, and drops the rest without a
   * word, e included.  Live, the kernel's records are its calls: when they
   * need more than the cap, it was cut there, whatever else the count
   * would match.  Replayed, the kernel records no console line, so a
   * replay at the cap may have been cut: its own stamps up to its last
   * reply are used, and the rest is unmatched. */
  xsnap = c->have_ww && !c->have_wm && !(r->have & IPS__F_KINDS) &&
          c->nw == IPS__XSNAP_MAX_STAMPS;
  if (xsnap && v->replay) {
    c->unmatched = c->truncated = 1;
    c->n = (c->nw - 1) / 2;
    c->k = c->nw;
  } else if (xsnap && c->k > c->nw) {
    c->truncated = 1;
    c->m = (c->nw - 1) / 2;
  }
  if (!c->truncated && c->nw != c->k)
    drop_console(a, v, c);
  /* Replayed, the worker logs its console lines as it did live, but the
   * kernel writes no record of them: more worker upcalls than records. */
  if (!c->truncated && v->replay && c->nw > c->k && c->nw % 2 == 0 &&
      (!c->have_ww || r->n_walls == c->nw) &&
      (!(r->have & IPS__F_KINDS) || r->n_kinds == c->nw)) {
    c->unmatched = 1;
    c->n = (c->nw - 2) / 2;
    c->k = c->nw;
  }
  if (c->truncated) {
    /* the stamps are the prefix xsnap keeps */
  } else if ((c->have_ww && r->n_walls != c->k) ||
             (c->have_wm && r->n_wmono != c->k) ||
             ((r->have & IPS__F_KINDS) && r->n_kinds != c->k)) {
    snprintf(c->d, sizeof c->d,
             "%zu syscalls need %zu stamps; the metering at line %ld has %zu",
             c->n, c->k, c->line, c->have_wm ? r->n_wmono : r->n_walls);
    ips__skip_of(a, v, v->line, IPS_SKIP_STAMPS, c->d);
    return -1;
  }
  if ((r->have & IPS__F_KINDS) && !kinds_ok(r, c->k)) {
    snprintf(c->d, sizeof c->d, "ipcstamp.kinds \"%.40s\" at line %ld",
             r->kinds, c->line);
    ips__skip_of(a, v, v->line, IPS_SKIP_STAMPS, c->d);
    return -1;
  }
  if ((bad = out_of_range(v, c)) != NULL) {
    snprintf(c->d, sizeof c->d, "%s is not in [0, 2^62) ns", bad);
    ips__skip_of(a, v, v->line, IPS_SKIP_RANGE, c->d);
    return -1;
  }
  return 0;
}

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
static int clock(ips_analysis_t *a, ips__vat_t *v, res_t *c,
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

/* Stage 4: the formula, and what the delivery is. */
static int attribute(ips_analysis_t *a, ips__vat_t *v, res_t *c,
                     ips_delivery_t *dv) {
  ips__attr_in_t in;
  ips__attr_out_t out;
  size_t i;
  if (c->unmatched) /* P mirrors W: every upcall segment is the worker's */
    for (i = 0; i < c->n; i++) {
      a->P[1 + 2 * i] = a->W[1 + 2 * i];
      a->P[2 + 2 * i] = a->W[2 + 2 * i];
    }
  in.P = a->P;
  in.W = a->W;
  in.n_up = c->n;
  in.n_unmatched = c->unmatched ? c->n : c->truncated ? c->n - c->m : 0;
  in.truncated = c->truncated;
  in.kernel_recorded = c->kernel_recorded;
  if (c->kovf || ips__attribute(&in, &out) != 0) {
    ips__skip_of(a, v, v->line, IPS_SKIP_RANGE,
                 "the segments' sum overflows");
    return -1;
  }
  dv->vat = v->name;
  dv->desc = v->desc;
  dv->method = v->notify ? "notify" : v->desc;
  dv->crank = v->crank;
  dv->replay = v->replay;
  dv->dnum = v->dnum;
  dv->line = v->line;
  dv->worker_pid = v->pid;
  dv->worker_line = v->pid_line;
  dv->ok = c->r->ok;
  dv->n_up = c->n;
  dv->n_unmatched = in.n_unmatched;
  dv->truncated = c->truncated;
  dv->P = a->P;
  dv->W = a->W;
  dv->total = out.total;
  dv->pipe = out.pipe;
  dv->worker = out.worker;
  dv->kernel = out.kernel;
  dv->unmatched = out.unmatched;
  return 0;
}

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
static int annotate(ips_analysis_t *a, ips__vat_t *v, res_t *c,
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
  }
  dv->offset_mismatch = offset_mismatch(c, dv);
  dv->quake_ns = quake_ns(v, c, dv);
  dv->quake = dv->quake_ns > a->o.quake_ns;
  if (dv->quake) /* the offset found before the quake is stale now */
    memset(v->has_est, 0, sizeof v->has_est);
  /* The kernel's own time since the last delivery ended, on this clock. */
  if (a->has_lastE[pc] && P[0] >= a->lastE[pc]) {
    dv->has_gap = 1;
    dv->gap_ns = P[0] - a->lastE[pc];
  }
  if (!a->has_lastE[pc] || P[last] > a->lastE[pc])
    a->lastE[pc] = P[last];
  a->has_lastE[pc] = 1;
  return 0;
}

void ips__on_result(ips_analysis_t *a, ips__vat_t *v, const ips__rec_t *r,
                    long line) {
  res_t c;
  ips_delivery_t dv;
  memset(&c, 0, sizeof c);
  memset(&dv, 0, sizeof dv);
  c.r = r;
  c.line = line;
  c.E = ips__pstamp(r);
  if (validate(a, v, &c) || align(a, v, &c) || clock(a, v, &c, &dv) ||
      attribute(a, v, &c, &dv) || annotate(a, v, &c, &dv))
    return;
  ips__account(a, v, &dv);
}

/* The public segment walk: the formula's, on the delivery's stamps. */
static ips__attr_in_t attr_in(const ips_delivery_t *d) {
  ips__attr_in_t in;
  in.P = d->P;
  in.W = d->W;
  in.n_up = d->n_up;
  in.n_unmatched = d->n_unmatched;
  in.truncated = d->truncated;
  in.kernel_recorded = d->kernel;
  return in;
}

size_t ips_delivery_nsegments(const ips_delivery_t *d) {
  ips__attr_in_t in = attr_in(d);
  return ips__attr_nsegments(&in);
}

int64_t ips_delivery_segment(const ips_delivery_t *d, size_t j,
                             const char **name) {
  ips__attr_in_t in = attr_in(d);
  int kind;
  int64_t len = ips__attr_segment(&in, j, &kind);
  *name = ips__attr_seg_name(kind);
  return len;
}

/* The public kinds are the formula's. */
_Static_assert((int)IPS_SEG_N == (int)IPS__SEG_N &&
                   (int)IPS_SEG_UNMATCHED == (int)IPS__SEG_UNMATCHED &&
                   (int)IPS_SEG_RESULT == (int)IPS__SEG_RESULT,
               "segment kinds");

const char *ips_segment_name(int kind) { return ips__attr_seg_name(kind); }

size_t ips_delivery_segments(const ips_delivery_t *d, size_t from, size_t cap,
                             int64_t *len, unsigned char *kind) {
  ips__attr_in_t in = attr_in(d);
  return ips__attr_segments(&in, from, cap, len, kind);
}

size_t ips_delivery_stamped_upcalls(const ips_delivery_t *d) {
  ips__attr_in_t in = attr_in(d);
  return ips__attr_stamped(&in);
}

int64_t ips_delivery_upcall_wait(const ips_delivery_t *d, size_t i) {
  ips__attr_in_t in = attr_in(d);
  return ips__attr_upcall_wait(&in, i);
}
