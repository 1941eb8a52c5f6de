/* cursor.h — a cursor over bytes for the exact-form matchers (internal,
 * header only, not installed): the analysis's slog lines
 * (analyze/slog_fast.c) and the metering decoder's fast path
 * (proto/meter_fast.c) both match a known form byte for byte and hand anything else to yajl. */
#ifndef IPCSTAMP_PROTO_CURSOR_H
#define IPCSTAMP_PROTO_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  const char *s;
  size_t i, n; /* at s[i], of s[0..n) */
} cur_t;

/* Unaligned loads of 8 and 4 bytes (memcpy: one move, no alignment
 * assumed). */
static inline __attribute__((always_inline)) uint64_t cur_ld64(const char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static inline __attribute__((always_inline)) uint32_t cur_ld32(const char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* Whether the ln bytes at p are the literal l: two overlapping loads of
 * 8 (or 4) bytes each side for up to 16, which, with ln and l constants,
 * are two loads and two compares with immediates.  gcc calls memcmp for
 * most of the matchers' literals (",\"deliveryNum\":" is 15 bytes):
 * a call per field of every line. */
static inline __attribute__((always_inline)) int cur_eq(const char *p,
                                                        const char *l,
                                                        size_t ln) {
  if (ln > 16)
    return !memcmp(p, l, ln);
  if (ln >= 8) {
    if (cur_ld64(p) != cur_ld64(l))
      return 0;
    return cur_ld64(p + ln - 8) == cur_ld64(l + ln - 8);
  }
  if (ln >= 4) {
    if (cur_ld32(p) != cur_ld32(l))
      return 0;
    return cur_ld32(p + ln - 4) == cur_ld32(l + ln - 4);
  }
  while (ln--)
    if (p[ln] != l[ln])
      return 0;
  return 1;
}

/* The literal l[0..ln) at the cursor: step over it (1), or 0.  Always
 * inlined: called out of line (gcc did, in the slog matcher), the length
 * is not known where it compares. */
static inline __attribute__((always_inline)) int lit(cur_t *c, const char *l,
                                                     size_t ln) {
  if (c->n - c->i < ln || !cur_eq(c->s + c->i, l, ln))
    return 0;
  c->i += ln;
  return 1;
}
/* With a literal, the length is a constant and memcmp is inlined. */
#define LIT(c, l) lit((c), (l), sizeof(l) - 1)

#endif
