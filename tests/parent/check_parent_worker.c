/* check_parent_worker.c — real worker processes (this test binary re-run
 * as a peer, see parent_peer.c): stamps in order, queueing, console lines,
 * and every fault the parent must survive. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parent_suites.h"

static uv_loop_t loop;
static int closed;

static void on_closed(ips_child_t *w) { closed++; }

static void reply_now(ips_child_t *w, void *arg, const char *p, size_t n,
                      const ips_stamp_t *U) {
  ck_assert_int_eq(ips_child_reply(w, "\"v\"", 3, NULL), 0);
}

static char console[4096];
static void on_console(ips_child_t *w, int fd, const char *line, size_t n) {
  size_t len = strlen(console);
  snprintf(console + len, sizeof console - len, "%d:%.*s|", fd, (int)n, line);
}

static ips_child_t *spawn_peer(const char *mode, uint64_t timeout_ms) {
  ips_child_options_t o;
  ips_child_t *w;
  char *args[] = {"peer", "--peer", (char *)mode, NULL};
  ips_child_options_init(&o);
  o.file = parent_self_exe();
  o.args = args;
  o.timeout_ms = timeout_ms;
  o.upcall_cb = reply_now;
  o.console_cb = on_console;
  ck_assert_int_eq(ips_child_spawn(&loop, &o, &w), 0);
  return w;
}

static void on_result(ips_child_t *w, void *arg, const ips_result_t *res) {
  parent_res_copy(arg, res);
}

static void setup(void) {
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  closed = 0;
  console[0] = 0;
}

/* Every test ends with the loop closed cleanly (nothing left open). */
static void close_all(ips_child_t **w, int n) {
  int i;
  for (i = 0; i < n; i++)
    ips_child_close(w[i], on_closed);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(closed, n);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}

static void deliver_wait(ips_child_t *w, const char *payload,
                         parent_res_t *r) {
  memset(r, 0, sizeof *r);
  ck_assert_int_eq(
      ips_child_deliver(w, payload, strlen(payload), on_result, r), 0);
  while (!r->done)
    uv_run(&loop, UV_RUN_ONCE);
}

START_TEST(test_stamp_order) {
  ips_child_t *w = spawn_peer("good", 0);
  parent_res_t r;
  int64_t seq[64];
  size_t i, k = 0;
  deliver_wait(w, "up:3", &r);
  ck_assert_int_eq(r.kind, IPS_RESULT_OK);
  ck_assert_str_eq(r.data, "up:3");
  ck_assert_msg(r.has_metering, "metering: %s", r.metering_error);
  ck_assert_str_eq(r.m.kinds, "dururure");
  ck_assert_uint_eq(r.nstamps, 8);
  for (i = 0; i < r.nstamps; i++)
    ck_assert_int_eq(r.stamps[i].kind, "DURURURE"[i]);
  /* D <= d <= u1 <= U1 <= R1 <= r1 <= ... <= e <= E, on mono. */
  seq[k++] = r.stamps[0].mono_ns;
  seq[k++] = r.m.mono_ns[0];
  for (i = 0; i < 3; i++) {
    seq[k++] = r.m.mono_ns[1 + 2 * i];
    seq[k++] = r.stamps[1 + 2 * i].mono_ns;
    seq[k++] = r.stamps[2 + 2 * i].mono_ns;
    seq[k++] = r.m.mono_ns[2 + 2 * i];
  }
  seq[k++] = r.m.mono_ns[7];
  seq[k++] = r.stamps[7].mono_ns;
  for (i = 1; i < k; i++)
    ck_assert_msg(seq[i - 1] <= seq[i], "stamp %zu goes backwards", i);
  parent_res_free(&r);
  close_all(&w, 1);
}
END_TEST

START_TEST(test_queue_and_error) {
  ips_child_t *w[2] = {spawn_peer("good", 0), spawn_peer("error", 0)};
  parent_res_t r[4];
  int i;
  memset(r, 0, sizeof r);
  ck_assert_int_eq(ips_child_deliver(w[0], "a", 1, on_result, &r[0]), 0);
  ck_assert_int_eq(ips_child_deliver(w[0], "up:1", 4, on_result, &r[1]), 0);
  ck_assert_int_eq(ips_child_evaluate(w[0], "1+1", 3, on_result, &r[2]), 0);
  ck_assert_int_eq(ips_child_deliver(w[1], "x", 1, on_result, &r[3]), 0);
  ck_assert_uint_eq(ips_child_pending(w[0]), 3);
  while (!r[0].done || !r[1].done || !r[2].done || !r[3].done)
    uv_run(&loop, UV_RUN_ONCE);
  ck_assert_str_eq(r[0].data, "a");
  ck_assert_str_eq(r[1].data, "up:1");
  ck_assert_int_eq(r[2].kind, IPS_RESULT_OK);
  ck_assert_int_eq(r[3].kind, IPS_RESULT_ERROR);
  ck_assert_str_eq(r[3].message, "it broke \"badly\"\n");
  ck_assert(ips_child_alive(w[1]));
  for (i = 0; i < 4; i++)
    parent_res_free(&r[i]);
  close_all(w, 2);
}
END_TEST

START_TEST(test_console) {
  ips_child_t *w = spawn_peer("console", 0);
  parent_res_t r;
  deliver_wait(w, "x", &r);
  parent_res_free(&r);
  close_all(&w, 1);
  ck_assert_msg(strstr(console, "1:hello from stdout|1:second line|") != NULL,
                "%s", console);
  ck_assert_msg(strstr(console, "2:to stderr \xff|") != NULL, "%s", console);
}
END_TEST

/* A fault in one worker: that delivery fails with the expected words, and
 * a good worker on the same loop finishes its own delivery. */
static void check_fault(const char *mode, const char *payload, int status,
                        const char *words) {
  ips_child_t *w[2] = {spawn_peer(mode, 0), spawn_peer("good", 0)};
  parent_res_t bad, good, queued;
  memset(&bad, 0, sizeof bad);
  memset(&good, 0, sizeof good);
  memset(&queued, 0, sizeof queued);
  ck_assert_int_eq(ips_child_deliver(w[0], payload, strlen(payload),
                                      on_result, &bad), 0);
  ck_assert_int_eq(ips_child_deliver(w[0], "later", 5, on_result, &queued),
                   0);
  ck_assert_int_eq(ips_child_deliver(w[1], "up:2", 4, on_result, &good), 0);
  while (!bad.done || !good.done || !queued.done)
    uv_run(&loop, UV_RUN_ONCE);
  ck_assert_int_eq(bad.kind, IPS_RESULT_FAULT);
  ck_assert_msg(bad.status == status, "status %d (%s), message %s",
                bad.status, ips_err_name(bad.status), bad.message);
  ck_assert_msg(strstr(bad.message, words) != NULL, "message: %s",
                bad.message);
  ck_assert_int_eq(bad.stamps[bad.nstamps - 1].kind, 'E');
  ck_assert_int_eq(queued.kind, IPS_RESULT_FAULT);
  ck_assert_uint_eq(queued.nstamps, 0);
  ck_assert(!ips_child_alive(w[0]));
  ck_assert_int_eq(ips_child_deliver(w[0], "x", 1, on_result, &bad),
                   IPS_EPIPE);
  ck_assert_int_eq(good.kind, IPS_RESULT_OK);
  ck_assert_str_eq(good.data, "up:2");
  parent_res_free(&bad);
  parent_res_free(&good);
  parent_res_free(&queued);
  close_all(w, 2);
}

START_TEST(test_garbage) {
  check_fault("garbage", "x", IPS_ENS_NO_COMMA, "missing comma");
}
END_TEST

START_TEST(test_huge) {
  check_fault("huge", "x", IPS_ENS_TOO_LONG, "over the maximum");
}
END_TEST

START_TEST(test_exit_in_upcall) {
  check_fault("exit-upcall", "x", IPS_EPIPE, "exited with code 0");
}
END_TEST

static void kill_soon(uv_timer_t *t) { ips_child_kill(t->data); }

START_TEST(test_sigkill) {
  ips_child_t *w = spawn_peer("hang", 0);
  parent_res_t r;
  uv_timer_t t;
  uv_timer_init(&loop, &t);
  t.data = w;
  uv_timer_start(&t, kill_soon, 50, 0);
  deliver_wait(w, "x", &r);
  ck_assert_int_eq(r.kind, IPS_RESULT_FAULT);
  ck_assert_msg(strstr(r.message, "killed by signal 9") != NULL, "%s",
                r.message);
  parent_res_free(&r);
  uv_close((uv_handle_t *)&t, NULL);
  close_all(&w, 1);
}
END_TEST

START_TEST(test_timeout) {
  ips_child_t *w = spawn_peer("hang", 100);
  parent_res_t r;
  deliver_wait(w, "x", &r);
  ck_assert_int_eq(r.kind, IPS_RESULT_FAULT);
  ck_assert_int_eq(r.status, IPS_ETIMEOUT);
  ck_assert_msg(strstr(r.message, "timeout") != NULL, "%s", r.message);
  parent_res_free(&r);
  close_all(&w, 1);
}
END_TEST

START_TEST(test_bad_metering) {
  ips_child_t *w = spawn_peer("bad-metering", 0);
  parent_res_t r;
  deliver_wait(w, "x", &r);
  /* Still a result: the problem is recorded, the delivery completes. */
  ck_assert_int_eq(r.kind, IPS_RESULT_OK);
  ck_assert_str_eq(r.data, "\"x\"");
  ck_assert(!r.has_metering);
  ck_assert_msg(strstr(r.metering_error, "unknown version") != NULL, "%s",
                r.metering_error);
  ck_assert(ips_child_alive(w));
  parent_res_free(&r);
  close_all(&w, 1);
}
END_TEST

static size_t pieces, piece_max, piece_total;
static void count_console(ips_child_t *w, int fd, const char *line,
                          size_t n) {
  /* Only stdout: under ASan the peer's stderr may carry a report. */
  if (fd != 1)
    return;
  pieces++;
  piece_total += n;
  if (n > piece_max)
    piece_max = n;
}

START_TEST(test_console_flood) {
  /* A line with no end comes in bounded pieces, and nothing is lost. */
  ips_child_options_t o;
  ips_child_t *w;
  parent_res_t r;
  char *args[] = {"peer", "--peer", "flood", NULL};
  ips_child_options_init(&o);
  o.file = parent_self_exe();
  o.args = args;
  o.console_cb = count_console;
  pieces = piece_max = piece_total = 0;
  ck_assert_int_eq(ips_child_spawn(&loop, &o, &w), 0);
  deliver_wait(w, "x", &r);
  ck_assert_int_eq(r.kind, IPS_RESULT_OK);
  parent_res_free(&r);
  close_all(&w, 1);
  ck_assert_uint_eq(piece_total, 200000);
  ck_assert_uint_le(piece_max, IPS_CONSOLE_LINE_MAX);
  ck_assert_uint_ge(pieces, 4);
}
END_TEST

/* The slog writer embeds the child's re-serialised metering as it is; a
 * host-built result (no metering_json) makes the writer parse the raw
 * bytes itself.  Both must give the same line, byte for byte, for every
 * kind of metering: that is what lets the child's one parse stand for the
 * writer's. */
static ips_slog_t *slog_child, *slog_host;
static int echoed;
static void on_echo(ips_child_t *w, void *arg, const ips_result_t *res) {
  ips_result_t host = *res;
  ck_assert_int_eq(res->kind, IPS_RESULT_OK);
  ck_assert_ptr_nonnull(res->metering_json);
  ck_assert_uint_gt(res->metering_json_len, 0);
  host.metering_json = NULL;
  host.metering_json_len = 0;
  ck_assert_int_eq(ips_slog_deliver_result(slog_child, 1, "v1", 1, res), 0);
  ck_assert_int_eq(ips_slog_deliver_result(slog_host, 1, "v1", 1, &host), 0);
  echoed++;
}

static char *slurp_line(const char *p, int nth) {
  static char line[8192];
  FILE *f = fopen(p, "r");
  int i;
  ck_assert_ptr_nonnull(f);
  for (i = 0; i <= nth; i++)
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
  fclose(f);
  return line;
}

START_TEST(test_one_parse) {
  static const char *cases[] = {
      /* ours, valid */
      "{\"compute\":3,\"timestamps\":[1795300856.504300,1795300856.504350,"
      "1795300856.504600,1795300856.504700],\"ipcstamp\":{\"v\":1,"
      "\"kinds\":\"dure\",\"mono\":[1,2,3,4],\"dropped\":0}}",
      /* xsnap's plain list, with spaces and escapes to re-serialise */
      " { \"timestamps\" : [ 1.5 , 2.5E0 ] , \"x\":\"\\u00e9\\/\\u0000\" } ",
      /* valid JSON, invalid metering: still embedded as JSON */
      "{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":99},\"y\":[true,null]}",
      "[1,2,3]",
      "{\"timestamps\":\"no\",\"timestamps\":1}",
      /* not JSON, or not JSON strict readers accept: base64 */
      "{\"timestamps\":[1,2],",
      "{\"a\":\"\xed\xa0\x80\"}",
      "{\"\xed\xa0\x80\":1}",
      "\xff\xfe",
      "{} {}",
  };
  char deep[300], p1[600], p2[600], *l1;
  ips_child_t *w = spawn_peer("echo-metering", 0);
  parent_res_t r;
  size_t i, ncases = sizeof cases / sizeof *cases;
  snprintf(p1, sizeof p1, "%s/one-parse-child-%d", parent_tmpdir(),
           (int)getpid());
  snprintf(p2, sizeof p2, "%s/one-parse-host-%d", parent_tmpdir(),
           (int)getpid());
  ck_assert_int_eq(ips_slog_open(&slog_child, p1, IPS_SLOG_FORCE, 0, NULL),
                   0);
  ck_assert_int_eq(ips_slog_open(&slog_host, p2, IPS_SLOG_FORCE, 0, NULL), 0);
  echoed = 0;
  for (i = 0; i < ncases + 2; i++) {
    const char *m = i < ncases ? cases[i] : deep;
    if (i >= ncases) {
      /* nesting at the limit (JSON), and one deeper (base64) */
      int d = IPS_JSON_MAX_DEPTH + (int)(i - ncases), k;
      for (k = 0; k < d; k++)
        deep[k] = '[', deep[2 * d - 1 - k] = ']';
      deep[2 * d] = 0;
    }
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(ips_child_deliver(w, m, strlen(m), on_echo, &r), 0);
    while (echoed < (int)i + 1)
      uv_run(&loop, UV_RUN_ONCE);
  }
  ck_assert_int_eq(ips_slog_close(slog_child), 0);
  ck_assert_int_eq(ips_slog_close(slog_host), 0);
  for (i = 0; i < ncases + 2; i++) {
    char want[8192];
    /* kernel-init-start and -finish, then deliver-result and crank-finish
     * for each. */
    snprintf(want, sizeof want, "%s", slurp_line(p2, 2 + 2 * (int)i));
    l1 = slurp_line(p1, 2 + 2 * (int)i);
    ck_assert_str_eq(l1, want);
    /* The base64 cases are exactly the ones that are not strict JSON. */
    ck_assert_msg((strstr(l1, "{\"base64\":") != NULL) ==
                      ((i >= 5 && i < ncases) || i == ncases + 1),
                  "case %zu: %s", i, l1);
  }
  unlink(p1);
  unlink(p2);
  close_all(&w, 1);
}
END_TEST

START_TEST(test_slog_uses_child_copy) {
  /* The writer takes metering_json as it is: it does not parse the raw
   * bytes again (this would fail if it did, as they differ here). */
  char p[600];
  ips_slog_t *s;
  ips_result_t res;
  ips_stamp_t st[2] = {{1, 1000, 'D', 0, 0}, {2, 2000, 'E', 0, 0}};
  snprintf(p, sizeof p, "%s/copy-%d", parent_tmpdir(), (int)getpid());
  memset(&res, 0, sizeof res);
  res.kind = IPS_RESULT_OK;
  res.message = "";
  res.data = "1";
  res.len = 1;
  res.metering_raw = "{}";
  res.metering_len = 2;
  res.metering_json = "[\"copied\"]";
  res.metering_json_len = 10;
  res.stamps = st;
  res.nstamps = 2;
  ck_assert_int_eq(ips_slog_open(&s, p, IPS_SLOG_FORCE, 0, NULL), 0);
  ck_assert_int_eq(ips_slog_deliver_result(s, 1, "v1", 1, &res), 0);
  ck_assert_int_eq(ips_slog_close(s), 0);
  ck_assert_ptr_nonnull(strstr(slurp_line(p, 2), "\"dr\":[\"ok\",1,[\"copied\"]]"));
  unlink(p);
}
END_TEST

/* No callback runs inside the call that started its operation: not
 * start_cb nor the result inside ips_child_deliver, not the cancelled
 * results inside ips_child_close (they come from the loop, in order, before
 * the close callback). */
static int inside_api, order[8], norder, starts, closed_at;
static void start_outside(ips_child_t *w, void *arg, const ips_stamp_t *D) {
  ck_assert_msg(!inside_api, "start_cb called inside the API call");
  starts++;
}
static void result_outside(ips_child_t *w, void *arg,
                           const ips_result_t *res) {
  ck_assert_msg(!inside_api, "result callback called inside the API call");
  ck_assert_int_lt(norder, 8);
  order[norder++] = (int)(intptr_t)arg;
  if ((int)(intptr_t)arg > 0) {
    ck_assert_int_eq(res->kind, IPS_RESULT_FAULT);
    ck_assert_int_eq(res->status, -ECANCELED);
  }
}
static void closed_outside(ips_child_t *w) {
  ck_assert_msg(!inside_api, "close callback called inside ips_child_close");
  closed_at = norder;
  closed++;
}

START_TEST(test_no_callback_inside_call) {
  ips_child_options_t o;
  ips_child_t *w;
  char *args[] = {"peer", "--peer", "hang", NULL};
  int i;
  ips_child_options_init(&o);
  o.file = parent_self_exe();
  o.args = args;
  o.start_cb = start_outside;
  ck_assert_int_eq(ips_child_spawn(&loop, &o, &w), 0);
  norder = starts = 0;
  closed_at = -1;
  inside_api = 1;
  for (i = 0; i < 4; i++)
    ck_assert_int_eq(ips_child_deliver(w, "x", 1, result_outside,
                                       (void *)(intptr_t)(i + 1)),
                     0);
  inside_api = 0;
  ck_assert_int_eq(starts, 0);
  /* The first is written from the loop; the peer never answers. */
  while (starts == 0)
    uv_run(&loop, UV_RUN_ONCE);
  ck_assert_int_eq(norder, 0);
  inside_api = 1;
  ips_child_close(w, closed_outside);
  inside_api = 0;
  ck_assert_int_eq(norder, 0);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(closed, 1);
  ck_assert_int_eq(starts, 1);
  ck_assert_int_eq(norder, 4);
  for (i = 0; i < 4; i++)
    ck_assert_int_eq(order[i], i + 1);
  ck_assert_int_eq(closed_at, 4);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(test_options_init) {
  /* The documented defaults, whatever was in the struct before. */
  ips_child_options_t o;
  memset(&o, 0xa5, sizeof o);
  ips_child_options_init(&o);
  ck_assert_ptr_null(o.file);
  ck_assert_ptr_null(o.args);
  ck_assert_ptr_null(o.env);
  ck_assert_ptr_null(o.cwd);
  ck_assert_uint_eq(o.max_frame, IPS_DEFAULT_MAX_FRAME);
  ck_assert_uint_eq(o.timeout_ms, 0);
  ck_assert_uint_eq(o.max_upcalls, 0);
  ck_assert_ptr_null(o.upcall_cb);
  ck_assert_ptr_null(o.start_cb);
  ck_assert_ptr_null(o.console_cb);
  ck_assert_ptr_null(o.exit_cb);
  ck_assert_ptr_null(o.data);
}
END_TEST

START_TEST(test_spawn_missing) {
  ips_child_options_t o;
  ips_child_t *w = NULL;
  ips_child_options_init(&o);
  o.file = "/nonexistent/worker";
  ck_assert_int_eq(ips_child_spawn(&loop, &o, &w), UV_ENOENT);
  ck_assert_ptr_null(w);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, res = 0;
  if (!f)
    return -1;
  if (fscanf(f, "%ld %ld", &pages, &res) != 2)
    res = -1;
  fclose(f);
  return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static int remaining;
static void chain(ips_child_t *w, void *arg, const ips_result_t *res) {
  long *at1000 = arg;
  ck_assert_int_eq(res->kind, IPS_RESULT_OK);
  if (--remaining == 9000)
    *at1000 = rss_kb();
  if (remaining > 0)
    ck_assert_int_eq(ips_child_deliver(w, "up:1", 4, chain, arg), 0);
  /* Queuing from the callback leaves this result's stamps alone. */
  ck_assert_uint_eq(res->nstamps, 4);
  ck_assert_int_eq(res->stamps[0].kind, 'D');
  ck_assert_int_eq(res->stamps[3].kind, 'E');
}

START_TEST(test_memory_flat) {
  ips_child_t *w = spawn_peer("good", 0);
  long at1000 = 0, at10000;
  remaining = 10000;
  ck_assert_int_eq(ips_child_deliver(w, "up:1", 4, chain, &at1000), 0);
  while (remaining > 0)
    uv_run(&loop, UV_RUN_ONCE);
  at10000 = rss_kb();
  /* Generous: a leak of even 100 bytes per delivery would show.  ASan's
   * quarantine keeps freed memory resident, so there LeakSanitizer (at
   * exit) does this job instead. */
#if !defined(__SANITIZE_ADDRESS__)
  ck_assert_msg(at10000 - at1000 < 512, "RSS grew from %ld kB to %ld kB",
                at1000, at10000);
#else
  (void)at10000;
#endif
  close_all(&w, 1);
}
END_TEST

Suite *worker_suite(void) {
  Suite *s = suite_create("worker");
  TCase *tc = tcase_create("Core");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_options_init);
  tcase_add_test(tc, test_no_callback_inside_call);
  tcase_add_test(tc, test_one_parse);
  tcase_add_test(tc, test_slog_uses_child_copy);
  tcase_add_test(tc, test_stamp_order);
  tcase_add_test(tc, test_queue_and_error);
  tcase_add_test(tc, test_console);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_memory_flat);
  tcase_add_test(tc, test_timeout);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_garbage);
  tcase_add_test(tc, test_huge);
  tcase_add_test(tc, test_exit_in_upcall);
  tcase_add_test(tc, test_sigkill);
  tcase_add_test(tc, test_bad_metering);
  tcase_add_test(tc, test_spawn_missing);
  tcase_add_test(tc, test_console_flood);
  suite_add_tcase(s, tc);
  return s;
}
