/* slog_fast.h — the byte matchers shared by the fast path's two files
 * (internal to libipcstamp-analyze).
 *
 * slog_fast.c matches a record's frame and the kernel's fields,
 * slog_fast_meter.c a deliver-result's dr and the worker's metering in
 * it.  Both read numbers and strings with the helpers below, which are
 * static inline (most always_inline) because they are the matcher's
 * innermost steps: as calls they cost a measured third of its time
 * (see each one's comment).  Only the two files include this header.
 */
#ifndef IPCSTAMP_ANALYZE_SLOG_FAST_H
#define IPCSTAMP_ANALYZE_SLOG_FAST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cursor.h"
#include "decimal.h"
#include "slog.h"

/* Whether the bytes at p are the literal lit (cursor.h's compare). */
#define EQ(p, lit) cur_eq((p), (lit), sizeof(lit) - 1)

/* A JSON integer as the parent writes it: 1 to 18 digits, no leading zero
 * (which yajl would refuse), so that it is also what to_ll() accepts. */
static inline __attribute__((always_inline)) int count(cur_t *c,
                                                      long long *out) {
  size_t b = c->i, e;
  uint64_t v = 0;
  e = ips__digits(c->s, b, c->n, &v);
  if (e == b || e - b > 18 || (c->s[b] == '0' && e - b > 1))
    return 0;
  c->i = e;
  *out = (long long)v;
  return 1;
}

/* A JSON number straight into nanoseconds (decimal.h). */
static inline int decimal(cur_t *c, int64_t *ns) {
  size_t e = ips__decimal(c->s, c->i, c->n, ns);
  if (e == IPS__DECIMAL_BAD)
    return 0;
  c->i = e;
  return 1;
}

/* The same, where the number is most likely a wall time (a record's time,
 * xsnap's timestamps) or a float's seconds (monotime, SwingSet's seconds):
 * that shape is tried here, inlined, and only another goes to the call.
 * A third of all numbers tried the wall shape first and failed, in a
 * call. */
#ifdef IPS_SWAR
#define SHAPED(name, shape)                                                 \
  static inline __attribute__((always_inline)) int name(cur_t *c,           \
                                                        int64_t *ns) {      \
    size_t e = shape(c->s, c->i, c->n, ns);                                 \
    if (e == IPS__DECIMAL_BAD)                                              \
      return decimal(c, ns);                                                \
    c->i = e;                                                               \
    return 1;                                                               \
  }
SHAPED(decimal_wall, ips__decimal_wall)
SHAPED(decimal_mono, ips__decimal_mono)
#else
#define decimal_wall decimal
#define decimal_mono decimal
#endif

/* A string's contents after its opening quote, up to its closing quote: no
 * escapes and no control bytes (yajl would refuse those, or decode them).
 * Eight bytes at a time where eight are left (a type, a vatID, a syscall's
 * name: a byte at a time, this was a third of the matcher's time). */
static inline __attribute__((always_inline)) int text(cur_t *c, const char **s,
                                                     size_t *n) {
  size_t b = c->i, i = b;
#ifdef IPS_SWAR
  const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
  while (c->n - i >= 8) {
    uint64_t x, q, bs, stop;
    memcpy(&x, c->s + i, 8);
    q = x ^ (ones * '"');
    bs = x ^ (ones * '\\');
    /* A byte is flagged where it is a quote or a backslash (zero after
     * the xor) or below 0x20.  A borrow can flag a byte above a flagged
     * one, never below: the lowest flag is a true one. */
    stop = (((q - ones) & ~q) | ((bs - ones) & ~bs) |
            ((x - ones * 0x20) & ~x)) & high;
    if (stop) {
      i += (unsigned)__builtin_ctzll(stop) / 8;
      if (c->s[i] != '"')
        return 0;
      *s = c->s + b;
      *n = i - b;
      c->i = i + 1;
      return 1;
    }
    i += 8;
  }
#endif
  for (; i < c->n; i++) {
    unsigned char ch = (unsigned char)c->s[i];
    if (ch == '"') {
      *s = c->s + b;
      *n = i - b;
      c->i = i + 1;
      return 1;
    }
    if (ch == '\\' || ch < 0x20)
      return 0;
  }
  c->i = i;
  return 0;
}

/* `{"k":V,...}` from c: each member's key goes to member(), which reads
 * its value.  Returns 1 when the object closes, 0 when anything else
 * comes or member() says no.  Inline: the arguments (slog_fast.c) and
 * the metering (slog_fast_meter.c) both walk objects with it. */
typedef int member_fn(cur_t *c, const char *k, size_t n, void *ctx);
static inline int ips__fast_object(cur_t *c, member_fn *member, void *ctx) {
  if (!LIT(c, "{"))
    return 0;
  if (LIT(c, "}"))
    return 1;
  for (;;) {
    const char *k;
    size_t n;
    if (!LIT(c, "\"") || !text(c, &k, &n) || !LIT(c, ":") ||
        !member(c, k, n, ctx))
      return 0;
    if (LIT(c, "}"))
      return 1;
    if (!LIT(c, ","))
      return 0;
  }
}

/* slog_fast_meter.c: `,"dr":["ok"|"error",RESULT,METERING],"seconds":S`
 * of a deliver-result from c up to the anchor (the comma before "time"),
 * into r.  Returns 1 when it is all there, exactly as our parent and
 * SwingSet write it; 0 to leave the line to the yajl path. */
int ips__fast_dr(cur_t *c, size_t anchor, ips__rec_t *r);

#endif
