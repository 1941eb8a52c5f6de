/* check_timequake.c — a worker whose wall clock is wrong: Debian's
 * libfaketime preloaded into ipcstamp-worker-c only, with the monotonic
 * clock left true (FAKETIME_DONT_FAKE_MONOTONIC=1).
 *
 *   - an hour behind (FAKETIME=-1h): the report must use mono and give the
 *     same durations as without faketime;
 *   - an hour behind and stepping 2 s at every read (FAKETIME="-1h i2,0"),
 *     so that the wall clock jumps inside every delivery: each one must be
 *     flagged as a timequake, its durations still right.
 *
 * "Right" is checked exactly, whatever the machine's load: every
 * delivery's total in `ipcstamp report --format json` is E - D on the
 * parent's mono clock (the slog's "seconds"), and its worker time is the
 * worker's own mono stamps' (its stretches from d or r to the next u or e,
 * from the metering), to the nanosecond: the wall clock, an hour off or
 * stepping, is in neither.  (A comparison with a run without faketime,
 * within a factor of 10, failed once at load 10: a delivery's time is the
 * machine's, not the test's.)  Exits 77 (skipped) when libfaketime
 * is not installed; IPCSTAMP_LIBFAKETIME names it elsewhere. */
#include "config.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "parent_suites.h"
#include "run_suites.h"

/* Under ASan the worker refuses a library preloaded before its runtime. */
#ifdef UNDER_ASAN
#define ASAN_ENV "ASAN_OPTIONS=verify_asan_link_order=0 "
#else
#define ASAN_ENV ""
#endif

#define DELIVERIES 4
#define SPIN_NS 20000000LL

static char libfaketime[1024], workerc[1100], out[700];

static int find_libfaketime(void) {
  const char *e = getenv("IPCSTAMP_LIBFAKETIME");
  glob_t g;
  if (e && *e) {
    snprintf(libfaketime, sizeof libfaketime, "%s", e);
    return access(libfaketime, R_OK) == 0;
  }
  if (glob("/usr/lib/*/faketime/libfaketime.so.1", 0, NULL, &g) != 0 &&
      glob("/usr/lib*/faketime/libfaketime.so.1", 0, NULL, &g) != 0)
    return 0;
  snprintf(libfaketime, sizeof libfaketime, "%s", g.gl_pathv[0]);
  globfree(&g);
  return 1;
}

static void tq_setup(void) {
  const char *b = getenv("IPCSTAMP_BUILDDIR");
  run_setup();
  ck_assert_ptr_nonnull(b);
  snprintf(workerc, sizeof workerc, "%s/worker/ipcstamp-worker-c", b);
  snprintf(out, sizeof out, "%s.report", slog);
  /* A warm-up delivery first: libfaketime sets itself up at the worker's
   * first clock read, tens of ms that would land in delivery 1's pipe. */
  write_file(wl, "{\"vat\":\"v1\",\"vd\":{}}\n"
                 "{\"vat\":\"v1\",\"vd\":{\"upcalls\":2,\"spin_us\":20000}}\n"
                 "{\"vat\":\"v1\",\"vd\":{\"spin_us\":20000}}\n"
                 "{\"vat\":\"v1\",\"vd\":{\"upcalls\":1,\"spin_us\":20000}}\n");
}

/* What the slog and the report say about one delivery (by crank). */
typedef struct {
  long long e_minus_d;   /* slog: deliver-result "seconds" */
  double worker_wall0;   /* slog: the worker's first wall stamp */
  double parent_wall;    /* slog: the deliver-result's "time" */
  long long worker_mono; /* slog: the worker's own mono stretches */
  long long total;       /* report: total_ns */
  long long worker;      /* report: worker_ns */
  long long quake;       /* report: timequake_ns, or -1 */
  int mono;              /* report: clock is "mono" */
} dl_t;

static yajl_val parse(const char *line) {
  char err[200];
  yajl_val v = yajl_tree_parse(line, err, sizeof err);
  ck_assert_msg(v && YAJL_IS_OBJECT(v), "not a JSON object: %s", line);
  return v;
}

static long long num(yajl_val o, const char *key) {
  const char *path[] = {key, NULL};
  yajl_val v = yajl_tree_get(o, path, yajl_t_number);
  ck_assert_msg(v && YAJL_IS_INTEGER(v), "no integer %s", key);
  return YAJL_GET_INTEGER(v);
}

/* The worker's time on its own mono clock, from the metering's
 * "ipcstamp" member: each stretch from a d or an r to the next u or e. */
static long long worker_mono(yajl_val metering) {
  const char *p_k[] = {"ipcstamp", "kinds", NULL};
  const char *p_m[] = {"ipcstamp", "mono", NULL};
  yajl_val k = yajl_tree_get(metering, p_k, yajl_t_string);
  yajl_val m = yajl_tree_get(metering, p_m, yajl_t_array);
  const char *kinds = k ? YAJL_GET_STRING(k) : NULL;
  long long sum = 0;
  size_t j;
  ck_assert_msg(kinds && m && strlen(kinds) == m->u.array.len,
                "no worker mono stamps in the metering");
  for (j = 1; j < m->u.array.len; j++)
    if ((kinds[j] == 'u' || kinds[j] == 'e') &&
        (kinds[j - 1] == 'd' || kinds[j - 1] == 'r'))
      sum += YAJL_GET_INTEGER(m->u.array.values[j]) -
             YAJL_GET_INTEGER(m->u.array.values[j - 1]);
  return sum;
}

/* Read the slog's deliver-results and the report's deliveries into d
 * (indexed by crank - 1); returns the report summary's timequake count. */
static long long collect(dl_t *d) {
  char *buf = slurp(slog), *line, *save;
  const char *p_crank[] = {"crankNum", NULL};
  int n = 0;
  long long quakes = -1;
  memset(d, 0, sizeof *d * DELIVERIES);
  for (line = strtok_r(buf, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    yajl_val v, c, dr, ts;
    long long k;
    if (!strstr(line, "\"type\":\"deliver-result\""))
      continue;
    v = parse(line);
    c = yajl_tree_get(v, p_crank, yajl_t_number);
    ck_assert_ptr_nonnull(c);
    k = YAJL_GET_INTEGER(c);
    ck_assert(k >= 1 && k <= DELIVERIES);
    d[k - 1].e_minus_d = ns_of(line, "seconds");
    d[k - 1].parent_wall = strtod(strstr(line, "\"time\":") + 7, NULL);
    /* dr = ["ok", result, metering]: the worker's wall stamps */
    dr = v->u.object.values[4];
    ck_assert_str_eq(v->u.object.keys[4], "dr");
    ck_assert(YAJL_IS_ARRAY(dr) && dr->u.array.len == 3);
    {
      const char *p_ts[] = {"timestamps", NULL};
      ts = yajl_tree_get(dr->u.array.values[2], p_ts, yajl_t_array);
    }
    ck_assert(ts && ts->u.array.len >= 2);
    d[k - 1].worker_wall0 = YAJL_GET_DOUBLE(ts->u.array.values[0]);
    d[k - 1].worker_mono = worker_mono(dr->u.array.values[2]);
    yajl_tree_free(v);
    n++;
  }
  free(buf);
  ck_assert_int_eq(n, DELIVERIES);

  buf = slurp(out);
  n = 0;
  for (line = strtok_r(buf, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    const char *p_clock[] = {"clock", NULL}, *p_q[] = {"timequake_ns", NULL};
    const char *p_sq[] = {"summary", "timequakes", NULL};
    yajl_val v = parse(line), c, q;
    const char *cs;
    long long k;
    if ((q = yajl_tree_get(v, p_sq, yajl_t_number)) != NULL) {
      quakes = YAJL_GET_INTEGER(q);
      yajl_tree_free(v);
      continue;
    }
    k = num(v, "crank");
    ck_assert(k >= 1 && k <= DELIVERIES);
    d[k - 1].total = num(v, "total_ns");
    d[k - 1].worker = num(v, "worker_ns");
    c = yajl_tree_get(v, p_clock, yajl_t_string);
    cs = c ? YAJL_GET_STRING(c) : NULL;
    d[k - 1].mono = cs && !strcmp(cs, "mono");
    q = yajl_tree_get(v, p_q, yajl_t_number);
    d[k - 1].quake = q ? YAJL_GET_INTEGER(q) : -1;
    yajl_tree_free(v);
    n++;
  }
  free(buf);
  ck_assert_int_eq(n, DELIVERIES);
  ck_assert_msg(quakes >= 0, "no summary in the report");
  return quakes;
}

/* Run the workload with worker (a --worker value), then the report;
 * returns the number of timequakes it counted. */
static long long run_and_report(const char *worker, dl_t *d) {
  const char *r[] = {"run", "--worker", worker, "--workload", wl, "--slog",
                     slog, "--force", NULL};
  const char *rep[] = {"report", slog, "--format", "json", NULL};
  ck_assert_int_eq(run(r), 0);
  ck_assert_int_eq(check_slog(slog, "deliver-result"), DELIVERIES);
  ck_assert_int_eq(finish(start_to(rep, out)), 0);
  return collect(d);
}

static void assert_durations(const dl_t *d) {
  int i;
  for (i = 0; i < DELIVERIES; i++) {
    ck_assert_msg(d[i].mono, "delivery %d not on the mono clock", i + 1);
    ck_assert_msg(d[i].total == d[i].e_minus_d,
                  "delivery %d: total %lld ns, E - D on mono %lld ns", i + 1,
                  d[i].total, d[i].e_minus_d);
    ck_assert_msg(d[i].worker == d[i].worker_mono,
                  "delivery %d: worker %lld ns, its own mono stamps %lld ns",
                  i + 1, d[i].worker, d[i].worker_mono);
    if (i > 0) /* the spinning deliveries */
      ck_assert(d[i].worker >= SPIN_NS);
  }
}

START_TEST(test_hour_behind) {
  char worker[3000];
  dl_t plain[DELIVERIES], fake[DELIVERIES];
  int i;
  ck_assert_int_eq(run_and_report(workerc, plain), 0);
  snprintf(worker, sizeof worker,
           "env LD_PRELOAD=%s FAKETIME=-1h FAKETIME_DONT_FAKE_MONOTONIC=1 "
           ASAN_ENV "%s",
           libfaketime, workerc);
  /* Every delivery is flagged: the worker's wall clock disagrees with the
   * parent's while their mono clocks agree. */
  ck_assert_int_eq(run_and_report(worker, fake), DELIVERIES);
  for (i = 0; i < DELIVERIES; i++) {
    /* an hour, give or take the delivery (10 minutes at most, so that
     * no load can fail it: the offset is what is tested) */
    ck_assert_msg(fake[i].quake > 3590000000000LL &&
                      fake[i].quake < 4200000000000LL,
                  "delivery %d: timequake_ns %lld", i + 1, fake[i].quake);
    ck_assert_msg(plain[i].quake < 0, "delivery %d flagged without faketime",
                  i + 1);
    /* faketime took: the worker's wall clock is an hour behind ours */
    double behind = fake[i].parent_wall - fake[i].worker_wall0;
    ck_assert_msg(behind > 3590 && behind < 4200,
                  "delivery %d: worker wall clock %.3f s behind", i + 1,
                  behind);
    ck_assert_msg(plain[i].parent_wall - plain[i].worker_wall0 < 600, "%d",
                  i);
  }
  assert_durations(plain);
  assert_durations(fake);
}
END_TEST

START_TEST(test_quake) {
  char script[700], text[3000];
  dl_t plain[DELIVERIES], fake[DELIVERIES];
  int i;
  /* --worker splits at spaces, and "-1h i2,0" has one: a wrapper. */
  snprintf(script, sizeof script, "%s/quake-worker.sh", dir);
  snprintf(text, sizeof text,
           "#!/bin/sh\nLD_PRELOAD='%s' FAKETIME='-1h i2,0' "
           "FAKETIME_DONT_FAKE_MONOTONIC=1 " ASAN_ENV "exec '%s' \"$@\"\n",
           libfaketime, workerc);
  write_file(script, text);
  ck_assert_int_eq(chmod(script, 0755), 0);
  ck_assert_int_eq(run_and_report(workerc, plain), 0);
  ck_assert_int_eq(run_and_report(script, fake), DELIVERIES);
  for (i = 0; i < DELIVERIES; i++) {
    ck_assert_msg(plain[i].quake < 0, "delivery %d flagged without faketime",
                  i + 1);
    /* two reads at least, 2 s apart on the worker's wall clock */
    ck_assert_msg(fake[i].quake >= 1900000000LL,
                  "delivery %d: timequake_ns %lld", i + 1, fake[i].quake);
  }
  assert_durations(fake);
}
END_TEST

static Suite *timequake_suite(void) {
  Suite *s = suite_create("timequake");
  TCase *tc = tcase_create("Core");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, tq_setup, NULL);
  tcase_add_test(tc, test_hour_behind);
  tcase_add_test(tc, test_quake);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  SRunner *sr;
  int failed;
  if (argc == 3 && !strcmp(argv[1], "--peer"))
    return parent_peer_main(argv[2]);
  if (!find_libfaketime()) {
    printf("SKIP: libfaketime not found (Debian: apt-get install faketime; "
           "or set IPCSTAMP_LIBFAKETIME)\n");
    return 77;
  }
  sr = srunner_create(timequake_suite());
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
