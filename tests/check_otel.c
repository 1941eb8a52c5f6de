/* check_otel.c — `ipcstamp otel`'s parts without a network: the OTLP/JSON
 * encoder (escaping, ids, times to the ns, the span tree), the ids'
 * stability, and the settings read from the OpenTelemetry environment
 * variables.  The sending itself is tested against a real receiver in
 * tests/otel.test. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "otel/otel.h"

/* ---- helpers ----------------------------------------------------------- */

static const char *str_at(yajl_val o, const char *k1, const char *k2) {
  const char *p[] = {k1, k2, NULL};
  yajl_val v = yajl_tree_get(o, p, yajl_t_string);
  return v ? YAJL_GET_STRING(v) : NULL;
}

static yajl_val at(yajl_val o, const char *k) {
  const char *p[] = {k, NULL};
  return yajl_tree_get(o, p, yajl_t_any);
}

static int64_t ns_at(yajl_val o, const char *k) {
  const char *s = str_at(o, k, NULL);
  ck_assert_msg(s, "no string %s", k);
  return strtoll(s, NULL, 10);
}

/* An attribute's value object, or NULL. */
static yajl_val attr(yajl_val span, const char *key) {
  yajl_val a = at(span, "attributes");
  size_t i;
  ck_assert(a && YAJL_IS_ARRAY(a));
  for (i = 0; i < YAJL_GET_ARRAY(a)->len; i++) {
    yajl_val kv = YAJL_GET_ARRAY(a)->values[i];
    if (!strcmp(str_at(kv, "key", NULL), key))
      return at(kv, "value");
  }
  return NULL;
}

/* A delivery with two upcalls: D=1000 d=1010 u1=1050 U1=1053 R1=1073
 * r1=1075 u2=1095 U2=1097 R2=1107 r2=1110 e=1150 E=1154 (ns, monotime). */
static int64_t P2[] = {1000, 1053, 1073, 1097, 1107, 1154};
static int64_t W2[] = {1010, 1050, 1075, 1095, 1110, 1150};

static void delivery(ips_delivery_t *d, const char *vat, long long crank) {
  memset(d, 0, sizeof *d);
  d->vat = vat;
  d->desc = "say \"hi\"\\\n\x01";
  d->crank = crank;
  d->dnum = 7;
  d->line = 42;
  d->ok = 1;
  d->clock = 'm';
  d->pclock = 'm';
  d->n_up = 2;
  d->P = P2;
  d->W = W2;
  d->pipe = 10 + 3 + 2 + 2 + 3 + 4;
  d->kernel = 20 + 10;
  d->worker = 40 + 20 + 40;
  d->total = 154;
}

static void stats(ips_stats_t *st) {
  memset(st, 0, sizeof *st);
  st->first_time_ok = st->first_mono_ok = 1;
  st->first_time = 1700000000123456789LL;
  st->first_mono = 500;
}

/* ---- the encoder ------------------------------------------------------- */

START_TEST(escaping) {
  otlp_req_t r;
  memset(&r, 0, sizeof r);
  otlp_put_string(&r, "a\"b\\c\nd\te\x01\x1f\x7f\xc3\xa9");
  ck_assert_str_eq(r.buf, "\"a\\\"b\\\\c\\nd\\te\\u0001\\u001f\\u007f\xc3\xa9\"");
  otlp_req_free(&r);
}
END_TEST

START_TEST(hex_lowercase) {
  uint8_t b[4] = {0x00, 0xab, 0x9f, 0xff};
  char h[9];
  otlp_hex(h, b, 4);
  ck_assert_str_eq(h, "00ab9fff");
}
END_TEST

/* The request parses as JSON; its spans are a root and one child per
 * segment, laid end to end, on the wall clock placed from the first
 * record. */
START_TEST(request_tree_and_times) {
  ips_delivery_t d;
  ips_stats_t st;
  otel_ids_t ids;
  otlp_req_t r;
  yajl_val root, spans, sp;
  const char *body, *rs[] = {"resourceSpans", NULL};
  char *res, errbuf[200], rootid[17], tid[33];
  size_t len, i, n;
  int64_t t, base = 1700000000123456789LL + (1000 - 500);
  uint8_t b16[16], b8[8];
  static const char *names[] = {
      "pipe \xe2\x86\x92worker", "worker", "pipe \xe2\x86\x92kernel",
      "kernel syscall", "pipe \xe2\x86\x92worker", "worker",
      "pipe \xe2\x86\x92kernel", "kernel syscall", "pipe \xe2\x86\x92worker",
      "worker", "pipe \xe2\x86\x92kernel"};
  static const int64_t lens[] = {10, 40, 3, 20, 2, 20, 2, 10, 3, 40, 4};

  delivery(&d, "v3", 12);
  stats(&st);
  otel_ids_init(&ids, &st);
  res = otlp_resource("svc \"x\"", "host1", "run.slog");
  ck_assert_ptr_nonnull(res);
  ck_assert_int_eq(otlp_req_init(&r, res), 0);
  otlp_req_delivery(&r, &ids, &st, &d);
  ck_assert_uint_eq(r.nspans, 12);
  body = otlp_req_end(&r, &len);
  ck_assert_ptr_nonnull(body);
  ck_assert_uint_eq(strlen(body), len);
  root = yajl_tree_parse(body, errbuf, sizeof errbuf);
  ck_assert_msg(root, "not JSON: %s: %s", errbuf, body);
  sp = yajl_tree_get(root, rs, yajl_t_array);
  ck_assert_ptr_nonnull(sp);
  sp = YAJL_GET_ARRAY(sp)->values[0];
  {
    const char *p[] = {"resource", "attributes", NULL};
    yajl_val a = yajl_tree_get(sp, p, yajl_t_array);
    yajl_val v = YAJL_GET_ARRAY(a)->values[0];
    ck_assert_str_eq(str_at(v, "key", NULL), "service.name");
    ck_assert_str_eq(str_at(v, "value", "stringValue"), "svc \"x\"");
  }
  {
    const char *p[] = {"scopeSpans", NULL};
    yajl_val ss = yajl_tree_get(sp, p, yajl_t_array);
    spans = at(YAJL_GET_ARRAY(ss)->values[0], "spans");
  }
  n = YAJL_GET_ARRAY(spans)->len;
  ck_assert_uint_eq(n, 12);

  sp = YAJL_GET_ARRAY(spans)->values[0];
  otel_trace_id(&ids, &d, b16);
  otlp_hex(tid, b16, 16);
  otel_span_id(&ids, &d, 0, b8);
  otlp_hex(rootid, b8, 8);
  ck_assert_str_eq(str_at(sp, "traceId", NULL), tid);
  ck_assert_str_eq(str_at(sp, "spanId", NULL), rootid);
  ck_assert_ptr_null(at(sp, "parentSpanId"));
  ck_assert_str_eq(str_at(sp, "name", NULL), "deliver v3 #7");
  ck_assert_int_eq(YAJL_GET_INTEGER(at(sp, "kind")), 3);
  ck_assert_int_eq(ns_at(sp, "startTimeUnixNano"), base);
  ck_assert_int_eq(ns_at(sp, "endTimeUnixNano"), base + 154);
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.crank"), "intValue", NULL), "12");
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.description"), "stringValue",
                          NULL), "say \"hi\"\\\n\x01");
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.kernel_ns"), "intValue", NULL),
                   "30");
  ck_assert(YAJL_IS_FALSE(at(attr(sp, "ipcstamp.replay"), "boolValue")));
  ck_assert_int_eq(YAJL_GET_INTEGER(at(at(sp, "status"), "code")), 0);

  t = base;
  for (i = 1; i < n; i++) {
    char sid[17];
    sp = YAJL_GET_ARRAY(spans)->values[i];
    otel_span_id(&ids, &d, i, b8);
    otlp_hex(sid, b8, 8);
    ck_assert_str_eq(str_at(sp, "traceId", NULL), tid);
    ck_assert_str_eq(str_at(sp, "spanId", NULL), sid);
    ck_assert_str_ne(sid, rootid);
    ck_assert_str_eq(str_at(sp, "parentSpanId", NULL), rootid);
    ck_assert_str_eq(str_at(sp, "name", NULL), names[i - 1]);
    ck_assert_int_eq(YAJL_GET_INTEGER(at(sp, "kind")), 1);
    ck_assert_int_eq(ns_at(sp, "startTimeUnixNano"), t);
    ck_assert_int_eq(ns_at(sp, "endTimeUnixNano"), t + lens[i - 1]);
    t += lens[i - 1];
  }
  ck_assert_int_eq(t, base + 154); /* the children fill the root exactly */
  yajl_tree_free(root);

  /* The buffer is reused for the next request, which starts empty. */
  otlp_req_reset(&r);
  ck_assert_uint_eq(r.nspans, 0);
  body = otlp_req_end(&r, &len);
  root = yajl_tree_parse(body, errbuf, sizeof errbuf);
  ck_assert_ptr_nonnull(root);
  yajl_tree_free(root);
  otlp_req_free(&r);
  free(res);
}
END_TEST

/* An error result, a replay, wall clocks: status 2, no crank, stamps as
 * they are, the offset attributes. */
START_TEST(error_replay_wall) {
  ips_delivery_t d;
  ips_stats_t st;
  otel_ids_t ids;
  otlp_req_t r;
  yajl_val root, sp;
  const char *body, *p[] = {"resourceSpans", NULL};
  size_t len;
  char *res = otlp_resource("s", NULL, NULL);
  delivery(&d, "v1", -1);
  d.replay = 1;
  d.ok = 0;
  d.clock = 'w';
  d.pclock = 'w';
  d.offset_ns = -5;
  d.bound_ns = 3;
  stats(&st);
  otel_ids_init(&ids, &st);
  otlp_req_init(&r, res);
  otlp_req_delivery(&r, &ids, &st, &d);
  body = otlp_req_end(&r, &len);
  root = yajl_tree_parse(body, NULL, 0);
  ck_assert_ptr_nonnull(root);
  sp = YAJL_GET_ARRAY(yajl_tree_get(root, p, yajl_t_array))->values[0];
  {
    const char *q[] = {"scopeSpans", NULL};
    sp = YAJL_GET_ARRAY(yajl_tree_get(sp, q, yajl_t_array))->values[0];
    sp = YAJL_GET_ARRAY(at(sp, "spans"))->values[0];
  }
  ck_assert_str_eq(str_at(sp, "name", NULL), "deliver v1 #7 (replay)");
  ck_assert_int_eq(ns_at(sp, "startTimeUnixNano"), 1000);
  ck_assert_ptr_null(attr(sp, "ipcstamp.crank"));
  ck_assert(YAJL_IS_TRUE(at(attr(sp, "ipcstamp.replay"), "boolValue")));
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.offset_ns"), "intValue", NULL),
                   "-5");
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.offset_bound_ns"), "intValue",
                          NULL), "3");
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.clock"), "stringValue", NULL),
                   "wall");
  ck_assert_int_eq(YAJL_GET_INTEGER(at(at(sp, "status"), "code")), 2);
  yajl_tree_free(root);
  otlp_req_free(&r);
  free(res);
}
END_TEST

/* ---- ids --------------------------------------------------------------- */

START_TEST(ids_stable_and_distinct) {
  ips_delivery_t a, b;
  ips_stats_t st;
  otel_ids_t ids, ids2;
  uint8_t t1[16], t2[16], s1[8], s2[8], zero[16] = {0};
  char h1[33], h2[33];
  stats(&st);
  otel_ids_init(&ids, &st);
  otel_ids_init(&ids2, &st);
  delivery(&a, "v3", 12);
  delivery(&b, "v3", 12);
  otel_trace_id(&ids, &a, t1);
  otel_trace_id(&ids2, &b, t2);
  ck_assert_mem_eq(t1, t2, 16); /* same file, same delivery */
  ck_assert(memcmp(t1, zero, 16) != 0);
  otlp_hex(h1, t1, 16);
  /* Known value: the ids must not change between versions, or a re-send
   * by a newer ipcstamp would duplicate every span. */
  ck_assert_str_eq(h1, "00e6921cc12c509c45b1ba3e29415e7e");
  b.crank = 13;
  otel_trace_id(&ids, &b, t2);
  ck_assert(memcmp(t1, t2, 16) != 0);
  b.crank = 12;
  b.line = 43; /* a replay of the same delivery, later in the file */
  otel_trace_id(&ids, &b, t2);
  ck_assert(memcmp(t1, t2, 16) != 0);
  b.line = 42;
  b.vat = "v4";
  otel_trace_id(&ids, &b, t2);
  ck_assert(memcmp(t1, t2, 16) != 0);
  st.first_time++; /* another run */
  otel_ids_init(&ids2, &st);
  otel_trace_id(&ids2, &a, t2);
  otlp_hex(h2, t2, 16);
  ck_assert_str_ne(h1, h2);
  otel_span_id(&ids, &a, 0, s1);
  otel_span_id(&ids, &a, 1, s2);
  ck_assert(memcmp(s1, s2, 8) != 0);
  otel_span_id(&ids, &a, 1, s1);
  ck_assert_mem_eq(s1, s2, 8);
}
END_TEST

/* ---- settings ---------------------------------------------------------- */

START_TEST(endpoint_rules) {
  otel_target_t t;
  char err[256];
  memset(&t, 0, sizeof t);
  unsetenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT");
  ck_assert_int_eq(otel_target_url(&t, NULL, err, sizeof err), 0);
  ck_assert_str_eq(t.url, "http://localhost:4318/v1/traces");
  ck_assert_int_eq(otel_target_url(&t, "http://h:1/", err, sizeof err), 0);
  ck_assert_str_eq(t.url, "http://h:1/v1/traces");
  ck_assert_int_eq(otel_target_url(&t, "https://h/base", err, sizeof err), 0);
  ck_assert_str_eq(t.url, "https://h/base/v1/traces");
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://gen:4318", 1);
  ck_assert_int_eq(otel_target_url(&t, NULL, err, sizeof err), 0);
  ck_assert_str_eq(t.url, "http://gen:4318/v1/traces");
  setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://sig:1/custom", 1);
  ck_assert_int_eq(otel_target_url(&t, NULL, err, sizeof err), 0);
  ck_assert_str_eq(t.url, "http://sig:1/custom"); /* as is */
  ck_assert_int_eq(otel_target_url(&t, "http://opt:2", err, sizeof err), 0);
  ck_assert_str_eq(t.url, "http://opt:2/v1/traces"); /* the option wins */
  ck_assert_int_eq(otel_target_url(&t, "localhost:4318", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "--endpoint 'localhost:4318' is not an http"), "%s",
                err);
  unsetenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "grpc://x", 1);
  ck_assert_int_eq(otel_target_url(&t, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "OTEL_EXPORTER_OTLP_ENDPOINT"), "%s", err);
  unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT");
  otel_target_free(&t);
}
END_TEST

START_TEST(header_list) {
  otel_target_t t;
  char err[256];
  memset(&t, 0, sizeof t);
  ck_assert_int_eq(otel_target_headers(&t, " api-key = a%20b%2Cc , x=1,,",
                                       "H", err, sizeof err), 0);
  ck_assert_uint_eq(t.nheaders, 2);
  ck_assert_str_eq(t.headers[0], "api-key: a b,c");
  ck_assert_str_eq(t.headers[1], "x: 1");
  /* A later source replaces a header of the same name (any case). */
  ck_assert_int_eq(otel_target_header(&t, "API-Key=secret=1", err, sizeof err), 0);
  ck_assert_uint_eq(t.nheaders, 2);
  ck_assert_str_eq(t.headers[0], "API-Key: secret=1");
  ck_assert_int_eq(otel_target_headers(&t, "a=1,b", "H", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "item 2 'b' has no '='"), "%s", err);
  ck_assert_int_eq(otel_target_headers(&t, "a=%4", "H", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "bad percent-encoding"), "%s", err);
  ck_assert_int_eq(otel_target_headers(&t, "a=%zz", "H", err, sizeof err), -1);
  ck_assert_int_eq(otel_target_headers(&t, "a b=1", "H", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "not a header name"), "%s", err);
  /* A CR or LF would start a header nobody asked for. */
  ck_assert_int_eq(otel_target_headers(&t, "a=x%0d%0aEvil: 1", "H", err,
                                       sizeof err), -1);
  ck_assert_msg(strstr(err, "control character"), "%s", err);
  ck_assert_int_eq(otel_target_header(&t, "novalue", err, sizeof err), -1);
  ck_assert_int_eq(otel_target_header(&t, "=v", err, sizeof err), -1);
  otel_target_free(&t);
}
END_TEST

static Suite *otel_suite(void) {
  Suite *s = suite_create("otel");
  TCase *c = tcase_create("Core");
  tcase_add_test(c, escaping);
  tcase_add_test(c, hex_lowercase);
  tcase_add_test(c, request_tree_and_times);
  tcase_add_test(c, error_replay_wall);
  tcase_add_test(c, ids_stable_and_distinct);
  suite_add_tcase(s, c);
  c = tcase_create("Bad input");
  tcase_add_test(c, endpoint_rules);
  tcase_add_test(c, header_list);
  suite_add_tcase(s, c);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(otel_suite());
  int failed;
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
