/* check_otel.c — `ipcstamp otel`'s parts without a network: the OTLP/JSON
 * encoder (escaping, ids, times to the ns, the span tree), the ids'
 * stability, and the settings read from the OpenTelemetry environment
 * variables.  The sending itself is tested against a real receiver in
 * tests/tools/otel.test. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "ipcstamp-ring.h"
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

/* Every span of a request, with the ipcstamp.process of its resource
 * ("kernel" or "worker"): at most max. */
static size_t collect(yajl_val req, yajl_val *spans, const char **proc,
                      size_t max) {
  const char *p[] = {"resourceSpans", NULL};
  yajl_val rs = yajl_tree_get(req, p, yajl_t_array);
  size_t i, j, k, n = 0;
  ck_assert_ptr_nonnull(rs);
  for (i = 0; i < YAJL_GET_ARRAY(rs)->len; i++) {
    yajl_val g = YAJL_GET_ARRAY(rs)->values[i];
    yajl_val a = at(at(g, "resource"), "attributes"), ss, sp;
    const char *who = NULL;
    for (j = 0; j < YAJL_GET_ARRAY(a)->len; j++) {
      yajl_val kv = YAJL_GET_ARRAY(a)->values[j];
      if (!strcmp(str_at(kv, "key", NULL), "ipcstamp.process"))
        who = str_at(kv, "value", "stringValue");
    }
    ck_assert_ptr_nonnull(who);
    ss = at(g, "scopeSpans");
    for (j = 0; j < YAJL_GET_ARRAY(ss)->len; j++) {
      sp = at(YAJL_GET_ARRAY(ss)->values[j], "spans");
      for (k = 0; k < YAJL_GET_ARRAY(sp)->len; k++) {
        ck_assert_uint_lt(n, max);
        spans[n] = YAJL_GET_ARRAY(sp)->values[k];
        proc[n++] = who;
      }
    }
  }
  return n;
}

/* The span of id hex among n, or -1. */
static long span_by_id(yajl_val *spans, size_t n, const char *hex) {
  size_t i;
  for (i = 0; i < n; i++)
    if (!strcmp(str_at(spans[i], "spanId", NULL), hex))
      return (long)i;
  return -1;
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
 * record; the root named by its kind with the slog's fields under Agoric's
 * converter's keys and a link to its cause, in the kernel's resource with
 * every segment but the worker's. */
START_TEST(request_tree_and_times) {
  ips_delivery_t d, cd;
  ips_stats_t st;
  otel_ids_t ids;
  otlp_req_t r;
  otel_deliver_facts_t f;
  yajl_val root, all[32], sp, links, ln;
  const char *body, *proc[32];
  char *res, errbuf[200], rootid[17], tid[33], hex[33];
  size_t len, i, n;
  long k;
  int64_t t, base = 1700000000123456789LL + (1000 - 500);
  uint8_t b16[16], b8[8];
  static const char *names[] = {
      "pipe-send",   "worker",         "pipe-upcall", "kernel-syscall",
      "pipe-reply",  "worker",         "pipe-upcall", "kernel-syscall",
      "pipe-reply",  "worker",         "pipe-result"};
  static const int64_t lens[] = {10, 40, 3, 20, 2, 20, 2, 10, 3, 40, 4};

  delivery(&d, "v3", 12);
  stats(&st);
  otel_ids_init(&ids, &st);
  memset(&f, 0, sizeof f);
  strcpy(f.kind, "message");
  f.n = 1;
  strcpy(f.c[0].vat, "v1");
  f.c[0].crank = 4;
  f.c[0].dnum = 2;
  f.c[0].line = 17;
  f.c[0].why = 's';
  strcpy(f.c[0].kpid, "kp40");
  res = otlp_resource("svc \"x\"", "host1", "run.slog", NULL);
  ck_assert_ptr_nonnull(res);
  ck_assert_int_eq(otlp_req_init(&r, res), 0);
  otlp_req_delivery(&r, &ids, &st, &d, &f);
  ck_assert_uint_eq(r.nspans, 12);
  body = otlp_req_end(&r, &len);
  ck_assert_ptr_nonnull(body);
  ck_assert_uint_eq(strlen(body), len);
  root = yajl_tree_parse(body, errbuf, sizeof errbuf);
  ck_assert_msg(root, "not JSON: %s: %s", errbuf, body);
  {
    const char *p[] = {"resourceSpans", NULL};
    yajl_val a = at(at(YAJL_GET_ARRAY(yajl_tree_get(root, p, yajl_t_array))
                          ->values[0], "resource"), "attributes");
    yajl_val v = YAJL_GET_ARRAY(a)->values[0];
    ck_assert_str_eq(str_at(v, "key", NULL), "service.name");
    ck_assert_str_eq(str_at(v, "value", "stringValue"), "svc \"x\"");
  }
  n = collect(root, all, proc, 32);
  ck_assert_uint_eq(n, 12);

  otel_trace_id(&ids, &d, b16);
  otlp_hex(tid, b16, 16);
  otel_span_id(&ids, &d, 0, b8);
  otlp_hex(rootid, b8, 8);
  k = span_by_id(all, n, rootid);
  ck_assert_int_ge(k, 0);
  sp = all[k];
  ck_assert_str_eq(proc[k], "kernel");
  ck_assert_str_eq(str_at(sp, "traceId", NULL), tid);
  ck_assert_ptr_null(at(sp, "parentSpanId"));
  ck_assert_str_eq(str_at(sp, "name", NULL), "deliver-message");
  ck_assert_int_eq(YAJL_GET_INTEGER(at(sp, "kind")), 3);
  ck_assert_int_eq(ns_at(sp, "startTimeUnixNano"), base);
  ck_assert_int_eq(ns_at(sp, "endTimeUnixNano"), base + 154);
  ck_assert_str_eq(str_at(attr(sp, "agoric.crankNum"), "intValue", NULL),
                   "12");
  ck_assert_str_eq(str_at(attr(sp, "agoric.vatID"), "stringValue", NULL),
                   "v3");
  ck_assert_str_eq(str_at(attr(sp, "agoric.deliveryNum"), "intValue", NULL),
                   "7");
  ck_assert_str_eq(str_at(attr(sp, "agoric.delivery"), "stringValue", NULL),
                   "message");
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.description"), "stringValue",
                          NULL), "say \"hi\"\\\n\x01");
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.kernel_ns"), "intValue", NULL),
                   "30");
  ck_assert_ptr_null(attr(sp, "ipcstamp.total_ns")); /* the span's length */
  ck_assert(YAJL_IS_FALSE(at(attr(sp, "agoric.replay"), "boolValue")));
  ck_assert_ptr_null(attr(sp, "ipcstamp.marks_dropped"));
  ck_assert_ptr_null(attr(sp, "ipcstamp.marks_unbalanced"));
  ck_assert_int_eq(YAJL_GET_INTEGER(at(at(sp, "status"), "code")), 0);
  /* the link: the cause's root span, in its own trace */
  links = at(sp, "links");
  ck_assert(links && YAJL_IS_ARRAY(links) && YAJL_GET_ARRAY(links)->len == 1);
  ln = YAJL_GET_ARRAY(links)->values[0];
  memset(&cd, 0, sizeof cd);
  cd.vat = "v1";
  cd.crank = 4;
  cd.dnum = 2;
  cd.line = 17;
  otel_trace_id(&ids, &cd, b16);
  otlp_hex(hex, b16, 16);
  ck_assert_str_eq(str_at(ln, "traceId", NULL), hex);
  otel_span_id(&ids, &cd, 0, b8);
  otlp_hex(hex, b8, 8);
  ck_assert_str_eq(str_at(ln, "spanId", NULL), hex);
  ck_assert_str_eq(str_at(attr(ln, "ipcstamp.cause"), "stringValue", NULL),
                   "send");
  ck_assert_str_eq(str_at(attr(ln, "agoric.kpid"), "stringValue", NULL),
                   "kp40");

  t = base;
  for (i = 1; i < 12; i++) {
    char sid[17];
    otel_span_id(&ids, &d, i, b8);
    otlp_hex(sid, b8, 8);
    ck_assert_str_ne(sid, rootid);
    k = span_by_id(all, n, sid);
    ck_assert_int_ge(k, 0);
    sp = all[k];
    ck_assert_str_eq(proc[k], strcmp(names[i - 1], "worker") ? "kernel"
                                                              : "worker");
    ck_assert_str_eq(str_at(sp, "traceId", NULL), tid);
    ck_assert_str_eq(str_at(sp, "parentSpanId", NULL), rootid);
    ck_assert_str_eq(str_at(sp, "name", NULL), names[i - 1]);
    ck_assert_int_eq(YAJL_GET_INTEGER(at(sp, "kind")), 1);
    ck_assert_int_eq(ns_at(sp, "startTimeUnixNano"), t);
    ck_assert_int_eq(ns_at(sp, "endTimeUnixNano"), t + lens[i - 1]);
    ck_assert_ptr_null(attr(sp, "ipcstamp.duration_ns"));
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

/* The run-queue delay (IPCSTAMP_RUN_DELAY): the pipe split on the delivery's
 * span, each split segment's wait and transit on its own; a segment whose
 * receiver measured nothing (the second upcall) has neither. */
START_TEST(run_delay_attributes) {
  static const int64_t PQ[] = {-1, 2, -1, -1, -1, 4};
  static const int64_t WQ[] = {7, 0, 1, 0, 50, 0};
  static const char *const want_wait[] = {"7", NULL, "2", NULL, "1", NULL,
                                          NULL, NULL, "3", NULL, "4"};
  ips_delivery_t d;
  ips_stats_t st;
  otel_ids_t ids;
  otlp_req_t r;
  yajl_val root, spans, sp;
  const char *body, *p[] = {"resourceSpans", NULL};
  char *res, errbuf[200];
  size_t len, i;
  delivery(&d, "v1", 3);
  d.PQ = PQ;
  d.WQ = WQ;
  d.has_wait = 1;
  d.pipe_wait = 7 + 2 + 1 + 3 + 4;
  d.pipe_transit = 3 + 1 + 1;
  d.pipe_unsplit = 2;
  d.wait_worker = 7 + 1 + 3;
  stats(&st);
  otel_ids_init(&ids, &st);
  res = otlp_resource("svc", "host1", "run.slog", NULL);
  ck_assert_int_eq(otlp_req_init(&r, res), 0);
  otlp_req_delivery(&r, &ids, &st, &d, NULL);
  body = otlp_req_end(&r, &len);
  root = yajl_tree_parse(body, errbuf, sizeof errbuf);
  ck_assert_msg(root, "not JSON: %s", errbuf);
  /* The spans sit under two resources (kernel and worker): each is found
   * by what it is, the root by its pipe split, a segment by its index. */
  {
    yajl_val rs = yajl_tree_get(root, p, yajl_t_array);
    size_t ri, seen = 0, roots = 0;
    for (ri = 0; ri < YAJL_GET_ARRAY(rs)->len; ri++) {
      const char *q[] = {"scopeSpans", NULL};
      yajl_val ss = yajl_tree_get(YAJL_GET_ARRAY(rs)->values[ri], q,
                                  yajl_t_array);
      spans = at(YAJL_GET_ARRAY(ss)->values[0], "spans");
      for (i = 0; i < YAJL_GET_ARRAY(spans)->len; i++) {
        yajl_val w, ix;
        size_t k;
        sp = YAJL_GET_ARRAY(spans)->values[i];
        if (attr(sp, "ipcstamp.pipe_wait_ns")) {
          roots++;
          ck_assert_str_eq(str_at(attr(sp, "ipcstamp.pipe_wait_ns"),
                                  "intValue", NULL), "17");
          ck_assert_str_eq(str_at(attr(sp, "ipcstamp.pipe_transit_ns"),
                                  "intValue", NULL), "5");
          ck_assert_str_eq(str_at(attr(sp, "ipcstamp.pipe_unsplit_ns"),
                                  "intValue", NULL), "2");
        }
        if (!(ix = attr(sp, "ipcstamp.segment_index")))
          continue;
        k = (size_t)strtoul(str_at(ix, "intValue", NULL), NULL, 10);
        ck_assert_uint_lt(k, sizeof want_wait / sizeof want_wait[0]);
        seen++;
        w = attr(sp, "ipcstamp.wait_ns");
        if (!want_wait[k]) {
          ck_assert_msg(w == NULL, "segment %zu has a wait", k);
          ck_assert_ptr_null(attr(sp, "ipcstamp.transit_ns"));
          continue;
        }
        ck_assert_msg(w != NULL, "segment %zu has no wait", k);
        ck_assert_str_eq(str_at(w, "intValue", NULL), want_wait[k]);
        ck_assert_ptr_nonnull(attr(sp, "ipcstamp.transit_ns"));
      }
    }
    ck_assert_uint_eq(roots, 1);
    ck_assert_uint_eq(seen, sizeof want_wait / sizeof want_wait[0]);
  }
  yajl_tree_free(root);
  otlp_req_free(&r);
  free(res);
}
END_TEST

/* Metrics: a delivery's values in the scale-3 buckets (exact at the powers
 * of two: 1 ns is bucket -1, 2 ns bucket 7, 256 ns bucket 63), zero in the
 * zero count, counts and integer sums; the series bound keeps every
 * delivery (in a coarser series). */
START_TEST(metrics_buckets_and_bound) {
  otel_metrics_t *m = otel_metrics_new();
  ips_delivery_t d;
  char *body, errbuf[200], vat[16];
  size_t len, points, i;
  yajl_val root;
  ck_assert_ptr_nonnull(m);
  delivery(&d, "v1", 1);
  d.desc = "go";
  d.method = "go";
  d.total = 256;
  d.pipe = 1;
  d.worker = 2;
  d.kernel = 0;
  otel_metrics_add(m, &d, "message", 1000);
  ck_assert_uint_eq(otel_metrics_fresh(m), 1);
  body = otel_metrics_request(m, "", NULL, 500, &len, &points);
  ck_assert_ptr_nonnull(body);
  ck_assert_uint_eq(otel_metrics_fresh(m), 0);
  root = yajl_tree_parse(body, errbuf, sizeof errbuf);
  ck_assert_msg(root, "%s: %s", errbuf, body);
  yajl_tree_free(root);
  /* 1 total + 3 shares + 2 counters */
  ck_assert_uint_eq(points, 6);
  ck_assert_ptr_nonnull(strstr(body, "\"count\":\"1\",\"sum\":256,\"scale\":3,"
                                     "\"zeroCount\":\"0\",\"min\":256,\"max\":256,"
                                     "\"positive\":{\"offset\":63,"));
  ck_assert_ptr_nonnull(strstr(body, "\"sum\":1,\"scale\":3,\"zeroCount\":\"0\","
                                     "\"min\":1,\"max\":1,\"positive\":{\"offset\":-1,"));
  ck_assert_ptr_nonnull(strstr(body, "\"positive\":{\"offset\":7,"));
  ck_assert_ptr_nonnull(strstr(body, "\"sum\":0,\"scale\":3,\"zeroCount\":\"1\""));
  ck_assert_ptr_nonnull(strstr(body, "\"startTimeUnixNano\":\"500\",\"timeUnixNano\":\"1000\""));
  ck_assert_ptr_nonnull(strstr(body, "{\"key\":\"ipcstamp.method\",\"value\":{\"stringValue\":\"go\"}}"));
  free(body);
  /* past OTEL_MAX_SERIES: kept, in a series without the method */
  for (i = 0; i < OTEL_MAX_SERIES + 10; i++) {
    snprintf(vat, sizeof vat, "m%zu", i); /* a method per delivery */
    d.desc = d.method = vat;
    otel_metrics_add(m, &d, "message", 2000);
  }
  body = otel_metrics_request(m, "", NULL, 500, &len, &points);
  ck_assert_ptr_nonnull(body);
  root = yajl_tree_parse(body, errbuf, sizeof errbuf);
  ck_assert_ptr_nonnull(root);
  yajl_tree_free(root);
  free(body);
  otel_metrics_free(m);
}
END_TEST

/* An error result, a replay, wall clocks: status 2, no crank, stamps as
 * they are, the offset attributes; marks left out are counted. */
START_TEST(error_replay_wall) {
  ips_delivery_t d;
  ips_stats_t st;
  otel_ids_t ids;
  otlp_req_t r;
  yajl_val root, sp;
  const char *body, *p[] = {"resourceSpans", NULL};
  size_t len;
  char *res = otlp_resource("s", NULL, NULL, NULL);
  delivery(&d, "v1", -1);
  d.replay = 1;
  d.ok = 0;
  d.clock = 'w';
  d.pclock = 'w';
  d.offset_ns = -5;
  d.bound_ns = 3;
  d.marks_dropped = 3;
  d.marks_unbalanced = 1;
  stats(&st);
  otel_ids_init(&ids, &st);
  otlp_req_init(&r, res);
  otlp_req_delivery(&r, &ids, &st, &d, NULL);
  body = otlp_req_end(&r, &len);
  root = yajl_tree_parse(body, NULL, 0);
  ck_assert_ptr_nonnull(root);
  sp = YAJL_GET_ARRAY(yajl_tree_get(root, p, yajl_t_array))->values[0];
  {
    const char *q[] = {"scopeSpans", NULL};
    sp = YAJL_GET_ARRAY(yajl_tree_get(sp, q, yajl_t_array))->values[0];
    sp = YAJL_GET_ARRAY(at(sp, "spans"))->values[0];
  }
  ck_assert_str_eq(str_at(sp, "name", NULL), "deliver"); /* kind unknown */
  ck_assert_int_eq(ns_at(sp, "startTimeUnixNano"), 1000);
  ck_assert_ptr_null(attr(sp, "agoric.crankNum"));
  ck_assert_ptr_null(attr(sp, "agoric.delivery"));
  ck_assert_ptr_null(at(sp, "links"));
  ck_assert(YAJL_IS_TRUE(at(attr(sp, "agoric.replay"), "boolValue")));
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.offset_ns"), "intValue", NULL),
                   "-5");
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.offset_bound_ns"), "intValue",
                          NULL), "3");
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.clock"), "stringValue", NULL),
                   "wall");
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.marks_dropped"), "intValue",
                          NULL), "3");
  ck_assert_str_eq(str_at(attr(sp, "ipcstamp.marks_unbalanced"), "intValue",
                          NULL), "1");
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


/* ---- worker processes -------------------------------------------------- */

/* One ResourceSpans per worker process: the pid when known (omitted when
 * not), the vat, the worker's create-vat line; the spans under it. */
START_TEST(one_resource_per_worker) {
  ips_delivery_t d;
  ips_stats_t st;
  otel_ids_t ids;
  otlp_req_t r;
  otel_attrs_t env;
  yajl_val root, rs;
  const char *body, *p[] = {"resourceSpans", NULL};
  const char *pa[] = {"resource", "attributes", NULL};
  char err[200], *res;
  size_t len, i;
  memset(&env, 0, sizeof env);
  ck_assert_int_eq(otel_attrs_parse(&env, "host.name=node-3,process.pid=1,"
                                    "team=a%3Db", "E", err, sizeof err), 0);
  res = otlp_resource("svc", "machine", "run.slog", &env);
  stats(&st);
  otel_ids_init(&ids, &st);
  otlp_req_init(&r, res);
  delivery(&d, "v1", 1);
  d.worker_pid = 4242;
  d.worker_line = 3;
  otlp_req_delivery(&r, &ids, &st, &d, NULL);
  delivery(&d, "v2", 2);          /* SwingSet's: no pid */
  d.worker_line = 5;
  otlp_req_delivery(&r, &ids, &st, &d, NULL);
  delivery(&d, "v1", 3);          /* the first worker again */
  d.worker_pid = 4242;
  d.worker_line = 3;
  d.line = 50;
  otlp_req_delivery(&r, &ids, &st, &d, NULL);
  delivery(&d, "v1", 4);          /* v1 restarted: another process */
  d.worker_pid = 4300;
  d.worker_line = 60;
  d.line = 61;
  otlp_req_delivery(&r, &ids, &st, &d, NULL);
  ck_assert_uint_eq(r.nspans, 4 * 12);
  body = otlp_req_end(&r, &len);
  root = yajl_tree_parse(body, err, sizeof err);
  ck_assert_msg(root, "%s: %s", err, body);
  rs = yajl_tree_get(root, p, yajl_t_array);
  /* the kernel's first (the roots, pipes and syscalls: 9 per delivery),
   * then the workers' (their 3 runs per delivery) */
  ck_assert_uint_eq(YAJL_GET_ARRAY(rs)->len, 4);
  {
    static const char *want_pid[] = {NULL, "4242", NULL, "4300"};
    static const char *want_vat[] = {NULL, "v1", "v2", "v1"};
    static const size_t want_spans[] = {36, 6, 3, 3};
    for (i = 0; i < 4; i++) {
      yajl_val g = YAJL_GET_ARRAY(rs)->values[i], a, sp, hn = NULL, pid = NULL,
               vat = NULL, team = NULL;
      const char *q[] = {"scopeSpans", NULL};
      size_t j, npid = 0;
      a = yajl_tree_get(g, pa, yajl_t_array);
      for (j = 0; j < YAJL_GET_ARRAY(a)->len; j++) {
        yajl_val kv = YAJL_GET_ARRAY(a)->values[j];
        const char *k = str_at(kv, "key", NULL);
        if (!strcmp(k, "host.name")) hn = at(kv, "value");
        if (!strcmp(k, "process.pid")) { pid = at(kv, "value"); npid++; }
        if (!strcmp(k, "ipcstamp.vat")) vat = at(kv, "value");
        if (!strcmp(k, "team")) team = at(kv, "value");
      }
      /* the variable's host.name wins; its process.pid does not */
      ck_assert_str_eq(str_at(hn, "stringValue", NULL), "node-3");
      ck_assert_str_eq(str_at(team, "stringValue", NULL), "a=b");
      if (want_pid[i]) {
        ck_assert_uint_eq(npid, 1);
        ck_assert_str_eq(str_at(pid, "intValue", NULL), want_pid[i]);
      } else {
        ck_assert_ptr_null(pid);
      }
      if (want_vat[i])
        ck_assert_str_eq(str_at(vat, "stringValue", NULL), want_vat[i]);
      else
        ck_assert_ptr_null(vat);
      sp = YAJL_GET_ARRAY(yajl_tree_get(g, q, yajl_t_array))->values[0];
      ck_assert_uint_eq(YAJL_GET_ARRAY(at(sp, "spans"))->len, want_spans[i]);
    }
  }
  yajl_tree_free(root);
  /* Reset: the next request has no resources left over. */
  otlp_req_reset(&r);
  body = otlp_req_end(&r, &len);
  ck_assert_str_eq(body, "{\"resourceSpans\":[]}");
  otlp_req_free(&r);
  otel_attrs_free(&env);
  free(res);
}
END_TEST

/* The analysis names each delivery's worker: the pid of the vat's latest
 * create-vat / worker-start, forgotten when the kernel restarts. */
typedef struct {
  size_t n;
  long long pid[64];
  char vat[64][8];
  long wline[64];
} seen_t;

static void on_d(void *arg, const ips_delivery_t *d) {
  seen_t *s = arg;
  if (s->n < 64) {
    s->pid[s->n] = d->worker_pid;
    s->wline[s->n] = d->worker_line;
    snprintf(s->vat[s->n], sizeof s->vat[0], "%s", d->vat);
  }
  s->n++;
}

static void analyse(const char *path, seen_t *s) {
  ips_analysis_options_t o;
  ips_analysis_t *a;
  ips_source_t *src;
  char err[256];
  long n;
  memset(s, 0, sizeof *s);
  ips_analysis_options_init(&o);
  o.on_delivery = on_d;
  o.arg = s;
  ck_assert_int_eq(ips_analysis_new(&a, &o), 0);
  ck_assert_msg(ips_source_open(&src, path, NULL, err, sizeof err) == 0, "%s",
                err);
  while ((n = ips_analysis_read(a, src, 0, err, sizeof err)) > 0)
    ;
  ck_assert_int_eq(n, 0);
  ips_analysis_finish(a);
  ips_source_close(src);
  ips_analysis_free(a);
}

static const char *data(const char *name) {
  static char p[4096];
  const char *s = getenv("IPCSTAMP_SRCDIR");
  snprintf(p, sizeof p, "%s/tests/data/%s", s && *s ? s : ".", name);
  return p;
}

START_TEST(worker_pid_in_the_analysis) {
  seen_t s;
  size_t i;
  char tmp[] = "/tmp/check_otel_pid.XXXXXX", line[65536];
  FILE *in, *out;
  int fd, pass;
  /* Our parent's file: worker-start names v1 29936 (line 2), v2 29938. */
  analyse(data("run.slog"), &s);
  ck_assert_uint_eq(s.n, 28);
  for (i = 0; i < s.n; i++) {
    int v1 = !strcmp(s.vat[i], "v1");
    ck_assert_int_eq(s.pid[i], v1 ? 29936 : 29938);
    ck_assert_int_eq(s.wline[i], v1 ? 2 : 3);
  }
  /* SwingSet's: create-vat without a pid, so none, but the line. */
  analyse(data("swingset-shapes.slog"), &s);
  ck_assert_uint_gt(s.n, 0);
  for (i = 0; i < s.n && i < 64; i++)
    ck_assert_int_eq(s.pid[i], 0);
  /* The same run appended again without its worker-start lines: the
   * kernel restarted (monotime goes back), and the old pids are not the
   * new workers'. */
  fd = mkstemp(tmp);
  ck_assert_int_ge(fd, 0);
  out = fdopen(fd, "w");
  for (pass = 0; pass < 2; pass++) {
    in = fopen(data("run.slog"), "r");
    ck_assert_ptr_nonnull(in);
    while (fgets(line, sizeof line, in))
      if (!pass || !strstr(line, "\"worker-start\""))
        fputs(line, out);
    fclose(in);
  }
  fclose(out);
  analyse(tmp, &s);
  unlink(tmp);
  ck_assert_uint_eq(s.n, 56);
  for (i = 0; i < 56; i++)
    ck_assert_int_eq(s.pid[i] != 0, i < 28);
}
END_TEST

/* OTEL_RESOURCE_ATTRIBUTES as the specification reads it. */
START_TEST(resource_attribute_list) {
  otel_attrs_t a;
  char err[256];
  memset(&a, 0, sizeof a);
  ck_assert_int_eq(otel_attrs_parse(&a, " k8s.pod.name = a%20b , x%3Dy=1%2C2"
                                    ",,dup=1,dup=2,empty=", "E", err,
                                    sizeof err), 0);
  ck_assert_uint_eq(a.n, 4);
  ck_assert_str_eq(otel_attrs_get(&a, "k8s.pod.name"), "a b");
  ck_assert_str_eq(otel_attrs_get(&a, "x=y"), "1,2");
  ck_assert_str_eq(otel_attrs_get(&a, "dup"), "2");  /* the later wins */
  ck_assert_str_eq(otel_attrs_get(&a, "empty"), "");
  ck_assert_ptr_null(otel_attrs_get(&a, "nope"));
  otel_attrs_free(&a);
  /* Any error: the whole value is discarded (a stays empty). */
  ck_assert_int_eq(otel_attrs_parse(&a, "a=1,b", "E", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "E: item 2 'b' has no '='"), "%s", err);
  ck_assert_uint_eq(a.n, 0);
  ck_assert_int_eq(otel_attrs_parse(&a, "a=1,b=%g1", "E", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "item 2: bad percent-encoding at '%g1'"), "%s",
                err);
  ck_assert_uint_eq(a.n, 0);
  ck_assert_int_eq(otel_attrs_parse(&a, " =1", "E", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "empty key"), "%s", err);
  ck_assert_int_eq(otel_attrs_parse(&a, "a=x%00y", "E", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "value is not UTF-8 text"), "%s", err);
  ck_assert_int_eq(otel_attrs_parse(&a, "a=%ff", "E", err, sizeof err), -1);
  ck_assert_int_eq(otel_attrs_parse(&a, "%0a=1", "E", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "key is not UTF-8 text"), "%s", err);
  ck_assert_uint_eq(a.n, 0);
}
END_TEST

/* ---- the rings (ring.c) ------------------------------------------------ */

typedef struct {
  size_t n;
  long long pid[8], dnum[8];
  int64_t P[8][6], W[8][6], wall0[8];
  size_t nup[8];
  /* the VM's marks: how many, the first 8 of them, the counts */
  size_t nm[8];
  ips_delivery_mark_t m[8][8];
  char mname[8][8][64];
  long long mdropped[8], munbalanced[8];
} joined_t;

static void on_joined(void *arg, const ips_delivery_t *d,
                      const ips_stats_t *st) {
  joined_t *j = arg;
  size_t i, k = j->n++;
  ck_assert_uint_lt(k, 8);
  j->pid[k] = d->worker_pid;
  j->dnum[k] = d->dnum;
  j->nup[k] = d->n_up;
  j->wall0[k] = ips_stats_wall_ns(st, d, d->P[0]);
  for (i = 0; i < 2 + 2 * d->n_up && i < 6; i++) {
    j->P[k][i] = d->P[i];
    j->W[k][i] = d->W[i];
  }
  j->nm[k] = d->n_marks;
  j->mdropped[k] = d->marks_dropped;
  j->munbalanced[k] = d->marks_unbalanced;
  for (i = 0; i < d->n_marks && i < 8; i++) {
    j->m[k][i] = d->marks[i];
    ck_assert_uint_lt(strlen(d->marks[i].name), sizeof j->mname[k][i]);
    strcpy(j->mname[k][i], d->marks[i].name);
    j->m[k][i].name = j->mname[k][i];
  }
}

/* An event as a reader hands it: fields by name. */
static ips_ring_field_t fld[8];
static ips_ring_event_t ev;

static const ips_ring_event_t *stamp_ev(char kind, uint64_t k, int64_t mono,
                                        const char *vat) {
  static char ks[2];
  ks[0] = kind;
  ks[1] = '\0';
  memset(fld, 0, sizeof fld);
  fld[0].name = "kind", fld[0].kind = IPS_RING_FIELD_STR, fld[0].s = ks;
  fld[0].len = 1;
  fld[1].name = "mono_ns", fld[1].kind = IPS_RING_FIELD_INT, fld[1].i = mono;
  fld[2].name = "delivery", fld[2].kind = IPS_RING_FIELD_UINT, fld[2].u = k;
  fld[2].i = (int64_t)k; /* as the reader fills both */
  fld[3].name = "vat", fld[3].kind = IPS_RING_FIELD_STR, fld[3].s = vat;
  fld[3].len = strlen(vat);
  ev.name = "stamp";
  ev.nfields = 4;
  ev.fields = fld;
  return &ev;
}

static const ips_ring_event_t *attr_ev(const char *vat, uint64_t k,
                                       int64_t end, int64_t total) {
  memset(fld, 0, sizeof fld);
  fld[0].name = "vat", fld[0].kind = IPS_RING_FIELD_STR, fld[0].s = vat;
  fld[0].len = strlen(vat);
  fld[1].name = "delivery", fld[1].kind = IPS_RING_FIELD_UINT, fld[1].u = k;
  fld[1].i = (int64_t)k;
  fld[2].name = "mono_ns", fld[2].kind = IPS_RING_FIELD_INT, fld[2].i = end;
  fld[3].name = "total_ns", fld[3].kind = IPS_RING_FIELD_INT, fld[3].i = total;
  fld[4].name = "pipe_ns", fld[4].kind = IPS_RING_FIELD_INT, fld[4].i = 24;
  fld[5].name = "worker_ns", fld[5].kind = IPS_RING_FIELD_INT, fld[5].i = 100;
  fld[6].name = "kernel_ns", fld[6].kind = IPS_RING_FIELD_INT, fld[6].i = 30;
  ev.name = "attribution";
  ev.nfields = 7;
  ev.fields = fld;
  return &ev;
}

static const ips_ring_event_t *mark_ev(const char *kind, uint64_t k,
                                       int64_t mono, const char *name) {
  memset(fld, 0, sizeof fld);
  fld[0].name = "name", fld[0].kind = IPS_RING_FIELD_STR, fld[0].s = name;
  fld[0].len = strlen(name);
  fld[1].name = "wall_us", fld[1].kind = IPS_RING_FIELD_INT, fld[1].i = 7;
  fld[2].name = "mono_ns", fld[2].kind = IPS_RING_FIELD_INT, fld[2].i = mono;
  fld[3].name = "delivery", fld[3].kind = IPS_RING_FIELD_UINT, fld[3].u = k;
  fld[3].i = (int64_t)k;
  fld[4].name = "kind", fld[4].kind = IPS_RING_FIELD_STR, fld[4].s = kind;
  fld[4].len = strlen(kind);
  ev.name = "mark";
  ev.nfields = 5;
  ev.fields = fld;
  return &ev;
}

/* The parent's D U R U R E of delivery k (P2 moved by off), its
 * attribution, and one worker's d u r u r e (W2 moved by off). */
static void parent_side(ips_ring_join_t *r, const ips_ring_info_t *pi,
                        uint64_t k, int64_t off) {
  static const char kinds[] = "DURURE";
  size_t i;
  for (i = 0; i < 6; i++)
    ips_ring_join_event(r, 100, pi, "*", stamp_ev(kinds[i], k, P2[i] + off, ""));
  ips_ring_join_event(r, 100, pi, "*", attr_ev("v1", k, P2[5] + off, 154));
}

static void worker_side(ips_ring_join_t *r, const ips_ring_info_t *wi, long pid,
                        uint64_t k, int64_t off) {
  static const char kinds[] = "durure";
  size_t i;
  for (i = 0; i < 6; i++)
    ips_ring_join_event(r, pid, wi, "v1", stamp_ev(kinds[i], k, W2[i] + off, "v1"));
}

/* One worker stamp of W2 (index i, moved by off) of delivery k. */
static void wstamp(ips_ring_join_t *r, const ips_ring_info_t *wi, long pid,
                   uint64_t k, int64_t off, size_t i) {
  ips_ring_join_event(r, pid, wi, "v1", stamp_ev("durure"[i], k, W2[i] + off,
                                             "v1"));
}

/* Delivery k of W2 (moved by off) in the worker ring pid, with n marks
 * "m" named name just after its d; then, with pi, its parent's side. */
static void marks_delivery(ips_ring_join_t *r, const ips_ring_info_t *pi,
                           const ips_ring_info_t *wi, long pid, uint64_t k,
                           int64_t off, size_t n, const char *name) {
  size_t i;
  wstamp(r, wi, pid, k, off, 0);
  for (i = 0; i < n; i++)
    ips_ring_join_event(r, pid, wi, "v1", mark_ev("m", k, W2[0] + off + 10, name));
  for (i = 1; i < 6; i++)
    wstamp(r, wi, pid, k, off, i);
  if (pi)
    parent_side(r, pi, k, off);
}

/* The worker ring's marks go with the delivery, paired as the analysis
 * pairs a slogfile's; what a hostile or broken ring adds is dropped or
 * counted as unbalanced, never exported wrong; the bounds hold. */
START_TEST(ring_marks) {
  static joined_t j; /* large */
  ips_ring_info_t pi, wi;
  ips_ring_join_counts_t c;
  ips_ring_join_t *r;
  char longname[301];
  size_t k;
  memset(&j, 0, sizeof j);
  memset(&pi, 0, sizeof pi);
  memset(&wi, 0, sizeof wi);
  pi.role = IPS_RING_ROLE_PARENT;
  wi.role = IPS_RING_ROLE_WORKER;
  memset(longname, 'n', 300);
  longname[300] = '\0';
  r = ips_ring_join_new(on_joined, &j);
  ck_assert_ptr_nonnull(r);

  /* W2: d 1010, u 1050, r 1075, u 1095, r 1110, e 1150. */
  wstamp(r, &wi, 200, 1, 0, 0);
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("b", 1, 1020, "outer"));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("m", 1, 1030, "tick"));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("e", 1, 1040, "nobegin"));
  wstamp(r, &wi, 200, 1, 0, 1);
  wstamp(r, &wi, 200, 1, 0, 2);
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("e", 1, 1100, "outer"));
  /* a measure: recorded after, earlier in time */
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("b", 1, 1080, "measure"));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("e", 1, 1090, "measure"));
  /* dropped: after e, before d, a bad kind, no name, too long a name,
   * another delivery's, a stamp below 0 */
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("m", 1, 1200, "late"));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("m", 1, 1000, "early"));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("x", 1, 1120, "kind"));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("mm", 1, 1120, "kind"));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("m", 1, 1120, ""));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("m", 1, 1120, longname));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("m", 9, 1120, "other"));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("m", 1, -5, "negative"));
  wstamp(r, &wi, 200, 1, 0, 3);
  wstamp(r, &wi, 200, 1, 0, 4);
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("b", 1, 1130, "open"));
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("m", 1, 1140, "caf\xc3"));
  wstamp(r, &wi, 200, 1, 0, 5);
  /* a mark between two deliveries belongs to none */
  ips_ring_join_event(r, 200, &wi, "v1", mark_ev("m", 1, 1160, "between"));
  parent_side(r, &pi, 1, 0);
  ck_assert_uint_eq(j.n, 1);
  ck_assert_uint_eq(j.nm[0], 4);
  /* in time order of the start; the open span left out, as it counts */
  ck_assert_str_eq(j.m[0][0].name, "outer");
  ck_assert_int_eq(j.m[0][0].kind, 's');
  ck_assert_int_eq(j.m[0][0].depth, 0);
  ck_assert_uint_eq(j.m[0][0].wseg, 0);
  ck_assert_int_eq(j.m[0][0].at, 1020);
  ck_assert_int_eq(j.m[0][0].dur, 80);
  ck_assert_str_eq(j.m[0][1].name, "tick");
  ck_assert_int_eq(j.m[0][1].kind, 'm');
  ck_assert_int_eq(j.m[0][1].depth, 1);
  ck_assert_int_eq(j.m[0][1].at, 1030);
  ck_assert_int_eq(j.m[0][1].dur, 0);
  ck_assert_str_eq(j.m[0][2].name, "measure");
  ck_assert_int_eq(j.m[0][2].depth, 1);
  ck_assert_uint_eq(j.m[0][2].wseg, 1);
  ck_assert_int_eq(j.m[0][2].at, 1080);
  ck_assert_int_eq(j.m[0][2].dur, 10);
  ck_assert_str_eq(j.m[0][3].name, "caf?"); /* a broken sequence */
  ck_assert_int_eq(j.m[0][3].depth, 1);
  ck_assert_uint_eq(j.m[0][3].wseg, 2);
  ck_assert_int_eq(j.mdropped[0], 8);
  ck_assert_int_eq(j.munbalanced[0], 2); /* nobegin, open */
  ips_ring_join_get_counts(r, &c);
  ck_assert_uint_eq(c.marks_dropped, 8);

  /* A delivery of more marks than RING_MARKS (4096): the rest dropped. */
  marks_delivery(r, &pi, &wi, 200, 2, 10000, 4099, "many");
  ck_assert_uint_eq(j.n, 2);
  ck_assert_uint_eq(j.nm[1], 4096);
  ck_assert_int_eq(j.mdropped[1], 3);

  /* At most 65536 marks held in all: 16 halves of 4096 marks waiting for
   * a parent that does not come leave none for the next delivery. */
  for (k = 10; k < 26; k++)
    marks_delivery(r, NULL, &wi, 300, k, 100000 * (int64_t)k, 4096, "held");
  marks_delivery(r, &pi, &wi, 200, 3, 20000, 1, "none left");
  ck_assert_uint_eq(j.n, 3);
  ck_assert_uint_eq(j.nm[2], 0);
  ck_assert_int_eq(j.mdropped[2], 1);
  /* the waiting halves go: room again */
  ips_ring_join_tick(r, 1);
  marks_delivery(r, &pi, &wi, 200, 4, 30000, 1, "room");
  ck_assert_uint_eq(j.n, 4);
  ck_assert_uint_eq(j.nm[3], 1);
  ck_assert_int_eq(j.mdropped[3], 0);

  /* Times outside [0, 2^62) ns, the stamps' or the anchor's: not joined
   * (the spans' times would overflow), counted. */
  ips_ring_join_get_counts(r, &c);
  ck_assert_uint_eq(c.unjoined, 0);
  worker_side(r, &wi, 200, 5, -1000000);
  parent_side(r, &pi, 5, -1000000);
  pi.start_wall_us = INT64_MAX / 100;
  worker_side(r, &wi, 200, 6, 50000);
  parent_side(r, &pi, 6, 50000);
  ips_ring_join_get_counts(r, &c);
  ck_assert_uint_eq(c.unjoined, 2);
  ck_assert_uint_eq(j.n, 4);
  ips_ring_join_free(r);
}
END_TEST

START_TEST(ring_join) {
  joined_t j;
  ips_ring_info_t pi, wi;
  ips_ring_join_counts_t c;
  ips_ring_join_t *r;
  size_t i;
  memset(&j, 0, sizeof j);
  memset(&pi, 0, sizeof pi);
  memset(&wi, 0, sizeof wi);
  pi.role = IPS_RING_ROLE_PARENT;
  pi.start_wall_us = 1700000000000000LL;
  pi.start_mono_ns = 500;
  wi.role = IPS_RING_ROLE_WORKER;
  r = ips_ring_join_new(on_joined, &j);
  ck_assert_ptr_nonnull(r);

  /* The parent's ring read first, then the worker's: joined once the
   * worker's half comes, with the P and W a slogfile would give. */
  parent_side(r, &pi, 1, 0);
  ck_assert_uint_eq(j.n, 0);
  worker_side(r, &wi, 200, 1, 0);
  ck_assert_uint_eq(j.n, 1);
  ck_assert_int_eq(j.pid[0], 200);
  ck_assert_int_eq(j.dnum[0], 1);
  ck_assert_uint_eq(j.nup[0], 2);
  for (i = 0; i < 6; i++) {
    ck_assert_int_eq(j.P[0][i], P2[i]);
    ck_assert_int_eq(j.W[0][i], W2[i]);
  }
  /* placed from the parent ring's start: wall µs + (D - start mono) */
  ck_assert_int_eq(j.wall0[0], 1700000000000000000LL + (1000 - 500));

  /* v1's worker restarted (pid 300 counts from 1 again); an old half of
   * pid 200 with the same number is still waiting: the new one is the
   * one whose d..e lies inside the parent's D..E. */
  worker_side(r, &wi, 200, 1, 100000); /* never attributed */
  worker_side(r, &wi, 300, 1, 5000);
  parent_side(r, &pi, 1, 5000);
  ck_assert_uint_eq(j.n, 2);
  ck_assert_int_eq(j.pid[1], 300);
  ck_assert_int_eq(j.P[1][0], P2[0] + 5000);

  /* Another child's U R with the same number inside the window: the shape
   * is broken, so the delivery is counted and not exported. */
  ips_ring_join_event(r, 100, &pi, "*", stamp_ev('D', 2, 20000, ""));
  ips_ring_join_event(r, 100, &pi, "*", stamp_ev('U', 2, 20010, ""));
  ips_ring_join_event(r, 100, &pi, "*", stamp_ev('D', 2, 20020, ""));
  ips_ring_join_event(r, 100, &pi, "*", stamp_ev('E', 2, 20050, ""));
  ips_ring_join_event(r, 100, &pi, "*", attr_ev("v1", 2, 20050, 50));
  ips_ring_join_get_counts(r, &c);
  ck_assert_uint_eq(c.joined, 2);
  ck_assert_uint_eq(c.unjoined, 1);

  /* A parent's half whose worker never shows waits 100 ticks at most. */
  parent_side(r, &pi, 7, 90000);
  for (i = 0; i < 100; i++)
    ips_ring_join_tick(r, 0);
  ips_ring_join_get_counts(r, &c);
  ck_assert_uint_eq(c.unjoined, 1);
  ips_ring_join_tick(r, 0);
  ips_ring_join_get_counts(r, &c);
  ck_assert_uint_eq(c.unjoined, 2);
  /* ... and its worker, come too late, is not joined with anything. */
  worker_side(r, &wi, 300, 7, 90000);
  ck_assert_uint_eq(j.n, 2);
  ips_ring_join_tick(r, 1);
  ips_ring_join_get_counts(r, &c);
  ck_assert_uint_eq(c.joined, 2);
  ck_assert_uint_eq(c.unjoined, 2); /* a worker's half alone: not counted */
  ips_ring_join_free(r);
}
END_TEST

static Suite *otel_suite(void) {
  Suite *s = suite_create("otel");
  TCase *c = tcase_create("Core");
  tcase_add_test(c, escaping);
  tcase_add_test(c, hex_lowercase);
  tcase_add_test(c, request_tree_and_times);
  tcase_add_test(c, run_delay_attributes);
  tcase_add_test(c, metrics_buckets_and_bound);
  tcase_add_test(c, error_replay_wall);
  tcase_add_test(c, ids_stable_and_distinct);
  tcase_add_test(c, one_resource_per_worker);
  tcase_add_test(c, worker_pid_in_the_analysis);
  tcase_add_test(c, ring_join);
  tcase_add_test(c, ring_marks);
  suite_add_tcase(s, c);
  c = tcase_create("Bad input");
  tcase_add_test(c, endpoint_rules);
  tcase_add_test(c, header_list);
  tcase_add_test(c, resource_attribute_list);
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
