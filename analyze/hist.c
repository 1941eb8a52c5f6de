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

void ips_hist_add(ips_hist_t *h, int64_t v) {
  double d;
  if (h->count == 0 || v < h->min)
    h->min = v;
  if (h->count == 0 || v > h->max)
    h->max = v;
  h->count++;
  d = (double)v - h->mean;
  h->mean += d / (double)h->count;
  h->m2 += d * ((double)v - h->mean);
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

double ips_hist_stddev(const ips_hist_t *h) {
  return h->count > 1 ? sqrt(h->m2 / (double)h->count) : 0.0;
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
