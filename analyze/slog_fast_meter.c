/* slog_fast_meter.c — a deliver-result's dr, with the worker's metering
 * in it, matched byte for byte (the fast path: slog_fast.c).
 *
 * The metering is the one part of a record the worker writes, not the
 * parent: its bytes go to the one metering decoder (slog_meter.c,
 * proto/meter.h), which tries the worker's exact form first and says how
 * far the metering went.  Like the rest of the fast path, it returns 0 on
 * anything it does not match exactly, and the yajl path reads the line
 * (and says what is wrong with a metering the decoder refused). */
#include "config.h"

#include <string.h>

#include "slog_fast.h"

/* `"dr":["ok"|"error",RESULT,METERING],"seconds":S` up to the anchor.  The
 * result is stepped over with the same scan the yajl path uses (brackets
 * match, strings end), so both refuse the same broken results. */
int ips__fast_dr(cur_t *c, size_t anchor, ips__rec_t *r) {
  int64_t ns;
  long e;
  if (LIT(c, ",\"dr\":[\"ok\",")) {
    r->ok = 1;
  } else if (!LIT(c, ",\"dr\":[\"error\",")) {
    return 0;
  }
  r->have |= IPS__F_DR;
  e = ips__json_skip(c->s, c->n, c->i, 0);
  if (e < 0 || (size_t)e >= anchor)
    return 0;
  /* An error's message, as the yajl path reads it (one with an escape is
   * left to it, which decodes). */
  if (!r->ok && c->s[c->i] == '"') {
    const char *m = c->s + c->i + 1;
    size_t mn = (size_t)e - c->i - 2;
    if (memchr(m, '\\', mn))
      return 0;
    if (ips__meter_killed(m, mn))
      r->have |= IPS__F_METERKILL;
  }
  c->i = (size_t)e;
  if (!LIT(c, ","))
    return 0;
  if (LIT(c, "null")) {
    r->have |= IPS__F_DRNULL; /* no metering: a local vat, or an error */
  } else {
    size_t used;
    if (c->i >= anchor || c->s[c->i] != '{' ||
        ips__slog_meter(r, c->s + c->i, anchor - c->i, &used, NULL, 0) != 0)
      return 0;
    c->i += used;
  }
  if (!LIT(c, "]"))
    return 0;
  if (c->i == anchor) /* SwingSet: seconds comes after monotime */
    return 1;
  if (!LIT(c, ",\"seconds\":") || !decimal(c, &ns))
    return 0;
  if (LIT(c, ",\"runDelayNs\":")) { /* the parent's wait at E */
    long long v;
    if (!count(c, &v))
      return 0;
    r->prunq = v;
    r->have |= IPS__F_PRUNQ;
  }
  return c->i == anchor;
}
