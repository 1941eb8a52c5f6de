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
 * then stats.c counts it and hands it to the caller.  This file holds the
 * stages that decide what the stamps are (validate, align) and the one
 * that applies the formula; the clock stage is clock_offset.c and
 * annotate annotate.c, each a concern of its own (result.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "attribution.h"
#include "result.h"

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
  /* v2 is v1 plus marks. */
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
  /* More worker upcalls than records.  Replayed, the worker logs its
   * console lines as it did live, but the kernel writes no record of them;
   * live, a vat's testLog (SwingSet's bootstrap vats log so) is a worker
   * call the kernel answers and never records.  Such a delivery is split
   * as a replayed one is.  (Live at exactly xsnap's cap, its last stamp
   * may not be the end: not so.) */
  if (!c->truncated && (v->replay || !xsnap) && c->nw > c->k &&
      c->nw % 2 == 0 &&
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

/* The run-queue delays beside the stamps: the parent's at each
 * U (its syscall record) and E (the result's), the worker's at each stamp
 * when its metering has one per stamp; -1 where there is none.  Nothing
 * is made up: a side that measured nothing leaves its segments unsplit. */
static void run_delays(ips_analysis_t *a, const ips__vat_t *v, res_t *c) {
  const ips__rec_t *r = c->r;
  size_t i, last = c->k - 1;
  for (i = 0; i < c->k; i++)
    a->PQ[i] = -1;
  for (i = 0; i < c->nrec && !c->unmatched; i++) {
    a->PQ[1 + 2 * i] = v->up[i].Uq;
    c->has_pq |= v->up[i].Uq >= 0;
  }
  if (r->have & IPS__F_PRUNQ) {
    a->PQ[last] = r->prunq;
    c->has_pq = 1;
  }
  /* Where W mirrors P (xsnap's cap: shift_worker), the worker has no
   * stamp, so no delay either. */
  c->has_wq = (r->have & IPS__F_WRUNQ) && r->n_wrunq == c->nw;
  for (i = 0; i < c->k && c->has_wq; i++)
    a->WQ[i] = i >= c->nw || (c->truncated &&
                              (i == last || (!c->unmatched && i > 2 * c->m)))
                   ? -1
                   : r->wrunq[i];
}

/* Stage 4: the formula, and what the delivery is. */
static int attribute(ips_analysis_t *a, ips__vat_t *v, res_t *c,
                     ips_delivery_t *dv) {
  ips__attr_in_t in;
  ips__attr_out_t out;
  ips__attr_wait_t w;
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
  run_delays(a, v, c);
  in.PQ = c->has_pq ? a->PQ : NULL;
  in.WQ = c->has_wq ? a->WQ : NULL;
  if (c->kovf || ips__attribute(&in, &out) != 0 ||
      ips__attr_wait(&in, &w) != 0) {
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
  dv->PQ = in.PQ;
  dv->WQ = in.WQ;
  dv->has_wait = w.split > 0;
  dv->pipe_wait = w.wait;
  dv->pipe_transit = w.transit;
  dv->pipe_unsplit = w.unsplit;
  dv->wait_worker = w.wait_worker;
  dv->has_runnable = w.has_runnable;
  /* Each delay fits its stretch; over a wall clock's offset, the sum is
   * held to the worker time all the same. */
  dv->runnable_ns = w.runnable < out.worker ? w.runnable
                    : out.worker > 0        ? out.worker
                                            : 0;
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
  if (validate(a, v, &c) || align(a, v, &c) || ips__clock_offset(a, v, &c, &dv) ||
      attribute(a, v, &c, &dv) || ips__annotate(a, v, &c, &dv))
    return;
  ips__account(a, v, &dv);
}
