/* match.h — the byte matchers of the exact-form readers (internal, header
 * only, not installed): the analysis's slog lines (analyze/slog_fast.c)
 * and the metering decoder's fast path (proto/meter_fast.c) read numbers
 * and strings with these, so that both read a number the same way.  They
 * are static inline (most always_inline) because they are the matchers'
 * innermost steps: as calls they cost a measured third of the time (see
 * each one's comment).
 */
#ifndef IPCSTAMP_PROTO_MATCH_H
#define IPCSTAMP_PROTO_MATCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cursor.h"
#include "decimal.h"

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

#endif
