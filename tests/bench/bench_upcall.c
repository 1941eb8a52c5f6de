/* bench_upcall — what one upcall round trip costs between a parent and
 * ipcstamp-worker-c over real pipes, and what the stamps cost per delivery.
 *
 * 1. Upcall round trip: (time of a delivery making N upcalls − time of an
 *    empty delivery) / N, stamps on, median over rounds.
 * 2. Stamps on vs off: two workers, one with IPCSTAMP_DISABLE=1, driven
 *    alternately in the same run (the order flips every round), for an empty
 *    delivery and for a 4-upcall one; the ratio is taken per round and the
 *    median reported, since these machines are shared and noisy.
 *
 * The driver is the blocking one of the tests (fork+exec, fds 3/4), with a
 * loop that allocates nothing per delivery; it and the workers are pinned
 * to one CPU (bench_pin).
 *
 * usage: bench_upcall [rounds]        (make bench runs it with the default)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "worker_driver.h"

/* Many short rounds rather than a few long ones: load from other
 * processes then hits both sides of a round alike. */
#define DEFAULT_ROUNDS 41
#define UPCALLS 1000      /* per delivery, for the round-trip figure */
#define DELIVERIES 300    /* per round and side, for the stamp ratio */

static void die(const char *what, int rc) {
  fprintf(stderr, "bench_upcall: %s: %s\n", what, ips_strerror(rc));
  exit(1);
}

/* One delivery: send it, answer every upcall with "null", read the result. */
static void deliver(wd_t *d, const char *cmd, size_t n) {
  const char *f;
  size_t len;
  int rc = wd_deliver_null(d, cmd, n, &f, &len);
  if (rc < 0) die("deliver", rc);
  if (rc > 0) {
    fprintf(stderr, "bench_upcall: unexpected answer '%.*s'\n",
            (int)(len > 200 ? 200 : len), f);
    exit(1);
  }
}

/* Seconds per delivery over k deliveries. */
static double per_delivery(wd_t *d, const char *cmd, int k) {
  size_t n = strlen(cmd);
  double t0 = (double)bench_now_ns() * 1e-9;
  int i;
  for (i = 0; i < k; i++) deliver(d, cmd, n);
  return ((double)bench_now_ns() * 1e-9 - t0) / k;
}

static void spawn(wd_t *d, const char *const *env) {
  const char *path = wd_path("worker/ipcstamp-worker-c");
  const char *argv[] = {path, NULL};
  int rc = wd_spawn(d, path, argv, env, 0);
  if (rc) die("spawn worker/ipcstamp-worker-c", rc);
  deliver(d, "", 0); /* started and answering */
}

/* One batch of deliveries of one command to one worker. */
typedef struct {
  wd_t *w;
  const char *cmd;
} batch_t;

static double batch(void *ctx) {
  batch_t *b = ctx;
  return per_delivery(b->w, b->cmd, DELIVERIES);
}

/* Stamps on vs off for one kind of delivery. */
static void compare(wd_t *on, wd_t *off, const char *label, const char *cmd,
                    int rounds) {
  batch_t a = {on, cmd}, b = {off, cmd};
  bench_ab_t r = bench_compare(batch, &a, batch, &b, rounds);
  printf("  %-18s stamps on %6.2f us   off %6.2f us   ratio %.3f "
         "(quartiles %.3f-%.3f)\n",
         label, r.a * 1e6, r.b * 1e6, r.ratio, r.q1, r.q3);
}

int main(int argc, char **argv) {
  static const char *const disable[] = {"IPCSTAMP_DISABLE=1", NULL};
  int rounds = argc > 1 ? atoi(argv[1]) : DEFAULT_ROUNDS, r;
  char many[64];
  wd_t on, off;

  if (rounds < 1) rounds = 1;
  /* Driver and both workers on one CPU: unpinned, the ratio depended on
   * which worker the scheduler put beside the driver. */
  int cpu = bench_pin();
  snprintf(many, sizeof many, "{\"upcalls\":%d}", UPCALLS);
  printf("bench_upcall: a blocking C parent and worker/ipcstamp-worker-c over "
         "pipes on fds 3/4\n");
  printf("command: make bench   (or: tests/bench/bench_upcall [rounds]; "
         "rounds = %d)\n",
         rounds);
  printf("%s\n", cpu >= 0 ? "driver and workers pinned to one CPU"
                          : "not pinned (IPCSTAMP_BENCH_NOPIN=1 or no affinity)");

  spawn(&on, NULL);
  spawn(&off, disable);

  /* 1. One upcall round trip, stamps on. */
  {
    double *per = calloc((size_t)rounds, sizeof *per);
    per_delivery(&on, many, 2);
    for (r = 0; r < rounds; r++) {
      double empty = per_delivery(&on, "", 100);
      double full = per_delivery(&on, many, 1);
      per[r] = (full - empty) / UPCALLS;
    }
    double m = bench_median(per, rounds);
    printf("upcall round trip (stamps on): median %.2f us "
           "(quartiles %.2f-%.2f)\n",
           m * 1e6, bench_quantile(per, rounds, 0.25) * 1e6,
           bench_quantile(per, rounds, 0.75) * 1e6);
    printf("  = (one %d-upcall delivery - one empty delivery) / %d, "
           "median of %d rounds\n",
           UPCALLS, UPCALLS, rounds);
    free(per);
  }

  /* 2. Stamps on vs IPCSTAMP_DISABLE=1, alternating. */
  printf("whole delivery, stamps on vs IPCSTAMP_DISABLE=1 (%d rounds x %d "
         "deliveries, alternating):\n",
         rounds, DELIVERIES);
  compare(&on, &off, "empty delivery", "", rounds);
  compare(&on, &off, "4-upcall delivery", "{\"upcalls\":4}", rounds);
  /* Part of the difference is cpu_ns, not the stamps: the worker reads the
   * process's CPU clock at 'd' and at 'e', and that clock is a system call
   * (no vDSO).  Measured here, in this process, for the reader. */
  {
    struct timespec ts;
    double t0 = (double)bench_now_ns() * 1e-9;
    int i, k = 200000;
    for (i = 0; i < k; i++) clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    printf("  of which cpu_ns: 2 x clock_gettime(CLOCK_PROCESS_CPUTIME_ID) "
           "= %.2f us per delivery\n",
           2 * ((double)bench_now_ns() * 1e-9 - t0) / k * 1e6);
  }

  wd_send(&on, 'q', NULL, 0);
  wd_send(&off, 'q', NULL, 0);
  wd_wait(&on);
  wd_wait(&off);
  wd_free(&on);
  wd_free(&off);
  return 0;
}
