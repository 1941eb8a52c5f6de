/* check_parent_real.c — the parent with the project's real workers,
 * ipcstamp-worker-c and ipcstamp-worker-js (built in worker/). */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipcstamp-ring.h"
#include "parent_suites.h"

static uv_loop_t loop;
static char cworker[1024], jsworker[1024];
static int upcalls_seen;

static void setup(void) {
  const char *b = getenv("IPCSTAMP_BUILDDIR");
  ck_assert_msg(b != NULL, "IPCSTAMP_BUILDDIR is not set");
  snprintf(cworker, sizeof cworker, "%s/worker/ipcstamp-worker-c", b);
  snprintf(jsworker, sizeof jsworker, "%s/worker/ipcstamp-worker-js", b);
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  upcalls_seen = 0;
}

static void reply_ok(ips_child_t *w, void *arg, const char *p, size_t n,
                     const ips_stamp_t *U) {
  upcalls_seen++;
  ck_assert_int_eq(ips_child_reply(w, "[\"ok\",null]", 11, NULL), 0);
}

static void on_result(ips_child_t *w, void *arg, const ips_result_t *res) {
  parent_res_copy(arg, res);
}

static ips_child_t *spawn(const char *path) {
  ips_child_options_t o;
  ips_child_t *w;
  memset(&o, 0, sizeof o);
  o.file = path;
  o.upcall_cb = reply_ok;
  ck_assert_int_eq(ips_child_spawn(&loop, &o, &w), 0);
  return w;
}

static void wait_for(parent_res_t *r) {
  while (!r->done)
    uv_run(&loop, UV_RUN_ONCE);
}

static void close_one(ips_child_t *w) {
  ips_child_close(w, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
}

/* D <= d <= u1 <= U1 <= R1 <= r1 <= ... <= e <= E on mono. */
static void assert_order(const parent_res_t *r) {
  size_t i, n = r->m.n;
  ck_assert_msg(r->has_metering, "no metering: %s", r->metering_error);
  ck_assert_ptr_nonnull(r->m.mono_ns);
  ck_assert_uint_eq(r->nstamps, n);
  ck_assert(r->stamps[0].mono_ns <= r->m.mono_ns[0]);
  for (i = 1; i + 1 < n; i += 2) {
    ck_assert(r->m.mono_ns[i - 1] <= r->m.mono_ns[i]);     /* .. <= u */
    ck_assert(r->m.mono_ns[i] <= r->stamps[i].mono_ns);     /* u <= U */
    ck_assert(r->stamps[i].mono_ns <= r->stamps[i + 1].mono_ns); /* U<=R */
    ck_assert(r->stamps[i + 1].mono_ns <= r->m.mono_ns[i + 1]);  /* R<=r */
  }
  ck_assert(r->m.mono_ns[n - 2] <= r->m.mono_ns[n - 1]);
  ck_assert(r->m.mono_ns[n - 1] <= r->stamps[n - 1].mono_ns); /* e <= E */
}

/* Self-monitoring: the attribution callback gets each delivery's split,
 * in process, before its result, exactly as the stamps make it. */
static int attributions;
static ips_ring_attribution_t last_a;

static void on_attribution(ips_child_t *w, void *arg,
                           const ips_ring_attribution_t *a) {
  parent_res_t *r = arg;
  (void)w;
  ck_assert(!r->done); /* before the result callback */
  attributions++;
  last_a = *a;
}

START_TEST(test_attribution_cb) {
  ips_child_options_t o;
  ips_child_t *w;
  parent_res_t r;
  const char *cmd = "{\"upcalls\":2,\"spin_us\":100}";
  int64_t pipe, kernel;
  size_t i;
  ips_child_options_init(&o);
  o.file = cworker;
  o.upcall_cb = reply_ok;
  o.attribution_cb = on_attribution;
  o.ring_vat = "v7";
  attributions = 0;
  ck_assert_int_eq(ips_child_spawn(&loop, &o, &w), 0);
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(ips_child_deliver(w, cmd, strlen(cmd), on_result, &r), 0);
  wait_for(&r);
  ck_assert_msg(r.kind == IPS_RESULT_OK, "%s", r.message);
  ck_assert_int_eq(attributions, 1);
  ck_assert_str_eq(last_a.vat, "v7");
  /* The formula, from the stamps the result carried. */
  ck_assert_uint_eq(r.nstamps, 6);
  pipe = (r.m.mono_ns[0] - r.stamps[0].mono_ns) +
         (r.stamps[5].mono_ns - r.m.mono_ns[5]);
  kernel = 0;
  for (i = 1; i < 5; i += 2) {
    pipe += (r.stamps[i].mono_ns - r.m.mono_ns[i]) +
            (r.m.mono_ns[i + 1] - r.stamps[i + 1].mono_ns);
    kernel += r.stamps[i + 1].mono_ns - r.stamps[i].mono_ns;
  }
  ck_assert_int_eq(last_a.total_ns, r.stamps[5].mono_ns - r.stamps[0].mono_ns);
  ck_assert_int_eq(last_a.pipe_ns, pipe);
  ck_assert_int_eq(last_a.kernel_ns, kernel);
  ck_assert_int_eq(last_a.pipe_ns + last_a.worker_ns + last_a.kernel_ns,
                   last_a.total_ns);
  ck_assert_int_ge(last_a.worker_ns, 100000); /* the spin */
  parent_res_free(&r);
  /* An error result is not split. */
  cmd = "{\"fail\":\"boom\"}";
  ck_assert_int_eq(ips_child_deliver(w, cmd, strlen(cmd), on_result, &r), 0);
  wait_for(&r);
  ck_assert_int_eq(attributions, 1);
  parent_res_free(&r);
  close_one(w);
}
END_TEST

START_TEST(test_c_worker) {
  ips_child_t *w = spawn(cworker);
  parent_res_t r;
  const char *cmd =
      "{\"upcalls\":3,\"spin_us\":200,\"reply_bytes\":64,\"upcall_bytes\":32}";
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(ips_child_deliver(w, cmd, strlen(cmd), on_result, &r), 0);
  wait_for(&r);
  ck_assert_msg(r.kind == IPS_RESULT_OK, "%s", r.message);
  ck_assert_int_eq(upcalls_seen, 3);
  ck_assert_str_eq(r.m.kinds, "dururure");
  assert_order(&r);
  ck_assert_uint_eq(r.len, 64);
  parent_res_free(&r);
  /* '!' is an error result and the worker lives on. */
  cmd = "{\"fail\":\"boom\"}";
  ck_assert_int_eq(ips_child_deliver(w, cmd, strlen(cmd), on_result, &r), 0);
  wait_for(&r);
  ck_assert_int_eq(r.kind, IPS_RESULT_ERROR);
  ck_assert_str_eq(r.message, "boom");
  parent_res_free(&r);
  /* The empty delivery of the benchmark. */
  ck_assert_int_eq(ips_child_deliver(w, "", 0, on_result, &r), 0);
  wait_for(&r);
  ck_assert_int_eq(r.kind, IPS_RESULT_OK);
  assert_order(&r);
  parent_res_free(&r);
  close_one(w);
}
END_TEST

/* A delivery queued from the result callback starts at once (after the
 * callback returns) and leaves nothing deferred: the loop then blocks in
 * one poll per delivery, not two (an idle handle left active
 * made every such delivery cost an extra non-blocking epoll_wait).  A
 * check handle counts the loop's iterations. */
static int chain_left, iterations;
static void count_iteration(uv_check_t *h) { iterations++; }
static void chain(ips_child_t *w, void *arg, const ips_result_t *res) {
  ck_assert_int_eq(res->kind, IPS_RESULT_OK);
  if (--chain_left > 0)
    ck_assert_int_eq(ips_child_deliver(w, "", 0, chain, NULL), 0);
}

START_TEST(test_chained_deliveries_one_poll) {
  ips_child_t *w = spawn(cworker);
  uv_check_t check;
  int n = 200;
  chain_left = 1;
  ck_assert_int_eq(ips_child_deliver(w, "", 0, chain, NULL), 0);
  while (chain_left > 0) /* started, and warm */
    uv_run(&loop, UV_RUN_ONCE);
  ck_assert_int_eq(uv_check_init(&loop, &check), 0);
  ck_assert_int_eq(uv_check_start(&check, count_iteration), 0);
  iterations = 0;
  chain_left = n;
  ck_assert_int_eq(ips_child_deliver(w, "", 0, chain, NULL), 0);
  while (chain_left > 0)
    uv_run(&loop, UV_RUN_ONCE);
  /* one iteration per result (a reply split over two reads adds one);
   * with the extra poll it was two */
  ck_assert_msg(iterations <= n + n / 4, "%d loop iterations for %d deliveries",
                iterations, n);
  uv_close((uv_handle_t *)&check, NULL);
  close_one(w);
}
END_TEST

/* An upcall reply larger than the pipe holds: the first part goes in the
 * one writev, the rest is copied for libuv to finish (write_bufs); the
 * worker reads the frame whole or reports its framing broken. */
static char *big_reply;
static size_t big_len;
static void reply_big(ips_child_t *w, void *arg, const char *p, size_t n,
                      const ips_stamp_t *U) {
  upcalls_seen++;
  ck_assert_int_eq(ips_child_reply(w, big_reply, big_len, NULL), 0);
}

START_TEST(test_reply_larger_than_the_pipe) {
  ips_child_options_t o;
  ips_child_t *w;
  parent_res_t r;
  size_t i;
  big_len = 3u << 20;
  big_reply = malloc(big_len);
  ck_assert_ptr_nonnull(big_reply);
  big_reply[0] = '"';
  for (i = 1; i + 1 < big_len; i++)
    big_reply[i] = (char)('a' + i % 26);
  big_reply[big_len - 1] = '"';
  memset(&o, 0, sizeof o);
  o.file = cworker;
  o.upcall_cb = reply_big;
  ck_assert_int_eq(ips_child_spawn(&loop, &o, &w), 0);
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(ips_child_deliver(w, "{\"upcalls\":3}", 13, on_result, &r), 0);
  wait_for(&r);
  ck_assert_int_eq(r.kind, IPS_RESULT_OK);
  ck_assert_int_eq(upcalls_seen, 3);
  parent_res_free(&r);
  close_one(w);
  free(big_reply);
}
END_TEST

START_TEST(test_c_worker_exits) {
  ips_child_t *w = spawn(cworker);
  parent_res_t r;
  const char *cmd = "{\"upcalls\":1,\"exit\":3}";
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(ips_child_deliver(w, cmd, strlen(cmd), on_result, &r), 0);
  wait_for(&r);
  ck_assert_int_eq(r.kind, IPS_RESULT_FAULT);
  ck_assert_msg(strstr(r.message, "exited with code 3") != NULL, "%s",
                r.message);
  parent_res_free(&r);
  close_one(w);
}
END_TEST

START_TEST(test_js_worker) {
  ips_child_t *w = spawn(jsworker);
  parent_res_t r;
  const char *src =
      "function handleCommand(buf) {\n"
      "  var n = new Uint8Array(buf).length;\n"
      "  var v = issueStringCommand(JSON.stringify(['vatstoreGet', 'k']));\n"
      "  issueStringCommand(JSON.stringify(['log', n]));\n"
      "  return JSON.stringify({n: n, v: JSON.parse(v)});\n"
      "}\n";
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(ips_child_evaluate(w, src, strlen(src), on_result, &r),
                   0);
  wait_for(&r);
  ck_assert_msg(r.kind == IPS_RESULT_OK, "%s", r.message);
  parent_res_free(&r);
  ck_assert_int_eq(ips_child_deliver(w, "hello", 5, on_result, &r), 0);
  wait_for(&r);
  ck_assert_msg(r.kind == IPS_RESULT_OK, "%s", r.message);
  ck_assert_str_eq(r.data, "{\"n\":5,\"v\":[\"ok\",null]}");
  ck_assert_str_eq(r.m.kinds, "durure");
  assert_order(&r);
  parent_res_free(&r);
  /* A JavaScript exception is a '!' result. */
  src = "throw new Error('nope')";
  ck_assert_int_eq(ips_child_evaluate(w, src, strlen(src), on_result, &r),
                   0);
  wait_for(&r);
  ck_assert_int_eq(r.kind, IPS_RESULT_ERROR);
  ck_assert_msg(strstr(r.message, "nope") != NULL, "%s", r.message);
  parent_res_free(&r);
  close_one(w);
}
END_TEST

static void kill_soon(uv_timer_t *t) { ips_child_kill(t->data); }

START_TEST(test_js_worker_sigkill) {
  ips_child_t *w = spawn(jsworker);
  parent_res_t r;
  uv_timer_t t;
  const char *src = "function handleCommand(b) { for (;;) {} }";
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(ips_child_evaluate(w, src, strlen(src), on_result, &r),
                   0);
  wait_for(&r);
  parent_res_free(&r);
  ck_assert_int_eq(ips_child_deliver(w, "x", 1, on_result, &r), 0);
  uv_timer_init(&loop, &t);
  t.data = w;
  uv_timer_start(&t, kill_soon, 50, 0);
  wait_for(&r);
  ck_assert_int_eq(r.kind, IPS_RESULT_FAULT);
  ck_assert_msg(strstr(r.message, "killed by signal 9") != NULL, "%s",
                r.message);
  parent_res_free(&r);
  uv_close((uv_handle_t *)&t, NULL);
  close_one(w);
}
END_TEST

Suite *real_worker_suite(void) {
  Suite *s = suite_create("real workers");
  TCase *tc = tcase_create("Core");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_c_worker);
  tcase_add_test(tc, test_attribution_cb);
  tcase_add_test(tc, test_chained_deliveries_one_poll);
  tcase_add_test(tc, test_reply_larger_than_the_pipe);
  tcase_add_test(tc, test_js_worker);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_c_worker_exits);
  tcase_add_test(tc, test_js_worker_sigkill);
  suite_add_tcase(s, tc);
  return s;
}
