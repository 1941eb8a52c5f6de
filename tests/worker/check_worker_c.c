/* check_worker_c.c — ipcstamp-worker-c over real pipes. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "ipcstamp-worker.h"
#include "worker_suites.h"

static int is_json(const char *s) {
  char err[128];
  yajl_val v = yajl_tree_parse(s, err, sizeof err);
  if (!v) return 0;
  yajl_tree_free(v);
  return 1;
}

/* ------------------------------------------------------------------------
 * Core
 */
START_TEST(c_empty_delivery) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, NULL);
  deliver_ok(&d, '?', "", 0, NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(m.kinds, "de");
  ck_assert_uint_eq(r.body_len, 0);
  ck_assert(m.has_cpu_ns);
  ck_assert_int_ge(m.cpu_ns, 0);
  check_stamps(&r, &m);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

/* Checks each upcall the way a kernel would read it, then answers. */
static int vatstore(void *arg, uint32_t i, const char *req, size_t n,
                    const char **reply, size_t *reply_len) {
  size_t want = *(size_t *)arg;
  char head[64], *s;
  int k = snprintf(head, sizeof head, "[\"vatstoreGet\",\"k%u\"", i);
  if (n != want || memcmp(req, head, (size_t)k) != 0 || req[n - 1] != ']')
    return 1;
  s = strndup(req, n);
  k = is_json(s);
  free(s);
  if (!k) return 1;
  *reply = "\"some value\"";
  *reply_len = 12;
  return 0;
}

START_TEST(c_upcalls_and_stamps) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  size_t want = 40;
  const char *cmd =
      "{\"upcalls\":5,\"upcall_bytes\":40,\"reply_bytes\":64,\"spin_us\":100}";
  start(&d, WORKER_C, NULL);
  deliver_ok(&d, '?', cmd, strlen(cmd), vatstore, &want, NULL, &r, &m);
  ck_assert_uint_eq(r.nupcalls, 5);
  ck_assert_uint_eq(m.n, 2 + 2 * 5);
  ck_assert_str_eq(m.kinds, "dururururure");
  ck_assert_int_eq(m.dropped, 0);
  check_stamps(&r, &m);
  ck_assert_uint_eq(r.body_len, 64);
  ck_assert(is_json(r.body));
  wd_result_free(&r);
  wd_meter_free(&m);
  /* A second delivery starts with a fresh table. */
  deliver_ok(&d, '?', "{\"upcalls\":1}", 13, NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(m.kinds, "dure");
  check_stamps(&r, &m);
  /* Smaller than the shortest upcall: the shortest is sent. */
  ck_assert_str_eq(r.last_upcall, "[\"vatstoreGet\",\"k0\"]");
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(c_reply_sizes) {
  static const size_t sizes[] = {0, 1, 2, 3, 100, 70000};
  wd_t d;
  size_t i;
  start(&d, WORKER_C, NULL);
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    wd_result_t r;
    wd_meter_t m;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "{\"reply_bytes\":%zu}", sizes[i]);
    deliver_ok(&d, '?', cmd, strlen(cmd), NULL, NULL, NULL, &r, &m);
    ck_assert_uint_eq(r.body_len, sizes[i]);
    if (sizes[i]) ck_assert_msg(is_json(r.body), "not JSON: %s", r.body);
    wd_result_free(&r);
    wd_meter_free(&m);
  }
  wd_free(&d);
}
END_TEST

/* cpu_us burns CPU, sleep_us does not: cpu_ns tells them apart.  (cpu_us
 * spins until the worker has used that much CPU, so a busy machine cannot
 * make it less: spin_us, wall time spent spinning, once gave 0.84 ms of the
 * 20 at load 11.) */
START_TEST(c_cpu_time) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, NULL);
  deliver_ok(&d, '?', "{\"cpu_us\":20000}", 16, NULL, NULL, NULL, &r, &m);
  ck_assert_int_ge(m.cpu_ns, 20000000);
  ck_assert_int_ge(m.mono_ns[1] - m.mono_ns[0], 20000000);
  wd_result_free(&r);
  wd_meter_free(&m);
  deliver_ok(&d, '?', "{\"sleep_us\":20000}", 18, NULL, NULL, NULL, &r, &m);
  ck_assert_int_lt(m.cpu_ns, 2000000);
  ck_assert_int_ge(m.mono_ns[1] - m.mono_ns[0], 20000000);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

/* The error belongs to the command: the next one is answered normally. */
START_TEST(c_fail_then_ok) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, NULL);
  deliver_error(&d, '?', "{\"upcalls\":2,\"fail\":\"boom\"}", 27, "boom");
  deliver_ok(&d, '?', "{\"upcalls\":2}", 13, NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(m.kinds, "durure");
  check_stamps(&r, &m);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(c_lenient_and_bad_commands) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, NULL);
  /* Not JSON, or not an object: all zeros. */
  deliver_ok(&d, '?', "hello", 5, NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(m.kinds, "de");
  wd_result_free(&r);
  wd_meter_free(&m);
  deliver_ok(&d, '?', "{\"upcalls\":", 11, NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(m.kinds, "de");
  wd_result_free(&r);
  wd_meter_free(&m);
  /* Unknown fields are ignored, nested ones too. */
  deliver_ok(&d, '?', "{\"x\":{\"upcalls\":9},\"upcalls\":1}", 31, NULL,
             NULL, NULL, &r, &m);
  ck_assert_str_eq(m.kinds, "dure");
  wd_result_free(&r);
  wd_meter_free(&m);
  /* A known field with a bad value is an error that names it. */
  deliver_error(&d, '?', "{\"upcalls\":-1}", 14, "\"upcalls\" must be");
  deliver_error(&d, '?', "{\"spin_us\":1.5}", 15, "\"spin_us\" must be");
  deliver_error(&d, '?', "{\"reply_bytes\":\"9\"}", 19,
                "\"reply_bytes\" must be");
  deliver_error(&d, '?', "{\"fail\":3}", 10, "\"fail\" must be a string");
  deliver_error(&d, '?', "{\"upcalls\":1000000000}", 22, "\"upcalls\" must be");
  expect_alive(&d);
  wd_free(&d);
}
END_TEST

START_TEST(c_liveness_and_quit) {
  wd_t d;
  const char *f;
  size_t n;
  start(&d, WORKER_C, NULL);
  /* Three commands in one write: each is answered, in order. */
  ck_assert_int_eq(wd_send_raw(&d, "1:R,1:R,1:?,", 12), 0);
  ck_assert_int_eq(wd_recv(&d, &f, &n), 0);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(wd_recv(&d, &f, &n), 0);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(wd_recv(&d, &f, &n), 0);
  ck_assert_int_eq(f[0], '.');
  ck_assert_ptr_nonnull(memchr(f, '\x01', n));
  ck_assert_int_eq(wd_send(&d, 'q', NULL, 0), 0);
  expect_exit(&d, 0, NULL);
  ck_assert_int_eq(wd_recv(&d, &f, &n), IPS_EEOF);
  wd_free(&d);
}
END_TEST

START_TEST(c_eof_between_commands) {
  wd_t d;
  start(&d, WORKER_C, NULL);
  expect_alive(&d);
  wd_close_input(&d);
  expect_exit(&d, 0, NULL);
  wd_free(&d);
}
END_TEST

/* A well-framed command with a tag the worker does not take is answered
 * with '!' and the stream goes on. */
START_TEST(c_unknown_tags) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, NULL);
  deliver_error(&d, 'Z', "", 0, "unsupported command tag 'Z'");
  deliver_error(&d, 'e', "1+1", 3, "unsupported command tag 'e'");
  deliver_error(&d, '/', "x", 1, "unsupported command tag '/'");
  deliver_error(&d, '\x07', "", 0, "unsupported command tag 0x07");
  ck_assert_int_eq(wd_send_raw(&d, "0:,", 3), 0);
  {
    const char *f;
    size_t n;
    ck_assert_int_eq(wd_recv(&d, &f, &n), 0);
    ck_assert_int_eq(f[0], '!');
    ck_assert(memmem(f, n, "empty frame", 11));
  }
  deliver_ok(&d, '?', "{\"upcalls\":1}", 13, NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(m.kinds, "dure");
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(c_disabled_stamps) {
  static const char *const env[] = {"IPCSTAMP_DISABLE=1", NULL};
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, env);
  deliver_ok(&d, '?', "{\"upcalls\":3}", 13, NULL, NULL, NULL, &r, &m);
  ck_assert_uint_eq(r.nupcalls, 3);
  ck_assert_str_eq(r.meter, "{\"timestamps\":[]}");
  ck_assert(!m.has_ipcstamp);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

/* A worker that dies in the middle of a delivery (for the parent's tests). */
START_TEST(c_exit_mid_delivery) {
  wd_t d;
  wd_result_t r;
  start(&d, WORKER_C, NULL);
  ck_assert_int_eq(wd_command(&d, '?', "{\"upcalls\":1,\"exit\":7}", 22, NULL,
                              NULL, &r),
                   IPS_EEOF);
  ck_assert_uint_eq(r.nupcalls, 1);
  expect_exit(&d, 7, NULL);
  wd_result_free(&r);
  wd_free(&d);
}
END_TEST

START_TEST(c_flags) {
  /* Short and long forms alike print to stdout and exit 0 (a packager's
   * help2man, a user's --version); anything else is bad usage. */
  static const struct {
    const char *arg;
    int status;
    const char *out;
    const char *err;
  } cases[] = {
      {"-h", 0, "upcall_bytes", NULL},
      {"--help", 0, "upcall_bytes", NULL},
      {"-v", 0, "ipcstamp-worker-c " PACKAGE_VERSION "\n", NULL},
      {"--version", 0, "ipcstamp-worker-c " PACKAGE_VERSION "\n", NULL},
      {"-x", 1, NULL, "unknown argument '-x'"},
      {"--helpme", 1, NULL, "unknown argument '--helpme'"},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *argv[] = {wd_path(WORKER_C), cases[i].arg, NULL};
    wd_t d;
    ck_assert_int_eq(wd_spawn(&d, argv[0], argv, NULL, 0), 0);
    expect_exit(&d, cases[i].status, cases[i].err);
    if (cases[i].out) {
      char *out = wd_stdout(&d);
      ck_assert_msg(strstr(out, cases[i].out), "%s: '%s' not in %s",
                    cases[i].arg, cases[i].out, out);
      free(out);
    }
    wd_free(&d);
  }
}
END_TEST

/* ------------------------------------------------------------------------
 * Limits
 */

/* 2000 upcalls in a table of 1024: d, 511 pairs and e are kept, the rest
 * counted; the final 'e' is never lost. */
START_TEST(c_overflow) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, NULL);
  deliver_ok(&d, '?', "{\"upcalls\":2000}", 16, NULL, NULL, NULL, &r, &m);
  ck_assert_uint_eq(r.nupcalls, 2000);
  ck_assert_uint_eq(m.n, 1024);
  ck_assert_int_eq(m.kinds[1023], 'e');
  ck_assert_int_eq(m.dropped, 2 * 2000 - 1022);
  ck_assert_int_eq(m.dropped, 2978);
  check_stamps(&r, &m);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(c_small_capacity) {
  static const char *const env[] = {"IPCSTAMP_STAMP_CAPACITY=5", NULL};
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_C, env);
  deliver_ok(&d, '?', "{\"upcalls\":10}", 14, NULL, NULL, NULL, &r, &m);
  /* d u r _ e: one pair fits, a second u has no room for its r. */
  ck_assert_str_eq(m.kinds, "dure");
  ck_assert_int_eq(m.dropped, 18);
  check_stamps(&r, &m);
  wd_result_free(&r);
  wd_meter_free(&m);
  deliver_ok(&d, '?', "", 0, NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(m.kinds, "de");
  ck_assert_int_eq(m.dropped, 0);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

/* Frames much larger than a pipe's buffer, both ways: partial reads and
 * partial writes. */
START_TEST(c_large_frames) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  size_t n = 3 << 20, want = 300000;
  char *cmd = malloc(n);
  int k = snprintf(cmd, n,
                   "{\"upcalls\":3,\"upcall_bytes\":300000,"
                   "\"reply_bytes\":2000000}");
  memset(cmd + k, ' ', n - (size_t)k);
  start(&d, WORKER_C, NULL);
  deliver_ok(&d, '?', cmd, n, vatstore, &want, NULL, &r, &m);
  ck_assert_uint_eq(r.nupcalls, 3);
  ck_assert_uint_eq(r.body_len, 2000000);
  check_stamps(&r, &m);
  wd_result_free(&r);
  wd_meter_free(&m);
  free(cmd);
  wd_free(&d);
}
END_TEST

START_TEST(c_max_frame) {
  static const char *const env[] = {"IPCSTAMP_MAX_FRAME=100", NULL};
  char buf[128];
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  memset(buf, ' ', sizeof buf);
  start(&d, WORKER_C, env);
  /* tag + 99 bytes = 100: accepted */
  deliver_ok(&d, '?', buf, 99, NULL, NULL, NULL, &r, &m);
  wd_result_free(&r);
  wd_meter_free(&m);
  /* 101 is refused before anything is allocated. */
  ck_assert_int_eq(wd_send_raw(&d, "101:?", 5), 0);
  expect_exit(&d, 2, ips_strerror(IPS_ENS_TOO_LONG));
  wd_free(&d);
}
END_TEST

/* cpu_ns costs two system calls a command: only when asked (the suite's
 * main asks for it; here it is unset, then 0). */
START_TEST(c_cpu_time_is_asked_for) {
  static const char *const unset[] = {"IPCSTAMP_CPU_TIME", NULL};
  static const char *const zero[] = {"IPCSTAMP_CPU_TIME=0", NULL};
  const char *const *envs[] = {unset, zero};
  size_t i;
  for (i = 0; i < 2; i++) {
    wd_t d;
    wd_result_t r;
    wd_meter_t m;
    start(&d, WORKER_C, envs[i]);
    deliver_ok(&d, '?', "", 0, NULL, NULL, NULL, &r, &m);
    ck_assert(!m.has_cpu_ns);
    ck_assert_str_eq(m.kinds, "de");
    check_stamps(&r, &m);
    wd_result_free(&r);
    wd_meter_free(&m);
    wd_free(&d);
  }
}
END_TEST

START_TEST(c_bad_environment) {
  static const char *const bad[][2] = {
      {"IPCSTAMP_MAX_FRAME=abc", "IPCSTAMP_MAX_FRAME"},
      {"IPCSTAMP_STAMP_CAPACITY=1", "IPCSTAMP_STAMP_CAPACITY"},
      {"IPCSTAMP_DISABLE=yes", "IPCSTAMP_DISABLE"},
      {"IPCSTAMP_CPU_TIME=2", "IPCSTAMP_CPU_TIME"},
  };
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *env[] = {bad[i][0], NULL};
    wd_t d;
    start(&d, WORKER_C, env);
    expect_exit(&d, 1, bad[i][1]);
    wd_free(&d);
  }
}
END_TEST

START_TEST(c_missing_fds) {
  const char *argv[] = {NULL, NULL};
  wd_t d;
  argv[0] = wd_path(WORKER_C);
  ck_assert_int_eq(wd_spawn(&d, argv[0], argv, NULL, WD_NO_FD3), 0);
  expect_exit(&d, 1, "fd 3 is not open");
  wd_free(&d);
  ck_assert_int_eq(wd_spawn(&d, argv[0], argv, NULL, WD_NO_FD4), 0);
  expect_exit(&d, 1, "fd 4 is not open");
  wd_free(&d);
}
END_TEST

/* ------------------------------------------------------------------------
 * Bad input: each breaks the stream, so the worker says what and where on
 * stderr and exits 2.
 */
START_TEST(c_bad_frames) {
  /* With the largest maximum, so that ten digits are too many digits
   * rather than too long a frame. */
  static const char *const max[] = {"IPCSTAMP_MAX_FRAME=999999999", NULL};
  static const struct {
    const char *raw;
    int close_after;
    int code;
    long offset;
    const char *const *env;
  } cases[] = {
      {"1x:", 0, IPS_ENS_DIGIT, 1, NULL},
      {"x", 0, IPS_ENS_DIGIT, 0, NULL},
      {":,", 0, IPS_ENS_EMPTY_LEN, 0, NULL},
      {"01:a,", 0, IPS_ENS_LEADING_ZERO, 0, NULL},
      {"1234567890:", 0, IPS_ENS_TOO_MANY_DIGITS, 9, max},
      {"0x", 0, IPS_ENS_NO_COLON, 1, NULL},
      {"123456789x", 0, IPS_ENS_NO_COLON, 9, max},
      {"3:?ab!", 0, IPS_ENS_NO_COMMA, 5, NULL},
      {"900000000:", 0, IPS_ENS_TOO_LONG, 7, NULL},
      {"5:?a", 1, IPS_ENS_EOF, 4, NULL},
      {"12", 1, IPS_ENS_EOF, 2, NULL},
      /* offsets count from the start of the stream, across frames */
      {"1:R,1x", 0, IPS_ENS_DIGIT, 5, NULL},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    expect_framing_error(WORKER_C, cases[i].env, cases[i].raw,
                         strlen(cases[i].raw), cases[i].close_after,
                         cases[i].code, cases[i].offset);
}
END_TEST

START_TEST(c_eof_in_upcall) {
  wd_t d;
  wd_result_t r;
  start(&d, WORKER_C, NULL);
  ck_assert_int_eq(
      wd_command(&d, '?', "{\"upcalls\":2}", 13, hang_up, &d, &r), IPS_EPROTO);
  expect_exit(&d, 2, "end of input while waiting for the reply to upcall 1");
  wd_result_free(&r);
  wd_free(&d);
}
END_TEST

START_TEST(c_wrong_reply_tag) {
  wd_t d;
  const char *f;
  size_t n;
  start(&d, WORKER_C, NULL);
  ck_assert_int_eq(wd_send(&d, '?', "{\"upcalls\":1}", 13), 0);
  ck_assert_int_eq(wd_recv(&d, &f, &n), 0);
  ck_assert_int_eq(f[0], '?');
  ck_assert_int_eq(wd_send(&d, '?', "{}", 2), 0);
  expect_exit(&d, 2, "protocol error: the parent answered upcall 1 with '?'");
  wd_free(&d);
}
END_TEST

START_TEST(c_bad_frame_in_upcall_reply) {
  wd_t d;
  const char *f;
  size_t n;
  start(&d, WORKER_C, NULL);
  ck_assert_int_eq(wd_send(&d, '?', "{\"upcalls\":1}", 13), 0);
  ck_assert_int_eq(wd_recv(&d, &f, &n), 0);
  ck_assert_int_eq(wd_send_raw(&d, "2:/x;", 5), 0);
  /* 14:?{"upcalls":1}, is bytes 0-17, so the ';' is byte 22. */
  expect_exit(&d, 2, "missing comma after the payload at byte 22");
  wd_free(&d);
}
END_TEST

/* The parent went away: the worker's write fails and it says so. */
START_TEST(c_parent_gone) {
  wd_t d;
  start(&d, WORKER_C, NULL);
  expect_alive(&d);
  wd_close_output(&d);
  ck_assert_int_eq(wd_send(&d, '?', "", 0), 0);
  expect_exit(&d, 2, "cannot write to the parent (fd 4)");
  expect_exit(&d, 2, ips_strerror(IPS_EPIPE));
  wd_free(&d);
}
END_TEST

Suite *worker_c_suite(void) {
  Suite *s = suite_create("ipcstamp-worker-c");
  TCase *core = tcase_create("Core");
  TCase *limits = tcase_create("Limits");
  TCase *bad = tcase_create("Bad input");

  tcase_add_test(core, c_empty_delivery);
  tcase_add_test(core, c_upcalls_and_stamps);
  tcase_add_test(core, c_reply_sizes);
  tcase_add_test(core, c_cpu_time);
  tcase_add_test(core, c_fail_then_ok);
  tcase_add_test(core, c_lenient_and_bad_commands);
  tcase_add_test(core, c_liveness_and_quit);
  tcase_add_test(core, c_eof_between_commands);
  tcase_add_test(core, c_unknown_tags);
  tcase_add_test(core, c_disabled_stamps);
  tcase_add_test(core, c_exit_mid_delivery);
  tcase_add_test(core, c_flags);
  suite_add_tcase(s, core);

  tcase_add_test(limits, c_overflow);
  tcase_add_test(limits, c_small_capacity);
  tcase_add_test(limits, c_large_frames);
  tcase_add_test(limits, c_max_frame);
  tcase_add_test(limits, c_bad_environment);
  tcase_add_test(limits, c_cpu_time_is_asked_for);
  tcase_add_test(limits, c_missing_fds);
  suite_add_tcase(s, limits);

  tcase_add_test(bad, c_bad_frames);
  tcase_add_test(bad, c_eof_in_upcall);
  tcase_add_test(bad, c_wrong_reply_tag);
  tcase_add_test(bad, c_bad_frame_in_upcall_reply);
  tcase_add_test(bad, c_parent_gone);
  suite_add_tcase(s, bad);
  return s;
}
