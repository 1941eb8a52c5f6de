/* check_proto.c — runs the proto/ suites, and tests the error table. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-proto.h"
#include "suites.h"

START_TEST(test_codes_distinct) {
  /* Every code is negative, below every -errno, and has its own text. */
  ck_assert_int_lt(IPS_ENS_DIGIT, -4096);
  ck_assert_int_eq(IPS_ENS_DIGIT, -19999);
  ck_assert_int_eq(IPS_ENS_EMPTY_LEN, IPS_ENS_DIGIT + 1);
  ck_assert_str_eq(ips_err_name(IPS_ENS_LEADING_ZERO), "IPS_ENS_LEADING_ZERO");
  ck_assert_str_eq(ips_strerror(IPS_ENS_NO_COMMA),
                   "netstring: missing comma after the payload");
  ck_assert_str_eq(ips_err_name(IPS_EVERSION), "IPS_EVERSION");
  ck_assert_str_ne(ips_strerror(IPS_ENS_DIGIT), ips_strerror(IPS_ENS_EOF));
}
END_TEST

START_TEST(test_errno_passthrough) {
  ck_assert_str_eq(ips_strerror(-EPIPE), strerror(EPIPE));
  ck_assert_str_eq(ips_err_name(-EPIPE), "EPIPE");
}
END_TEST

START_TEST(test_unknown_codes) {
  ck_assert_str_eq(ips_strerror(IPS__ERR_END), "unknown error");
  ck_assert_str_eq(ips_strerror(IPS__ERR_BASE), "unknown error");
  ck_assert_str_eq(ips_err_name(1), "UNKNOWN");
  ck_assert_str_eq(ips_err_name(-1000000), "UNKNOWN");
}
END_TEST

Suite *errors_suite(void) {
  Suite *s = suite_create("errors");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_codes_distinct);
  tcase_add_test(tc, test_errno_passthrough);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_test(tc, test_unknown_codes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(errors_suite());
  int failed;
  srunner_add_suite(sr, netstring_suite());
  srunner_add_suite(sr, stamps_suite());
  srunner_add_suite(sr, metering_suite());
  srunner_add_suite(sr, marks_suite());
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
