/* check_hist.c — the log-linear histogram against exact computations. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_suites.h"
#include "ipcstamp-analyze.h"

static const double pcts[] = {25, 50, 75, 90, 95, 99, 99.9, 99.99, 99.999, 100};

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* A small deterministic generator, so a failure can be replayed. */
static uint64_t rng_state;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Percentiles agree with the sorted array within 1/1024 of the value. */
static void check_against_sorted(int64_t *v, size_t n) {
  ips_hist_t *h = malloc(sizeof *h);
  size_t i;
  double mean = 0, var = 0;
  ips_hist_init(h);
  for (i = 0; i < n; i++) {
    ips_hist_add(h, v[i]);
    mean += (double)v[i];
  }
  mean /= (double)n;
  for (i = 0; i < n; i++)
    var += ((double)v[i] - mean) * ((double)v[i] - mean);
  qsort(v, n, sizeof *v, cmp64);
  for (i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
    size_t rank = (size_t)ceil(pcts[i] / 100.0 * (double)n);
    int64_t exact = v[(rank ? rank : 1) - 1];
    int64_t got = ips_hist_percentile(h, pcts[i]);
    ck_assert_msg(got >= exact && (double)(got - exact) <= (double)exact / 1024.0,
                  "p%g: histogram %lld, exact %lld", pcts[i], (long long)got,
                  (long long)exact);
  }
  ck_assert_int_eq(h->min, v[0]);
  ck_assert_int_eq(h->max, v[n - 1]);
  ck_assert_uint_eq(h->count, n);
  ck_assert(fabs(ips_hist_mean(h) - mean) <= 1e-6 * fabs(mean) + 1e-9);
  ck_assert(fabs(ips_hist_stddev(h) - sqrt(var / (double)n)) <=
            1e-6 * sqrt(var / (double)n) + 1e-6);
  free(h);
}

START_TEST(test_uniform) {
  size_t n = 100000, i;
  int64_t *v = malloc(n * sizeof *v);
  rng_state = 88172645463325252ULL;
  for (i = 0; i < n; i++)
    v[i] = (int64_t)(rng() % 10000000);
  check_against_sorted(v, n);
  free(v);
}
END_TEST

START_TEST(test_long_tail) {
  /* Latencies: mostly microseconds, a tail out to seconds. */
  size_t n = 200000, i;
  int64_t *v = malloc(n * sizeof *v);
  rng_state = 0x9E3779B97F4A7C15ULL;
  for (i = 0; i < n; i++) {
    int shift = (int)(rng() % 31);
    v[i] = (int64_t)(rng() % ((uint64_t)1 << shift)) + 1000;
  }
  check_against_sorted(v, n);
  free(v);
}
END_TEST

START_TEST(test_index_bounds) {
  int64_t v;
  /* Every value lies within its counter, and counters are contiguous. */
  for (v = 0; v < 100000; v += 7) {
    int i = ips_hist_index(v);
    ck_assert_int_le(ips_hist_low(i), v);
    ck_assert_int_ge(ips_hist_high(i), v);
  }
  for (v = 1; v < ((int64_t)1 << 61); v = v * 3 + 1) {
    int i = ips_hist_index(v);
    ck_assert_int_le(ips_hist_low(i), v);
    ck_assert_int_ge(ips_hist_high(i), v);
    ck_assert_int_eq(ips_hist_low(i + 1), ips_hist_high(i) + 1);
    ck_assert((double)(ips_hist_high(i) - ips_hist_low(i)) <=
              (double)ips_hist_low(i) / 1024.0 + 1);
  }
}
END_TEST

START_TEST(test_extremes) {
  ips_hist_t *h = malloc(sizeof *h);
  ips_hist_init(h);
  ck_assert_int_eq(ips_hist_percentile(h, 50), 0);
  ips_hist_add(h, INT64_MAX);
  ips_hist_add(h, 0);
  ck_assert_int_lt(ips_hist_index(INT64_MAX), IPS_HIST_N);
  ck_assert_int_eq(ips_hist_percentile(h, 100), INT64_MAX);
  ck_assert_int_eq(ips_hist_percentile(h, 50), 0);
  free(h);
}
END_TEST

/* The mean and the stddev do not depend on the order of the values (the
 * rings hand deliveries over in another order than the slogfile): the
 * same values forwards and backwards give the same doubles, bit for bit;
 * and they are exact where a running double mean is not (around 2^62). */
START_TEST(test_order_exact) {
  ips_hist_t *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  size_t n = 20000, i;
  uint64_t x = 88172645463325252ull;
  int64_t *v = malloc(n * sizeof *v);
  ips_hist_init(a);
  ips_hist_init(b);
  for (i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v[i] = (int64_t)(x % 5000000000ull) - 1000;
  }
  for (i = 0; i < n; i++) {
    ips_hist_add(a, v[i]);
    ips_hist_add(b, v[n - 1 - i]);
  }
  ck_assert(memcmp(&(double){ips_hist_mean(a)}, &(double){ips_hist_mean(b)},
                   sizeof(double)) == 0);
  ck_assert(memcmp(&(double){ips_hist_stddev(a)},
                   &(double){ips_hist_stddev(b)}, sizeof(double)) == 0);
  ips_hist_init(a);
  ips_hist_add(a, INT64_MAX);
  ips_hist_add(a, INT64_MAX - 2);
  ips_hist_add(a, -3);
  ck_assert(fabs(ips_hist_mean(a) - 6148914691236517203.0) <= 1024.0);
  ips_hist_init(a);
  ips_hist_add(a, 4000000000000000000);
  ips_hist_add(a, 4000000000000000002);
  ck_assert(ips_hist_stddev(a) == 1.0);
  free(v);
  free(a);
  free(b);
}
END_TEST

START_TEST(test_negative) {
  ips_hist_t *h = malloc(sizeof *h);
  ips_hist_init(h);
  ips_hist_add(h, -5);
  ips_hist_add(h, 10);
  ck_assert_uint_eq(h->negative, 1);
  ck_assert_int_eq(h->min, -5);
  ck_assert_int_eq(ips_hist_percentile(h, 50), 0);
  ck_assert_int_eq(ips_hist_percentile(h, 100), 10);
  free(h);
}
END_TEST

/* ips_format_us against printf's digits for v: every power of ten and its
 * neighbours, both signs, the ends of int64_t, and random values. */
static void same_us(int64_t v) {
  char got[IPS_US_BUF], want[64];
  uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  snprintf(want, sizeof want, "%s%llu.%03u", v < 0 ? "-" : "",
           (unsigned long long)(a / 1000), (unsigned)(a % 1000));
  ck_assert_str_eq(ips_format_us(got, v), want);
  ck_assert_uint_eq(ips_put_us(got, v), strlen(want));
}

START_TEST(test_format_us) {
  uint64_t p = 1;
  int i, d;
  same_us(0);
  same_us(INT64_MAX);
  same_us(INT64_MIN);
  same_us(INT64_MIN + 1);
  for (i = 0; i < 19; i++, p *= 10)
    for (d = -2; d <= 2; d++) {
      same_us((int64_t)(p + (uint64_t)(int64_t)d));
      same_us(-(int64_t)(p + (uint64_t)(int64_t)d));
    }
  rng_state = 0x9E3779B97F4A7C15u;
  for (i = 0; i < 200000; i++) {
    uint64_t x = rng();
    same_us((int64_t)(x >> (x % 64))); /* every length */
  }
}
END_TEST

/* The coarse histogram: 4 bins an octave from 1 ns, each power of two at
 * the start of its bin, 0 and below apart, the largest in the last bin. */
START_TEST(test_loghist) {
  ips_loghist_t h;
  int k;
  memset(&h, 0, sizeof h);
  for (k = 0; k < 62; k++)
    ck_assert_int_eq(ips_loghist_bin((int64_t)1 << k), 4 * k);
  ck_assert_int_eq(ips_loghist_bin(3), 6);  /* 4 log2 3 = 6.34 */
  ck_assert_int_eq(ips_loghist_bin(INT64_MAX), 252); /* as a double, 2^63 */
  ck_assert_int_eq(ips_loghist_bin(0), 0);
  ips_loghist_add(&h, 0);
  ips_loghist_add(&h, -5);
  ips_loghist_add(&h, 1);
  ips_loghist_add(&h, 1000);
  ck_assert_uint_eq(h.zero, 2);
  ck_assert_uint_eq(h.bin[0], 1);
  ck_assert_uint_eq(h.bin[ips_loghist_bin(1000)], 1);
  ck_assert_int_eq(ips_loghist_bin(1000), 39); /* 4 log2 1000 = 39.9 */
}
END_TEST

Suite *hist_suite(void) {
  Suite *s = suite_create("hist");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_uniform);
  tcase_add_test(tc, test_long_tail);
  tcase_add_test(tc, test_index_bounds);
  tcase_add_test(tc, test_loghist);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_extremes);
  tcase_add_test(tc, test_format_us);
  tcase_add_test(tc, test_order_exact);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_test(tc, test_negative);
  suite_add_tcase(s, tc);
  return s;
}
