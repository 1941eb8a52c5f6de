/* check_stamps.c — the clock and the stamp table. */
#include "config.h"

#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#include "ipcstamp-proto.h"
#include "suites.h"

START_TEST(test_clock_reads_both) {
  ips_stamp_t a, b;
  struct timeval tv;
  struct timespec ts;
  ck_assert_int_eq(ips_clock_read(&a), 0);
  gettimeofday(&tv, NULL);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ck_assert_int_eq(ips_clock_read(&b), 0);
  /* mono is absolute (not since process start) and never goes back. */
  ck_assert_int_le(a.mono_ns, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
  ck_assert_int_le(a.mono_ns, b.mono_ns);
  ck_assert_int_le(a.wall_us, (int64_t)tv.tv_sec * 1000000 + tv.tv_usec);
  ck_assert_int_gt(a.wall_us, (int64_t)1600000000 * 1000000);
}
END_TEST

START_TEST(test_table_order) {
  ips_stamps_t t;
  uint32_t i;
  static const char kinds[] = "duruRe";
  ck_assert_int_eq(ips_stamps_init(&t, 16), 0);
  for (i = 0; kinds[i]; i++)
    ck_assert_int_eq(ips_stamps_add(&t, kinds[i]), 0);
  ck_assert_uint_eq(t.n, 6);
  ck_assert_uint_eq(t.dropped, 0);
  for (i = 0; i < t.n; i++) {
    ck_assert_int_eq(t.v[i].kind, kinds[i]);
    if (i > 0)
      ck_assert_int_le(t.v[i - 1].mono_ns, t.v[i].mono_ns);
  }
  ips_stamps_reset(&t);
  ck_assert_uint_eq(t.n, 0);
  ck_assert_int_eq(ips_stamps_add(&t, 'd'), 0);
  ck_assert_uint_eq(t.n, 1);
  ips_stamps_free(&t);
  ck_assert_ptr_null(t.v);
}
END_TEST

/* n upcalls in a table of capacity cap: the final stamp is kept, the
 * recorded upcall stamps pair up, and the drops are counted exactly. */
static void overflow(uint32_t cap, uint32_t upcalls) {
  ips_stamps_t t;
  uint32_t i, pairs, want_n;
  ck_assert_int_eq(ips_stamps_init(&t, cap), 0);
  ck_assert_int_eq(ips_stamps_add(&t, 'd'), 0);
  for (i = 0; i < upcalls; i++) {
    ips_stamps_add(&t, 'u');
    ips_stamps_add(&t, 'r');
  }
  ck_assert_int_eq(ips_stamps_add(&t, 'e'), 0);
  pairs = (cap - 2) / 2 < upcalls ? (cap - 2) / 2 : upcalls;
  want_n = 2 + 2 * pairs;
  ck_assert_uint_eq(t.n, want_n);
  ck_assert_uint_eq(t.dropped, 2 + 2 * upcalls - want_n);
  ck_assert_int_eq(t.v[0].kind, 'd');
  ck_assert_int_eq(t.v[t.n - 1].kind, 'e');
  for (i = 1; i + 1 < t.n; i++)
    ck_assert_int_eq(t.v[i].kind, i % 2 ? 'u' : 'r');
  ips_stamps_free(&t);
}

START_TEST(test_overflow_keeps_final) {
  overflow(1024, 2000); /* 1024 recorded, 2978 dropped */
  overflow(1024, 511);  /* exactly full: nothing dropped */
  overflow(1024, 512);
  overflow(7, 10);      /* odd capacity: pairs still whole */
  overflow(2, 3);       /* only d and e */
}
END_TEST

START_TEST(test_overflow_exact_numbers) {
  ips_stamps_t t;
  uint32_t i;
  ck_assert_int_eq(ips_stamps_init(&t, 1024), 0);
  ips_stamps_add(&t, 'd');
  for (i = 0; i < 2000; i++) {
    ips_stamps_add(&t, 'u');
    ips_stamps_add(&t, 'r');
  }
  ck_assert_int_eq(ips_stamps_add(&t, 'e'), 0);
  ck_assert_uint_eq(t.n, 1024);
  ck_assert_uint_eq(t.dropped, 2978);
  /* A reset forgets the drops too. */
  ips_stamps_reset(&t);
  ck_assert_uint_eq(t.dropped, 0);
  ips_stamps_free(&t);
}
END_TEST

START_TEST(test_put) {
  ips_stamps_t t;
  ips_stamp_t s = {5, 6, 'D', 0, 0};
  ck_assert_int_eq(ips_stamps_init(&t, 2), 0);
  ck_assert_int_eq(ips_stamps_put(&t, &s), 0);
  ck_assert_int_eq(ips_stamps_put(&t, &s), 1); /* last slot is E's */
  s.kind = 'E';
  ck_assert_int_eq(ips_stamps_put(&t, &s), 0);
  ck_assert_int_eq(ips_stamps_put(&t, &s), 1); /* full */
  ck_assert_uint_eq(t.dropped, 2);
  ck_assert_int_eq(t.v[1].wall_us, 5);
  ips_stamps_free(&t);
}
END_TEST

START_TEST(test_bad_capacity) {
  ips_stamps_t t;
  ck_assert_int_eq(ips_stamps_init(&t, 1), IPS_EINVAL);
  ck_assert_ptr_null(t.v);
  ck_assert_int_eq(ips_stamps_init(&t, 0), IPS_EINVAL);
  ips_stamps_free(&t); /* harmless after a failed init */
}
END_TEST

Suite *stamps_suite(void) {
  Suite *s = suite_create("stamps");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_clock_reads_both);
  tcase_add_test(tc, test_table_order);
  tcase_add_test(tc, test_put);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_overflow_keeps_final);
  tcase_add_test(tc, test_overflow_exact_numbers);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_test(tc, test_bad_capacity);
  suite_add_tcase(s, tc);
  return s;
}
