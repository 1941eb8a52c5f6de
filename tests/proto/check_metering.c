/* check_metering.c — the metering JSON writer, read back by a real JSON
 * parser (yajl's tree), every value compared exactly. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "ipcstamp-proto.h"
#include "suites.h"

static yajl_val parse(const char *json, size_t n) {
  char err[256], *z = malloc(n + 1);
  yajl_val v;
  memcpy(z, json, n);
  z[n] = '\0';
  v = yajl_tree_parse(z, err, sizeof err);
  ck_assert_msg(v != NULL, "not JSON (%s): %s", err, z);
  free(z);
  return v;
}

static yajl_val get(yajl_val obj, const char *a, const char *b) {
  const char *path[] = {a, b, NULL};
  return yajl_tree_get(obj, path, yajl_t_any);
}

/* A table of n stamps with known values, including awkward ones; with
 * run-queue delays on every stamp for an odd seed (the largest on one). */
static void fill(ips_stamps_t *t, uint32_t n, uint64_t seed) {
  uint32_t i;
  int delays = (int)(seed & 1);
  ips_stamps_reset(t);
  for (i = 0; i < n; i++) {
    ips_stamp_t s;
    uint64_t r = test_rand(&seed);
    memset(&s, 0, sizeof s);
    s.has_run_delay = (char)delays;
    s.run_delay_ns = i == 3 ? INT64_MAX : (int64_t)(r % 5000000);
    s.kind = i == 0 ? 'd' : i + 1 == n ? 'e' : i % 2 ? 'u' : 'r';
    s.wall_us = (int64_t)1795300856 * 1000000 + (int64_t)(r % 4000000000ULL);
    if (i == 1)
      s.wall_us = (int64_t)1795300856 * 1000000 + 7; /* leading zeros */
    if (i == 2)
      s.wall_us = (int64_t)1795300857 * 1000000;     /* .000000 */
    s.mono_ns = (int64_t)(r >> 3);
    ck_assert_int_eq(ips_stamps_put(t, &s), 0);
  }
}

static void check_round_trip(const ips_stamps_t *t, const ips_meter_t *m) {
  size_t cap = ips_metering_max_size(t->n, m ? m->nfields : 0), n, i;
  char *buf = malloc(cap);
  yajl_val v, ts, ipc, mono, kinds;
  ck_assert_int_eq(ips_metering_write(buf, cap, t, m, &n), 0);
  ck_assert_uint_le(n, cap);
  v = parse(buf, n);
  ts = get(v, "timestamps", NULL);
  ck_assert(YAJL_IS_ARRAY(ts));
  ck_assert_uint_eq(ts->u.array.len, t->n);
  for (i = 0; i < t->n; i++) {
    char want[24];
    yajl_val x = ts->u.array.values[i];
    ips_fmt_wall(want, t->v[i].wall_us);
    ck_assert(YAJL_IS_NUMBER(x));
    /* The text itself: exactly six decimals, no rounding. */
    ck_assert_str_eq(YAJL_GET_NUMBER(x), want);
    ck_assert_int_eq(
        (int64_t)strtoll(want, NULL, 10) * 1000000 + atoi(strchr(want, '.') + 1),
        t->v[i].wall_us);
  }
  ipc = get(v, "ipcstamp", NULL);
  ck_assert(YAJL_IS_OBJECT(ipc));
  ck_assert_int_eq(YAJL_GET_INTEGER(get(ipc, "v", NULL)), 1);
  kinds = get(ipc, "kinds", NULL);
  ck_assert(YAJL_IS_STRING(kinds));
  {
    const char *k = YAJL_GET_STRING(kinds);
    ck_assert_ptr_nonnull(k);
    ck_assert_uint_eq(strlen(k), t->n);
  }
  mono = get(ipc, "mono", NULL);
  ck_assert(YAJL_IS_ARRAY(mono));
  ck_assert_uint_eq(mono->u.array.len, t->n);
  for (i = 0; i < t->n; i++) {
    ck_assert_int_eq(YAJL_GET_STRING(kinds)[i], t->v[i].kind);
    ck_assert(YAJL_IS_INTEGER(mono->u.array.values[i]));
    ck_assert_int_eq(YAJL_GET_INTEGER(mono->u.array.values[i]),
                     t->v[i].mono_ns);
  }
  ck_assert_int_eq(YAJL_GET_INTEGER(get(ipc, "dropped", NULL)), t->dropped);
  if (m != NULL && m->has_cpu_ns)
    ck_assert_int_eq(YAJL_GET_INTEGER(get(ipc, "cpu_ns", NULL)), m->cpu_ns);
  else
    ck_assert_ptr_null(get(ipc, "cpu_ns", NULL));
  /* One run-queue delay per stamp, when every stamp has one. */
  {
    yajl_val rd = get(ipc, "run_delay_ns", NULL);
    int all = t->n > 0;
    for (i = 0; i < t->n; i++)
      all = all && t->v[i].has_run_delay;
    if (!all) {
      ck_assert_ptr_null(rd);
    } else {
      ck_assert(YAJL_IS_ARRAY(rd));
      ck_assert_uint_eq(rd->u.array.len, t->n);
      for (i = 0; i < t->n; i++)
        ck_assert_int_eq(YAJL_GET_INTEGER(rd->u.array.values[i]),
                         t->v[i].run_delay_ns);
    }
  }
  for (i = 0; m != NULL && i < m->nfields; i++)
    ck_assert_int_eq(YAJL_GET_INTEGER(get(v, m->fields[i].key, NULL)),
                     m->fields[i].value);
  yajl_tree_free(v);
  free(buf);
}

START_TEST(test_fmt) {
  char b[24];
  ck_assert_uint_eq(ips_fmt_wall(b, 1795300856504227LL), 17);
  ck_assert_str_eq(b, "1795300856.504227");
  ips_fmt_wall(b, 5);
  ck_assert_str_eq(b, "0.000005");
  ips_fmt_wall(b, -1500000);
  ck_assert_str_eq(b, "-1.500000");
  ips_fmt_mono(b, 8123456789012LL);
  ck_assert_str_eq(b, "8123.456789012");
  ips_fmt_mono(b, INT64_MAX);
  ck_assert_str_eq(b, "9223372036.854775807");
  ips_fmt_mono(b, INT64_MIN);
  ck_assert_str_eq(b, "-9223372036.854775808");
}
END_TEST

/* The digits are written in place, pairs at a time, at a length counted
 * first: every power of ten and its neighbours, both signs and the ends of
 * int64, against printf's decimal, as a counter, a wall and a mono stamp. */
START_TEST(test_digit_boundaries) {
  int64_t vals[3 * 19 * 2 + 4];
  size_t nv = 0, i, n;
  int64_t p = 1;
  int k;
  for (k = 0; k < 19; k++) {
    int64_t d;
    for (d = -1; d <= 1; d++) {
      vals[nv++] = p + d;
      vals[nv++] = -(p + d);
    }
    if (k < 18) /* 10^18 is the last power of ten an int64 holds */
      p *= 10;
  }
  vals[nv++] = INT64_MAX;
  vals[nv++] = INT64_MIN;
  vals[nv++] = INT64_MAX - 1;
  vals[nv++] = INT64_MIN + 1;
  for (i = 0; i < nv; i++) {
    int64_t v = vals[i];
    ips_meter_field_t f = {"c", v};
    ips_meter_t m = {&f, 1, 0, 0};
    ips_stamp_t s[2] = {{v, v, 'd', 0, 0}, {0, 0, 'e', 0, 0}};
    ips_stamps_t t;
    char buf[512], want[512], wall[48];
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    snprintf(wall, sizeof wall, "%s%llu.%06llu", v < 0 ? "-" : "",
             (unsigned long long)(u / 1000000), (unsigned long long)(u % 1000000));
    snprintf(want, sizeof want,
             "{\"c\":%lld,\"timestamps\":[%s,0.000000],\"ipcstamp\":"
             "{\"v\":1,\"kinds\":\"de\",\"mono\":[%lld,0],\"dropped\":0}}",
             (long long)v, wall, (long long)v);
    ck_assert_int_eq(ips_stamps_init(&t, 4), 0);
    ips_stamps_put(&t, &s[0]);
    ips_stamps_put(&t, &s[1]);
    ck_assert_int_eq(ips_metering_write(buf, sizeof buf - 1, &t, &m, &n), 0);
    buf[n] = '\0';
    ck_assert_str_eq(buf, want);
    /* exactly as long as it needs: one byte less is refused */
    ck_assert_int_eq(ips_metering_write(buf, n - 1, &t, &m, NULL), IPS_ENOBUFS);
    ips_fmt_wall(buf, v);
    ck_assert_str_eq(buf, wall);
    ips_stamps_free(&t);
  }
}
END_TEST

/* Stamps close together, as in a real delivery: the writer copies the
 * seconds and a mono stamp's digits above the last eight from the stamp
 * before when they are the same.  Steps that sometimes cross a second or
 * a multiple of 10^8 ns, or change a digit count, against printf. */
START_TEST(test_shared_leading_digits) {
  ips_stamps_t t;
  uint64_t seed = 0x5eed + (uint64_t)_i;
  int64_t w = _i % 2 ? 9999990 : (int64_t)1795300856 * 1000000 + 999000;
  int64_t mo = _i % 2 ? 99999000 : 999999999900000000LL;
  char buf[16384], want[16384], *p;
  size_t n, i, nt = 2 + 2 * (size_t)(_i % 40);
  ck_assert_int_eq(ips_stamps_init(&t, 128), 0);
  for (i = 0; i < nt; i++) {
    uint64_t r = test_rand(&seed);
    ips_stamp_t s;
    memset(&s, 0, sizeof s);
    s.kind = i == 0 ? 'd' : i + 1 == nt ? 'e' : i % 2 ? 'u' : 'r';
    w += (int64_t)(r % 400);
    mo += (int64_t)((r >> 16) % 40000);
    s.wall_us = w;
    s.mono_ns = mo;
    ips_stamps_put(&t, &s);
  }
  ck_assert_int_eq(ips_metering_write(buf, sizeof buf, &t, NULL, &n), 0);
  buf[n] = '\0';
  p = want + sprintf(want, "{\"timestamps\":[");
  for (i = 0; i < nt; i++)
    p += sprintf(p, "%s%lld.%06lld", i ? "," : "",
                 (long long)(t.v[i].wall_us / 1000000),
                 (long long)(t.v[i].wall_us % 1000000));
  p += sprintf(p, "],\"ipcstamp\":{\"v\":1,\"kinds\":\"");
  for (i = 0; i < nt; i++)
    *p++ = t.v[i].kind;
  p += sprintf(p, "\",\"mono\":[");
  for (i = 0; i < nt; i++)
    p += sprintf(p, "%s%lld", i ? "," : "", (long long)t.v[i].mono_ns);
  sprintf(p, "],\"dropped\":0}}");
  ck_assert_str_eq(buf, want);
  ips_stamps_free(&t);
}
END_TEST

START_TEST(test_design_example) {
  /* The example of protocol.md, "The metering", to the byte. */
  static const ips_stamp_t s[] = {{1795300856504227LL, 8123456789012LL, 'd', 0, 0},
                                  {1795300856504354LL, 8123456916000LL, 'u', 0, 0},
                                  {1795300856504830LL, 8123457392000LL, 'r', 0, 0},
                                  {1795300856507209LL, 8123459771000LL, 'e', 0, 0}};
  static const ips_meter_field_t f[] = {{"compute", 1234}, {"allocate", 56789}};
  ips_meter_t m = {f, 2, 1, 1530000};
  ips_stamps_t t;
  char buf[1024];
  size_t n, i;
  ck_assert_int_eq(ips_stamps_init(&t, 8), 0);
  for (i = 0; i < 4; i++)
    ips_stamps_put(&t, &s[i]);
  ck_assert_int_eq(ips_metering_write(buf, sizeof buf, &t, &m, &n), 0);
  buf[n] = '\0';
  ck_assert_str_eq(buf,
      "{\"compute\":1234,\"allocate\":56789,"
      "\"timestamps\":[1795300856.504227,1795300856.504354,"
      "1795300856.504830,1795300856.507209],"
      "\"ipcstamp\":{\"v\":1,\"kinds\":\"dure\",\"mono\":[8123456789012,"
      "8123456916000,8123457392000,8123459771000],\"dropped\":0,"
      "\"cpu_ns\":1530000}}");
  check_round_trip(&t, &m);
  ips_stamps_free(&t);
}
END_TEST

START_TEST(test_random_tables) {
  ips_stamps_t t;
  static const ips_meter_field_t f[] = {{"compute", -1}, {"heap_bytes", INT64_MAX}};
  ips_meter_t m = {f, 2, 0, 0};
  uint32_t n = (uint32_t)_i * 37 % 1025;
  ck_assert_int_eq(ips_stamps_init(&t, 1024), 0);
  fill(&t, n < 2 ? 2 : n, 0xabcdef + (uint64_t)_i);
  t.dropped = (uint32_t)_i;
  check_round_trip(&t, _i % 2 ? &m : NULL);
  ips_stamps_free(&t);
}
END_TEST

START_TEST(test_full_and_empty_tables) {
  ips_stamps_t t;
  ck_assert_int_eq(ips_stamps_init(&t, 1024), 0);
  check_round_trip(&t, NULL); /* no stamps yet */
  fill(&t, 1024, 42);
  check_round_trip(&t, NULL);
  fill(&t, 1024, 43); /* with run-queue delays: the bound holds them */
  check_round_trip(&t, NULL);
  ips_stamps_free(&t);
}
END_TEST

START_TEST(test_no_table) {
  char buf[64];
  size_t n;
  ck_assert_int_eq(ips_metering_write(buf, sizeof buf, NULL, NULL, &n), 0);
  buf[n] = '\0';
  ck_assert_str_eq(buf, "{\"timestamps\":[]}");
}
END_TEST

START_TEST(test_buffer_too_small) {
  ips_stamps_t t;
  size_t cap, n, full;
  char *buf;
  ck_assert_int_eq(ips_stamps_init(&t, 64), 0);
  fill(&t, 64, 7);
  cap = ips_metering_max_size(64, 0);
  buf = malloc(cap);
  ck_assert_int_eq(ips_metering_write(buf, cap, &t, NULL, &full), 0);
  /* One byte short, and everything shorter, is refused, never truncated. */
  for (n = 0; n < full; n += (n < 64 ? 1 : 61))
    ck_assert_int_eq(ips_metering_write(buf, n, &t, NULL, NULL), IPS_ENOBUFS);
  ck_assert_int_eq(ips_metering_write(buf, full - 1, &t, NULL, NULL),
                   IPS_ENOBUFS);
  ck_assert_int_eq(ips_metering_write(buf, full, &t, NULL, &n), 0);
  ck_assert_uint_eq(n, full);
  free(buf);
  ips_stamps_free(&t);
}
END_TEST

START_TEST(test_bad_keys) {
  static const char *const keys[] = {"", "a b", "quote\"", "timestamps",
                                     "ipcstamp", NULL,
                                     "k123456789012345678901234567890123456789"
                                     "0123456789012345678901234"};
  char buf[512];
  ips_meter_field_t f = {keys[_i], 1};
  ips_meter_t m = {&f, 1, 0, 0};
  ck_assert_int_eq(ips_metering_write(buf, sizeof buf, NULL, &m, NULL),
                   IPS_EINVAL);
}
END_TEST

START_TEST(test_bad_kind) {
  ips_stamps_t t;
  ips_stamp_t s = {1, 2, '"', 0, 0};
  char buf[512];
  ck_assert_int_eq(ips_stamps_init(&t, 4), 0);
  ips_stamps_put(&t, &s);
  ck_assert_int_eq(ips_metering_write(buf, sizeof buf, &t, NULL, NULL),
                   IPS_EINVAL);
  ips_stamps_free(&t);
}
END_TEST

Suite *metering_suite(void) {
  Suite *s = suite_create("metering");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_fmt);
  tcase_add_test(tc, test_digit_boundaries);
  tcase_add_loop_test(tc, test_shared_leading_digits, 0, 80);
  tcase_add_test(tc, test_design_example);
  tcase_add_loop_test(tc, test_random_tables, 0, 40);
  tcase_add_test(tc, test_no_table);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_full_and_empty_tables);
  tcase_add_test(tc, test_buffer_too_small);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_loop_test(tc, test_bad_keys, 0, 7);
  tcase_add_test(tc, test_bad_kind);
  suite_add_tcase(s, tc);
  return s;
}
