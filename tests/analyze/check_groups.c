/* check_groups.c — deliveries summed by key (ips_groups_*): the sums and
 * the busiest-first order, the cap on keys with the rest counted, and sums
 * that saturate rather than wrap. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "analyze_suites.h"
#include "ipcstamp-analyze.h"

static ips_delivery_t del(const char *vat, const char *method, int64_t pipe,
                          int64_t worker) {
  ips_delivery_t d;
  memset(&d, 0, sizeof d);
  d.vat = vat;
  d.method = method;
  d.pipe = pipe;
  d.worker = worker;
  d.total = pipe + worker;
  return d;
}

START_TEST(test_sums_busiest_first) {
  ips_groups_t g;
  ips_delivery_t a = del("v1", "pay", 1, 2), b = del("v2", "pay", 10, 20),
                 c = del("v1", "notify", 5, 5);
  const ips_group_t *r;
  size_t n;
  ips_groups_init(&g, IPS_GROUP_VAT);
  ips_groups_add(&g, &a);
  ips_groups_add(&g, &b);
  ips_groups_add(&g, &c);
  r = ips_groups_sorted(&g, &n);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(r[0].name, "v2");
  ck_assert_int_eq(r[0].total, 30);
  ck_assert_str_eq(r[1].name, "v1");
  ck_assert_uint_eq(r[1].n, 2);
  ck_assert_int_eq(r[1].pipe, 6);
  ck_assert_int_eq(r[1].max, 10);
  /* still found by key after the sort moved them */
  ips_groups_add(&g, &a);
  r = ips_groups_sorted(&g, &n);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(r[1].n, 3);
  ips_groups_free(&g);
  ips_groups_init(&g, IPS_GROUP_METHOD);
  ips_groups_add(&g, &a);
  ips_groups_add(&g, &b);
  r = ips_groups_sorted(&g, &n);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(r[0].name, "pay");
  ck_assert_int_eq(r[0].total, 33);
  ips_groups_free(&g);
}
END_TEST

START_TEST(test_keys_capped_rest_counted) {
  ips_groups_t g;
  char key[32];
  size_t i, n;
  ips_groups_init(&g, IPS_GROUP_METHOD);
  for (i = 0; i < IPS_GROUPS_MAX + 10; i++) {
    ips_delivery_t d;
    snprintf(key, sizeof key, "m%zu", i);
    d = del("v1", key, 1, 1);
    ips_groups_add(&g, &d);
  }
  (void)ips_groups_sorted(&g, &n);
  ck_assert_uint_eq(n, IPS_GROUPS_MAX);
  ck_assert_uint_eq(g.over, 10);
  ips_groups_free(&g);
}
END_TEST

START_TEST(test_sums_saturate) {
  ips_groups_t g;
  ips_delivery_t d = del("v1", "pay", INT64_MAX / 2 + 1, 0);
  size_t n;
  ips_groups_init(&g, IPS_GROUP_VAT);
  ips_groups_add(&g, &d);
  ips_groups_add(&g, &d);
  ck_assert_int_eq(ips_groups_sorted(&g, &n)[0].pipe, INT64_MAX);
  ips_groups_free(&g);
}
END_TEST

Suite *groups_suite(void) {
  Suite *s = suite_create("groups");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_sums_busiest_first);
  tcase_add_test(tc, test_keys_capped_rest_counted);
  tcase_add_test(tc, test_sums_saturate);
  suite_add_tcase(s, tc);
  return s;
}
