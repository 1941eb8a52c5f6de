/* bench_rundelay — what the run-queue delay (IPCSTAMP_RUN_DELAY)
 * costs, against cpu_ns (IPCSTAMP_CPU_TIME), each as a ratio in one run.
 *
 * 1. Per reading: ips_runq_take() (a pread() of /proc/thread-self/schedstat
 *    and its parse; one per stamp) against one read of the process's CPU
 *    clock (cpu_ns reads it twice per command), A/B alternating.
 * 2. Per delivery: three ipcstamp-worker-c processes, stamps on in each:
 *    one with IPCSTAMP_RUN_DELAY=1, one with IPCSTAMP_CPU_TIME=1, one with
 *    neither, driven alternately by a blocking C parent (tests/
 *    worker_driver.c), for an empty delivery and a 4-upcall one: the
 *    run-delay worker against the cpu_ns one, and each against neither.
 *    The run-delay worker reads 2 + 2k times a delivery of k upcalls, the
 *    cpu_ns one twice, whatever k.
 * Everything is pinned to one CPU (bench_pin).
 *
 * usage: bench_rundelay [rounds]   (default 41) */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "worker_driver.h"

#define N 20000        /* readings per batch */
#define DELIVERIES 300 /* per batch */

static void die(const char *what, int rc) {
  fprintf(stderr, "bench_rundelay: %s: %s\n", what, ips_strerror(rc));
  exit(1);
}

static double runq_batch(void *ctx) {
  ips_runq_t *q = ctx;
  int64_t t0 = bench_now_ns(), d, sink = 0;
  int i;
  for (i = 0; i < N; i++) {
    if (ips_runq_take(q, &d) != 0) die("ips_runq_take", IPS_ERUNQ);
    sink += d;
  }
  if (sink == -1) putchar(' ');
  return (double)(bench_now_ns() - t0) / 1e9 / N;
}

static double clock_batch(void *ctx) {
  clockid_t c = *(clockid_t *)ctx;
  int64_t t0 = bench_now_ns(), sink = 0;
  struct timespec ts;
  int i;
  for (i = 0; i < N; i++) {
    clock_gettime(c, &ts);
    sink += ts.tv_nsec;
  }
  if (sink == -1) putchar(' ');
  return (double)(bench_now_ns() - t0) / 1e9 / N;
}

static void deliver(wd_t *d, const char *cmd, size_t n) {
  const char *f;
  size_t len;
  int rc = wd_deliver_null(d, cmd, n, &f, &len);
  if (rc < 0) die("deliver", rc);
  if (rc > 0) {
    fprintf(stderr, "bench_rundelay: unexpected answer '%.*s'\n",
            (int)(len > 200 ? 200 : len), f);
    exit(1);
  }
}

typedef struct {
  wd_t *w;
  const char *cmd;
} batch_t;

static double delivery_batch(void *ctx) {
  batch_t *b = ctx;
  size_t n = strlen(b->cmd);
  int64_t t0 = bench_now_ns();
  int i;
  for (i = 0; i < DELIVERIES; i++) deliver(b->w, b->cmd, n);
  return (double)(bench_now_ns() - t0) / 1e9 / DELIVERIES;
}

static void spawn(wd_t *d, const char *const *env) {
  const char *path = wd_path("worker/ipcstamp-worker-c");
  const char *argv[] = {path, NULL};
  int rc = wd_spawn(d, path, argv, env, 0);
  if (rc) die("spawn worker/ipcstamp-worker-c", rc);
  deliver(d, "", 0);
}

static bench_ab_t pair(wd_t *a, wd_t *b, const char *cmd, int rounds) {
  batch_t x = {a, cmd}, y = {b, cmd};
  return bench_compare(delivery_batch, &x, delivery_batch, &y, rounds);
}

int main(int argc, char **argv) {
  static const char *const rq_env[] = {"IPCSTAMP_RUN_DELAY=1",
                                       "IPCSTAMP_CPU_TIME=0", NULL};
  static const char *const cpu_env[] = {"IPCSTAMP_RUN_DELAY=0",
                                        "IPCSTAMP_CPU_TIME=1", NULL};
  static const char *const none_env[] = {"IPCSTAMP_RUN_DELAY=0",
                                         "IPCSTAMP_CPU_TIME=0", NULL};
  static const struct {
    const char *label, *cmd;
  } kinds[] = {{"empty", ""}, {"4 upcalls", "{\"upcalls\":4}"}};
  int rounds = argc > 1 ? atoi(argv[1]) : 41, cpu;
  clockid_t cpuclock = CLOCK_PROCESS_CPUTIME_ID, mono = CLOCK_MONOTONIC;
  ips_runq_t q;
  bench_ab_t r;
  wd_t rq, cp, none;
  size_t k;

  if (rounds < 3) rounds = 3;
  cpu = bench_pin();
  if (ips_runq_open(&q) != 0) die("/proc/thread-self/schedstat", IPS_ERUNQ);
  printf("# bench_rundelay: %d rounds, %s\n", rounds,
         cpu >= 0 ? "pinned to one CPU" : "not pinned");
  printf("# per reading (%d a batch), median of per-round ratios:\n", N);
  r = bench_compare(runq_batch, &q, clock_batch, &cpuclock, rounds);
  printf("run-queue delay %7.1f ns  vs CPU clock (cpu_ns) %7.1f ns  ratio "
         "%.2f (quartiles %.2f-%.2f)\n",
         r.a * 1e9, r.b * 1e9, r.ratio, r.q1, r.q3);
  r = bench_compare(runq_batch, &q, clock_batch, &mono, rounds);
  printf("run-queue delay %7.1f ns  vs vDSO monotonic   %7.1f ns  ratio "
         "%.2f (quartiles %.2f-%.2f)\n",
         r.a * 1e9, r.b * 1e9, r.ratio, r.q1, r.q3);
  ips_runq_close(&q);

  spawn(&rq, rq_env);
  spawn(&cp, cpu_env);
  spawn(&none, none_env);
  printf("# per delivery (%d a batch) through ipcstamp-worker-c, stamps on\n",
         DELIVERIES);
  for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    bench_ab_t a = pair(&rq, &cp, kinds[k].cmd, rounds);
    bench_ab_t b = pair(&rq, &none, kinds[k].cmd, rounds);
    bench_ab_t c = pair(&cp, &none, kinds[k].cmd, rounds);
    printf("%-9s run delay %6.2f us  cpu_ns %6.2f us  ratio %.3f "
           "(quartiles %.3f-%.3f)\n",
           kinds[k].label, a.a * 1e6, a.b * 1e6, a.ratio, a.q1, a.q3);
    printf("%-9s vs neither: run delay x%.3f (+%.2f us), cpu_ns x%.3f "
           "(+%.2f us)\n",
           "", b.ratio, (b.a - b.b) * 1e6, c.ratio, (c.a - c.b) * 1e6);
  }
  wd_free(&rq);
  wd_free(&cp);
  wd_free(&none);
  return 0;
}
