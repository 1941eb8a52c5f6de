/* decimal.h — decimal text to integers, fast: the digits of stamps and
 * counts in every line of a slogfile and of every metering.  Internal
 * (header only, not installed); included by the fast paths (proto/match.h)
 * and the general readers (ips__dec_to_ns below), so that all read a
 * number the same way, with the same limits.  The digits
 * themselves are proto/digits.h's, the parent's too.
 */
#ifndef IPCSTAMP_PROTO_DECIMAL_H
#define IPCSTAMP_PROTO_DECIMAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "digits.h"

#define IPS__DECIMAL_BAD ((size_t)-1)

static const uint32_t ips__dec_scale[10] = {
    1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1};

/* ips__decimal, every case (see there). */
static inline size_t ips__decimal_any(const char *s, size_t i, size_t n,
                                      int64_t *ns) {
  const uint32_t *scale = ips__dec_scale;
  size_t d;
  uint64_t v = 0, f = 0;
  int neg = 0;
  if (i < n && s[i] == '-') {
    neg = 1;
    i++;
  }
  d = i;
  i = ips__digits(s, i, n, &v);
  if (i == d || i - d > 10 || v > 9223372035u || (s[d] == '0' && i - d > 1))
    return IPS__DECIMAL_BAD;
  if (i < n && s[i] == '.') {
    size_t fs = ++i;
    i = ips__digits(s, i, n, &f);
    if (i == fs)
      return IPS__DECIMAL_BAD;
    if (i - fs > 9) { /* only the first nine count */
      f = 0;
      ips__digits(s, fs, fs + 9, &f);
      f *= scale[9];
    } else {
      f *= scale[i - fs];
    }
  }
  v = v * 1000000000u + f;
  *ns = neg ? -(int64_t)v : (int64_t)v;
  return i;
}

#ifdef IPS_SWAR
/* The wall shape below: returns the end, or IPS__DECIMAL_BAD when the text
 * is not in it (then nothing is known about it). */
static inline __attribute__((always_inline)) size_t
ips__decimal_wall(const char *s, size_t i, size_t n, int64_t *ns) {
  if (i < n && n - i >= 19 && s[i] != '0') {
    uint64_t x, y, z, hi = 0, lo = 0, f = 0;
    unsigned k;
    memcpy(&x, s + i, 8);
    memcpy(&y, s + i + 8, 8);
    memcpy(&z, s + i + 11, 8);
    /* Eight digits, two more and the point, then one to seven digits and
     * what ends them (eight would leave the end unseen). */
    if (ips__eight(x, &hi) == 8 && ips__eight(y, &lo) == 2 && s[i + 10] == '.' &&
        (k = ips__eight(z, &f)) - 1u < 7u) {
      uint64_t v = hi * 100 + lo;
      if (v <= 9223372035u) {
        *ns = (int64_t)(v * 1000000000u + f * ips__dec_scale[k]);
        return i + 11 + k;
      }
    }
  }
  return IPS__DECIMAL_BAD;
}

/* The monotime shape below, the same way. */
static inline __attribute__((always_inline)) size_t
ips__decimal_mono(const char *s, size_t i, size_t n, int64_t *ns) {
  if (i < n && n - i >= 8) { /* for x; y is checked below */
    uint64_t x, y, v = 0, f = 0;
    unsigned k, kf;
    size_t fs, e;
    memcpy(&x, s + i, 8);
    k = ips__eight(x, &v);
    fs = i + k + 1;
    /* "0.5" is a number, "01.5" is not (the general way refuses it). */
    if (k - 1u < 7u && s[i + k] == '.' && (s[i] != '0' || k == 1) &&
        n - fs >= 8) {
      memcpy(&y, s + fs, 8);
      kf = ips__eight(y, &f);
      if (kf != 0) {
        e = fs + kf;
        if (kf == 8) {
          f *= 10;
          if (e < n && ips__is_digit(s[e])) {
            f += (uint64_t)(s[e] - '0');
            for (e++; e < n && ips__is_digit(s[e]); e++)
              ;
          }
        } else {
          f *= ips__dec_scale[kf];
        }
        *ns = (int64_t)(v * 1000000000u + f);
        return e;
      }
    }
  }
  return IPS__DECIMAL_BAD;
}
#endif

/* A JSON number of the form -?(0|[1-9][0-9]*)(.[0-9]+)? at s[i..n) into
 * nanoseconds (value * 1e9), exactly: at most 10 integer digits and a value
 * below INT64_MAX ns (9223372036.854775807 s); fraction digits past the
 * ninth (below 1 ns) are dropped.  Returns the index just past the number,
 * or IPS__DECIMAL_BAD.  No floating point: a report reads millions.
 *
 * Most numbers in a slogfile are wall times in seconds since 1970 with
 * microseconds, as xsnap writes up to 502 of them a delivery:
 * "1795421047.905385", ten integer digits, a point, one to seven more.
 * That shape is read straight (three eight-byte loads, no loop) when the
 * text holds 19 bytes from s[i] (ips__decimal_wall); so is SwingSet's
 * monotime, seconds since the kernel started as a float's shortest text:
 * "20.718536316999998", "2831.9" — one to seven integer digits, a point,
 * one to seventeen more, of which nine count: two eight-byte loads read
 * the integer part and the first eight of the fraction, the ninth is one
 * byte, the rest are only stepped over (ips__decimal_mono).  Anything
 * else, or anything a shape's check is unsure of, goes the general way,
 * which gives the same result for it (a test compares the two on every
 * shape around these). */
static inline size_t ips__decimal(const char *s, size_t i, size_t n,
                                  int64_t *ns) {
#ifdef IPS_SWAR
  size_t e = ips__decimal_wall(s, i, n, ns);
  if (e != IPS__DECIMAL_BAD)
    return e;
  e = ips__decimal_mono(s, i, n, ns);
  if (e != IPS__DECIMAL_BAD)
    return e;
#endif
  return ips__decimal_any(s, i, n, ns);
}

/* The general readers' numbers (yajl's text of them) read as the fast
 * paths read them: decimal JSON number text into nanoseconds (value *
 * 1e9).  Returns 0, or -1 when it is not one: exponents never appear in
 * stamps, so they are refused, not guessed. */
static inline int ips__dec_to_ns(const char *s, size_t n, int64_t *out) {
  return ips__decimal(s, 0, n, out) == n ? 0 : -1;
}

#endif
