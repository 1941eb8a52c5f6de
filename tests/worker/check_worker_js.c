/* check_worker_js.c — ipcstamp-worker-js (Duktape) over real pipes. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-worker.h"
#include "worker_suites.h"

static const char *const js_counters[] = {"allocate", "allocBytes",
                                          "allocCount", NULL};

/* Evaluate source; expect '.'. */
static void eval_ok(wd_t *d, const char *src) {
  wd_result_t r;
  wd_meter_t m;
  deliver_ok(d, 'e', src, strlen(src), NULL, NULL, NULL, &r, &m);
  wd_result_free(&r);
  wd_meter_free(&m);
}

/* Deliver a string; expect '.' with the given result. */
static void expect_result(wd_t *d, const char *delivery, const char *result,
                          size_t result_len) {
  wd_result_t r;
  wd_meter_t m;
  deliver_ok(d, '?', delivery, strlen(delivery), NULL, NULL, NULL, &r, &m);
  ck_assert_msg(r.body_len == result_len &&
                    memcmp(r.body, result, result_len) == 0,
                "result '%s' (%zu bytes) for '%s'", r.body, r.body_len,
                delivery);
  wd_result_free(&r);
  wd_meter_free(&m);
}

/* The kernel: echo each upcall back, prefixed with its index. */
static int echo(void *arg, uint32_t i, const char *req, size_t n,
                const char **reply, size_t *reply_len) {
  static char buf[4096];
  (void)arg;
  *reply_len = (size_t)snprintf(buf, sizeof buf, "%u:%.*s", i, (int)n, req);
  *reply = buf;
  return 0;
}

static const char upcaller[] =
    "var enc = new TextEncoder(), dec = new TextDecoder();"
    "globalThis.handleCommand = function (buf) {"
    "  var n = Number(dec.decode(buf)), out = [];"
    "  for (var i = 0; i < n; i++) {"
    "    var reply = issueCommand("
    "        enc.encode('[\"vatstoreGet\",\"k' + i + '\"]').buffer);"
    "    if (!(reply instanceof ArrayBuffer)) throw new Error('not AB');"
    "    out.push(dec.decode(reply));"
    "  }"
    "  return n < 10 ? out.join('|') : undefined;"
    "};";

/* ------------------------------------------------------------------------
 * Core
 */
START_TEST(js_eval_and_deliver) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_JS, NULL);
  eval_ok(&d,
          "globalThis.handleCommand = function (buf) {"
          "  return 'got ' + new TextDecoder().decode(buf);"
          "};");
  deliver_ok(&d, '?', "hello", 5, NULL, NULL, js_counters, &r, &m);
  ck_assert_str_eq(r.body, "got hello");
  ck_assert_str_eq(m.kinds, "de");
  check_stamps(&r, &m);
  /* The engine's counters: its heap, and what this command allocated. */
  ck_assert(m.has_field[0] && m.has_field[1] && m.has_field[2]);
  ck_assert_int_gt(m.fields[0], 10000);
  ck_assert_int_gt(m.fields[1], 0);
  ck_assert_int_gt(m.fields[2], 0);
  ck_assert(m.has_cpu_ns);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(js_upcalls_and_stamps) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_JS, NULL);
  eval_ok(&d, upcaller);
  deliver_ok(&d, '?', "4", 1, echo, NULL, NULL, &r, &m);
  ck_assert_uint_eq(r.nupcalls, 4);
  ck_assert_uint_eq(m.n, 2 + 2 * 4);
  ck_assert_str_eq(m.kinds, "durururure");
  check_stamps(&r, &m);
  ck_assert_str_eq(r.last_upcall, "[\"vatstoreGet\",\"k3\"]");
  ck_assert_str_eq(r.body,
                   "0:[\"vatstoreGet\",\"k0\"]|1:[\"vatstoreGet\",\"k1\"]|"
                   "2:[\"vatstoreGet\",\"k2\"]|3:[\"vatstoreGet\",\"k3\"]");
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(js_result_types) {
  wd_t d;
  start(&d, WORKER_JS, NULL);
  eval_ok(&d,
          "var dec = new TextDecoder();"
          "globalThis.handleCommand = function (buf) {"
          "  switch (dec.decode(buf)) {"
          "  case 'ab': return new Uint8Array([104, 105]).buffer;"
          "  case 'view': return new Uint8Array([1, 104, 105, 2]).subarray(1, "
          "3);"
          "  case 'string': return 'hi';"
          "  case 'emoji': return '\\u00e9\\ud83d\\ude00';"
          "  case 'lone': return 'a\\ud800b';"
          "  case 'undefined': return undefined;"
          "  case 'null': return null;"
          "  case 'xsnap': return { result: 'hi' };"
          "  case 'echo': return buf;"
          "  }"
          "};");
  expect_result(&d, "ab", "hi", 2);
  expect_result(&d, "view", "hi", 2);
  expect_result(&d, "string", "hi", 2);
  /* UTF-8 on the wire: é is C3 A9, U+1F600 is F0 9F 98 80. */
  expect_result(&d, "emoji", "\xc3\xa9\xf0\x9f\x98\x80", 6);
  /* A lone surrogate becomes U+FFFD, as TextEncoder does. */
  expect_result(&d, "lone", "a\xef\xbf\xbd" "b", 5);
  expect_result(&d, "undefined", "", 0);
  expect_result(&d, "null", "", 0);
  expect_result(&d, "xsnap", "hi", 2);
  expect_result(&d, "echo", "echo", 4);
  eval_ok(&d, "globalThis.handleCommand = function () { return 42; };");
  deliver_error(&d, '?', "", 0, "handleCommand returned a number");
  expect_alive(&d);
  wd_free(&d);
}
END_TEST

/* An 'e' answers with its completion value when it is bytes or a string. */
START_TEST(js_eval_results) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_JS, NULL);
  deliver_ok(&d, 'e', "'a' + 'b'", 9, NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(r.body, "ab");
  ck_assert_str_eq(m.kinds, "de");
  wd_result_free(&r);
  wd_meter_free(&m);
  deliver_ok(&d, 'e', "var x = 1; x + 1", 16, NULL, NULL, NULL, &r, &m);
  ck_assert_uint_eq(r.body_len, 0);
  wd_result_free(&r);
  wd_meter_free(&m);
  /* Source is UTF-8. */
  deliver_ok(&d, 'e', "'\xc3\xa9'.length + ':' + '\xf0\x9f\x98\x80'.length",
             strlen("'\xc3\xa9'.length + ':' + '\xf0\x9f\x98\x80'.length"),
             NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(r.body, "1:2");
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

/* An exception is the command's own: the next command works normally
 * (xsnap's worker keeps a stale error flag; this one must not). */
START_TEST(js_exception_then_ok) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_JS, NULL);
  eval_ok(&d,
          "globalThis.handleCommand = function (buf) {"
          "  if (buf.byteLength === 3) throw new TypeError('boom');"
          "  if (buf.byteLength === 4) throw 'a string';"
          "  return 'fine';"
          "};");
  deliver_error(&d, '?', "bad", 3, "TypeError: boom");
  deliver_ok(&d, '?', "good!", 5, NULL, NULL, NULL, &r, &m);
  ck_assert_str_eq(r.body, "fine");
  ck_assert_str_eq(m.kinds, "de");
  wd_result_free(&r);
  wd_meter_free(&m);
  deliver_error(&d, '?', "oops", 4, "a string");
  deliver_error(&d, 'e', "this is not javascript", 22, "SyntaxError");
  deliver_error(&d, 'e', "undefinedFunction()", 19, "ReferenceError");
  expect_result(&d, "again", "fine", 4);
  wd_free(&d);
}
END_TEST

START_TEST(js_no_handler) {
  wd_t d;
  start(&d, WORKER_JS, NULL);
  deliver_error(&d, '?', "x", 1, "handleCommand is not a function");
  expect_alive(&d);
  wd_free(&d);
}
END_TEST

static int kernel_text(void *arg, uint32_t i, const char *req, size_t n,
                       const char **reply, size_t *reply_len) {
  (void)arg;
  (void)i;
  if (n == 6 && memcmp(req, "caf\xc3\xa9?", 6) == 0) {
    *reply = "\xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80";
    *reply_len = 10;
  } else {
    *reply = "?";
    *reply_len = 1;
  }
  return 0;
}

START_TEST(js_string_upcalls) {
  wd_t d;
  start(&d, WORKER_JS, NULL);
  eval_ok(&d,
          "globalThis.handleCommand = function () {"
          "  var s = issueStringCommand('caf\\u00e9?');"
          "  return s.length + ':' + s;"
          "};");
  {
    wd_result_t r;
    wd_meter_t m;
    deliver_ok(&d, '?', "", 0, kernel_text, NULL, NULL, &r, &m);
    /* "été 😀" is 6 UTF-16 units: é t é space and a surrogate pair. */
    ck_assert_str_eq(r.body, "6:\xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80");
    ck_assert_str_eq(m.kinds, "dure");
    wd_result_free(&r);
    wd_meter_free(&m);
  }
  /* Wrong argument types are TypeErrors the script can catch. */
  eval_ok(&d,
          "globalThis.handleCommand = function () {"
          "  try { issueCommand(42); } catch (e) { return String(e); }"
          "};");
  expect_result(&d, "", "TypeError: issueCommand expects an ArrayBuffer or a "
                        "string",
                strlen("TypeError: issueCommand expects an ArrayBuffer or a "
                       "string"));
  wd_free(&d);
}
END_TEST

START_TEST(js_print) {
  wd_t d;
  char *out;
  start(&d, WORKER_JS, NULL);
  eval_ok(&d, "print('a', 1, {}, '\\u00e9'); print();");
  ck_assert_int_eq(wd_send(&d, 'q', NULL, 0), 0);
  expect_exit(&d, 0, NULL);
  out = wd_stdout(&d);
  ck_assert_str_eq(out, "a 1 [object Object] \xc3\xa9\n\n");
  free(out);
  wd_free(&d);
}
END_TEST

/* No file, process or network access: none of the usual ways in exist. */
START_TEST(js_sandbox) {
  static const char probe[] =
      "['require', 'process', 'module', 'exports', 'fetch', "
      "'XMLHttpRequest', 'WebSocket', 'setTimeout', 'setInterval', 'os', "
      "'std', 'fs', 'load', 'read', 'readFile', 'writeFile', 'system', "
      "'import', 'Deno', 'Bun']"
      ".filter(function (k) { return typeof globalThis[k] !== 'undefined'; })"
      ".concat(typeof Duktape.modSearch !== 'undefined' ? ['modSearch'] : [])"
      ".join(',')";
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_JS, NULL);
  deliver_ok(&d, 'e', probe, strlen(probe), NULL, NULL, NULL, &r, &m);
  ck_assert_msg(r.body_len == 0, "reachable: %s", r.body);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(js_quit_and_eof) {
  wd_t d;
  start(&d, WORKER_JS, NULL);
  expect_alive(&d);
  ck_assert_int_eq(wd_send(&d, 'q', NULL, 0), 0);
  expect_exit(&d, 0, NULL);
  wd_free(&d);
  start(&d, WORKER_JS, NULL);
  wd_close_input(&d);
  expect_exit(&d, 0, NULL);
  wd_free(&d);
}
END_TEST

START_TEST(js_unknown_tag) {
  wd_t d;
  start(&d, WORKER_JS, NULL);
  deliver_error(&d, 'w', "snapshot", 8, "unsupported command tag 'w'");
  expect_alive(&d);
  wd_free(&d);
}
END_TEST

START_TEST(js_disabled_stamps) {
  static const char *const env[] = {"IPCSTAMP_DISABLE=1", NULL};
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_JS, env);
  eval_ok(&d, upcaller);
  deliver_ok(&d, '?', "2", 1, echo, NULL, js_counters, &r, &m);
  ck_assert(!m.has_ipcstamp);
  ck_assert_uint_eq(m.ntimestamps, 0);
  ck_assert(m.has_field[0]);
  ck_assert_uint_eq(r.nupcalls, 2);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

/* xsnap's command line, so that xsnap's parent can start this worker. */
START_TEST(js_flags) {
  static const struct {
    const char *args[4];
    int status;
    const char *out;
    const char *err;
  } cases[] = {
      {{"-h"}, 0, "-l <limit>", NULL},
      {{"-v"}, 0, "Duktape", NULL},
      {{"--help"}, 0, "-l <limit>", NULL},
      {{"--version"}, 0, "ipcstamp-worker-js " PACKAGE_VERSION " (Duktape", NULL},
      {{"--verbose"}, 1, NULL, "unknown argument --verbose"},
      {{"-z"}, 1, NULL, "unknown argument -z"},
      {{"-r", "snapshot.xss"}, 1, NULL, "snapshots (-r) are not supported"},
      {{"-l"}, 1, NULL, "missing number after -l"},
      {{"-l", "many"}, 1, NULL, "expected a whole number, got many"},
      {{"-s", "-1"}, 1, NULL, "expected a whole number"},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *argv[6] = {wd_path(WORKER_JS)};
    wd_t d;
    int k;
    for (k = 0; cases[i].args[k]; k++) argv[k + 1] = cases[i].args[k];
    ck_assert_int_eq(wd_spawn(&d, argv[0], argv, NULL, 0), 0);
    expect_exit(&d, cases[i].status, cases[i].err);
    if (cases[i].out) {
      char *out = wd_stdout(&d);
      ck_assert_msg(strstr(out, cases[i].out), "'%s' not in %s",
                    cases[i].out, out);
      free(out);
    }
    wd_free(&d);
  }
  {
    /* Accepted, and the worker runs: xsnap's parent passes the vat's name
     * first, then its flags. */
    const char *argv[] = {wd_path(WORKER_JS), "v1", "-l", "100000", "-i", "1",
                          "-s", "8192", "-p", NULL};
    wd_t d;
    ck_assert_int_eq(wd_spawn(&d, argv[0], argv, NULL, 0), 0);
    expect_alive(&d);
    wd_free(&d);
  }
}
END_TEST

/* ------------------------------------------------------------------------
 * Limits
 */
START_TEST(js_overflow) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  start(&d, WORKER_JS, NULL);
  eval_ok(&d, upcaller);
  deliver_ok(&d, '?', "2000", 4, NULL, NULL, NULL, &r, &m);
  ck_assert_uint_eq(r.nupcalls, 2000);
  ck_assert_uint_eq(m.n, 1024);
  ck_assert_int_eq(m.kinds[1023], 'e');
  ck_assert_int_eq(m.dropped, 2978);
  check_stamps(&r, &m);
  wd_result_free(&r);
  wd_meter_free(&m);
  wd_free(&d);
}
END_TEST

START_TEST(js_large_frames) {
  wd_t d;
  wd_result_t r;
  wd_meter_t m;
  size_t n = 2 << 20, i;
  char *big = malloc(n);
  for (i = 0; i < n; i++) big[i] = (char)('a' + i % 26);
  start(&d, WORKER_JS, NULL);
  eval_ok(&d, "globalThis.handleCommand = function (b) { return b; };");
  deliver_ok(&d, '?', big, n, NULL, NULL, NULL, &r, &m);
  ck_assert_uint_eq(r.body_len, n);
  ck_assert_int_eq(memcmp(r.body, big, n), 0);
  wd_result_free(&r);
  wd_meter_free(&m);
  free(big);
  wd_free(&d);
}
END_TEST

/* ------------------------------------------------------------------------
 * Bad input: the framing rules are the library's, so one case of each kind
 * is enough here.
 */
START_TEST(js_bad_frames) {
  expect_framing_error(WORKER_JS, NULL, "01:a,", 5, 0, IPS_ENS_LEADING_ZERO, 0);
  expect_framing_error(WORKER_JS, NULL, "3:?ab!", 6, 0, IPS_ENS_NO_COMMA, 5);
  expect_framing_error(WORKER_JS, NULL, "5:?a", 4, 1, IPS_ENS_EOF, 4);
}
END_TEST

/* The script cannot catch a dead stream: the worker exits 2 at once. */
START_TEST(js_eof_in_upcall) {
  wd_t d;
  wd_result_t r;
  start(&d, WORKER_JS, NULL);
  eval_ok(&d,
          "globalThis.handleCommand = function () {"
          "  try { issueCommand('x'); } catch (e) { return 'caught'; }"
          "};");
  ck_assert_int_eq(wd_command(&d, '?', "", 0, hang_up, &d, &r), IPS_EPROTO);
  expect_exit(&d, 2, "end of input while waiting for the reply to upcall 1");
  wd_result_free(&r);
  wd_free(&d);
}
END_TEST

Suite *worker_js_suite(void) {
  Suite *s = suite_create("ipcstamp-worker-js");
  TCase *core = tcase_create("Core");
  TCase *limits = tcase_create("Limits");
  TCase *bad = tcase_create("Bad input");

  tcase_add_test(core, js_eval_and_deliver);
  tcase_add_test(core, js_upcalls_and_stamps);
  tcase_add_test(core, js_result_types);
  tcase_add_test(core, js_eval_results);
  tcase_add_test(core, js_exception_then_ok);
  tcase_add_test(core, js_no_handler);
  tcase_add_test(core, js_string_upcalls);
  tcase_add_test(core, js_print);
  tcase_add_test(core, js_sandbox);
  tcase_add_test(core, js_quit_and_eof);
  tcase_add_test(core, js_unknown_tag);
  tcase_add_test(core, js_disabled_stamps);
  tcase_add_test(core, js_flags);
  suite_add_tcase(s, core);

  tcase_add_test(limits, js_overflow);
  tcase_add_test(limits, js_large_frames);
  suite_add_tcase(s, limits);

  tcase_add_test(bad, js_bad_frames);
  tcase_add_test(bad, js_eof_in_upcall);
  suite_add_tcase(s, bad);
  return s;
}
