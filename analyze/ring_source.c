/* ring_source.c — the live rings as a source of the analysis: each
 * delivery the ring directory joins (ring_dir.c, ring_join.c) goes where a
 * slogfile's attributed delivery goes (stats.c: the filters, the sums, the
 * slowest, the VM marks, the caller's on_delivery), so that a report of
 * the rings is the report of a slogfile. */
#include "config.h"

#include <string.h>

#include "vat.h"

void ips__ring_account(void *arg, const ips_delivery_t *d,
                       const ips_stats_t *st) {
  ips_analysis_t *a = arg;
  ips_delivery_t dv = *d;
  ips__vat_t *v;
  size_t n = strlen(d->vat);
  if (n >= IPS__VAT_MAX || d->n_up > IPS__MAX_UPCALLS)
    return; /* the joiner's bounds are below these: never */
  if (!(v = ips__vat_find(a, d->vat, n))) {
    ips__skip(a, d->vat, 0, IPS_SKIP_MISSING, "out of memory");
    return;
  }
  /* The times of the first run's parent ring are the input's start, as
   * the first record is a slogfile's (--since, --until, the trace). */
  if (!a->st.first_time_ok && st->first_time_ok) {
    a->st.first_time_ok = 1;
    a->st.first_time = st->first_time;
  }
  if (!a->st.first_mono_ok && st->first_mono_ok) {
    a->st.first_mono_ok = 1;
    a->st.first_mono = st->first_mono;
  }
  /* The rings carry no kd or vd, no crank and no lines: a slogfile's
   * delivery always has a description ("" at least) and a crank unless
   * replayed (-1 says replayed to every output), so crank 0, line 0. */
  if (!dv.desc)
    dv.desc = "";
  if (!dv.method)
    dv.method = "";
  if (dv.crank < 0 && !dv.replay)
    dv.crank = 0;
  /* What the filters read of a delivery in progress (stats.c). */
  v->crank = dv.crank;
  v->dnum = d->dnum;
  v->line = d->line;
  v->D.w = v->D.m = d->P[0];
  v->D.has_m = d->pclock == 'm';
  a->delivered = 1;
  ips__account(a, v, &dv);
}
