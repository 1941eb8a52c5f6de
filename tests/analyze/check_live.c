/* check_live.c — a delivery as it runs from its worker's stamps alone
 * (ips_worker_live_stamp) and the figures of the latest finished ones
 * (ips_live_add, ips_live_stats): `ipcstamp top`'s analysis.  The split
 * is the formula's: on every delivery of a real run's slogfile, the
 * worker's stamps fed one by one give the analysis's worker time. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_suites.h"
#include "ipcstamp-analyze.h"

/* d u r u r e, by hand: waits 30 and 5, total 100. */
START_TEST(test_split) {
  ips_worker_live_t w;
  ips_live_done_t d;
  memset(&w, 0, sizeof w);
  ck_assert_int_eq(ips_worker_live_stamp(&w, 'd', 1000, 7, 0, &d), 0);
  ck_assert_int_eq(w.delivery, 7);
  ck_assert_int_eq(w.seg_kind, 'd');
  ck_assert_int_eq(ips_worker_live_stamp(&w, 'u', 1010, 0, 1, &d), 0);
  ck_assert_int_eq(w.seg_kind, 'u');
  ck_assert_int_eq(w.upcall, 1);
  ck_assert_int_eq(w.seg_mono_ns, 1010);
  ips_worker_live_stamp(&w, 'r', 1040, 0, 0, &d);
  ck_assert_int_eq(w.wait_ns, 30);
  ips_worker_live_stamp(&w, 'u', 1050, 0, 2, &d);
  ips_worker_live_stamp(&w, 'r', 1055, 0, 0, &d);
  ck_assert_int_eq(w.seg_kind, 'r');
  ck_assert_int_eq(ips_worker_live_stamp(&w, 'e', 1100, 0, 0, &d), 1);
  ck_assert_int_eq(d.end_mono_ns, 1100);
  ck_assert_int_eq(d.total_ns, 100);
  ck_assert_int_eq(d.kernel_ns, 35);
  ck_assert_int_eq(d.worker_ns, 65);
  ck_assert_int_eq(d.pipe_ns, -1);
  ck_assert_int_eq(w.delivery, 0);
  /* Nothing in flight: u, r and e say nothing; another kind neither. */
  ck_assert_int_eq(ips_worker_live_stamp(&w, 'e', 1200, 0, 0, &d), 0);
  ck_assert_int_eq(ips_worker_live_stamp(&w, 'r', 1200, 0, 0, &d), 0);
  ck_assert_int_eq(w.delivery, 0);
  ck_assert_int_eq(ips_worker_live_stamp(&w, 'D', 1200, 3, 0, &d), 0);
  ck_assert_int_eq(w.delivery, 0);
  /* A delivery whose number the ring does not say is still in flight. */
  ips_worker_live_stamp(&w, 'd', 1300, 0, 0, &d);
  ck_assert_int_eq(w.delivery, 1);
}
END_TEST

/* A ring's values are whatever its writer put there: held at the bounds. */
START_TEST(test_split_bounds) {
  ips_worker_live_t w;
  ips_live_done_t d;
  memset(&w, 0, sizeof w);
  ips_worker_live_stamp(&w, 'd', INT64_MIN, 1, 0, &d);
  ips_worker_live_stamp(&w, 'u', INT64_MIN, 0, 1, &d);
  ips_worker_live_stamp(&w, 'r', INT64_MAX, 0, 0, &d);
  ck_assert_int_eq(w.wait_ns, INT64_MAX);
  ips_worker_live_stamp(&w, 'u', INT64_MIN, 0, 2, &d);
  ips_worker_live_stamp(&w, 'r', INT64_MAX, 0, 0, &d);
  ck_assert_int_eq(w.wait_ns, INT64_MAX);
  ck_assert_int_eq(ips_worker_live_stamp(&w, 'e', INT64_MAX, 0, 0, &d), 1);
  ck_assert_int_eq(d.total_ns, INT64_MAX);
  ck_assert_int_eq(d.worker_ns, 0);
}
END_TEST

typedef struct {
  size_t n;
} formula_t;

/* Each delivery's worker stamps W (d, u1, r1, ..., e) fed in order. */
static void on_delivery(void *arg, const ips_delivery_t *d) {
  formula_t *f = arg;
  ips_worker_live_t w;
  ips_live_done_t done;
  size_t i, n = 2 + 2 * d->n_up;
  if (d->truncated || d->n_unmatched)
    return; /* W is not the worker's own there */
  memset(&w, 0, sizeof w);
  for (i = 0; i < n; i++) {
    char kind = i == 0 ? 'd' : i == n - 1 ? 'e' : (i % 2 ? 'u' : 'r');
    int r = ips_worker_live_stamp(&w, kind, d->W[i], (uint64_t)d->dnum,
                                  (uint32_t)(i + 1) / 2, &done);
    ck_assert_int_eq(r, i == n - 1);
  }
  ck_assert_int_eq(done.worker_ns, d->worker);
  ck_assert_int_eq(done.kernel_ns, d->W[n - 1] - d->W[0] - d->worker);
  f->n++;
}

START_TEST(test_split_is_the_formula) {
  ips_analysis_options_t ao;
  ips_analysis_t *a;
  formula_t f = {0};
  char *text = tt_read(tt_data("ours.slog"), NULL);
  ips_analysis_options_init(&ao);
  ao.on_delivery = on_delivery;
  ao.arg = &f;
  a = tt_analyse(text, 0, &ao);
  ck_assert_uint_ge(f.n, 4);
  ips_analysis_free(a);
  free(text);
}
END_TEST

static void add(ips_live_history_t *h, int64_t end, int64_t total,
                int64_t pipe) {
  ips_live_done_t d = {end, total, pipe, total / 2, total / 4};
  ips_live_add(h, &d);
}

START_TEST(test_stats) {
  ips_live_history_t *h = calloc(1, sizeof *h);
  ips_live_stats_t s;
  int64_t i;
  ck_assert_ptr_nonnull(h);
  ips_live_stats(h, 1000, 100, &s);
  ck_assert_int_eq(s.n, 0);
  ck_assert_int_eq(s.p50_ns, -1);
  ck_assert_int_eq(s.p99_ns, -1);
  /* 100 deliveries of totals 1..100 ending at 901..1000; one before the
   * window, one after now. */
  for (i = 1; i <= 100; i++)
    add(h, 900 + i, i, 1);
  add(h, 899, 5000, 1);
  add(h, 1001, 5000, 1);
  ips_live_stats(h, 1000, 100, &s);
  ck_assert_int_eq(s.n, 100);
  ck_assert_int_eq(s.p50_ns, 50);
  ck_assert_int_eq(s.p99_ns, 99);
  ck_assert_int_eq(s.total_ns, 5050);
  ck_assert_int_eq(s.pipe_ns, 100);
  ck_assert(s.have_pipe);
  ck_assert(s.per_s > 0.99e9 && s.per_s < 1.01e9);
  ck_assert_int_eq(h->finished, 102);
  /* One of them without its pipe (a worker's ring): no pipe sum. */
  add(h, 950, 1, -1);
  ips_live_stats(h, 1000, 100, &s);
  ck_assert(!s.have_pipe);
  /* Sums held at the bound. */
  add(h, 990, INT64_MAX, 1);
  ips_live_stats(h, 1000, 100, &s);
  ck_assert_int_eq(s.total_ns, INT64_MAX);
  ck_assert_int_eq(s.p99_ns, 100);
  /* The circle keeps the latest IPS_LIVE_HISTORY. */
  for (i = 0; i < IPS_LIVE_HISTORY; i++)
    add(h, 2000, 7, 1);
  ips_live_stats(h, 2000, 10, &s);
  ck_assert_int_eq(s.n, IPS_LIVE_HISTORY);
  ck_assert_int_eq(h->ndone, IPS_LIVE_HISTORY);
  ips_live_stats(h, 1000, 100, &s);
  ck_assert_int_eq(s.n, 0);
  free(h);
}
END_TEST

Suite *live_suite(void) {
  Suite *s = suite_create("Live");
  TCase *c = tcase_create("Core");
  tcase_add_test(c, test_split);
  tcase_add_test(c, test_split_is_the_formula);
  tcase_add_test(c, test_stats);
  suite_add_tcase(s, c);
  c = tcase_create("Bad input");
  tcase_add_test(c, test_split_bounds);
  suite_add_tcase(s, c);
  return s;
}
