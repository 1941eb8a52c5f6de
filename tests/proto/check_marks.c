/* check_marks.c — the mark table (bounds, balance) and metering v2, read
 * back by a real JSON parser. */
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

static yajl_val at(yajl_val obj, const char *a, const char *b,
                   const char *c) {
  const char *path[] = {a, b, c, NULL};
  return yajl_tree_get(obj, path, yajl_t_any);
}

/* The metering of a d..e table with marks mk, parsed. */
static yajl_val write_parse(const ips_marks_t *mk, char **text) {
  ips_stamps_t t;
  size_t cap, n;
  char *buf;
  yajl_val v;
  ck_assert_int_eq(ips_stamps_init(&t, 4), 0);
  ck_assert_int_eq(ips_stamps_add(&t, 'd'), 0);
  ck_assert_int_eq(ips_stamps_add(&t, 'e'), 0);
  cap = ips_metering_max_size_marks(t.n, 0, mk ? mk->cap : 0,
                                    mk ? mk->name_cap : 0);
  buf = malloc(cap + 1);
  ck_assert_int_eq(ips_metering_write_marks(buf, cap, &t, mk, NULL, &n), 0);
  ck_assert_uint_le(n, cap);
  buf[n] = 0;
  v = parse(buf, n);
  if (text)
    *text = buf;
  else
    free(buf);
  ips_stamps_free(&t);
  return v;
}

static int64_t num(yajl_val v) {
  ck_assert(YAJL_IS_INTEGER(v));
  return YAJL_GET_INTEGER(v);
}

START_TEST(test_v2_round_trip) {
  ips_marks_t mk;
  yajl_val v, names, ev;
  size_t i;
  ck_assert_int_eq(ips_marks_init(&mk, 16, 64), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'b', "deserialize", 11), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "q\"uo\\te\n", 8), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'b', "deserialize", 11), 0); /* nested */
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "deserialize", 11), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "deserialize", 11), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "\xc3\xa9t\xc3\xa9", 6), 0);
  v = write_parse(&mk, NULL);
  ck_assert_int_eq(num(at(v, "ipcstamp", "v", NULL)), 2);
  ck_assert_str_eq(YAJL_GET_STRING(at(v, "ipcstamp", "kinds", NULL)), "de");
  names = at(v, "ipcstamp", "marks", "names");
  ck_assert(YAJL_IS_ARRAY(names));
  ck_assert_uint_eq(names->u.array.len, 3); /* interned: one per name */
  ck_assert_str_eq(YAJL_GET_STRING(names->u.array.values[0]), "deserialize");
  ck_assert_str_eq(YAJL_GET_STRING(names->u.array.values[1]), "q\"uo\\te\n");
  ck_assert_str_eq(YAJL_GET_STRING(names->u.array.values[2]),
                   "\xc3\xa9t\xc3\xa9");
  ev = at(v, "ipcstamp", "marks", "events");
  ck_assert_uint_eq(ev->u.array.len, 6);
  for (i = 0; i < 6; i++) {
    static const char kinds[] = "bmbeem";
    static const int idx[] = {0, 1, 0, 0, 0, 2};
    yajl_val e = ev->u.array.values[i];
    char want[24], got[24];
    ck_assert_uint_eq(e->u.array.len, 4);
    ck_assert_int_eq(YAJL_GET_STRING(e->u.array.values[0])[0], kinds[i]);
    ck_assert_int_eq(num(e->u.array.values[1]), idx[i]);
    ips_fmt_wall(want, mk.v[i].wall_us);
    snprintf(got, sizeof got, "%s", YAJL_GET_NUMBER(e->u.array.values[2]));
    ck_assert_str_eq(got, want);
    ck_assert_int_eq(num(e->u.array.values[3]), mk.v[i].mono_ns);
  }
  ck_assert_int_eq(num(at(v, "ipcstamp", "marks", "dropped")), 0);
  ck_assert_int_eq(num(at(v, "ipcstamp", "marks", "unbalanced")), 0);
  yajl_tree_free(v);
  ips_marks_free(&mk);
}
END_TEST

/* Unused marks leave the metering byte for byte as v1. */
START_TEST(test_v1_when_unused) {
  ips_marks_t mk;
  char *a, *b;
  yajl_val v;
  ck_assert_int_eq(ips_marks_init(&mk, 16, 64), 0);
  yajl_tree_free(write_parse(&mk, &a));
  yajl_tree_free(write_parse(NULL, &b));
  /* Stamps differ in time, so compare the shape. */
  ck_assert_ptr_nonnull(strstr(a, "\"ipcstamp\":{\"v\":1,"));
  ck_assert_ptr_null(strstr(a, "marks"));
  ck_assert_ptr_nonnull(strstr(b, "\"ipcstamp\":{\"v\":1,"));
  free(a);
  free(b);
  /* An unbalanced end alone is a use: it must be reported. */
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "x", 1), 1);
  v = write_parse(&mk, NULL);
  ck_assert_int_eq(num(at(v, "ipcstamp", "v", NULL)), 2);
  ck_assert_int_eq(num(at(v, "ipcstamp", "marks", "unbalanced")), 1);
  yajl_tree_free(v);
  ips_marks_reset(&mk);
  v = write_parse(&mk, NULL);
  ck_assert_int_eq(num(at(v, "ipcstamp", "v", NULL)), 1);
  yajl_tree_free(v);
  ips_marks_free(&mk);
}
END_TEST

START_TEST(test_unbalanced) {
  ips_marks_t mk;
  yajl_val v;
  ck_assert_int_eq(ips_marks_init(&mk, 16, 64), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "never", 5), 1);
  ck_assert_int_eq(ips_marks_add(&mk, 'b', "a", 1), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'b', "b", 1), 0);
  /* Crossed: ending "a" closes it although "b" is inside. */
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "a", 1), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "a", 1), 1);
  ck_assert_uint_eq(ips_marks_open(&mk), 1); /* "b" left open */
  v = write_parse(&mk, NULL);
  /* Two ends without a begin, one begin without an end. */
  ck_assert_int_eq(num(at(v, "ipcstamp", "marks", "unbalanced")), 3);
  ck_assert_int_eq(num(at(v, "ipcstamp", "marks", "dropped")), 0);
  ck_assert_uint_eq(at(v, "ipcstamp", "marks", "events")->u.array.len, 3);
  yajl_tree_free(v);
  ips_marks_free(&mk);
}
END_TEST

/* A recorded begin always gets its end, however full the table. */
START_TEST(test_max_marks) {
  ips_marks_t mk;
  uint32_t i;
  ck_assert_int_eq(ips_marks_init(&mk, 4, 64), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'b', "outer", 5), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'b', "inner", 5), 0);
  /* 2 events + 2 reserved ends: the table is full. */
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "m", 1), 1);
  ck_assert_int_eq(ips_marks_add(&mk, 'b', "deeper", 6), 1);
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "deeper", 6), 1); /* dropped */
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "inner", 5), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "outer", 5), 0);
  ck_assert_uint_eq(mk.n, 4);
  ck_assert_uint_eq(mk.dropped, 3);
  ck_assert_uint_eq(mk.unbalanced, 0);
  ck_assert_int_eq(mk.v[3].kind, 'e');
  for (i = 0; i < 100; i++)
    ck_assert_int_eq(ips_marks_add(&mk, 'm', "m", 1), 1);
  ck_assert_uint_eq(mk.dropped, 103);
  ips_marks_reset(&mk);
  ck_assert_uint_eq(mk.n + mk.dropped + mk.nnames, 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "m", 1), 0);
  ips_marks_free(&mk);
  /* One slot left: a begin does not take it, since its end would not fit. */
  ck_assert_int_eq(ips_marks_init(&mk, 2, 64), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "m", 1), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'b', "s", 1), 1);
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "s", 1), 1);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "m", 1), 0);
  ck_assert_uint_eq(mk.n, 2);
  ck_assert_uint_eq(mk.dropped, 2);
  ck_assert_uint_eq(mk.unbalanced, 0);
  ips_marks_free(&mk);
}
END_TEST

START_TEST(test_max_name_bytes) {
  ips_marks_t mk;
  ck_assert_int_eq(ips_marks_init(&mk, 16, 8), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "abcde", 5), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "fghij", 5), 1); /* 10 > 8 */
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "abcde", 5), 0); /* interned */
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "xyz", 3), 0);   /* 8 = 8 */
  /* A begin whose name has no room: its end is dropped, not unbalanced. */
  ck_assert_int_eq(ips_marks_add(&mk, 'b', "span", 4), 1);
  ck_assert_int_eq(ips_marks_add(&mk, 'e', "span", 4), 1);
  ck_assert_uint_eq(mk.nnames, 2);
  ck_assert_uint_eq(mk.dropped, 3);
  ck_assert_uint_eq(mk.unbalanced, 0);
  ck_assert_uint_eq(ips_marks_open(&mk), 0);
  ips_marks_free(&mk);
}
END_TEST

/* The size bound holds for the worst table: every slot used, every name
 * byte a control byte (6 bytes escaped). */
START_TEST(test_worst_size) {
  ips_marks_t mk;
  char name[255];
  uint32_t i;
  char *text;
  yajl_val v;
  ck_assert_int_eq(ips_marks_init(&mk, 64, 64 * 255), 0);
  for (i = 0; i < 64; i++) {
    memset(name, 1, sizeof name);
    name[0] = (char)(1 + i % 31);
    name[1] = (char)(1 + i / 31);
    ck_assert_int_eq(ips_marks_add(&mk, 'm', name, sizeof name), 0);
  }
  ck_assert_uint_eq(mk.nnames, 64);
  v = write_parse(&mk, &text);
  ck_assert_uint_eq(at(v, "ipcstamp", "marks", "names")->u.array.len, 64);
  yajl_tree_free(v);
  free(text);
  ips_marks_free(&mk);
}
END_TEST

START_TEST(test_bad_names) {
  ips_marks_t mk;
  char big[256];
  memset(big, 'a', sizeof big);
  ck_assert_int_eq(ips_marks_init(&mk, 16, 1024), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "", 0), IPS_EINVAL);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', NULL, 3), IPS_EINVAL);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', big, 256), IPS_EINVAL);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', big, 255), 0);
  ck_assert_int_eq(ips_marks_add(&mk, 'x', "a", 1), IPS_EINVAL);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "\xff", 1), IPS_EINVAL);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "\xc3", 1), IPS_EINVAL);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "\xc0\x80", 2), IPS_EINVAL);
  ck_assert_int_eq(ips_marks_add(&mk, 'm', "\xed\xa0\x80", 3), IPS_EINVAL);
  ck_assert_uint_eq(mk.n, 1);
  ck_assert_uint_eq(mk.dropped, 0);
  ips_marks_free(&mk);
  ck_assert_int_eq(ips_marks_init(&mk, 0, 10), IPS_EINVAL);
  ck_assert_int_eq(ips_marks_init(&mk, IPS_MAX_MARKS + 1, 10), IPS_EINVAL);
  ck_assert_int_eq(ips_marks_init(&mk, 4, 0), IPS_EINVAL);
  ips_marks_free(&mk); /* a failed init leaves nothing, and free is safe */
}
END_TEST

Suite *marks_suite(void) {
  Suite *s = suite_create("marks");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_v2_round_trip);
  tcase_add_test(tc, test_v1_when_unused);
  tcase_add_test(tc, test_unbalanced);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_max_marks);
  tcase_add_test(tc, test_max_name_bytes);
  tcase_add_test(tc, test_worst_size);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_test(tc, test_bad_names);
  suite_add_tcase(s, tc);
  return s;
}
