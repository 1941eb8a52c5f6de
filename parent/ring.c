/* ring.c — the parent's side of the live ring (docs/ring.md): each of its
 * own stamps as it is taken, and one attribution event per finished
 * command.
 *
 * The attribution is the formula of docs/report.md over the two stamp lists the
 * parent holds at that moment (its own D (U R)* E and the worker's d (u r)*
 * e from the metering), by the formula's one copy, proto/attribution.c,
 * which is libc only: linking libipcstamp-analyze (yajl, zlib, the
 * slogfile reader) into the libuv parent would tie the lower layer to the
 * higher one.  When the lists do not pair up (no mono clock, dropped
 * stamps, a different number of upcalls) no attribution is emitted: the
 * stamps are in the ring, and a reader can still see the delivery. */
#include "config.h"

#include <string.h>

#include "attribution.h"
#include "ipcstamp-ring.h"
#include "ring.h"
#include "child.h"

void ips__child_ring_init(ips_child_t *w, const ips_child_options_t *o) {
  w->ring = o->ring;
  memset(w->ring_vat, 0, sizeof w->ring_vat);
  if (o->ring_vat) strncpy(w->ring_vat, o->ring_vat, sizeof w->ring_vat - 1);
  w->ring_delivery = 0;
}

void ips__child_ring_stamp(ips_child_t *w, const ips_stamp_t *s) {
  /* Counted with or without a ring: the probes number commands too. */
  if (s->kind == 'D') w->ring_delivery++;
  if (!w->ring) return;
  /* The child's vat, not the ring's: a parent's ring is shared by all
   * its children, so its own name for it is "". */
  ips_ring_stamp_vat(w->ring, s, w->ring_delivery,
                     s->kind == 'U' || s->kind == 'R' ? (uint32_t)w->nupcalls : 0,
                     w->ring_vat[0] ? w->ring_vat : NULL);
}

/* True when kinds is first (up)* last, with *k pairs. */
static int shape(const char *kinds, size_t n, char first, char up, char down,
                 char last, size_t *k) {
  size_t i;
  if (n < 2 || n % 2 || kinds[0] != first || kinds[n - 1] != last) return 0;
  for (i = 1; i + 1 < n; i += 2)
    if (kinds[i] != up || kinds[i + 1] != down) return 0;
  *k = (n - 2) / 2;
  return 1;
}

void ips__child_ring_result(ips_child_t *w, const ips_result_t *res,
                            void *arg) {
  const ips_metering_t *m = res->metering;
  ips_ring_attribution_t a;
  ips__attr_in_t in;
  ips__attr_out_t out;
  char pk[64];
  int64_t pm[sizeof pk];
  size_t n = res->nstamps, kp, kw, i;
  const ips_stamp_t *P = res->stamps;

  if ((!w->ring && !w->o.attribution_cb) || res->kind != IPS_RESULT_OK || !m || !m->mono_ns ||
      m->dropped || !P || n > sizeof pk || n != m->n)
    return;
  for (i = 0; i < n; i++) pk[i] = P[i].kind;
  if (!shape(pk, n, 'D', 'U', 'R', 'E', &kp) ||
      !shape(m->kinds, m->n, 'd', 'u', 'r', 'e', &kw) || kp != kw)
    return;
  /* Both lists on the one mono clock the two processes share. */
  for (i = 0; i < n; i++) pm[i] = P[i].mono_ns;
  memset(&in, 0, sizeof in);
  in.P = pm;
  in.W = m->mono_ns;
  in.n_up = kp;
  if (!ips__attr_in_range(pm, n) || !ips__attr_in_range(m->mono_ns, n))
    return; /* not a clock's: the worker's metering is untrusted */
  if (ips__attribute(&in, &out) != 0) return; /* a hostile worker's sums */
  memset(&a, 0, sizeof a);
  a.pipe_ns = out.pipe;
  a.kernel_ns = out.kernel;
  a.worker_ns = out.worker;
  a.total_ns = out.total;
  a.delivery = w->ring_delivery;
  a.vat = w->ring_vat;
  a.mono_ns = P[n - 1].mono_ns;
  if (w->ring)
    ips_ring_attribution(w->ring, &a);
  /* the same figures to the host, in process (self-monitoring) */
  if (w->o.attribution_cb)
    w->o.attribution_cb(w, arg, &a);
}
