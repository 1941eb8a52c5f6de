/* check_run_delay.c — the pipe split end to end: `ipcstamp run
 * --run-delay` with real ipcstamp-worker-c processes, then `ipcstamp
 * report --format json`, on a deliberately loaded CPU and at rest.
 *
 * What is asserted is only what is certain on a busy machine:
 *   - always: transit + waiting (+ not measured, 0 here: both sides
 *     measured) is the pipe, to the ns, per delivery and in the summary;
 *     no segment waits longer than it lasts; runnable + blocked is the
 *     worker's off-CPU time;
 *   - loaded (a busy process pinned with sched_setaffinity to the CPU the
 *     run is pinned to, at nice 0 against the run's nice 10): the run's
 *     processes get about a tenth of that CPU, so the ping-pong of
 *     upcalls, which would keep it busy, must spend most of its time
 *     runnable and waiting, at its wake-ups: the waiting share of pipe is
 *     at least a half (it is 97-99.9% here, against 50-60% at rest on
 *     this loaded 2-core machine), and the delivery whose worker spins
 *     20 ms of wall time is at least a quarter runnable (a forced wait);
 *   - at rest: a worker that sleeps 2 ms is blocked, not runnable, for
 *     at least half of it.
 * The shares themselves are printed, for the log. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "loaded_cpu.h"
#include "run_suites.h"

#define NDELIV 60

static long long num(yajl_val o, const char *k) {
  const char *p[] = {k, NULL};
  yajl_val v = yajl_tree_get(o, p, yajl_t_number);
  ck_assert_msg(v && YAJL_IS_INTEGER(v), "no integer %s", k);
  return YAJL_GET_INTEGER(v);
}

static int has(yajl_val o, const char *k) {
  const char *p[] = {k, NULL};
  return yajl_tree_get(o, p, yajl_t_any) != NULL;
}

typedef struct {
  long long pipe, wait, spin_worker, spin_runnable, sleep_blocked;
  int deliveries;
} seen_t;

/* One delivery of the report: the exact sums, and the two marked ones. */
static void delivery(yajl_val d, seen_t *s) {
  const char *sp[] = {"segments", NULL}, *wp[] = {"segments_wait_ns", NULL};
  yajl_val segs = yajl_tree_get(d, sp, yajl_t_array);
  yajl_val waits = yajl_tree_get(d, wp, yajl_t_array);
  long long pipe = num(d, "pipe_ns"), w = num(d, "pipe_wait_ns");
  size_t j;
  ck_assert_ptr_nonnull(segs);
  ck_assert_ptr_nonnull(waits);
  ck_assert_uint_eq(waits->u.array.len, segs->u.array.len);
  ck_assert_int_eq(num(d, "pipe_unsplit_ns"), 0);
  ck_assert_int_eq(num(d, "pipe_transit_ns") + w, pipe);
  for (j = 0; j < segs->u.array.len; j++) {
    yajl_val seg = segs->u.array.values[j], wj = waits->u.array.values[j];
    const char *k = YAJL_GET_STRING(seg->u.array.values[0]);
    long long len = YAJL_GET_INTEGER(seg->u.array.values[1]);
    int pipe_seg = !strcmp(k, "send") || !strcmp(k, "upcall") ||
                   !strcmp(k, "reply") || !strcmp(k, "result");
    ck_assert_msg(pipe_seg ? YAJL_IS_INTEGER(wj) : YAJL_IS_NULL(wj),
                  "segment %zu (%s): wait %s", j, k,
                  YAJL_IS_NULL(wj) ? "null" : "set");
    if (pipe_seg) {
      ck_assert_int_ge(YAJL_GET_INTEGER(wj), 0);
      ck_assert_int_le(YAJL_GET_INTEGER(wj), len > 0 ? len : 0);
    }
  }
  ck_assert_int_eq(num(d, "runnable_ns") + num(d, "blocked_ns"),
                   num(d, "offcpu_ns"));
  if (num(d, "worker_ns") > s->spin_worker && num(d, "deliveryNum") == 1) {
    s->spin_worker = num(d, "worker_ns");
    s->spin_runnable = num(d, "runnable_ns");
  }
  if (num(d, "deliveryNum") == 2)
    s->sleep_blocked = num(d, "blocked_ns");
  s->pipe += pipe;
  s->wait += w;
  s->deliveries++;
}

/* Run the workload with --run-delay, report it, check every delivery and
 * the summary's sums. */
static void run_and_check(seen_t *s) {
  const char *b = getenv("IPCSTAMP_BUILDDIR");
  char worker[1100], out[700], *text, *line, *next;
  const char *args[] = {"run", "--run-delay", "--worker", worker, "--workload",
                        wl, "--slog", slog, "--quiet", NULL};
  const char *rep[] = {"report", "--format", "json", slog, NULL};
  FILE *f;
  int i, summary = 0;
  snprintf(worker, sizeof worker, "%s/worker/ipcstamp-worker-c",
           b ? b : ".");
  snprintf(out, sizeof out, "%s.json", slog);
  f = fopen(wl, "w");
  ck_assert_ptr_nonnull(f);
  /* #1 spins (a forced wait when loaded), #2 sleeps, then a ping-pong */
  fputs("{\"vat\":\"v1\",\"vd\":{\"upcalls\":1,\"spin_us\":20000}}\n"
        "{\"vat\":\"v1\",\"vd\":{\"upcalls\":1,\"sleep_us\":2000}}\n", f);
  for (i = 0; i < NDELIV; i++)
    fputs("{\"vat\":\"v1\",\"vd\":{\"upcalls\":3}}\n", f);
  fclose(f);
  memset(s, 0, sizeof *s);
  ck_assert_int_eq(run(args), 0);
  ck_assert_int_eq(finish(start_to(rep, out)), 0);
  text = slurp(out);
  for (line = text; *line; line = next) {
    char err[200];
    yajl_val o;
    next = strchr(line, '\n');
    next = next ? (*next = 0, next + 1) : line + strlen(line);
    o = yajl_tree_parse(line, err, sizeof err);
    ck_assert_msg(o != NULL, "not JSON: %s", err);
    if (has(o, "summary")) {
      const char *p[] = {"summary", NULL};
      yajl_val sm = yajl_tree_get(o, p, yajl_t_object);
      ck_assert_int_eq(num(sm, "wait_deliveries"), NDELIV + 2);
      ck_assert_int_eq(num(sm, "wait_pipe_ns"), num(sm, "pipe_ns"));
      ck_assert_int_eq(num(sm, "pipe_transit_ns") + num(sm, "pipe_wait_ns") +
                           num(sm, "pipe_unsplit_ns"),
                       num(sm, "pipe_ns"));
      ck_assert_int_eq(num(sm, "pipe_wait_ns"), s->wait);
      ck_assert_int_eq(num(sm, "split_runnable_ns") + num(sm, "blocked_ns"),
                       num(sm, "split_offcpu_ns"));
      summary = 1;
    } else {
      delivery(o, s);
    }
    yajl_tree_free(o);
  }
  free(text);
  ck_assert(summary);
  ck_assert_int_eq(s->deliveries, NDELIV + 2);
  ck_assert_int_gt(s->pipe, 0);
}

START_TEST(rd_loaded) {
  loaded_cpu_t l;
  seen_t s;
  ck_assert_int_eq(loaded_cpu_start(&l), 0);
  run_and_check(&s);
  loaded_cpu_stop(&l);
  fprintf(stderr, "loaded CPU %d: waiting for a CPU %.1f%% of pipe (%.3f of "
          "%.3f ms); the spinning worker runnable %.1f%% of its %.3f ms\n",
          l.cpu, 100.0 * s.wait / s.pipe, s.wait / 1e6, s.pipe / 1e6,
          100.0 * s.spin_runnable / s.spin_worker, s.spin_worker / 1e6);
  ck_assert_int_ge(2 * s.wait, s.pipe);
  ck_assert_int_ge(s.spin_worker, 20000000);
  ck_assert_int_ge(4 * s.spin_runnable, s.spin_worker);
}
END_TEST

START_TEST(rd_at_rest) {
  seen_t s;
  run_and_check(&s);
  fprintf(stderr, "at rest: waiting for a CPU %.1f%% of pipe (%.3f of %.3f "
          "ms, %.2f us a delivery)\n",
          100.0 * s.wait / s.pipe, s.wait / 1e6, s.pipe / 1e6,
          s.wait / 1e3 / s.deliveries);
  ck_assert_int_ge(2 * s.sleep_blocked, 2000000);
}
END_TEST

Suite *run_delay_suite(void) {
  Suite *s = suite_create("run-queue delay");
  TCase *tc = tcase_create("Core");
  /* Loaded, the run gets a tenth of a CPU: seconds, not the default 4. */
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, run_setup, NULL);
  tcase_add_test(tc, rd_at_rest);
  tcase_add_test(tc, rd_loaded);
  suite_add_tcase(s, tc);
  return s;
}
