/* check_swingset_shapes.c — the record shapes only a real SwingSet kernel
 * writes, each in a small hand-made slogfile with figures worked out by
 * hand: console lines inside a delivery (upcalls of the worker), a worker
 * whose stamps count only the syscalls, local vats (dr[2] null), error
 * results, a restart (monotime going back in the same file) and a replayed
 * delivery whose worker made an upcall the kernel did not record.  The
 * real kernel's file (tests/data/swingset.slog.gz) is checked elsewhere;
 * here every number is known. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_suites.h"

#define MAXD 8

typedef struct {
  int n;
  ips_delivery_t d[MAXD];
  char seg[MAXD][256]; /* "name ns|name ns|..." */
  int nskip;
} seen_t;

static void on_delivery(void *arg, const ips_delivery_t *d) {
  seen_t *w = arg;
  size_t j, o = 0;
  ck_assert_int_lt(w->n, MAXD);
  /* Exact: the shares add up to the total. */
  ck_assert_int_eq(d->pipe + d->worker + d->kernel + d->unmatched, d->total);
  w->d[w->n] = *d;
  w->d[w->n].P = w->d[w->n].W = NULL; /* valid only during the call */
  for (j = 0; j < ips_delivery_nsegments(d); j++) {
    const char *name;
    int64_t v = ips_delivery_segment(d, j, &name);
    o += (size_t)snprintf(w->seg[w->n] + o, sizeof w->seg[0] - o, "%s%s %lld",
                          j ? "|" : "", name, (long long)v);
    ck_assert_int_lt(o, sizeof w->seg[0]);
  }
  w->n++;
}

static void on_skip(void *arg, const ips_skip_t *s) {
  seen_t *w = arg;
  (void)s;
  w->nskip++;
}

/* The kernel's records, as SwingSet 0.33 writes them (monotime seconds). */
#define DELIVER(crank, vat, dn, t)                                            \
  "{\"type\":\"deliver\",\"crankNum\":" crank ",\"vatID\":\"" vat            \
  "\",\"deliveryNum\":" dn ",\"replay\":false,\"kd\":[\"message\",\"o+0\","  \
  "{\"methargs\":{\"body\":\"#[\\\"go\\\",[]]\",\"slots\":[]}}],"             \
  "\"vd\":[\"message\",\"o+0\",{\"methargs\":{\"body\":\"#[\\\"go\\\",[]]\"," \
  "\"slots\":[]}}],\"monotime\":" t "}\n"
#define SYSCALL(crank, vat, dn, sn, t)                                        \
  "{\"type\":\"syscall\",\"crankNum\":" crank ",\"vatID\":\"" vat            \
  "\",\"deliveryNum\":" dn ",\"syscallNum\":" sn ",\"replay\":false,"        \
  "\"ksc\":[\"vatstoreGet\",\"" vat "\",\"k\"],\"vsc\":[\"vatstoreGet\","    \
  "\"k\"],\"monotime\":" t "}\n"
#define SYSRES(crank, vat, dn, sn, t)                                         \
  "{\"type\":\"syscall-result\",\"crankNum\":" crank ",\"vatID\":\"" vat     \
  "\",\"deliveryNum\":" dn ",\"syscallNum\":" sn ",\"replay\":false,"        \
  "\"ksr\":[\"ok\",\"v\"],\"vsr\":[\"ok\",\"v\"],\"monotime\":" t "}\n"
#define CONSOLE(crank, vat, dn, t)                                            \
  "{\"type\":\"console\",\"source\":\"vat\",\"state\":\"delivery\","         \
  "\"crankNum\":" crank ",\"vatID\":\"" vat "\",\"deliveryNum\":" dn         \
  ",\"level\":\"log\",\"args\":[\"hello\"],\"monotime\":" t "}\n"
#define RESULT(crank, vat, dn, dr, t)                                         \
  "{\"type\":\"deliver-result\",\"crankNum\":" crank ",\"vatID\":\"" vat     \
  "\",\"deliveryNum\":" dn ",\"replay\":false,\"dr\":" dr                    \
  ",\"monotime\":" t "}\n"
#define STAMPS(kinds, mono)                                                   \
  "[\"ok\",null,{\"compute\":1,\"ipcstamp\":{\"v\":1,\"kinds\":\"" kinds     \
  "\",\"mono\":[" mono "]}}]"

/* Crank 1: a syscall and a console line; the worker counted both. */
#define CRANK1                                                                \
  DELIVER("1", "v1", "0", "1.0")                                              \
  SYSCALL("1", "v1", "0", "0", "1.1")                                         \
  SYSRES("1", "v1", "0", "0", "1.2")                                          \
  CONSOLE("1", "v1", "0", "1.3")                                              \
  RESULT("1", "v1", "0",                                                      \
         STAMPS("durure", "1000100000,1099900000,1200100000,1299000000,"     \
                          "1301000000,1499900000"),                           \
         "1.5")
/* Cranks 2 and 3: a local vat (no metering) and an error there. */
#define LOCAL                                                                 \
  DELIVER("2", "v9", "0", "1.6")                                              \
  RESULT("2", "v9", "0", "[\"ok\",null,null]", "1.7")                         \
  DELIVER("3", "v9", "1", "1.8")                                              \
  RESULT("3", "v9", "1", "[\"error\",\"boom\",null]", "1.9")
/* Crank 4: a worker that does not count its console lines as upcalls. */
#define CRANK4                                                                \
  DELIVER("4", "v1", "1", "2.0")                                              \
  SYSCALL("4", "v1", "1", "0", "2.1")                                         \
  SYSRES("4", "v1", "1", "0", "2.2")                                          \
  CONSOLE("4", "v1", "1", "2.25")                                             \
  RESULT("4", "v1", "1",                                                      \
         STAMPS("dure", "2000100000,2099900000,2200100000,2499900000"),      \
         "2.5")
/* The kernel restarts (monotime from 0 again, same file) and replays
 * v1's delivery 5: no crankNum, one syscall recorded, but the worker made
 * two upcalls (its console line is not written in replay). */
#define REPLAY                                                                \
  "{\"type\":\"deliver\",\"vatID\":\"v1\",\"deliveryNum\":5,\"replay\":true," \
  "\"vd\":[\"message\",\"o+0\",{}],\"monotime\":0.5}\n"                       \
  "{\"type\":\"syscall\",\"vatID\":\"v1\",\"deliveryNum\":5,"                 \
  "\"syscallNum\":0,\"replay\":true,\"vsc\":[\"vatstoreGet\",\"k\"],"         \
  "\"monotime\":0.6}\n"                                                       \
  "{\"type\":\"syscall-result\",\"vatID\":\"v1\",\"deliveryNum\":5,"          \
  "\"syscallNum\":0,\"replay\":true,\"vsr\":[\"ok\",\"v\"],"                  \
  "\"monotime\":0.7}\n"                                                       \
  "{\"type\":\"deliver-result\",\"vatID\":\"v1\",\"deliveryNum\":5,"          \
  "\"replay\":true,\"dr\":"                                                   \
  STAMPS("durure", "500100000,599000000,701000000,750000000,760000000,"       \
                   "899900000")                                               \
  ",\"monotime\":0.9}\n"

static ips_analysis_t *run(const char *text, seen_t *w) {
  ips_analysis_options_t ao;
  memset(w, 0, sizeof *w);
  ips_analysis_options_init(&ao);
  ao.on_delivery = on_delivery;
  ao.on_skip = on_skip;
  ao.arg = w;
  return tt_analyse(text, 0, &ao);
}

START_TEST(test_console_is_an_upcall) {
  seen_t w;
  ips_analysis_t *a = run(CRANK1, &w);
  const ips_delivery_t *d = &w.d[0];
  ck_assert_int_eq(w.n, 1);
  ck_assert_int_eq(d->n_up, 2);
  ck_assert_int_eq(d->total, 500000000);
  ck_assert_int_eq(d->kernel, 100000000); /* the syscall; the console: 0 */
  ck_assert_int_eq(d->pipe, 2400000);
  ck_assert_int_eq(d->worker, 397600000);
  ck_assert_int_eq(d->n_unmatched, 0);
  ck_assert_str_eq(w.seg[0],
                   "send 100000|worker 99800000|upcall 100000|kernel 100000000"
                   "|reply 100000|worker 98900000|upcall 1000000|kernel 0"
                   "|reply 1000000|worker 198900000|result 100000");
  ck_assert_int_eq(ips_analysis_stats(a)->other, 0);
  ips_analysis_free(a);
}
END_TEST

START_TEST(test_console_not_counted_by_the_worker) {
  seen_t w;
  ips_analysis_t *a = run(CRANK4, &w);
  ck_assert_int_eq(w.n, 1);
  ck_assert_int_eq(w.d[0].n_up, 1);
  ck_assert_int_eq(w.d[0].kernel, 100000000);
  ck_assert_int_eq(w.d[0].pipe, 400000);
  ck_assert_int_eq(w.d[0].worker, 399600000);
  ck_assert_int_eq(w.nskip, 0);
  ck_assert_int_eq(ips_analysis_stats(a)->other, 1); /* the console line */
  ips_analysis_free(a);
}
END_TEST

START_TEST(test_local_vats_and_errors_counted) {
  seen_t w;
  ips_analysis_t *a = run(LOCAL, &w);
  const ips_stats_t *st = ips_analysis_stats(a);
  ck_assert_int_eq(w.n, 0);
  ck_assert_int_eq(w.nskip, 0);
  ck_assert_int_eq(st->skipped_deliveries, 0);
  ck_assert_int_eq(st->all.n_local, 1);
  ck_assert_int_eq(st->all.n_error, 1);
  ips_analysis_free(a);
}
END_TEST

START_TEST(test_restart_then_replay_unmatched) {
  seen_t w;
  ips_analysis_t *a = run(CRANK1 LOCAL CRANK4 REPLAY, &w);
  const ips_stats_t *st = ips_analysis_stats(a);
  const ips_delivery_t *d;
  ck_assert_int_eq(w.n, 3);
  ck_assert_int_eq(w.nskip, 0);
  ck_assert_int_eq(st->restarts, 1);
  d = &w.d[2];
  ck_assert(d->replay);
  ck_assert_int_eq(d->crank, -1);
  ck_assert_int_eq(d->dnum, 5);
  ck_assert_int_eq(d->n_up, 2);
  ck_assert_int_eq(d->n_unmatched, 2);
  ck_assert_int_eq(d->total, 400000000);
  ck_assert_int_eq(d->pipe, 200000);
  ck_assert_int_eq(d->kernel, 100000000); /* the recorded syscall */
  ck_assert_int_eq(d->unmatched, 12000000); /* (102 + 10) ms - 100 ms */
  ck_assert_int_eq(d->worker, 287800000);
  ck_assert_str_eq(w.seg[2], "send 100000|worker 98900000|unmatched 102000000"
                             "|worker 49000000|unmatched 10000000"
                             "|worker 139900000|result 100000");
  ck_assert_int_eq(st->all.n, 3);
  ck_assert_int_eq(st->all.n_replay, 1);
  ck_assert_int_eq(st->all.n_unmatched, 1);
  ck_assert_int_eq(st->all.unmatched, 12000000);
  ck_assert_int_eq(st->all.n_local, 1);
  ck_assert_int_eq(st->all.n_error, 1);
  ips_analysis_free(a);
}
END_TEST

/* ipcstamp's slog format 2 says its version in kernel-init-start (format
 * 1 in slog-start); a real kernel's kernel-init-start says none. */
START_TEST(test_format_version) {
  seen_t w;
  ips_analysis_t *a = run(
      "{\"type\":\"kernel-init-start\",\"ipcstamp\":{\"v\":7,\"slog\":2},"
      "\"time\":1.0,\"monotime\":1.0}\n"
      "{\"type\":\"kernel-init-start\",\"ipcstamp\":{\"v\":1,\"slog\":2},"
      "\"time\":1.0,\"monotime\":1.0}\n"
      "{\"type\":\"kernel-init-start\",\"time\":1.0,\"monotime\":1.0}\n",
      &w);
  ck_assert_int_eq(w.nskip, 1);
  ck_assert_int_eq(ips_analysis_stats(a)->skipped[IPS_SKIP_VERSION], 1);
  ips_analysis_free(a);
}
END_TEST

/* The same file through the command: the figures reach every format. */
START_TEST(test_report_formats) {
  FILE *f = fopen(tt_tmp("shapes.slog"), "w");
  char *s;
  ck_assert_ptr_nonnull(f);
  fputs(CRANK1 LOCAL CRANK4 REPLAY, f);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" report \"$TMP/shapes.slog\" >\"$TMP/t\""), 0);
  s = tt_read(tt_tmp("t"), NULL);
  ck_assert_ptr_nonnull(strstr(s, "\nreplay v1 #5 "));
  ck_assert_ptr_nonnull(strstr(s, " + kernel 100000.000 + unmatched 12000.000\n"));
  ck_assert_ptr_nonnull(strstr(s, "\nreplayed: 1 deliveries"));
  ck_assert_ptr_nonnull(strstr(s, "\nunmatched: 12000.000 (0.9%) not split between pipe and worker, in 1 replayed"));
  ck_assert_ptr_nonnull(strstr(s, "\nerror results: 1\n"));
  ck_assert_ptr_nonnull(strstr(s, "\nwithout metering: 1 "));
  ck_assert_ptr_nonnull(strstr(s, "\nrestarts: 1 "));
  ck_assert_ptr_nonnull(strstr(s, "  replay v1 #5 "));
  free(s);
  ck_assert_int_eq(
      tt_sh("\"$IPS\" report --format json \"$TMP/shapes.slog\" >\"$TMP/j\""), 0);
  s = tt_read(tt_tmp("j"), NULL);
  ck_assert_ptr_nonnull(strstr(s, "{\"replay\":true,\"vat\":\"v1\",\"deliveryNum\":5,"));
  ck_assert_ptr_nonnull(strstr(s, "\"unmatched_ns\":12000000,\"unmatched_upcalls\":2"));
  ck_assert_ptr_nonnull(strstr(s, "\"restarts\":1,"));
  free(s);
  ck_assert_int_eq(
      tt_sh("\"$IPS\" report --format csv \"$TMP/shapes.slog\" >\"$TMP/c\""), 0);
  s = tt_read(tt_tmp("c"), NULL);
  /* no crank, replay 1 */
  ck_assert_ptr_nonnull(strstr(s, "\n,1,\"v1\",5,"));
  /* the pipe split's four columns, runnable_ns and blocked_ns empty (this
   * file carries no run-queue delays), then unmatched_ns and its upcalls */
  ck_assert_ptr_nonnull(strstr(s, ",,,,,,,12000000,2,"));
  free(s);
}
END_TEST

Suite *swingset_shapes_suite(void) {
  Suite *s = suite_create("SwingSet shapes");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_console_is_an_upcall);
  tcase_add_test(tc, test_console_not_counted_by_the_worker);
  tcase_add_test(tc, test_local_vats_and_errors_counted);
  tcase_add_test(tc, test_restart_then_replay_unmatched);
  tcase_add_test(tc, test_report_formats);
  tcase_add_test(tc, test_format_version);
  suite_add_tcase(s, tc);
  return s;
}
