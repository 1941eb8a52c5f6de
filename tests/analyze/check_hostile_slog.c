/* check_hostile_slog.c — slogfiles written to hurt the analysis: records
 * whose type is not a string, lines over --max-line that fit in the read
 * buffer, and stamps whose differences or sums would overflow 64 bits.
 * Each is reported (skipped with its line and reason), never computed with
 * wrapped values (UBSan, in the sanitizer build, would abort the test). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_suites.h"
#include "ipcstamp-analyze.h"

#define MAXSEEN 32

typedef struct {
  int nskip, ndel;
  int reason[MAXSEEN];
  long line[MAXSEEN];
  char detail[MAXSEEN][160];
  int64_t total[MAXSEEN], pipe[MAXSEEN];
} seen_t;

static void on_skip(void *arg, const ips_skip_t *s) {
  seen_t *w = arg;
  if (w->nskip < MAXSEEN) {
    w->reason[w->nskip] = s->reason;
    w->line[w->nskip] = s->line;
    snprintf(w->detail[w->nskip], sizeof w->detail[0], "%s", s->detail);
  }
  w->nskip++;
}

static void on_delivery(void *arg, const ips_delivery_t *d) {
  seen_t *w = arg;
  if (w->ndel < MAXSEEN) {
    w->total[w->ndel] = d->total;
    w->pipe[w->ndel] = d->pipe;
    ck_assert_int_eq(d->pipe + d->worker + d->kernel, d->total);
  }
  w->ndel++;
}

/* Analyses text with lines up to max_line, recording what it sees in w. */
static const ips_stats_t *analyse(const char *text, size_t max_line,
                                  seen_t *w, ips_analysis_t **pa) {
  ips_analysis_options_t ao;
  memset(w, 0, sizeof *w);
  ips_analysis_options_init(&ao);
  ao.on_skip = on_skip;
  ao.on_delivery = on_delivery;
  ao.arg = w;
  *pa = tt_analyse(text, max_line, &ao);
  return ips_analysis_stats(*pa);
}

START_TEST(test_type_not_a_string) {
  seen_t w;
  ips_analysis_t *a;
  int i;
  const ips_stats_t *st = analyse(
      "{\"type\":5,\"vatID\":\"v1\"}\n"
      "{\"vatID\":\"v1\",\"deliveryNum\":1}\n"
      "{\"type\":[\"deliver\"]}\n"
      "{\"type\":null}\n"
      "{\"type\":{\"a\":1}}\n"
      "{\"type\":true}\n"
      "{\"type\":\"crank-start\",\"crankNum\":1}\n",
      0, &w, &a);
  ck_assert_int_eq(w.nskip, 6);
  for (i = 0; i < 6; i++) {
    ck_assert_int_eq(w.reason[i], IPS_SKIP_MISSING);
    ck_assert_int_eq(w.line[i], i + 1);
    ck_assert_str_eq(w.detail[i], i == 1 ? "the record has no type"
                                         : "type is not a string");
  }
  ck_assert_int_eq(st->other, 1); /* crank-start: another type, quietly */
  ips_analysis_free(a);
}
END_TEST

/* A line of exactly n bytes (newline not counted): a record of another
 * type padded to length. */
static char *line_of(size_t n) {
  const char *head = "{\"type\":\"crank-start\",\"pad\":\"";
  size_t h = strlen(head);
  char *s = malloc(n + 2);
  ck_assert(n > h + 2);
  memcpy(s, head, h);
  memset(s + h, 'x', n - h - 2);
  memcpy(s + n - 2, "\"}\n", 4);
  return s;
}

START_TEST(test_max_line_below_the_buffer) {
  seen_t w;
  ips_analysis_t *a;
  char *l1 = line_of(1024), *l2 = line_of(1025), *l3 = line_of(5000);
  size_t n = strlen(l1) + strlen(l2) + strlen(l3) + 1;
  char *text = malloc(n);
  const ips_stats_t *st;
  snprintf(text, n, "%s%s%s", l1, l2, l3);
  st = analyse(text, 1024, &w, &a);
  ck_assert_int_eq(w.nskip, 2);
  ck_assert_int_eq(w.reason[0], IPS_SKIP_TOO_LONG);
  ck_assert_int_eq(w.line[0], 2);
  ck_assert_str_eq(w.detail[0], "1025 bytes");
  ck_assert_int_eq(w.reason[1], IPS_SKIP_TOO_LONG);
  ck_assert_int_eq(w.line[1], 3);
  ck_assert_int_eq(st->other, 1);
  ck_assert_int_eq(st->skipped_lines, 2);
  ips_analysis_free(a);
  free(l1);
  free(l2);
  free(l3);
  free(text);
}
END_TEST

/* One delivery with no upcall: parent monotimes D and E (seconds, as
 * text), worker mono stamps d and e (ns, as text). */
static void delivery(char *buf, size_t n, int dnum, const char *D,
                     const char *E, const char *d, const char *e) {
  snprintf(buf, n,
           "{\"type\":\"deliver\",\"crankNum\":%d,\"vatID\":\"v1\","
           "\"deliveryNum\":%d,\"vd\":[\"x\"],\"monotime\":%s}\n"
           "{\"type\":\"deliver-result\",\"crankNum\":%d,\"vatID\":\"v1\","
           "\"deliveryNum\":%d,\"dr\":[\"ok\",null,{\"ipcstamp\":{\"v\":1,"
           "\"kinds\":\"de\",\"mono\":[%s,%s]}}],\"monotime\":%s}\n",
           dnum, dnum, D, dnum, dnum, d, e, E);
}

START_TEST(test_stamps_out_of_range) {
  seen_t w;
  ips_analysis_t *a;
  char text[4096];
  size_t o = 0;
  /* Near INT64_MAX ns: accepted by the reader, refused by the analysis. */
  delivery(text + o, sizeof text - o, 1, "9223372035.5", "9223372035.9",
           "1", "2");
  o = strlen(text);
  /* Negative: no clock gives these. */
  delivery(text + o, sizeof text - o, 2, "-5.0", "1.0", "1", "2");
  o = strlen(text);
  /* A worker stamp out of range while the parent's are fine: xsnap's
   * wall timestamps take any decimal. */
  snprintf(text + o, sizeof text - o,
           "{\"type\":\"deliver\",\"crankNum\":3,\"vatID\":\"v1\","
           "\"deliveryNum\":3,\"vd\":[\"x\"],\"time\":1.0}\n"
           "{\"type\":\"deliver-result\",\"crankNum\":3,\"vatID\":\"v1\","
           "\"deliveryNum\":3,\"dr\":[\"ok\",null,{\"timestamps\":"
           "[-9000000000.5,1.5]}],\"time\":2.0}\n");
  o = strlen(text);
  /* A sane one after them is still attributed, exactly. */
  delivery(text + o, sizeof text - o, 4, "10.0", "10.5", "10100000000",
           "10400000000");
  analyse(text, 0, &w, &a);
  ck_assert_int_eq(w.nskip, 3);
  ck_assert_int_eq(w.reason[0], IPS_SKIP_RANGE);
  ck_assert_int_eq(w.line[0], 1);
  ck_assert_int_eq(w.reason[1], IPS_SKIP_RANGE);
  ck_assert_int_eq(w.line[1], 3);
  ck_assert_int_eq(w.reason[2], IPS_SKIP_RANGE);
  ck_assert_int_eq(w.line[2], 5);
  ck_assert_str_eq(w.detail[2], "a worker stamp in the metering is not in [0, 2^62) ns");
  ck_assert_int_eq(w.ndel, 1);
  ck_assert_int_eq(w.total[0], 500000000);
  ck_assert_int_eq(w.pipe[0], 200000000);
  ips_analysis_free(a);
}
END_TEST

START_TEST(test_totals_saturate) {
  seen_t w;
  ips_analysis_t *a;
  char text[4096];
  const ips_stats_t *st;
  size_t o = 0;
  int i;
  /* Each delivery lasts almost 2^62 ns (146 years): the third passes the
   * file's total past 2^63.  Every delivery counts; the sums that pass
   * are held at the bound and counted (one policy, ips_sum_add). */
  for (i = 1; i <= 3; i++) {
    delivery(text + o, sizeof text - o, i, "0.0", "4611686018.0", "1",
             "999999999999999999");
    o = strlen(text);
  }
  st = analyse(text, 0, &w, &a);
  ck_assert_int_eq(w.ndel, 3);
  ck_assert_int_eq(w.nskip, 0);
  ck_assert_int_eq(st->all.n, 3);
  ck_assert_int_eq(st->all.total, INT64_MAX);
  ck_assert_int_eq(ips_analysis_vat(a, 0)->t.total, INT64_MAX);
  /* total and pipe pass (kernel and worker stay far below), in the
   * input's sums and the vat's: at least two of each. */
  ck_assert_uint_ge(st->saturated, 2);
  ips_analysis_free(a);
}
END_TEST

START_TEST(test_totals_at_the_edge) {
  seen_t w;
  ips_analysis_t *a;
  char text[4096];
  const ips_stats_t *st;
  /* Two deliveries whose totals add to 2^63 - 2 ns exactly: in range,
   * nothing saturates. */
  delivery(text, sizeof text, 1, "0.0", "4611686018.427387903", "1", "2");
  delivery(text + strlen(text), sizeof text - strlen(text), 2, "0.0",
           "4611686018.427387903", "1", "2");
  st = analyse(text, 0, &w, &a);
  ck_assert_int_eq(w.ndel, 2);
  ck_assert_int_eq(st->all.total, INT64_MAX - 1);
  ck_assert_uint_eq(st->saturated, 0);
  ips_analysis_free(a);
}
END_TEST

Suite *hostile_slog_suite(void) {
  Suite *s = suite_create("hostile_slog");
  TCase *tc = tcase_create("Bad input");
  tcase_add_test(tc, test_type_not_a_string);
  tcase_add_test(tc, test_max_line_below_the_buffer);
  tcase_add_test(tc, test_stamps_out_of_range);
  tcase_add_test(tc, test_totals_saturate);
  tcase_add_test(tc, test_totals_at_the_edge);
  suite_add_tcase(s, tc);
  return s;
}
