/* check_run.c — `ipcstamp run` end to end: the real command, real worker
 * processes (this binary re-run as the peer: `check_run --peer MODE`),
 * the slogfile it leaves, exit codes and signals. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "parent_suites.h"
#include "run_suites.h"

START_TEST(test_run_good) {
  const char *args[] = {"run", "--worker", worker_good, "--vats", "2",
                        "--workload", wl, "--slog", slog, NULL};
  char *s;
  write_file(wl, "{\"vat\":\"v1\",\"vd\":\"up:2\"}\n"
                 "{\"vat\":\"v2\",\"vd\":[\"message\",\"x\",{\"a\":1}]}\n"
                 "\n"
                 "{\"vat\":\"v2\",\"evaluate\":\"1+1\"}\n"
                 "{\"vat\":\"v1\",\"vd\":\"up:1\"}\n");
  ck_assert_int_eq(run(args), 0);
  ck_assert_int_eq(check_slog(slog, "deliver-result"), 4);
  ck_assert_int_eq(check_slog(slog, "syscall"), 3);
  ck_assert_int_eq(check_slog(slog, "syscall-result"), 3);
  ck_assert_int_eq(check_slog(slog, "terminate"), 2);
  s = slurp(slog);
  ck_assert(strstr(s, "\"vsc\":[\"vatstoreGet\",\"k0\"]") != NULL);
  ck_assert(strstr(s, "\"vsr\":[\"ok\",null]") != NULL);
  free(s);
}
END_TEST

/* The analysis reads what the writer writes now (format 2: SwingSet's
 * record types only): every delivery attributed, no line skipped. */
START_TEST(test_run_then_report) {
  const char *args[] = {"run", "--worker", worker_good, "--vats", "2",
                        "--workload", wl, "--slog", slog, NULL};
  const char *rep[] = {"report", "--format", "json", slog, NULL};
  char out[600], *s, *sum;
  snprintf(out, sizeof out, "%s.json", slog);
  write_file(wl, "{\"vat\":\"v1\",\"vd\":\"up:2\"}\n"
                 "{\"vat\":\"v2\",\"vd\":[\"message\",\"x\",{\"a\":1}]}\n"
                 "{\"vat\":\"v2\",\"evaluate\":\"1+1\"}\n"
                 "{\"vat\":\"v1\",\"vd\":[\"notify\",[[\"p-1\",{}]],\"up:1\"]}\n");
  ck_assert_int_eq(run(args), 0);
  ck_assert_int_eq(check_slog(slog, "crank-start"), 4);
  ck_assert_int_eq(check_slog(slog, "crank-finish"), 4);
  ck_assert_int_eq(finish(start_to(rep, out)), 0);
  s = slurp(out);
  sum = strstr(s, "{\"summary\":");
  ck_assert_msg(sum != NULL, "no summary: %s", s);
  ck_assert_msg(strstr(sum, "{\"summary\":{\"deliveries\":4,") != NULL, "%s",
                sum);
  ck_assert_msg(strstr(sum, "\"lines_skipped\":0,\"deliveries_skipped\":0,") !=
                    NULL,
                "%s", sum);
  free(s);
}
END_TEST

/* Each pass is queued when the previous one has run, sends included. */
START_TEST(test_repeat) {
  const char *args[] = {"run", "--worker", worker_good, "--workload", wl,
                        "--repeat", "3", "--slog", slog, NULL};
  const char *demo[] = {"run", "--worker", worker_good, "--demo", "--repeat",
                        "2", NULL};
  const char *zero[] = {"run", "--worker", worker_good, "--workload", wl,
                        "--repeat", "0", NULL};
  write_file(wl, "{\"vat\":\"v1\",\"vd\":\"up:1\"}\n"
                 "{\"vat\":\"v1\",\"evaluate\":\"x\"}\n");
  ck_assert_int_eq(run(args), 0);
  ck_assert_int_eq(check_slog(slog, "deliver-result"), 6);
  ck_assert_int_eq(check_slog(slog, "syscall"), 3);
  ck_assert_int_eq(run(demo), 2);
  assert_err("--repeat goes with --workload");
  {
    /* Once every worker has failed, the passes left are not queued one
     * by one (10^12 of them would never end). */
    char garbage[1300];
    const char *many[] = {"run", "--worker", garbage, "--workload", wl,
                          "--repeat", "1000000000000", "--slog", slog,
                          "--force", NULL};
    snprintf(garbage, sizeof garbage, "%s --peer garbage", parent_self_exe());
    ck_assert_int_eq(run(many), 1);
    assert_err("missing comma after the payload");
    ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 1);
  }
  ck_assert_int_eq(run(zero), 2);
  assert_err("--repeat wants a number");
}
END_TEST

/* Memory must not grow with the number of deliveries: 30,000
 * deliveries may fault in at most 128 pages (512 KiB) more than 2,000,
 * the run and its worker together.  Flat code faults in the same pages
 * (1,827-1,868 for either, on a loaded 2-core machine); queueing the
 * whole run up front, as before --repeat, cost about 85 bytes per
 * delivery: 2.4 MiB here.  Pages faulted in, not the peak RSS: the
 * kernel's RSS figure is approximate (finish_rss), and it failed this
 * test once under load with the same pages touched.  Under ASan (its
 * shadow and quarantine) only the runs are checked. */
static long faults_of_run(const char *worker, const char *repeat) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--repeat", repeat, "--slog", slog, "--force",
                        "--quiet", NULL};
  long pages = 0;
  ck_assert_int_eq(finish_faults(start(args), &pages), 0);
  return pages;
}

START_TEST(test_memory_flat) {
  const char *b = getenv("IPCSTAMP_BUILDDIR");
  char c[1100];
  long small, big;
  ck_assert_ptr_nonnull(b);
  snprintf(c, sizeof c, "%s/worker/ipcstamp-worker-c", b);
  write_file(wl, "{\"vat\":\"v1\",\"vd\":{\"upcalls\":1}}\n"
                 "{\"vat\":\"v1\",\"vd\":{}}\n");
#ifdef UNDER_ASAN
  /* Only the runs: short, since nothing is measured. */
  small = faults_of_run(c, "10");
  big = faults_of_run(c, "100");
  ck_assert_int_eq(check_slog(slog, "deliver-result"), 200);
  unlink(slog);
  (void)small;
  (void)big;
#else
  small = faults_of_run(c, "1000");
  big = faults_of_run(c, "15000");
  ck_assert_int_eq(check_slog(slog, "deliver-result"), 30000);
  unlink(slog);
  ck_assert_msg(big <= small + 128,
                "pages faulted in grew from %ld (2,000 deliveries) to %ld "
                "(30,000)", small, big);
#endif
}
END_TEST

START_TEST(test_help) {
  const char *args[] = {"run", "--help", NULL};
  const char *opts[] = {"--worker", "--vats", "--workload", "--demo",
                        "--rounds", "--repeat", "--slog", "--force",
                        "--timeout",
                        "--max-frame", "--quiet"};
  pid_t pid;
  int fd[2], st;
  char buf[4096];
  ssize_t n, got = 0;
  size_t i;
  (void)args;
  ck_assert_int_eq(pipe(fd), 0);
  pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    execl(ipcstamp, ipcstamp, "run", "--help", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  while ((n = read(fd[0], buf + got, sizeof buf - 1 - (size_t)got)) > 0)
    got += n;
  buf[got] = 0;
  close(fd[0]);
  waitpid(pid, &st, 0);
  ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  for (i = 0; i < sizeof opts / sizeof opts[0]; i++)
    ck_assert_msg(strstr(buf, opts[i]) != NULL, "help lacks %s", opts[i]);
}
END_TEST

START_TEST(test_usage_errors) {
  const char *a1[] = {"run", "--bogus", NULL};
  const char *a2[] = {"run", "--worker", "x", "--vats", "0", "--demo", NULL};
  const char *a3[] = {"run", "--demo", NULL};
  const char *a4[] = {"run", "--worker", "x", NULL};
  const char *a5[] = {"run", "--worker", "x", "--timeout", "-5", "--demo",
                      NULL};
  const char *a6[] = {"run", "--worker", "/nonexistent/worker", "--demo",
                      NULL};
  const char *a7[] = {"run", "--worker", "x", "--max-frame", "1e9", "--demo",
                      NULL};
  ck_assert_int_eq(run(a1), 2);
  assert_err("unknown option '--bogus'");
  ck_assert_int_eq(run(a2), 2);
  assert_err("--vats wants a number");
  ck_assert_int_eq(run(a3), 2);
  assert_err("--worker CMD is required");
  ck_assert_int_eq(run(a4), 2);
  assert_err("exactly one of --workload FILE and --demo");
  ck_assert_int_eq(run(a5), 2);
  assert_err("--timeout");
  ck_assert_int_eq(run(a6), 2);
  assert_err("cannot start the worker '/nonexistent/worker'");
  ck_assert_int_eq(run(a7), 2);
  assert_err("--max-frame wants bytes");
}
END_TEST

START_TEST(test_bad_workload) {
  const char *args[] = {"run", "--worker", worker_good, "--workload", wl,
                        "--slog", slog, NULL};
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n{\"vat\":\"v9\",\"vd\":1}\n");
  ck_assert_int_eq(run(args), 3);
  assert_err(":2: no vat named 'v9'");
  /* Nothing ran: no slogfile was even created. */
  ck_assert_int_ne(access(slog, F_OK), 0);
  write_file(wl, "{\"vat\":\"v1\",\"vd\":[1,}\n");
  ck_assert_int_eq(run(args), 3);
  assert_err(":1: invalid JSON");
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1,\"evaluate\":\"x\"}\n");
  ck_assert_int_eq(run(args), 3);
  assert_err("exactly one of \"evaluate\" and \"vd\"");
  /* A run that would deliver nothing is not a success. */
  write_file(wl, "\n\n");
  ck_assert_int_eq(run(args), 3);
  assert_err("has no line to run");
  ck_assert_int_ne(access(slog, F_OK), 0);
}
END_TEST

START_TEST(test_slog_files) {
  const char *args[] = {"run", "--worker", worker_good, "--workload", wl,
                        "--slog", slog, NULL};
  const char *full[] = {"run", "--worker", worker_good, "--workload", wl,
                        "--slog", "/dev/full", NULL};
  const char *force[] = {"run", "--worker", worker_good, "--workload", wl,
                         "--slog", slog, "--force", NULL};
  char *e, *p;
  int n = 0;
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  write_file(slog, "precious\n");
  ck_assert_int_eq(run(args), 4);
  assert_err("File exists (use --force to replace it)");
  ck_assert_int_eq(run(force), 0);
  ck_assert_int_eq(check_slog(slog, "deliver"), 1);
  ck_assert_int_eq(run(full), 4);
  /* Reported once, clearly. */
  e = slurp(errfile);
  for (p = e; (p = strstr(p, "No space left on device")) != NULL; p++)
    n++;
  ck_assert_msg(n == 1, "reported %d times: %s", n, e);
  free(e);
}
END_TEST

START_TEST(test_fault_exit_code) {
  char worker[1300];
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  char *s;
  snprintf(worker, sizeof worker, "%s --peer garbage", parent_self_exe());
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n{\"vat\":\"v1\",\"vd\":2}\n");
  ck_assert_int_eq(run(args), 1);
  assert_err("missing comma after the payload");
  /* The counts of a failed run are part of its error, never a summary
   * that reads as a success. */
  assert_err("ipcstamp run: failed: 1 vat, ");
  ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 1);
  s = slurp(failed_slog());
  ck_assert(strstr(s, "\"fault\":\"IPS_ENS_NO_COMMA\"") != NULL);
  free(s);
}
END_TEST

START_TEST(test_hostile_result) {
  char worker[1300];
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  snprintf(worker, sizeof worker, "%s --peer hostile", parent_self_exe());
  write_file(wl, "{\"vat\":\"v1\",\"vd\":\"a\\nb\\\"c\\u0000\"}\n");
  ck_assert_int_eq(run(args), 0);
  ck_assert_int_eq(check_slog(slog, "deliver-result"), 1);
}
END_TEST

START_TEST(test_sigterm) {
  char worker[1300];
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  pid_t pid;
  int i, rc;
  char *s, mark[700];
  snprintf(mark, sizeof mark, "%s.mark", slog);
  setenv("PARENT_PEER_MARK", mark, 1);
  snprintf(worker, sizeof worker, "%s --peer hang", parent_self_exe());
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n{\"vat\":\"v1\",\"vd\":2}\n");
  pid = start(args);
  /* Wait (bounded) until the first delivery is on its way. */
  for (i = 0; i < 3000 && access(mark, F_OK) != 0; i++)
    usleep(10000);
  kill(pid, SIGTERM);
  rc = finish(pid);
  ck_assert_int_eq(rc, 1);
  assert_err("stopping");
  /* Valid up to the end; the cancelled delivery is recorded as such. */
  ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 1);
  s = slurp(failed_slog());
  ck_assert(strstr(s, "cancelled") != NULL);
  free(s);
}
END_TEST

/* The project's real workers, several at once. */
START_TEST(test_run_real_workers) {
  const char *b = getenv("IPCSTAMP_BUILDDIR");
  char js[1100], c[1100];
  const char *demo[] = {"run", "--worker", js, "--vats", "3", "--demo",
                        "--rounds", "3", "--slog", slog, NULL};
  const char *cw[] = {"run", "--worker", c, "--vats", "2", "--workload", wl,
                      "--slog", slog, "--force", NULL};
  char *s;
  ck_assert_ptr_nonnull(b);
  snprintf(js, sizeof js, "%s/worker/ipcstamp-worker-js", b);
  snprintf(c, sizeof c, "%s/worker/ipcstamp-worker-c", b);
  ck_assert_int_eq(run(demo), 0);
  ck_assert_int_gt(check_slog(slog, "deliver-result"), 9);
  ck_assert_int_gt(check_slog(slog, "syscall"), 9);
  s = slurp(slog);
  ck_assert_msg(strstr(s, "[\"error\"") == NULL, "an error in the demo");
  ck_assert(strstr(s, "\"vsc\":[\"send\",\"v2\"") != NULL);
  free(s);
  write_file(wl, "{\"vat\":\"v1\",\"vd\":{\"upcalls\":3,\"spin_us\":200,"
                 "\"reply_bytes\":64,\"upcall_bytes\":32}}\n"
                 "{\"vat\":\"v2\",\"vd\":{\"upcalls\":1}}\n"
                 "{\"vat\":\"v1\",\"vd\":{}}\n");
  ck_assert_int_eq(run(cw), 0);
  ck_assert_int_eq(check_slog(slog, "deliver-result"), 3);
  ck_assert_int_eq(check_slog(slog, "syscall-result"), 4);
}
END_TEST

/* A failed run keeps its record as FILE.failed, so the corrected retry
 * writes FILE without --force; a worker that cannot start leaves nothing. */
START_TEST(test_failed_run_retry) {
  char garbage[1300], failed[700];
  const char *bad[] = {"run", "--worker", garbage, "--workload", wl,
                       "--slog", slog, NULL};
  const char *good[] = {"run", "--worker", worker_good, "--workload", wl,
                        "--slog", slog, NULL};
  const char *none[] = {"run", "--worker", "/nonexistent/worker", "--workload",
                        wl, "--slog", slog, NULL};
  snprintf(garbage, sizeof garbage, "%s --peer garbage", parent_self_exe());
  snprintf(failed, sizeof failed, "%s.failed", slog);
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  ck_assert_int_eq(run(bad), 1);
  assert_err("the failed run's slogfile is");
  ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 1);
  ck_assert_int_eq(run(good), 0);
  ck_assert_int_eq(check_slog(slog, "deliver-result"), 1);
  ck_assert_int_eq(access(failed, F_OK), 0); /* the old record stays */
  unlink(slog);
  unlink(failed);
  ck_assert_int_eq(run(none), 2);
  ck_assert_int_ne(access(slog, F_OK), 0);
  ck_assert_int_ne(access(failed, F_OK), 0);
}
END_TEST

/* On a terminal, --repeat shows how far the run is and the time left. */
START_TEST(test_progress_on_a_terminal) {
  char cmd[4096];
  char *out;
  write_file(wl, "{\"vat\":\"v1\",\"vd\":{\"sleep_us\":400}}\n");
  /* script(1) gives the run a terminal; 4,000 deliveries that sleep
   * 0.4 ms last longer than the first report, a second in. */
  snprintf(cmd, sizeof cmd,
           "script -q -e -c \"'%s' run --worker "
           "'%s/worker/ipcstamp-worker-c' --workload '%s' --repeat 4000\" "
           "/dev/null > '%s' 2>&1",
           ipcstamp, getenv("IPCSTAMP_BUILDDIR"), wl, errfile);
  if (system("command -v script >/dev/null 2>&1") != 0)
    return; /* util-linux's script is in every Debian (bsdutils) */
  ck_assert_int_eq(system(cmd), 0);
  out = slurp(errfile);
  ck_assert_msg(strstr(out, "% ") || strstr(out, "%,"), "no percentage: %s", out);
  ck_assert_msg(strstr(out, "s left"), "no time left: %s", out);
  free(out);
}
END_TEST

static Suite *run_suite(void) {
  Suite *s = suite_create("run");
  TCase *tc = tcase_create("Core");
  tcase_add_checked_fixture(tc, run_setup, NULL);
  tcase_add_test(tc, test_run_good);
  tcase_add_test(tc, test_run_then_report);
  tcase_add_test(tc, test_help);
  tcase_add_test(tc, test_run_real_workers);
  tcase_add_test(tc, test_repeat);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  /* 32,000 deliveries: seconds, more on a loaded machine. */
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, run_setup, NULL);
  tcase_add_test(tc, test_memory_flat);
  tcase_add_test(tc, test_progress_on_a_terminal);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_checked_fixture(tc, run_setup, NULL);
  tcase_add_test(tc, test_usage_errors);
  tcase_add_test(tc, test_bad_workload);
  tcase_add_test(tc, test_slog_files);
  tcase_add_test(tc, test_fault_exit_code);
  tcase_add_test(tc, test_hostile_result);
  tcase_add_test(tc, test_sigterm);
  tcase_add_test(tc, test_failed_run_retry);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  SRunner *sr;
  int failed;
  if (argc == 3 && !strcmp(argv[1], "--peer"))
    return parent_peer_main(argv[2]);
  sr = srunner_create(run_suite());
  srunner_add_suite(sr, hostile_suite());
  srunner_add_suite(sr, hostile_faults_suite());
  srunner_add_suite(sr, run_delay_suite());
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
