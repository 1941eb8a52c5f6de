/* check_parent_metering.c — the metering reader on good, odd and hostile
 * input. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "parent_suites.h"

static int parse(const char *s, ips_metering_t *m, char *err) {
  return ips_metering_parse(s, strlen(s), m, err, 200);
}

START_TEST(test_ours) {
  ips_metering_t m;
  char err[200];
  const char *s =
      "{\"compute\":1234,\"allocate\":56789,"
      "\"timestamps\":[1795300856.504227,1795300856.504354,"
      "1795300856.504830,1795300856.507209],"
      "\"ipcstamp\":{\"v\":1,\"kinds\":\"dure\",\"mono\":[8123456789012,"
      "8123456916000,8123457392000,8123459771000],\"dropped\":0,"
      "\"cpu_ns\":1530000,\"future\":{\"x\":[1,2]}}}";
  ck_assert_int_eq(parse(s, &m, err), 0);
  ck_assert_uint_eq(m.n, 4);
  ck_assert(m.wall_us[0] == 1795300856504227LL);
  ck_assert(m.wall_us[3] == 1795300856507209LL);
  ck_assert_str_eq(m.kinds, "dure");
  ck_assert(m.mono_ns[1] == 8123456916000LL);
  ck_assert_int_eq(m.version, 1);
  ck_assert(m.has_cpu_ns && m.cpu_ns == 1530000);
  ck_assert(m.has_compute && m.compute == 1234);
  ck_assert(m.has_allocate && m.allocate == 56789);
  ips_metering_free(&m);
  ck_assert_ptr_null(m.wall_us);
}
END_TEST

/* v2: v1's members and "marks", which the slog carries. */
START_TEST(test_v2_marks) {
  ips_metering_t m;
  char err[200];
  const char *s =
      "{\"timestamps\":[1795300856.504227,1795300856.507209],"
      "\"ipcstamp\":{\"v\":2,\"kinds\":\"de\",\"mono\":[10,20],"
      "\"dropped\":0,\"marks\":{\"names\":[\"x\"],\"events\":"
      "[[\"m\",0,1795300856.504300,15]],\"dropped\":0,\"unbalanced\":0}}}";
  ck_assert_int_eq(parse(s, &m, err), 0);
  ck_assert_int_eq(m.version, 2);
  ck_assert_uint_eq(m.n, 2);
  ck_assert_str_eq(m.kinds, "de");
  ips_metering_free(&m);
}
END_TEST

START_TEST(test_xsnap_plain) {
  ips_metering_t m;
  char err[200];
  ck_assert_int_eq(
      parse("{\"compute\":5,\"timestamps\":[1.5,1.75,2,2.000001]}", &m, err),
      0);
  ck_assert_uint_eq(m.n, 4);
  ck_assert(!m.has_ipcstamp);
  ck_assert_ptr_null(m.mono_ns);
  ck_assert_str_eq(m.kinds, "dure");
  ck_assert(m.wall_us[0] == 1500000 && m.wall_us[2] == 2000000 &&
            m.wall_us[3] == 2000001);
  ips_metering_free(&m);
  /* An odd count (xsnap dropped its final stamp) has no kinds. */
  ck_assert_int_eq(parse("{\"timestamps\":[1,2,3]}", &m, err), 0);
  ck_assert_ptr_null(m.kinds);
  ips_metering_free(&m);
  /* An exponent is refused, as the analysis refuses it in the slogfile
   * (one decoder): no writer of stamps uses one. */
  ck_assert_int_eq(parse("{\"timestamps\":[1.5e1,2E0]}", &m, err),
                   IPS_EMETERING);
  ck_assert_msg(strstr(err, "timestamps[0]") != NULL, "%s", err);
}
END_TEST

START_TEST(test_limits) {
  /* More stamps than the bound: refused, nothing leaks. */
  size_t n = IPS_METERING_MAX_STAMPS + 1, i;
  char *s = malloc(n * 2 + 32), *p = s;
  ips_metering_t m;
  char err[200];
  p += sprintf(p, "{\"timestamps\":[");
  for (i = 0; i < n; i++)
    p += sprintf(p, i ? ",1" : "1");
  p += sprintf(p, "]}");
  ck_assert_int_eq(ips_metering_parse(s, (size_t)(p - s), &m, err, 200),
                   IPS_EMETERING);
  ck_assert_msg(strstr(err, "more than") != NULL, "%s", err);
  free(s);
}
END_TEST

START_TEST(test_deep_unknown) {
  /* Deep nesting inside an unknown field is bounded. */
  char s[1000], *p = s;
  ips_metering_t m;
  char err[200];
  int i;
  p += sprintf(p, "{\"x\":");
  for (i = 0; i < 200; i++)
    *p++ = '[';
  for (i = 0; i < 200; i++)
    *p++ = ']';
  strcpy(p, "}");
  ck_assert_int_eq(parse(s, &m, err), IPS_EMETERING);
  ck_assert_msg(strstr(err, "nested") != NULL, "%s", err);
}
END_TEST

static const struct {
  const char *in;
  int rc;
  const char *msg;
} bad[] = {
    {"", IPS_EMETERING, "empty"},
    {"[1,2]", IPS_EMETERING, "not a JSON object"},
    {"{\"timestamps\":5}", IPS_EMETERING, "timestamps is not a list"},
    {"{\"timestamps\":[1,\"x\"]}", IPS_EMETERING, "timestamps[1]"},
    {"{\"timestamps\":[-1]}", IPS_EMETERING, "timestamps[0]"},
    {"{\"timestamps\":[1],\"timestamps\":[2]}", IPS_EMETERING, "duplicate"},
    {"{\"timestamps\":[1,2", IPS_EMETERING, "invalid JSON"},
    {"{\"timestamps\":[1,2]} x", IPS_EMETERING, "invalid JSON"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":3}}", IPS_EVERSION,
     "unknown version"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":0}}", IPS_EVERSION,
     "unknown version"},
    /* marks: in tests/analyze/check_meter_same, which reads one table
     * through the parent and the analysis */
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"kinds\":\"de\",\"mono\":[1,2]}}",
     IPS_EMETERING, "ipcstamp.v is missing"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":1,\"kinds\":\"de\"}}",
     IPS_EMETERING, "mono is missing"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":1,\"kinds\":\"dre\","
     "\"mono\":[1,2]}}",
     IPS_EMETERING, "2 timestamps but 3 kinds"},
    {"{\"timestamps\":[1,2,3,4],\"ipcstamp\":{\"v\":1,\"kinds\":\"drue\","
     "\"mono\":[1,2,3,4]}}",
     IPS_EMETERING, "not d(ur)*e"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":1,\"kinds\":\"de\","
     "\"mono\":[5,4]}}",
     IPS_EMETERING, "backwards"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":1,\"kinds\":\"de\","
     "\"mono\":[1.5,4]}}",
     IPS_EMETERING, "mono[0]"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":1,\"kinds\":\"de\","
     "\"mono\":[1,4],\"dropped\":-1}}",
     IPS_EMETERING, "dropped"},
    {"{\"timestamps\":[\"\xff\"]}", IPS_EMETERING, "invalid JSON"},
    {"{\"ipcstamp\":[]}", IPS_EMETERING, "ipcstamp is not an object"},
    /* Found by fuzz_metering: 13 digits of seconds overflowed the fast
     * path's microseconds (UBSan). */
    {"{\"timestamps\":[9530085652503.5]}", IPS_EMETERING, "timestamps[0]"},
};

START_TEST(test_bad) {
  ips_metering_t m;
  char err[200];
  int rc = ips_metering_parse(bad[_i].in, strlen(bad[_i].in), &m, err,
                              sizeof err);
  ck_assert_msg(rc == bad[_i].rc, "'%s': rc %d (%s)", bad[_i].in, rc, err);
  ck_assert_msg(strstr(err, bad[_i].msg) != NULL, "'%s': message '%s'",
                bad[_i].in, err);
  ck_assert_msg(strstr(err, " at byte ") != NULL, "no position: %s", err);
  ck_assert_ptr_null(m.wall_us);
  ck_assert_ptr_null(m.kinds);
  ips_metering_free(&m);
}
END_TEST

START_TEST(test_random_bytes) {
  /* Random mutations of a good metering never crash the reader. */
  const char *good = "{\"timestamps\":[1.000001,2.5],\"ipcstamp\":{\"v\":1,"
                     "\"kinds\":\"de\",\"mono\":[10,20],\"dropped\":0}}";
  size_t len = strlen(good);
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
  char buf[256];
  int i;
  for (i = 0; i < 20000; i++) {
    ips_metering_t m;
    char err[200];
    int k;
    memcpy(buf, good, len);
    for (k = 0; k < 3; k++) {
      seed ^= seed >> 12;
      seed ^= seed << 25;
      seed ^= seed >> 27;
      buf[(seed >> 8) % len] = (char)(seed >> 40);
    }
    if (ips_metering_parse(buf, (seed >> 20) % (len + 1), &m, err,
                           sizeof err) == 0)
      ck_assert(m.n <= 2);
    ips_metering_free(&m);
  }
}
END_TEST

Suite *parent_metering_suite(void) {
  Suite *s = suite_create("metering reader");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_ours);
  tcase_add_test(tc, test_xsnap_plain);
  tcase_add_test(tc, test_v2_marks);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_limits);
  tcase_add_test(tc, test_deep_unknown);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof bad / sizeof bad[0]));
  tcase_add_test(tc, test_random_bytes);
  suite_add_tcase(s, tc);
  return s;
}
