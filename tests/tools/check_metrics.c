/* check_metrics.c — the Prometheus registry (tools/metrics/): buckets at
 * their bounds, parts a delivery has not, the caps on vats and on a
 * counter's values, label values made safe, bad arguments refused, and
 * the server's own thread stopped cleanly. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"

/* The exposition's value of the sample line that starts with sample
 * (name and labels), or -1 when it has none. */
static double sample(const char *text, const char *name) {
  const char *p = text;
  size_t n = strlen(name);
  for (; (p = strstr(p, name)) != NULL; p += n)
    if ((p == text || p[-1] == '\n') && p[n] == ' ')
      return strtod(p + n + 1, NULL);
  return -1;
}

static char *expose(ips_metrics_t *m) {
  size_t len;
  char *t = ips_metrics_expose(m, &len);
  ck_assert_ptr_nonnull(t);
  ck_assert_uint_eq(strlen(t), len);
  return t;
}

START_TEST(test_buckets) {
  static const char *const parts[] = {"a", "b"};
  ips_metrics_t *m = ips_metrics_new(parts, 2, 0);
  double s[2] = {1e-3, NAN}; /* exactly on a bound; b not had */
  char *t;
  ck_assert_ptr_nonnull(m);
  ips_metrics_delivery(m, "v1", s);
  s[0] = 1.5e-3, s[1] = 1000; /* past the last bound: +Inf only */
  ips_metrics_delivery(m, "v1", s);
  t = expose(m);
  ck_assert(sample(t, "ipcstamp_delivery_seconds_bucket{vat=\"v1\",part=\"a\",le=\"0.0005\"}") == 0);
  ck_assert(sample(t, "ipcstamp_delivery_seconds_bucket{vat=\"v1\",part=\"a\",le=\"0.001\"}") == 1);
  ck_assert(sample(t, "ipcstamp_delivery_seconds_bucket{vat=\"v1\",part=\"a\",le=\"0.002\"}") == 2);
  ck_assert(sample(t, "ipcstamp_delivery_seconds_bucket{vat=\"v1\",part=\"a\",le=\"+Inf\"}") == 2);
  ck_assert(fabs(sample(t, "ipcstamp_delivery_seconds_sum{vat=\"v1\",part=\"a\"}") - 2.5e-3) < 1e-12);
  ck_assert(sample(t, "ipcstamp_delivery_seconds_count{vat=\"v1\",part=\"b\"}") == 1);
  ck_assert(sample(t, "ipcstamp_delivery_seconds_bucket{vat=\"v1\",part=\"b\",le=\"100\"}") == 0);
  ck_assert(sample(t, "ipcstamp_deliveries_total{vat=\"v1\"}") == 2);
  free(t);
  ips_metrics_free(m);
}
END_TEST

START_TEST(test_vat_cap) {
  ips_metrics_t *m = ips_metrics_new(NULL, 0, 2);
  double s[4] = {1e-4, 1e-4, 1e-4, 3e-4};
  char *t;
  ips_metrics_delivery(m, "v1", s);
  ips_metrics_delivery(m, "v2", s);
  ips_metrics_delivery(m, "v3", s);
  ips_metrics_delivery(m, "v4", s);
  ips_metrics_delivery(m, "v1", s);
  t = expose(m);
  ck_assert(sample(t, "ipcstamp_deliveries_total{vat=\"v1\"}") == 2);
  ck_assert(sample(t, "ipcstamp_deliveries_total{vat=\"_other\"}") == 2);
  ck_assert(sample(t, "ipcstamp_deliveries_total{vat=\"v3\"}") == -1);
  ck_assert(sample(t, "ipcstamp_vats_over_cap_deliveries_total") == 2);
  free(t);
  ips_metrics_free(m);
}
END_TEST

START_TEST(test_counters) {
  ips_metrics_t *m = ips_metrics_new(NULL, 0, 0);
  char name[IPS_METRICS_MAX_COUNTERS + 1][32], v[16];
  int id = ips_metrics_counter(m, "x_total", "X.", "reason"), i;
  int plain = ips_metrics_counter(m, "y_total", "Y.", NULL);
  char *t;
  ck_assert_int_eq(ips_metrics_counter(m, "x_total", "X.", "reason"), id);
  for (i = 0; i < IPS_METRICS_MAX_VALUES + 5; i++) {
    snprintf(v, sizeof v, "r%d", i);
    ips_metrics_count(m, id, v, 1);
  }
  ips_metrics_count(m, plain, "ignored", 3);
  ips_metrics_count(m, 99, "x", 1);  /* no such counter: nothing */
  ips_metrics_count(m, -1, "x", 1);
  t = expose(m);
  ck_assert(sample(t, "x_total{reason=\"r0\"}") == 1);
  ck_assert(sample(t, "x_total{reason=\"_other\"}") == 6);
  ck_assert(sample(t, "y_total") == 3);
  free(t);
  for (i = 0; i <= IPS_METRICS_MAX_COUNTERS; i++)
    snprintf(name[i], sizeof name[i], "c%d_total", i);
  for (i = 2; i < IPS_METRICS_MAX_COUNTERS; i++)
    ck_assert_int_ge(ips_metrics_counter(m, name[i], "C.", NULL), 0);
  ck_assert_int_eq(ips_metrics_counter(m, name[IPS_METRICS_MAX_COUNTERS], "C.", NULL), -1);
  ips_metrics_free(m);
}
END_TEST

START_TEST(test_labels) {
  ips_metrics_t *m = ips_metrics_new(NULL, 0, 0);
  double s[4] = {1e-4, 1e-4, 1e-4, 3e-4};
  char *t;
  ips_metrics_delivery(m, "a\"b\\c\nd\xff", s);
  ips_metrics_delivery(m, "", s);
  t = expose(m);
  ck_assert(sample(t, "ipcstamp_deliveries_total{vat=\"a\\\"b\\\\c?d?\"}") == 1);
  ck_assert(sample(t, "ipcstamp_deliveries_total{vat=\"_unknown\"}") == 1);
  free(t);
  ips_metrics_free(m);
}
END_TEST

START_TEST(test_bad_args) {
  static const char *const parts[IPS_METRICS_MAX_PARTS + 1] = {"p"};
  char err[256];
  ips_metrics_t *m = ips_metrics_new(NULL, 0, 0);
  ips_metrics_server_t *s = NULL;
  ips_metrics_server_options_t o = {"127.0.0.1:99999", 0, 0};
  ck_assert_ptr_null(ips_metrics_new(parts, 0, 0));
  ck_assert_ptr_null(ips_metrics_new(parts, IPS_METRICS_MAX_PARTS + 1, 0));
  ck_assert_ptr_null(ips_metrics_new(NULL, 0, IPS_METRICS_MAX_MAX_VATS + 1));
  ck_assert_int_lt(ips_metrics_serve(m, &o, &s, err, sizeof err), 0);
  ck_assert(strstr(err, "port") != NULL);
  o.listen = "127.0.0.1:0";
  ck_assert_int_eq(ips_metrics_serve(m, &o, &s, err, sizeof err), 0);
  ck_assert_int_gt(ips_metrics_server_port(s), 0);
  ips_metrics_server_stop(s);
  ips_metrics_server_stop(NULL);
  ips_metrics_free(m);
  ips_metrics_free(NULL);
}
END_TEST

int main(void) {
  Suite *s = suite_create("metrics");
  TCase *tc = tcase_create("registry");
  SRunner *sr;
  int failed;
  tcase_add_test(tc, test_buckets);
  tcase_add_test(tc, test_vat_cap);
  tcase_add_test(tc, test_counters);
  tcase_add_test(tc, test_labels);
  tcase_add_test(tc, test_bad_args);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
