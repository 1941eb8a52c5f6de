/* hist.c — the log-linear histogram (ipcstamp-analyze.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ipcstamp-analyze.h"

void ips_hist_init(ips_hist_t *h) { memset(h, 0, sizeof *h); }

static int msb(uint64_t v) { return 63 - __builtin_clzll(v); }

int ips_hist_index(int64_t v) {
  int b;
  if (v < 2 * IPS_HIST_SUB)
    return (int)v;
  b = msb((uint64_t)v) - 10; /* v >> b lands in [1024, 2047] */
  return b * IPS_HIST_SUB + (int)((uint64_t)v >> b);
}

static int bucket_of(int i) {
  return i < 2 * IPS_HIST_SUB ? 0 : i / IPS_HIST_SUB - 1;
}

int64_t ips_hist_low(int i) {
  int b = bucket_of(i);
  return (int64_t)((uint64_t)(i - b * IPS_HIST_SUB) << b);
}

int64_t ips_hist_high(int i) {
  int b = bucket_of(i);
  return ips_hist_low(i) + (((int64_t)1 << b) - 1); /* no overflow at the top */
}

/* hi:lo = a * b, from 32-bit halves (no 128-bit type needed). */
static void mul64(uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi) {
  uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
  uint64_t b0 = b & 0xffffffffu, b1 = b >> 32;
  uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  *lo = (mid << 32) | (p00 & 0xffffffffu);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* The exact sums: v sign-extended into 128 bits, v*v into 192 (2^64 values
 * of 2^126 at most: they cannot overflow). */
static void add_exact(ips_hist_t *h, int64_t v) {
  uint64_t u = (uint64_t)v, a = v < 0 ? 0 - u : u, lo, hi, c;
  h->sum[0] += u;
  h->sum[1] += (h->sum[0] < u) + (v < 0 ? UINT64_MAX : 0);
  mul64(a, a, &lo, &hi);
  h->sumsq[0] += lo;
  c = h->sumsq[0] < lo;
  h->sumsq[1] += c;
  c = h->sumsq[1] < c;
  h->sumsq[1] += hi;
  c += h->sumsq[1] < hi;
  h->sumsq[2] += c;
}

void ips_hist_add(ips_hist_t *h, int64_t v) {
  if (h->count == 0 || v < h->min)
    h->min = v;
  if (h->count == 0 || v > h->max)
    h->max = v;
  h->count++;
  add_exact(h, v);
  if (v < 0) {
    h->negative++;
    v = 0;
  }
  h->c[ips_hist_index(v)]++;
}

int64_t ips_hist_percentile(const ips_hist_t *h, double p) {
  uint64_t want, seen = 0;
  int i;
  int64_t v;
  if (h->count == 0)
    return 0;
  want = (uint64_t)ceil(p / 100.0 * (double)h->count);
  if (want < 1)
    want = 1;
  if (want > h->count)
    want = h->count;
  for (i = 0; i < IPS_HIST_N; i++) {
    seen += h->c[i];
    if (seen >= want)
      break;
  }
  v = ips_hist_high(i);
  return v > h->max ? h->max : v;
}

#define TWO64 18446744073709551616.0L

/* The sums as long doubles: rounded once each, from the same integers
 * whatever the order of the values. */
static long double sum_ld(const ips_hist_t *h) {
  return (long double)(int64_t)h->sum[1] * TWO64 + (long double)h->sum[0];
}

double ips_hist_mean(const ips_hist_t *h) {
  return h->count ? (double)(sum_ld(h) / (long double)h->count) : 0.0;
}

/* out[na + nb] = a[na] * b[nb], limbs of 64 bits, lowest first. */
static void mul_limbs(const uint64_t *a, int na, const uint64_t *b, int nb,
                      uint64_t *out) {
  int i, j, k;
  uint64_t lo, hi;
  memset(out, 0, (size_t)(na + nb) * sizeof *out);
  for (i = 0; i < na; i++)
    for (j = 0; j < nb; j++) {
      mul64(a[i], b[j], &lo, &hi);
      for (k = i + j; lo || hi; k++) { /* add hi:lo at k, carry upwards */
        out[k] += lo;
        hi += out[k] < lo;
        lo = hi;
        hi = 0;
      }
    }
}

/* var = (n * sum(v*v) - sum(v)^2) / n^2, its numerator exact in 256 bits
 * (never negative: Cauchy-Schwarz), rounded once: a running double
 * variance loses the spread of values near 2^62 to their size. */
double ips_hist_stddev(const ips_hist_t *h) {
  uint64_t s[2], sq[4], nsq[4], d[4], b = 0, n = h->count;
  long double v = 0;
  int i;
  if (n < 2)
    return 0.0;
  s[0] = h->sum[0], s[1] = h->sum[1];
  if ((int64_t)s[1] < 0) { /* |sum| */
    s[0] = ~s[0] + 1;
    s[1] = ~s[1] + (s[0] == 0);
  }
  mul_limbs(s, 2, s, 2, sq);
  mul_limbs(&n, 1, h->sumsq, 3, nsq);
  for (i = 0; i < 4; i++) { /* d = nsq - sq, with the borrow */
    uint64_t t = nsq[i] - sq[i];
    uint64_t b2 = (nsq[i] < sq[i]) | (t < b);
    d[i] = t - b;
    b = b2;
  }
  for (i = 3; i >= 0; i--)
    v = v * TWO64 + (long double)d[i];
  return (double)(sqrtl(v) / (long double)n);
}

int ips_loghist_bin(int64_t v) {
  int b;
  if (v < 1)
    return 0;
  b = (int)floor(4.0 * log2((double)v));
  return b < 0 ? 0 : b >= IPS_LOGHIST_BINS ? IPS_LOGHIST_BINS - 1 : b;
}

void ips_loghist_add(ips_loghist_t *h, int64_t v) {
  if (v <= 0)
    h->zero++;
  else
    h->bin[ips_loghist_bin(v)]++;
}
