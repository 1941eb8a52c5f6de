/* check_worker_marks.c — marks and spans from real worker
 * processes over real pipes: metering v2, its bounds, unbalanced spans, and
 * the stamps the xsnap-era readers expect left exactly as they were. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "ipcstamp-worker.h"
#include "worker_suites.h"

/* The metering's "ipcstamp"."marks" object, from a tree the caller frees. */
static yajl_val marks_of(const wd_result_t *r, yajl_val *tree) {
  char err[128];
  const char *path[] = {"ipcstamp", "marks", NULL};
  *tree = yajl_tree_parse(r->meter, err, sizeof err);
  ck_assert_msg(*tree != NULL, "metering is not JSON (%s)", err);
  return yajl_tree_get(*tree, path, yajl_t_object);
}

static yajl_val member(yajl_val obj, const char *key) {
  const char *path[] = {key, NULL};
  yajl_val v = yajl_tree_get(obj, path, yajl_t_any);
  ck_assert_msg(v != NULL, "no \"%s\" in the marks", key);
  return v;
}

/* The event kinds in order ("mbe..."), and checks every event against the
 * command's stamps: inside [d, e] on the mono clock, never going back (when
 * ordered: measure() records spans after the fact), and naming an entry of
 * the names table. */
static void event_kinds_o(yajl_val mk, const wd_meter_t *m, char *out,
                          size_t size, int ordered) {
  yajl_val ev = member(mk, "events"), names = member(mk, "names");
  int64_t last = m->mono_ns[0];
  size_t i;
  ck_assert(YAJL_IS_ARRAY(ev) && YAJL_IS_ARRAY(names));
  ck_assert_uint_lt(ev->u.array.len, size);
  for (i = 0; i < ev->u.array.len; i++) {
    yajl_val e = ev->u.array.values[i];
    int64_t wall, mono;
    ck_assert(YAJL_IS_ARRAY(e) && e->u.array.len == 4);
    out[i] = YAJL_GET_STRING(e->u.array.values[0])[0];
    ck_assert_int_lt(YAJL_GET_INTEGER(e->u.array.values[1]),
                     (long long)names->u.array.len);
    ck_assert_int_eq(wd_parse_wall(YAJL_GET_NUMBER(e->u.array.values[2]),
                                   &wall), 0);
    ck_assert(wall >= m->wall_us[0] && wall <= m->wall_us[m->n - 1]);
    mono = YAJL_GET_INTEGER(e->u.array.values[3]);
    ck_assert(mono >= (ordered ? last : m->mono_ns[0]) &&
              mono <= m->mono_ns[m->n - 1]);
    last = mono;
  }
  out[i] = 0;
}

static void event_kinds(yajl_val mk, const wd_meter_t *m, char *out,
                        size_t size) {
  event_kinds_o(mk, m, out, size, 1);
}

/* Event i's mono stamp and name. */
static int64_t ev_mono(yajl_val mk, size_t i) {
  return YAJL_GET_INTEGER(member(mk, "events")->u.array.values[i]
                              ->u.array.values[3]);
}
static const char *ev_name(yajl_val mk, size_t i) {
  yajl_val e = member(mk, "events")->u.array.values[i];
  yajl_val names = member(mk, "names");
  return YAJL_GET_STRING(
      names->u.array.values[YAJL_GET_INTEGER(e->u.array.values[1])]);
}

static void js_eval(wd_t *d, const char *src) {
  wd_result_t r;
  ck_assert_int_eq(wd_command(d, 'e', src, strlen(src), NULL, NULL, &r), 0);
  ck_assert_msg(r.tag == '.', "eval failed: %s", r.body);
  wd_result_free(&r);
}

/* ES5 for Duktape. */
static const char js_vat[] =
    "globalThis.handleCommand = function (buf) {"
    "  var req = new TextDecoder().decode(buf);"
    "  if (req === 'bad') return String(performance.measure('x', 'nope'));"
    "  if (req === 'stale') return String(performance.measure('x', 'start'));"
    "  var t0 = performance.now();"
    "  performance.mark('start');"
    "  var x = 0; for (var i = 0; i < 20000; i++) x += i;"
    "  performance.mark('parsed');"
    "  issueStringCommand('[\"vatstoreGet\",\"k\"]');"
    "  var m = performance.measure('deserialize', 'start', 'parsed');"
    "  var all = performance.measure('whole');"
    "  var tail = performance.measure('tail', { start: 'parsed' });"
    "  return JSON.stringify({ t0: t0, now: performance.now(),"
    "    d: m.duration, type: m.entryType, st: m.startTime,"
    "    w: all.duration, tail: tail.duration,"
    "    origin: typeof performance.timeOrigin });"
    "};";

START_TEST(js_mark_and_measure) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  yajl_val tree, mk, res;
  char kinds[64], err[128];
  const char *p_d[] = {"d", NULL}, *p_w[] = {"w", NULL},
             *p_type[] = {"type", NULL}, *p_now[] = {"now", NULL},
             *p_t0[] = {"t0", NULL}, *p_o[] = {"origin", NULL};
  start(&d, WORKER_JS, NULL);
  js_eval(&d, js_vat);
  deliver_ok(&d, '?', "go", 2, NULL, NULL, NULL, &r, &m);
  ck_assert_int_eq(m.version, 2);
  ck_assert_str_eq(m.kinds, "dure");
  check_stamps(&r, &m);
  mk = marks_of(&r, &tree);
  ck_assert_ptr_nonnull(mk);
  event_kinds_o(mk, &m, kinds, sizeof kinds, 0);
  ck_assert_str_eq(kinds, "mmbebebe");
  ck_assert_str_eq(ev_name(mk, 2), "deserialize");
  /* measure(name, a, b) spans exactly from mark a to mark b. */
  ck_assert_int_eq(ev_mono(mk, 2), ev_mono(mk, 0));
  ck_assert_int_eq(ev_mono(mk, 3), ev_mono(mk, 1));
  ck_assert_int_lt(ev_mono(mk, 0), ev_mono(mk, 1));
  /* measure(name) starts with the command, after its 'd' stamp. */
  ck_assert_str_eq(ev_name(mk, 4), "whole");
  ck_assert_int_ge(ev_mono(mk, 4), m.mono_ns[0]);
  ck_assert_int_le(ev_mono(mk, 4), ev_mono(mk, 0));
  ck_assert_int_ge(ev_mono(mk, 5), ev_mono(mk, 3));
  ck_assert_str_eq(ev_name(mk, 6), "tail");
  ck_assert_int_eq(ev_mono(mk, 6), ev_mono(mk, 1));
  ck_assert_int_eq(YAJL_GET_INTEGER(member(mk, "unbalanced")), 0);
  res = yajl_tree_parse(r.body, err, sizeof err);
  ck_assert_msg(res != NULL, "result %s", r.body);
  ck_assert_str_eq(YAJL_GET_STRING(yajl_tree_get(res, p_type, yajl_t_any)),
                   "measure");
  ck_assert_str_eq(YAJL_GET_STRING(yajl_tree_get(res, p_o, yajl_t_any)),
                   "number");
  /* The durations are the marks' distance, in ms. */
  ck_assert(fabs(YAJL_GET_DOUBLE(yajl_tree_get(res, p_d, yajl_t_number)) -
                 (double)(ev_mono(mk, 1) - ev_mono(mk, 0)) / 1e6) < 1e-6);
  ck_assert(YAJL_GET_DOUBLE(yajl_tree_get(res, p_w, yajl_t_number)) >=
            YAJL_GET_DOUBLE(yajl_tree_get(res, p_d, yajl_t_number)));
  ck_assert(YAJL_GET_DOUBLE(yajl_tree_get(res, p_now, yajl_t_number)) >
            YAJL_GET_DOUBLE(yajl_tree_get(res, p_t0, yajl_t_number)));
  yajl_tree_free(res);
  yajl_tree_free(tree);
  wd_result_free(&r);
  wd_meter_free(&m);
  /* Marks are per command: "start" is gone in the next one. */
  deliver_error(&d, '?', "stale", 5, "no mark named \"start\"");
  deliver_error(&d, '?', "bad", 3, "SyntaxError");
  /* And the worker goes on. */
  deliver_ok(&d, '?', "go", 2, NULL, NULL, NULL, &r, &m);
  ck_assert_int_eq(m.version, 2);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

/* Code written for xsnap, which has no marks, gets v1 metering. */
START_TEST(js_no_marks_is_v1) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_JS, NULL);
  js_eval(&d, "globalThis.handleCommand = function () { return 'x'; };");
  deliver_ok(&d, '?', "go", 2, NULL, NULL, NULL, &r, &m);
  ck_assert_int_eq(m.version, 1);
  ck_assert_ptr_null(strstr(r.meter, "marks"));
  wd_result_free(&r);
  wd_meter_free(&m);
  js_eval(&d, "if (typeof performance.now() !== 'number' || "
              "performance.now() < 0) throw new Error('now');"
              "var threw = false;"
              "try { performance.mark(); } catch (e) { threw = e instanceof "
              "TypeError; }"
              "if (!threw) throw new Error('mark() without a name');"
              "performance.mark('');"
              "performance.mark(new Array(300).join('\u00e9'));");
  wd_free(&d);
}
END_TEST

START_TEST(marks_spans_in_order) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  yajl_val tree, mk, names;
  char kinds[64];
  const char *cmd = "{\"marks\":3,\"spans\":2,\"upcalls\":2,\"spin_us\":200}";
  start(&d, WORKER_C, NULL);
  deliver_ok(&d, '?', cmd, strlen(cmd), NULL, NULL, NULL, &r, &m);
  ck_assert_int_eq(m.version, 2);
  /* The stamps are exactly what an xsnap-era reader expects. */
  ck_assert_str_eq(m.kinds, "durure");
  ck_assert_uint_eq(m.ntimestamps, 6);
  check_stamps(&r, &m);
  mk = marks_of(&r, &tree);
  ck_assert_ptr_nonnull(mk);
  event_kinds(mk, &m, kinds, sizeof kinds);
  ck_assert_str_eq(kinds, "mmmbbebee");
  names = member(mk, "names");
  ck_assert_uint_eq(names->u.array.len, 3); /* interned */
  ck_assert_str_eq(YAJL_GET_STRING(names->u.array.values[0]), "mark");
  ck_assert_str_eq(YAJL_GET_STRING(names->u.array.values[1]), "work");
  ck_assert_str_eq(YAJL_GET_STRING(names->u.array.values[2]), "span");
  ck_assert_int_eq(YAJL_GET_INTEGER(member(mk, "dropped")), 0);
  ck_assert_int_eq(YAJL_GET_INTEGER(member(mk, "unbalanced")), 0);
  yajl_tree_free(tree);
  wd_result_free(&r);
  wd_meter_free(&m);
  /* The next command used no marks: v1, no "marks" at all. */
  deliver_ok(&d, '?', "{\"upcalls\":1}", 13, NULL, NULL, NULL, &r, &m);
  ck_assert_int_eq(m.version, 1);
  ck_assert_ptr_null(strstr(r.meter, "marks"));
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(marks_unbalanced) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  yajl_val tree, mk;
  char kinds[64];
  const char *cmd = "{\"open\":2,\"stray\":3,\"reply_bytes\":4}";
  start(&d, WORKER_C, NULL);
  deliver_ok(&d, '?', cmd, strlen(cmd), NULL, NULL, NULL, &r, &m);
  ck_assert_int_eq(m.version, 2);
  ck_assert_str_eq(m.kinds, "de");
  ck_assert_uint_eq(r.body_len, 4); /* not fatal: the result is there */
  mk = marks_of(&r, &tree);
  event_kinds(mk, &m, kinds, sizeof kinds);
  ck_assert_str_eq(kinds, "bb");
  ck_assert_int_eq(YAJL_GET_INTEGER(member(mk, "unbalanced")), 5);
  ck_assert_int_eq(YAJL_GET_INTEGER(member(mk, "dropped")), 0);
  yajl_tree_free(tree);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

/* A full mark table and a full stamp table at once: marks are dropped and
 * counted, upcall stamps too, and the 'e' stamp is still there. */
START_TEST(marks_bounds_and_e) {
  static const char *const env[] = {"IPCSTAMP_MAX_MARKS=4",
                                    "IPCSTAMP_STAMP_CAPACITY=4", NULL};
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  yajl_val tree, mk;
  char kinds[64];
  const char *cmd = "{\"marks\":10,\"spans\":3,\"upcalls\":5}";
  start(&d, WORKER_C, env);
  deliver_ok(&d, '?', cmd, strlen(cmd), NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(m.kinds, "dure");
  ck_assert_int_eq(m.dropped, 8);
  mk = marks_of(&r, &tree);
  event_kinds(mk, &m, kinds, sizeof kinds);
  /* 4 marks fill the table: no begin finds room for its end. */
  ck_assert_str_eq(kinds, "mmmm");
  /* 6 marks, "work" begin and end, 3 "span" begins and ends. */
  ck_assert_int_eq(YAJL_GET_INTEGER(member(mk, "dropped")), 6 + 2 + 6);
  ck_assert_int_eq(YAJL_GET_INTEGER(member(mk, "unbalanced")), 0);
  yajl_tree_free(tree);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(marks_name_bytes) {
  static const char *const env[] = {"IPCSTAMP_MAX_MARK_BYTES=6", NULL};
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  yajl_val tree, mk;
  char kinds[64];
  /* "mark" fits (4 bytes), "work" and "span" do not. */
  const char *cmd = "{\"marks\":2,\"spans\":1}";
  start(&d, WORKER_C, env);
  deliver_ok(&d, '?', cmd, strlen(cmd), NULL, NULL, NULL, &r, &m);
  mk = marks_of(&r, &tree);
  event_kinds(mk, &m, kinds, sizeof kinds);
  ck_assert_str_eq(kinds, "mm");
  ck_assert_uint_eq(member(mk, "names")->u.array.len, 1);
  ck_assert_int_eq(YAJL_GET_INTEGER(member(mk, "dropped")), 4);
  ck_assert_int_eq(YAJL_GET_INTEGER(member(mk, "unbalanced")), 0);
  yajl_tree_free(tree);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

/* Stamps disabled: marks cost nothing and the metering stays empty. */
START_TEST(marks_disabled) {
  static const char *const env[] = {"IPCSTAMP_DISABLE=1", NULL};
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, env);
  deliver_ok(&d, '?', "{\"marks\":5,\"spans\":2}", 21, NULL, NULL, NULL, &r,
             &m);
  ck_assert(!m.has_ipcstamp);
  ck_assert_str_eq(r.meter, "{\"timestamps\":[]}");
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(marks_bad_environment) {
  static const char *const bad[] = {
      "IPCSTAMP_MAX_MARKS=0", "IPCSTAMP_MAX_MARKS=65537",
      "IPCSTAMP_MAX_MARKS=1e3", "IPCSTAMP_MAX_MARK_BYTES=0",
      "IPCSTAMP_MAX_MARK_BYTES=1048577"};
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *env[] = {bad[i], NULL};
    char name[32];
    wd_t d;
    snprintf(name, sizeof name, "%.*s", (int)strcspn(bad[i], "="), bad[i]);
    start(&d, WORKER_C, env);
    expect_exit(&d, 1, name);
    wd_free(&d);
  }
}
END_TEST

Suite *worker_marks_suite(void) {
  Suite *s = suite_create("worker marks");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, marks_spans_in_order);
  tcase_add_test(tc, marks_unbalanced);
  tcase_add_test(tc, marks_disabled);
  tcase_add_test(tc, js_mark_and_measure);
  tcase_add_test(tc, js_no_marks_is_v1);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, marks_bounds_and_e);
  tcase_add_test(tc, marks_name_bytes);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_test(tc, marks_bad_environment);
  suite_add_tcase(s, tc);
  return s;
}
