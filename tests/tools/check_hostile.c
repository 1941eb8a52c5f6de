/* check_hostile.c — `ipcstamp run` against hostile workers: an
 * endless stream of upcalls, 10 MiB of garbage in the framing and on the
 * console, and attempts to forge slog lines through every channel a worker
 * has (results, upcalls, console, metering, '!' errors).  The parent must
 * contain each one, and the slogfile must stay one valid JSON object per
 * line holding only the records the parent wrote.  The workers are this
 * binary re-run as the peer (parent_peer.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parent_suites.h"
#include "run_suites.h"

static char worker[1300];

static void peer(const char *mode) {
  snprintf(worker, sizeof worker, "%s --peer %s", parent_self_exe(), mode);
}

static int contains(const char *path, const char *what) {
  char *s = slurp(path);
  int yes = strstr(s, what) != NULL;
  free(s);
  return yes;
}

/* A worker that answers every delivery with upcalls, forever: --max-upcalls
 * stops it at the limit, with a clear message, and the vat's next delivery
 * is not run. */
START_TEST(test_upcall_storm_limit) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--max-upcalls", "1000", "--slog", slog, NULL};
  peer("upcall-storm");
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n{\"vat\":\"v1\",\"vd\":2}\n");
  ck_assert_int_eq(run(args), 1);
  assert_err("too many upcalls: more than 1000 in one command");
  ck_assert_int_eq(check_slog(failed_slog(), "deliver"), 1);
  ck_assert_int_eq(check_slog(failed_slog(), "syscall"), 1000);
  ck_assert_int_eq(check_slog(failed_slog(), "syscall-result"), 1000);
  ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 1);
  ck_assert(contains(failed_slog(), "\"fault\":\"IPS_EPROTO\""));
  ck_assert(contains(failed_slog(), "too many upcalls"));
}
END_TEST

/* Without a limit, --timeout contains it too. */
START_TEST(test_upcall_storm_timeout) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--timeout", "300", "--slog", slog, NULL};
  peer("upcall-storm");
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  ck_assert_int_eq(run(args), 1);
  assert_err("timeout: no answer within 300 ms");
  ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 1);
  ck_assert_int_gt(check_slog(failed_slog(), "syscall"), 0);
  ck_assert(contains(failed_slog(), "\"fault\":\"IPS_ETIMEOUT\""));
}
END_TEST

START_TEST(test_max_upcalls_usage) {
  const char *args[] = {"run", "--worker", worker, "--demo",
                        "--max-upcalls", "0", NULL};
  peer("good");
  ck_assert_int_eq(run(args), 2);
  assert_err("--max-upcalls wants a number");
}
END_TEST

/* 10 MiB of random bytes as a frame with no comma: buffered (it is under
 * the frame limit), then refused; nothing of it reaches the slog. */
START_TEST(test_garbage_10m) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  const char *small[] = {"run", "--worker", worker, "--workload", wl,
                         "--max-frame", "65536", "--slog", slog, "--force",
                         NULL};
  peer("garbage-10m");
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n{\"vat\":\"v1\",\"vd\":2}\n");
  ck_assert_int_eq(run(args), 1);
  assert_err("missing comma after the payload");
  ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 1);
  ck_assert(contains(failed_slog(), "\"fault\":\"IPS_ENS_NO_COMMA\""));
  /* With a smaller limit it is refused at the length, before any byte of
   * it is buffered. */
  ck_assert_int_eq(run(small), 1);
  assert_err("declared length over the maximum frame size");
  ck_assert_int_eq(check_slog(failed_slog(), "deliver-result"), 1);
}
END_TEST

/* 10 MiB of random bytes on stdout: console records in bounded pieces,
 * and the delivery still succeeds. */
START_TEST(test_noise_10m) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  peer("noise-10m");
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n");
  ck_assert_int_eq(run(args), 0);
  ck_assert_int_eq(check_slog(slog, "deliver-result"), 1);
  /* A newline every 256 bytes on average, and lines cut at 64 KiB. */
  ck_assert_int_gt(check_slog(slog, "console"), 10000);
  ck_assert(contains(slog, "after the noise"));
}
END_TEST

/* Forged lines in every channel, three deliveries (raw bytes, the same as
 * valid JSON strings, a '!' error): exactly the parent's records. */
START_TEST(test_inject) {
  const char *args[] = {"run", "--worker", worker, "--workload", wl,
                        "--slog", slog, NULL};
  peer("inject");
  write_file(wl, "{\"vat\":\"v1\",\"vd\":1}\n{\"vat\":\"v1\",\"vd\":2}\n"
                 "{\"vat\":\"v1\",\"vd\":3}\n");
  ck_assert_int_eq(run(args), 0);
  ck_assert_int_eq(check_slog(slog, "kernel-init-start"), 1);
  ck_assert_int_eq(check_slog(slog, "create-vat"), 1);
  ck_assert_int_eq(check_slog(slog, "deliver"), 3);
  ck_assert_int_eq(check_slog(slog, "syscall"), 2);
  ck_assert_int_eq(check_slog(slog, "syscall-result"), 2);
  ck_assert_int_eq(check_slog(slog, "deliver-result"), 3);
  /* 4 lines on stdout and 3 on stderr per delivery, each its own record. */
  ck_assert_int_eq(check_slog(slog, "console"), 21);
  ck_assert_int_eq(check_slog(slog, "terminate"), 1);
  /* The raw metering was refused and said so. */
  ck_assert(contains(slog, "\"meteringError\""));
}
END_TEST

/* The library itself: the limit counts per command, and the stamps kept
 * for the faulted command stop at D, the allowed U/R pairs, and E. */
static void reply_null(ips_child_t *w, void *arg, const char *p, size_t n,
                       const ips_stamp_t *U) {
  ck_assert_int_eq(ips_child_reply(w, "null", 4, NULL), 0);
}

static void keep_result(ips_child_t *w, void *arg, const ips_result_t *res) {
  parent_res_copy(arg, res);
}

START_TEST(test_max_upcalls_library) {
  uv_loop_t loop;
  ips_child_options_t o;
  ips_child_t *w;
  parent_res_t r;
  char *args[] = {"peer", "--peer", "upcall-storm", NULL};
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  memset(&o, 0, sizeof o);
  o.file = parent_self_exe();
  o.args = args;
  o.max_upcalls = 5;
  o.upcall_cb = reply_null;
  ck_assert_int_eq(ips_child_spawn(&loop, &o, &w), 0);
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(ips_child_deliver(w, "x", 1, keep_result, &r), 0);
  while (!r.done)
    uv_run(&loop, UV_RUN_ONCE);
  ck_assert_int_eq(r.kind, IPS_RESULT_FAULT);
  ck_assert_int_eq(r.status, IPS_EPROTO);
  ck_assert_msg(strstr(r.message, "too many upcalls: more than 5") != NULL,
                "%s", r.message);
  ck_assert_int_eq(r.nstamps, 1 + 2 * 5 + 1);
  ck_assert_int_eq(r.stamps[0].kind, 'D');
  ck_assert_int_eq(r.stamps[11].kind, 'E');
  ck_assert(!ips_child_alive(w));
  parent_res_free(&r);
  ips_child_close(w, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

Suite *hostile_suite(void) {
  Suite *s = suite_create("hostile");
  TCase *tc = tcase_create("Bad input");
  /* 10 MiB through the console is a few seconds under ASan. */
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, run_setup, NULL);
  tcase_add_test(tc, test_upcall_storm_limit);
  tcase_add_test(tc, test_upcall_storm_timeout);
  tcase_add_test(tc, test_max_upcalls_usage);
  tcase_add_test(tc, test_garbage_10m);
  tcase_add_test(tc, test_noise_10m);
  tcase_add_test(tc, test_inject);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_max_upcalls_library);
  suite_add_tcase(s, tc);
  return s;
}
