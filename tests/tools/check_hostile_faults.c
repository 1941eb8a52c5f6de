/* check_hostile_faults.c — `ipcstamp run` against workers scripted with
 * tests/tools/hostile_worker (the parent's classes): faults outside a
 * command, a worker that closes fd 4 and stays alive, every byte of a '!'
 * message kept, hostile headers, a frame dripped byte by byte, a worker
 * that forks a child holding the pipe.  Each fault must be reported on
 * stderr and in the slog, fail the run (exit 1), and end it promptly. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parent_suites.h"
#include "run_suites.h"

static char worker[4096];

/* The hostile worker with the given steps (NULL-terminated), after
 * prelude. */
static void vscript(const char *prelude, const char *first, va_list ap) {
  const char *b = getenv("IPCSTAMP_BUILDDIR");
  const char *s;
  size_t n;
  n = (size_t)snprintf(worker, sizeof worker, "%s/tests/tools/hostile_worker%s",
                       b ? b : ".", prelude);
  for (s = first; s; s = va_arg(ap, const char *))
    n += (size_t)snprintf(worker + n, sizeof worker - n, " %s", s);
  ck_assert_uint_lt(n, sizeof worker);
}

/* A worker that first answers the readiness ping ipcstamp run sends every
 * worker ('R', as xsnap's parent does), then does the steps. */
static void script(const char *first, ...) {
  va_list ap;
  va_start(ap, first);
  vscript(" read ok", first, ap);
  va_end(ap);
}

/* The steps from the very start: the ping is the first frame it reads. */
static void script_raw(const char *first, ...) {
  va_list ap;
  va_start(ap, first);
  vscript("", first, ap);
  va_end(ap);
}

static int contains(const char *path, const char *what) {
  char *s = slurp(path);
  int yes = strstr(s, what) != NULL;
  free(s);
  return yes;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run with the given extra options; its exit code, and the seconds it took
 * in *secs. */
static int run_timed(const char **args, double *secs) {
  double t0 = now_s();
  int rc = run(args);
  *secs = now_s() - t0;
  return rc;
}

/* Faults outside a command in a slogfile: terminate records (the vat's
 * end, as SwingSet writes one) that carry a fault name. */
static int faults(const char *path) {
  char *s = slurp(path), *p = s;
  int n = 0;
  while ((p = strstr(p, "{\"type\":\"terminate\",")) != NULL) {
    char *nl = strchr(p, '\n');
    char *f = strstr(p, "\"fault\":");
    if (f && (!nl || f < nl))
      n++;
    p++;
  }
  free(s);
  return n;
}

/* v1 then v2, one delivery each: while v2 works (the script's sleep), v1
 * is between commands. */
static const char two_vats[] = "{\"vat\":\"v1\",\"vd\":1}\n"
                               "{\"vat\":\"v2\",\"vd\":2}\n";

START_TEST(test_exit_between_commands) {
  const char *args[] = {"run", "--worker", worker, "--vats", "2",
                        "--workload", wl, "--slog", slog, NULL};
  script("read", "sleep:300", "ok", "exit:3", NULL);
  write_file(wl, two_vats);
  ck_assert_int_eq(run(args), 1);
  assert_err("v1: worker fault outside a command: worker exited with code 3 "
             "between commands");
  ck_assert_int_eq(faults(failed_slog()), 1);
  ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 2);
  ck_assert(contains(failed_slog(), "\"fault\":\"IPS_EPIPE\",\"message\":\"worker "
                                   "exited with code 3 between commands\""));
}
END_TEST

START_TEST(test_killed_between_commands) {
  const char *args[] = {"run", "--worker", worker, "--vats", "2",
                        "--workload", wl, "--slog", slog, NULL};
  script("read", "sleep:300", "ok", "kill:9", NULL);
  write_file(wl, two_vats);
  ck_assert_int_eq(run(args), 1);
  assert_err("v1: worker fault outside a command: worker killed by signal 9");
  assert_err("between commands");
  ck_assert_int_eq(faults(failed_slog()), 1);
  ck_assert(contains(failed_slog(), "\"signal\":9"));
}
END_TEST

/* A frame while no command is in flight: a protocol violation, the worker
 * is killed for it, and that is reported too. */
START_TEST(test_frame_while_idle) {
  const char *args[] = {"run", "--worker", worker, "--vats", "2",
                        "--workload", wl, "--slog", slog, NULL};
  script("read", "sleep:300", "ok", "sleep:30", "frame:.\\x01null", "read",
         NULL);
  write_file(wl, two_vats);
  ck_assert_int_eq(run(args), 1);
  assert_err("v1: worker fault outside a command: protocol: frame with tag "
             "0x2e from the worker while no command was in flight");
  ck_assert_int_eq(faults(failed_slog()), 1);
  ck_assert(contains(failed_slog(), "\"fault\":\"IPS_EPROTO\""));
  /* Killed for it (SIGKILL). */
  ck_assert(contains(failed_slog(), "\"exitStatus\":0,\"signal\":9"));
}
END_TEST

/* fd 4 closed between frames, the process alive and idle: the end of
 * input is the fault, 200 ms after it (the grace for an exit to follow),
 * not when the process would end. */
START_TEST(test_close4_between_commands) {
  const char *args[] = {"run", "--worker", worker, "--vats", "2",
                        "--workload", wl, "--slog", slog, NULL};
  script("read", "sleep:600", "ok", "close:4", "read", NULL);
  write_file(wl, two_vats);
  ck_assert_int_eq(run(args), 1);
  assert_err("v1: worker fault outside a command: the worker closed fd 4 "
             "between commands; worker killed");
  ck_assert_int_eq(faults(failed_slog()), 1);
}
END_TEST

/* fd 4 closed with a command in flight, the process alive (pausing
 * forever): a prompt fault, the worker killed; inside a frame it is the
 * framing error. */
START_TEST(test_close4_in_flight) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, "--force", NULL};
  double secs;
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  script("read", "close:4", "pause", NULL);
  ck_assert_int_eq(run_timed(args, &secs), 1);
  ck_assert_double_lt(secs, 5);
  assert_err("v1: delivery 1 failed: the worker closed fd 4 during a "
             "command; worker killed");
  ck_assert(contains(failed_slog(), "\"fault\":\"IPS_EPIPE\""));
  ck_assert(contains(failed_slog(), "\"signal\":9"));

  script("read", "raw:10:.\\x01ab", "close:4", "pause", NULL);
  ck_assert_int_eq(run_timed(args, &secs), 1);
  ck_assert_double_lt(secs, 5);
  /* byte 16: the 9 bytes of the readiness ping's answer, then 7 */
  assert_err("netstring: end of input inside a frame at byte 16 (the worker "
             "closed fd 4 inside a frame during a command; worker killed)");
  ck_assert(contains(failed_slog(), "\"fault\":\"IPS_ENS_EOF\""));
  ck_assert(contains(failed_slog(), "\"signal\":9"));
  ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 1);
}
END_TEST

/* A worker slow to start (300 ms before it reads anything): the
 * readiness ping takes the start-up, so the first delivery's pipe time
 * does not (it was the whole 300 ms). */
START_TEST(test_startup_apart) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  char cmd[2048], *out, *p;
  long long total;
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  script_raw("sleep:300", "read", "ok", "read", "ok", "read", NULL);
  ck_assert_int_eq(run(args), 0);
  out = slurp(errfile);
  free(out);
  snprintf(cmd, sizeof cmd, "'%s' report --format json '%s' > '%s.json'",
           ipcstamp, slog, slog);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s.json", slog);
  out = slurp(cmd);
  p = strstr(out, "\"total_ns\":");
  ck_assert_ptr_nonnull(p);
  total = atoll(p + 11);
  ck_assert_msg(total < 150000000LL, "first delivery %lld ns: start-up in it",
                total);
  free(out);
}
END_TEST

/* An upcall while answering the readiness ping: nothing to charge it to;
 * the worker is killed, the run says so and fails, and nothing crashes. */
START_TEST(test_upcall_during_ping) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  script_raw("read", "frame:?[\"log\"]", "read", NULL);
  ck_assert_int_eq(run(args), 1);
  assert_err("v1: start-up failed");
  ck_assert_int_eq(faults(failed_slog()), 1);
}
END_TEST

/* fd 4 closed before anything was read: the delivery fails at once. */
START_TEST(test_fd4_never_used) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  double secs;
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  script_raw("close:4", "pause", NULL);
  ck_assert_int_eq(run_timed(args, &secs), 1);
  ck_assert_double_lt(secs, 5);
  assert_err("the worker closed fd 4");
  ck_assert_int_eq(check_slog(failed_slog(), "deliver-result") +
                       faults(failed_slog()),
                   1);
}
END_TEST

/* A worker that exits during a command but leaves a child holding fd 4
 * (and stdout, stderr): the exit is the fault, and the run does not wait
 * for the child's 10 s. */
START_TEST(test_fork_holds_pipe) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  double secs;
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  script("read", "fork:10000", "exit:3", NULL);
  ck_assert_int_eq(run_timed(args, &secs), 1);
  ck_assert_double_lt(secs, 5);
  assert_err("worker exited with code 3 during a command");
}
END_TEST

/* A '!' message with a NUL inside: every byte in the slog (valid UTF-8 as
 * a JSON string with \u0000, invalid UTF-8 as base64). */
START_TEST(test_error_nul_kept) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, "--force", NULL};
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  script("read", "frame:!before\\0after", "read", NULL);
  ck_assert_int_eq(run(args), 0);
  ck_assert(contains(slog, "\"dr\":[\"error\",\"before\\u0000after\",null]"));
  /* "a\0b\xff" in base64 */
  script("read", "frame:!a\\0b\\xff", "read", NULL);
  ck_assert_int_eq(run(args), 0);
  ck_assert(contains(slog, "\"dr\":[\"error\",{\"base64\":\"YQBi/w==\"}"));
}
END_TEST

/* Hostile headers: each refused at the byte that breaks the rule, before
 * anything is allocated, with the framing fault. */
START_TEST(test_hostile_headers) {
  static const struct {
    const char *raw, *err, *name;
  } cases[] = {
      /* with the default 64 MiB limit the 9th digit is already over it */
      {"raw:12345678901234567890:", "declared length over the maximum",
       "IPS_ENS_TOO_LONG"},
      {"raw:999999999:", "declared length over the maximum frame size",
       "IPS_ENS_TOO_LONG"},
      /* under --max-frame 999999999, the 10th digit is refused (the 20
       * digits would wrap a 64-bit size_t several times over) */
      {"raw:12345678901234567890:", "more than 9 digits in the length",
       "IPS_ENS_TOO_MANY_DIGITS"},
      {"raw:184467440737095516160000:", "more than 9 digits in the length",
       "IPS_ENS_TOO_MANY_DIGITS"},
      {"raw:-1:", "non-digit in the length", "IPS_ENS_DIGIT"},
      {"raw:007:", "leading zero in the length", "IPS_ENS_LEADING_ZERO"},
      {"raw::,", "the length has no digits", "IPS_ENS_EMPTY_LEN"},
      {"raw:0:,", "protocol: empty frame from the worker", "IPS_EEMPTY_FRAME"},
      {"raw:3:.\\x01\\x01;", "missing comma after the payload",
       "IPS_ENS_NO_COMMA"},
      {"raw:2:\\xff\\xfe,", "unknown tag 0xff", "IPS_EBAD_TAG"},
  };
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, "--force", NULL, NULL, NULL};
  size_t i;
  char want[100];
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (i >= 2) {
      args[8] = "--max-frame";
      args[9] = "999999999";
    }
    script("read", cases[i].raw, "pause", NULL);
    ck_assert_int_eq(run(args), 1);
    assert_err(cases[i].err);
    snprintf(want, sizeof want, "\"fault\":\"%s\"", cases[i].name);
    ck_assert_msg(contains(failed_slog(), want), "%s: no %s", cases[i].raw, want);
    ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 1);
  }
}
END_TEST

/* A frame (and an upcall before it) split one byte per write, 3 ms apart:
 * reassembled exactly. */
START_TEST(test_drip) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  script("read", "drip:3:12:?[\"log\",\"u\"],", "read",
         "drip:3:13:.\\x01\"dripped\\s!\",", "read", NULL);
  ck_assert_int_eq(run(args), 0);
  ck_assert_int_eq(check_slog(slog, "syscall"), 1);
  ck_assert(contains(slog, "\"dr\":[\"ok\",\"dripped !\",null]"));
}
END_TEST

/* An answer written before the command was read: the parent cannot tell
 * it from a fast answer (the delivery is written at once), so it is the
 * answer; a second answer would be a fault (test_frame_while_idle). */
START_TEST(test_answer_before_asked) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  script("frame:.\\x01\"early\"", "read", "read", NULL);
  ck_assert_int_eq(run(args), 0);
  ck_assert(contains(slog, "\"dr\":[\"ok\",\"early\",null]"));
}
END_TEST

/* Peak memory per frame: a 48 MB result through the parent and
 * into the slog costs at most 1.5 times the frame above a small run's
 * peak (it was 2.95 times: the decoder, yajl's buffer and the slog's).
 * Only without sanitizers, whose shadow memory would be counted. */
START_TEST(test_memory_per_frame) {
#ifdef UNDER_ASAN
  return;
#else
  const char *args[] = {"run", "--quiet", "--worker", worker, "--workload",
                        wl, "--slog", slog, "--force", NULL};
  const double frame = 48e6;
  long small_kb, big_kb;
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  script("read", "ok", "read", NULL);
  ck_assert_int_eq(finish_rss(start(args), &small_kb), 0);
  script("read", "big:48000000:.\\x01\":\"", "read", NULL);
  ck_assert_int_eq(finish_rss(start(args), &big_kb), 0);
  ck_assert(contains(slog, "\"dr\":[\"ok\",\"xxxxxxxx"));
  ck_assert_msg((double)(big_kb - small_kb) * 1024 <= 1.5 * frame,
                "peak %ld KiB above a small run's %ld KiB: %.2f x the frame",
                big_kb - small_kb, small_kb,
                (double)(big_kb - small_kb) * 1024 / frame);
  /* Not UTF-8: written as base64, streamed (it cost 2.33 times when the
   * base64 was built whole). */
  script("read", "big:48000000:.\\x01:\\xff", "read", NULL);
  ck_assert_int_eq(finish_rss(start(args), &big_kb), 0);
  ck_assert(contains(slog, "\"dr\":[\"ok\",{\"base64\":\"eHh4"));
  ck_assert_msg((double)(big_kb - small_kb) * 1024 <= 1.5 * frame,
                "base64: peak %ld KiB above a small run's %ld KiB: %.2f x",
                big_kb - small_kb, small_kb,
                (double)(big_kb - small_kb) * 1024 / frame);
  /* An upcall of 48 MB (a log line): the kernel looks at its name only,
   * and copies none of it (it cost 3.99 times with every argument split
   * whole). */
  script("read", "big:48000000:?[\"log\",\":\"]", "read", "ok", "read", NULL);
  ck_assert_int_eq(finish_rss(start(args), &big_kb), 0);
  ck_assert_msg((double)(big_kb - small_kb) * 1024 <= 1.5 * frame,
                "upcall: peak %ld KiB above a small run's %ld KiB: %.2f x",
                big_kb - small_kb, small_kb,
                (double)(big_kb - small_kb) * 1024 / frame);
#endif
}
END_TEST

Suite *hostile_faults_suite(void) {
  Suite *s = suite_create("hostile faults");
  TCase *tc = tcase_create("Outside a command");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, run_setup, NULL);
  tcase_add_test(tc, test_exit_between_commands);
  tcase_add_test(tc, test_killed_between_commands);
  tcase_add_test(tc, test_frame_while_idle);
  tcase_add_test(tc, test_close4_between_commands);
  suite_add_tcase(s, tc);
  tc = tcase_create("Closed pipe");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, run_setup, NULL);
  tcase_add_test(tc, test_close4_in_flight);
  tcase_add_test(tc, test_fd4_never_used);
  tcase_add_test(tc, test_startup_apart);
  tcase_add_test(tc, test_upcall_during_ping);
  tcase_add_test(tc, test_fork_holds_pipe);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bytes");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, run_setup, NULL);
  tcase_add_test(tc, test_error_nul_kept);
  tcase_add_test(tc, test_hostile_headers);
  tcase_add_test(tc, test_drip);
  tcase_add_test(tc, test_answer_before_asked);
  tcase_add_test(tc, test_memory_per_frame);
  suite_add_tcase(s, tc);
  return s;
}
