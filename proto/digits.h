/* digits.h — decimal digits to integers, eight bytes at a time: the one
 * digit parser of the metering decoder (proto/meter_fast.c, meter_read.c)
 * and the analysis' numbers (proto/decimal.h).  A digit at a time, with a branch on each,
 * the matcher spent about 1 ns a digit and the report a fifth of its run
 * converting stamps.
 *
 * Static inline, libc only; internal to ipcstamp, not installed.  Nothing
 * reads past the caller's bound: a word is loaded only when eight bytes
 * remain before it.
 */
#ifndef IPCSTAMP_PROTO_DIGITS_H
#define IPCSTAMP_PROTO_DIGITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline int ips__is_digit(char ch) { return (unsigned)(ch - '0') < 10; }

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    defined(__GNUC__)
/* The bytes are loaded as one little-endian word, so the first byte in
 * memory is the lowest. */
#define IPS_SWAR 1

/* 0x80 in each byte of x that is not an ASCII digit, 0 in the others,
 * exactly (the callers test whole patterns of it). */
static inline __attribute__((always_inline)) uint64_t ips__nondigits(uint64_t x) {
  const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
  /* non-zero where the high nibble is not 3, or the low nibble is over 9
   * (+6 carries into the high nibble; 0x0f + 6 stays within the byte) */
  uint64_t v = ((x & 0xf0f0f0f0f0f0f0f0ull) ^ 0x3030303030303030ull) |
               (((x & 0x0f0f0f0f0f0f0f0full) + 0x0606060606060606ull) &
                0xf0f0f0f0f0f0f0f0ull);
  /* a byte's high bit, set when any of its bits is (no carry between
   * bytes: 0x7f + 0x7f fits one) */
  return (((v & lo7) + lo7) | v) & ~lo7;
}

/* The value of eight digit values (0..9, first byte the most significant):
 * adjacent bytes, then adjacent pairs, then the two halves combined, each
 * step in place in its lanes (99 fits a byte, 9999 sixteen bits), none of
 * which can carry into the next lane. */
static inline __attribute__((always_inline)) uint32_t ips__value8(uint64_t d) {
  d = (d * 10 + (d >> 8)) & 0x00ff00ff00ff00ffull;
  d = (d * 100 + (d >> 16)) & 0x0000ffff0000ffffull;
  return (uint32_t)((d & 0xffff) * 10000 + (d >> 32));
}

/* How many of the eight bytes of x are digits before the first one that
 * is not, and, in *v, their value.  The digits are moved to the top of
 * the word (zeros come in below; a byte below '0' borrows from the bytes
 * after it, which go out). */
static inline __attribute__((always_inline)) unsigned ips__eight(uint64_t x,
                                                                 uint64_t *v) {
  /* Cheaper than ips__nondigits(): +6 may carry out of a byte that is not
   * a digit, but only into later bytes, so the first such byte is found
   * right, and only the first is wanted here. */
  const uint64_t hi = 0xf0f0f0f0f0f0f0f0ull, zeros = 0x3030303030303030ull;
  uint64_t bad = ((x & hi) ^ zeros) | (((x + 0x0606060606060606ull) & hi) ^ zeros);
  unsigned k = bad ? (unsigned)__builtin_ctzll(bad) / 8 : 8;
  if (k == 0)
    return 0;
  *v = ips__value8((x - 0x3030303030303030ull) << (8 * (8 - k)));
  return k;
}
#endif

/* The run of digits from s[i] (before n) added to *v; returns its end.
 * *v wraps on long runs: the callers bound the length. */
static inline __attribute__((always_inline)) size_t
ips__digits(const char *s, size_t i, size_t n, uint64_t *v) {
  static const uint32_t pow10[9] = {1,      10,      100,      1000,     10000,
                                    100000, 1000000, 10000000, 100000000};
  uint64_t a = *v; /* a local: *v could alias s, and be stored each time */
#ifdef IPS_SWAR
  while (n - i >= 8) {
    uint64_t x, d = 0;
    unsigned k;
    memcpy(&x, s + i, 8);
    k = ips__eight(x, &d);
    a = a * pow10[k] + d;
    i += k;
    if (k < 8) {
      *v = a;
      return i;
    }
  }
#else
  (void)pow10;
#endif
  while (i < n && ips__is_digit(s[i]))
    a = a * 10 + (uint64_t)(s[i++] - '0');
  *v = a;
  return i;
}

/* A count as the worker writes it, s[0..n) all digits, 1 to 18 of them:
 * 1 with its value in *out, else 0. */
static inline int ips__parse_uint(const char *s, size_t n, int64_t *out) {
  uint64_t v = 0;
  if (n == 0 || n > 18 || ips__digits(s, 0, n, &v) != n)
    return 0;
  *out = (int64_t)v;
  return 1;
}

#endif
