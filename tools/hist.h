/* hist.h — a log-linear histogram with 3 significant digits.
 *
 * Values are non-negative integers (ns).  Below 2048 every value has its own
 * counter; above, each power-of-two range is split into 1024 equal counters,
 * so a value is known to within 1/1024 of itself (better than 0.1%).  Fixed
 * size (about 430 KiB) whatever the count: memory does not follow the input.
 */
#ifndef IPCSTAMP_TOOLS_HIST_H
#define IPCSTAMP_TOOLS_HIST_H

#include <stdint.h>

#define IPS__HIST_SUB 1024
#define IPS__HIST_N (54 * IPS__HIST_SUB)

typedef struct {
  uint64_t count;
  uint64_t negative;   /* values below zero, recorded as 0 */
  int64_t min, max;
  double mean, m2;     /* Welford: exact enough for mean and stddev */
  uint64_t c[IPS__HIST_N];
} ips__hist_t;

/* The caller owns h (malloc it: it is large).  init clears it. */
void ips__hist_init(ips__hist_t *h);
void ips__hist_add(ips__hist_t *h, int64_t v);
/* The value at percentile p (0 < p <= 100): the highest value equivalent to
 * the counter holding the ceil(p% * count)-th smallest value, capped at the
 * largest value recorded.  0 if empty. */
int64_t ips__hist_percentile(const ips__hist_t *h, double p);
double ips__hist_stddev(const ips__hist_t *h);
/* Counter index of v, and the lowest and highest value of counter i. */
int ips__hist_index(int64_t v);
int64_t ips__hist_low(int i);
int64_t ips__hist_high(int i);

#endif
