/* slog_meter.c — a deliver-result's metering (its dr[2]) into the record:
 * its bytes through the one decoder (proto/meter.h), which the parent
 * reads a worker's reply with too, and what it read into the record's
 * fields.  Both readers of a line come here: the fast path
 * (slog_fast_meter.c) where its match reaches dr[2], the general reader
 * (slog_parse.c) when yajl reaches dr[2]'s opening brace; so the two read
 * a metering the same, with the same bounds and messages.
 *
 * The decoder reads the form only: a metering that breaks the writer's
 * rules (kinds that are not d(ur)*e, an unknown version) is read as it
 * is, and the attribution says why its delivery is skipped. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "meter.h"
#include "slog.h"


/* What the decoder read, as the record's fields and presence bits. */
static void to_rec(ips__rec_t *r, const ips__meter_t *m) {
  unsigned h = IPS__F_METER;
  h |= m->n_walls ? IPS__F_WALLS : 0;
  h |= m->n_mono ? IPS__F_WMONO : 0;
  h |= m->n_runq ? IPS__F_WRUNQ : 0;
  h |= m->have & IPS__M_KINDS ? IPS__F_KINDS : 0;
  h |= m->have & IPS__M_CPU ? IPS__F_CPU : 0;
  h |= m->have & IPS__M_V ? IPS__F_IPSV : 0;
  h |= m->have & IPS__M_MARKS ? IPS__F_MARKS : 0;
  h |= m->have & IPS__M_COMPUTE ? IPS__F_COMPUTE : 0;
  h |= m->have & IPS__M_XSMETER ? IPS__F_XSMETER : 0;
  r->have |= h;
  r->n_walls = m->n_walls;
  r->n_wmono = m->n_mono;
  r->n_wrunq = m->n_runq;
  r->n_kinds = m->n_kinds;
  if (m->have & IPS__M_V)
    r->ipsv = (long)m->v;
  r->dropped = m->dropped;
  r->cpu_ns = m->cpu_ns;
  r->compute = m->compute;
  r->marks = m->marks;
  r->mname_off = m->mname_off;
  r->mnames = m->mnames;
  r->n_marks = m->n_marks;
  r->n_mnames = m->n_mnames;
  r->mnames_len = m->mnames_len;
  r->mdropped = m->mdropped;
  r->munbalanced = m->munbalanced;
}

int ips__slog_meter(ips__rec_t *r, const char *s, size_t n, size_t *used,
                    char *err, size_t errlen) {
  ips__meter_t *m = &r->meter;
  int rc;
  /* the record's arrays are the decoder's (the marks' too, when it has
   * them: else the decoder makes them, and they become the record's) */
  m->walls = r->walls;
  m->mono = r->wmono;
  m->runq = r->wrunq;
  m->kinds = r->kinds;
  m->cap = IPS__MAX_STAMPS;
  if (r->marks) {
    m->marks = r->marks;
    m->mname_off = r->mname_off;
    m->mnames = r->mnames;
  }
  rc = ips__meter_decode(m, s, n, IPS__METER_TRAILING, err, errlen);
  if (rc != 0)
    return r->meter.syntax ? -1 : -2;
  to_rec(r, &r->meter);
  *used = r->meter.used;
  return 0;
}
