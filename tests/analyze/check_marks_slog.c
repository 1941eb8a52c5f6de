/* check_marks_slog.c — the analysis of metering v2: marks and
 * spans on each delivery, in time order with their durations and worker
 * stretches, per-name totals, v1 and v2 mixed in one slog, bad marks and an
 * unknown version refused with their reasons. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_suites.h"
#include "ipcstamp-analyze.h"
#include "mark_pair.h"
#include "slog.h"

#define MAXD 8

typedef struct {
  int ndel, nskip;
  size_t nmarks[MAXD];
  ips_delivery_mark_t m[MAXD][8];
  char names[MAXD][8][32];
  long long dropped[MAXD], unbalanced[MAXD];
  int reason[MAXD];
  char detail[MAXD][200];
} seen_t;

static void on_delivery(void *arg, const ips_delivery_t *d) {
  seen_t *w = arg;
  size_t i;
  ck_assert_int_lt(w->ndel, MAXD);
  ck_assert_int_eq(d->pipe + d->worker + d->kernel, d->total);
  w->nmarks[w->ndel] = d->n_marks;
  w->dropped[w->ndel] = d->marks_dropped;
  w->unbalanced[w->ndel] = d->marks_unbalanced;
  for (i = 0; i < d->n_marks && i < 8; i++) {
    w->m[w->ndel][i] = d->marks[i];
    snprintf(w->names[w->ndel][i], 32, "%s", d->marks[i].name);
  }
  w->ndel++;
}

static void on_skip(void *arg, const ips_skip_t *s) {
  seen_t *w = arg;
  ck_assert_int_lt(w->nskip, MAXD);
  w->reason[w->nskip] = s->reason;
  snprintf(w->detail[w->nskip], 200, "%s", s->detail);
  w->nskip++;
}

static ips_analysis_t *analyse(const char *text, seen_t *w, int strict) {
  ips_source_options_t so;
  ips_analysis_options_t ao;
  memset(w, 0, sizeof *w);
  ips_source_options_init(&so);
  so.strict = strict;
  ips_analysis_options_init(&ao);
  ao.on_skip = on_skip;
  ao.on_delivery = on_delivery;
  ao.arg = w;
  ao.clock = IPS_CLOCK_MONO;
  return tt_analyse_src(text, &so, &ao);
}

#define DELIVER(n)                                                           \
  "{\"type\":\"deliver\",\"crankNum\":" #n ",\"vatID\":\"v1\","              \
  "\"deliveryNum\":" #n ",\"vd\":[\"message\",\"o+0\",{\"methargs\":"         \
  "{\"body\":\"#[\\\"go\\\",[]]\",\"slots\":[]}}],"                            \
  "\"time\":1795300856.50" #n "000,\"monotime\":8123.40" #n "000000}\n"
#define RESULT(n, ipc)                                                       \
  "{\"type\":\"deliver-result\",\"crankNum\":" #n ",\"vatID\":\"v1\","       \
  "\"deliveryNum\":" #n ",\"dr\":[\"ok\",null,{\"timestamps\":"              \
  "[1795300856.50" #n "010,1795300856.50" #n "900],\"ipcstamp\":" ipc "}],"  \
  "\"seconds\":0.001,\"time\":1795300856.50" #n "950,"                       \
  "\"monotime\":8123.40" #n "950000}\n"
#define V1 "{\"v\":1,\"kinds\":\"de\",\"mono\":[8123401010000,8123401900000],\"dropped\":0}"

/* Delivery 1: marks as the JS worker writes them — "parse" measured after
 * the fact (recorded last, starting first), "work" enclosing "step", a
 * mark, an open span and a stray end (reported by the worker). */
static const char slog[] =
    "{\"type\":\"slog-start\",\"ipcstamp\":{\"v\":1},\"time\":1795300856.5,"
    "\"monotime\":8123.4}\n"
    DELIVER(1)
    RESULT(1, "{\"v\":2,\"kinds\":\"de\",\"mono\":[8123401010000,"
              "8123401900000],\"dropped\":0,\"marks\":{\"names\":[\"work\","
              "\"step\",\"tick\",\"parse\",\"open\\u0007\"],\"events\":["
              "[\"b\",0,1795300856.501100,8123401100000],"
              "[\"b\",1,1795300856.501200,8123401200000],"
              "[\"m\",2,1795300856.501250,8123401250000],"
              "[\"e\",1,1795300856.501300,8123401300000],"
              "[\"b\",4,1795300856.501310,8123401310000],"
              "[\"e\",0,1795300856.501800,8123401800000],"
              "[\"b\",3,1795300856.501020,8123401020000],"
              "[\"e\",3,1795300856.501090,8123401090000]],"
              "\"dropped\":2,\"unbalanced\":2}}")
    /* Delivery 2: v1 in the same slog. */
    "{\"type\":\"deliver\",\"crankNum\":2,\"vatID\":\"v1\",\"deliveryNum\":2,"
    "\"vd\":[\"message\",\"o+0\",{\"methargs\":{\"body\":\"#[\\\"go\\\",[]]\","
    "\"slots\":[]}}],\"time\":1795300856.502000,\"monotime\":8123.402000000}\n"
    "{\"type\":\"deliver-result\",\"crankNum\":2,\"vatID\":\"v1\","
    "\"deliveryNum\":2,\"dr\":[\"ok\",null,{\"timestamps\":[1795300856.502010,"
    "1795300856.502900],\"ipcstamp\":{\"v\":1,\"kinds\":\"de\",\"mono\":["
    "8123402010000,8123402900000],\"dropped\":0}}],\"seconds\":0.001,"
    "\"time\":1795300856.502950,\"monotime\":8123.402950000}\n"
    /* Delivery 3: a mark after the worker's e. */
    DELIVER(3)
    RESULT(3, "{\"v\":2,\"kinds\":\"de\",\"mono\":[8123403010000,"
              "8123403900000],\"dropped\":0,\"marks\":{\"names\":[\"late\"],"
              "\"events\":[[\"m\",0,1795300856.503950,8123403950000]],"
              "\"dropped\":0,\"unbalanced\":0}}")
    /* Delivery 4: a name index past the names. */
    DELIVER(4)
    RESULT(4, "{\"v\":2,\"kinds\":\"de\",\"mono\":[8123404010000,"
              "8123404900000],\"dropped\":0,\"marks\":{\"names\":[\"x\"],"
              "\"events\":[[\"m\",1,1795300856.504100,8123404100000]],"
              "\"dropped\":0,\"unbalanced\":0}}")
    /* Delivery 5: a version from the future. */
    DELIVER(5)
    RESULT(5, "{\"v\":3,\"kinds\":\"de\",\"mono\":[8123405010000,"
              "8123405900000],\"dropped\":0}")
    /* Delivery 6: an event that is not [kind, name, wall, mono]. */
    DELIVER(6)
    RESULT(6, "{\"v\":2,\"kinds\":\"de\",\"mono\":[8123406010000,"
              "8123406900000],\"dropped\":0,\"marks\":{\"names\":[\"x\"],"
              "\"events\":[[\"m\",0,1795300856.506100]],"
              "\"dropped\":0,\"unbalanced\":0}}");

static void check_marks(int strict) {
  seen_t w;
  ips_analysis_t *a = analyse(slog, &w, strict);
  const ips_delivery_mark_t *m = w.m[0];
  const ips_mark_stats_t *s;

  ck_assert_int_eq(w.ndel, 2);
  /* In time order: parse (measured last) first, then work > step > tick.
   * The open span has no end and is left out. */
  ck_assert_uint_eq(w.nmarks[0], 4);
  ck_assert_str_eq(w.names[0][0], "parse");
  ck_assert_int_eq(m[0].kind, 's');
  ck_assert_int_eq(m[0].dur, 70000);
  ck_assert_int_eq(m[0].at, 8123401020000LL);
  ck_assert_int_eq(m[0].depth, 0);
  ck_assert_str_eq(w.names[0][1], "work");
  ck_assert_int_eq(m[1].dur, 700000);
  ck_assert_int_eq(m[1].depth, 0);
  ck_assert_str_eq(w.names[0][2], "step");
  ck_assert_int_eq(m[2].dur, 100000);
  ck_assert_int_eq(m[2].depth, 1);
  ck_assert_str_eq(w.names[0][3], "tick");
  ck_assert_int_eq(m[3].kind, 'm');
  ck_assert_int_eq(m[3].dur, 0);
  ck_assert_int_eq(m[3].depth, 2);
  ck_assert_uint_eq(m[3].wseg, 0);
  ck_assert_int_eq(w.dropped[0], 2);
  ck_assert_int_eq(w.unbalanced[0], 2);
  /* v1 next to v2: no marks, attributed as before. */
  ck_assert_uint_eq(w.nmarks[1], 0);

  /* The bad line is skipped, and its delivery is left unfinished. */
  ck_assert_int_eq(w.nskip, 5);
  ck_assert_int_eq(w.reason[0], IPS_SKIP_STAMPS);
  ck_assert_ptr_nonnull(strstr(w.detail[0], "outside the worker's d..e"));
  ck_assert_int_eq(w.reason[1], IPS_SKIP_STAMPS);
  ck_assert_ptr_nonnull(strstr(w.detail[1], "index past"));
  ck_assert_int_eq(w.reason[2], IPS_SKIP_VERSION);
  ck_assert_ptr_nonnull(strstr(w.detail[2], "ipcstamp.v 3"));
  ck_assert_ptr_nonnull(strstr(w.detail[2], "knows 1 to 2"));
  ck_assert_int_eq(w.reason[3], IPS_SKIP_MISSING);
  ck_assert_ptr_nonnull(strstr(w.detail[3], "[kind, name, wall, mono]"));
  ck_assert_int_eq(w.reason[4], IPS_SKIP_UNFINISHED);

  /* Per-name totals, in order of first appearance. */
  ck_assert_uint_eq(ips_analysis_nmarks(a), 4);
  s = ips_analysis_mark(a, 0);
  ck_assert_str_eq(s->name, "parse");
  ck_assert_uint_eq(s->n_spans, 1);
  ck_assert_int_eq(s->span_ns, 70000);
  s = ips_analysis_mark(a, 3);
  ck_assert_str_eq(s->name, "tick");
  ck_assert_uint_eq(s->n_marks, 1);
  ck_assert_uint_eq(s->n_spans, 0);
  ck_assert_ptr_null(ips_analysis_mark(a, 4));
  ck_assert_uint_eq(ips_analysis_marks_over(a), 0);
  ips_analysis_free(a);
}

START_TEST(test_marks_default) { check_marks(0); }
END_TEST

START_TEST(test_marks_strict) { check_marks(1); }
END_TEST

/* The slowest keep their marks: of the two attributed (0.95 ms each),
 * delivery 1 (first in file order) with its marks, relative to its d;
 * delivery 2 none; past the list, none. */
START_TEST(test_slowest_keep_marks) {
  seen_t w;
  ips_analysis_t *a = analyse(slog, &w, 0);
  size_t n, more, nslow;
  const ips_slow_t *slow = ips_analysis_slowest(a, &nslow);
  const ips_delivery_mark_t *m;
  ck_assert_uint_eq(nslow, 2);
  ck_assert_int_eq(slow[0].line, 2);
  m = ips_analysis_slow_marks(a, 0, &n, &more);
  ck_assert_ptr_nonnull(m);
  ck_assert_uint_eq(n, w.nmarks[0]);
  ck_assert_uint_eq(more, 0);
  ck_assert_str_eq(m[0].name, w.names[0][0]);
  ck_assert_int_eq(m[0].at, w.m[0][0].at - 8123401010000LL);
  ck_assert_int_eq(slow[1].line, 4);
  ck_assert_ptr_null(ips_analysis_slow_marks(a, 1, &n, &more));
  ck_assert_uint_eq(n, 0);
  ck_assert_ptr_null(ips_analysis_slow_marks(a, nslow, &n, &more));
  ips_analysis_free(a);
}
END_TEST

/* A control byte in a name is shown as '?'. */
START_TEST(test_mark_names_sanitised) {
  static const char text[] =
      DELIVER(1)
      RESULT(1, "{\"v\":2,\"kinds\":\"de\",\"mono\":[8123401010000,"
                "8123401900000],\"dropped\":0,\"marks\":{\"names\":["
                "\"a\\u0007b\"],\"events\":["
                "[\"m\",0,1795300856.501100,8123401100000]],"
                "\"dropped\":0,\"unbalanced\":0}}");
  seen_t w;
  ips_analysis_t *a = analyse(text, &w, 0);
  ck_assert_int_eq(w.ndel, 1);
  ck_assert_str_eq(w.names[0][0], "a?b");
  ips_analysis_free(a);
}
END_TEST

/* The fast path reads a v2 line as the yajl path does, marks included; a
 * name with an escape (or above ASCII) is decoded by the one metering
 * decoder's general reader, in either path. */
START_TEST(test_fast_path_marks) {
  static const char line[] =
      RESULT(1, "{\"v\":2,\"kinds\":\"de\",\"mono\":[8123401010000,"
                "8123401900000],\"dropped\":0,\"marks\":{\"names\":[\"work\","
                "\"\xc3\xa9t\xc3\xa9\"],\"events\":["
                "[\"b\",0,1795300856.501100,8123401100000],"
                "[\"m\",1,1795300856.501250,8123401250000],"
                "[\"e\",0,1795300856.501800,8123401800000]],"
                "\"dropped\":3,\"unbalanced\":1}}");
  static const char escaped[] =
      RESULT(1, "{\"v\":2,\"kinds\":\"de\",\"mono\":[8123401010000,"
                "8123401900000],\"dropped\":0,\"marks\":{\"names\":[\"a\\nb\"],"
                "\"events\":[],\"dropped\":0,\"unbalanced\":0}}");
  size_t n = strlen(line) - 1; /* without the newline */
  ips__parser_t *y = ips__parser_new(IPS__PARSE_STRICT);
  const ips__rec_t *b;
  ips__rec_t r;
  char err[200];
  memset(&r, 0, sizeof r);
  r.walls = malloc(IPS__MAX_STAMPS * sizeof *r.walls);
  r.wmono = malloc(IPS__MAX_STAMPS * sizeof *r.wmono);
  r.kinds = malloc(IPS__MAX_STAMPS + 1);
  r.marks = malloc(IPS_MAX_MARKS * sizeof *r.marks);
  r.mname_off = malloc(IPS_MAX_MARKS * sizeof *r.mname_off);
  r.mnames = malloc(IPS__MNAMES_BYTES);
  ck_assert_int_eq(ips__slog_fast(&r, line, n), 1);
  ck_assert_int_eq(ips__slog_parse(y, line, n, &b, err, sizeof err), 0);
  ck_assert_uint_eq(r.have, b->have);
  ck_assert(r.have & IPS__F_MARKS);
  ck_assert_uint_eq(r.n_marks, 3);
  ck_assert_uint_eq(r.n_marks, b->n_marks);
  ck_assert_uint_eq(r.n_mnames, b->n_mnames);
  ck_assert_uint_eq(r.mnames_len, b->mnames_len);
  ck_assert_int_eq(memcmp(r.mnames, b->mnames, r.mnames_len), 0);
  ck_assert_int_eq(memcmp(r.mname_off, b->mname_off,
                          r.n_mnames * sizeof *r.mname_off), 0);
  for (n = 0; n < r.n_marks; n++) {
    ck_assert_int_eq(r.marks[n].kind, b->marks[n].kind);
    ck_assert_uint_eq(r.marks[n].name, b->marks[n].name);
    ck_assert_int_eq(r.marks[n].wall, b->marks[n].wall);
    ck_assert_int_eq(r.marks[n].mono, b->marks[n].mono);
  }
  ck_assert_int_eq(r.mdropped, 3);
  ck_assert_int_eq(b->mdropped, 3);
  ck_assert_int_eq(r.munbalanced, b->munbalanced);
  memset(r.mname_off, 0, sizeof *r.mname_off);
  r.n_marks = r.n_mnames = r.mnames_len = 0;
  ck_assert_int_eq(ips__slog_fast(&r, escaped, strlen(escaped) - 1), 1);
  ck_assert_uint_eq(r.n_mnames, 1);
  ck_assert_str_eq(r.mnames, "a\nb");
  free(r.walls);
  free(r.wmono);
  free(r.kinds);
  free(r.marks);
  free(r.mname_off);
  free(r.mnames);
  ips__parser_free(y);
}
END_TEST

/* The pairing: each end closes the innermost open begin of its own name,
 * whatever other names are open between (their depth counts them). */
START_TEST(test_pair_names_interleaved) {
  /* b A 10, b B 20, b A 30, e A 40, e B 50, e A 60, e C 70, m B 80 */
  ips__mev_t ev[8] = {{10, 0, 0, 'b'}, {20, 1, 1, 'b'}, {30, 2, 0, 'b'},
                      {40, 3, 0, 'e'}, {50, 4, 1, 'e'}, {60, 5, 0, 'e'},
                      {70, 6, 2, 'e'}, {80, 7, 1, 'm'}};
  ips__mopen_t op[8];
  ips_delivery_mark_t out[8];
  static const char names[] = "A\0B\0C";
  static const uint32_t off[] = {0, 2, 4};
  int64_t W[2] = {0, 100};
  size_t unb = 99, n = ips__marks_pair(ev, 8, op, names, off, W, 0, out, &unb);
  ck_assert_uint_eq(n, 4);
  ck_assert_uint_eq(unb, 1); /* the end of C */
  ck_assert_str_eq(out[0].name, "A");
  ck_assert_int_eq(out[0].at, 10);
  ck_assert_int_eq(out[0].dur, 50);
  ck_assert_int_eq(out[0].depth, 0);
  ck_assert_str_eq(out[1].name, "B");
  ck_assert_int_eq(out[1].dur, 30);
  ck_assert_int_eq(out[1].depth, 1);
  ck_assert_str_eq(out[2].name, "A");
  ck_assert_int_eq(out[2].at, 30);
  ck_assert_int_eq(out[2].dur, 10);
  ck_assert_int_eq(out[2].depth, 2);
  ck_assert_int_eq(out[3].kind, 'm');
  ck_assert_int_eq(out[3].depth, 0);
}
END_TEST

/* A pathological order: 300,000 begins of one name, then as many ends of
 * another.  Each end searched all the open begins (9 x 10^10 steps, far
 * past the test's timeout even at 5 times its length); now each is a
 * step. */
START_TEST(test_pair_not_quadratic) {
  enum { M = 300000 };
  ips__mev_t *ev = malloc(2 * M * sizeof *ev);
  ips__mopen_t *op = malloc(2 * M * sizeof *op);
  ips_delivery_mark_t *out = malloc(2 * M * sizeof *out);
  static const char names[] = "a\0b";
  static const uint32_t off[] = {0, 2};
  int64_t W[2] = {0, 4 * M};
  size_t i, unb = 0;
  ck_assert(ev && op && out);
  for (i = 0; i < 2 * M; i++) {
    ev[i].t = (int64_t)i;
    ev[i].seq = (uint32_t)i;
    ev[i].name = i < M ? 0 : 1;
    ev[i].kind = i < M ? 'b' : 'e';
  }
  ck_assert_uint_eq(ips__marks_pair(ev, 2 * M, op, names, off, W, 0, out, &unb),
                    0);
  ck_assert_uint_eq(unb, 2 * M);
  free(ev);
  free(op);
  free(out);
}
END_TEST

Suite *marks_slog_suite(void) {
  Suite *s = suite_create("marks in the analysis");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_marks_default);
  tcase_add_test(tc, test_marks_strict);
  tcase_add_test(tc, test_mark_names_sanitised);
  tcase_add_test(tc, test_slowest_keep_marks);
  tcase_add_test(tc, test_fast_path_marks);
  tcase_add_test(tc, test_pair_names_interleaved);
  tcase_add_test(tc, test_pair_not_quadratic);
  suite_add_tcase(s, tc);
  return s;
}
