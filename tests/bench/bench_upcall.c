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
 * loop that allocates nothing per delivery.
 *
 * usage: bench_upcall [rounds]        (make bench runs it with the default)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "worker_driver.h"

/* Many short rounds rather than a few long ones: load from other
 * processes then hits both sides of a round alike. */
#define DEFAULT_ROUNDS 41
#define UPCALLS 1000      /* per delivery, for the round-trip figure */
#define DELIVERIES 300    /* per round and side, for the stamp ratio */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, int rc) {
  fprintf(stderr, "bench_upcall: %s: %s\n", what, ips_strerror(rc));
  exit(1);
}

/* One delivery: send it, answer every upcall with "null", read the result. */
static void deliver(wd_t *d, const char *cmd, size_t n) {
  const char *f;
  size_t len;
  int rc = wd_send(d, '?', cmd, n);
  if (rc) die("send", rc);
  for (;;) {
    if ((rc = wd_recv(d, &f, &len)) != 0) die("receive", rc);
    if (len > 0 && f[0] == '?') {
      if ((rc = wd_send(d, '/', "null", 4)) != 0) die("send", rc);
      continue;
    }
    if (len == 0 || f[0] != '.') {
      fprintf(stderr, "bench_upcall: unexpected answer '%.*s'\n",
              (int)(len > 200 ? 200 : len), f);
      exit(1);
    }
    return;
  }
}

/* Seconds per delivery over k deliveries. */
static double per_delivery(wd_t *d, const char *cmd, int k) {
  size_t n = strlen(cmd);
  double t0 = now_s();
  int i;
  for (i = 0; i < k; i++) deliver(d, cmd, n);
  return (now_s() - t0) / k;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The q-quantile of v[0..n) (sorts v), by nearest rank. */
static double quantile(double *v, int n, double q) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[(int)(q * (n - 1) + 0.5)];
}

static double median(double *v, int n) { return quantile(v, n, 0.5); }

static void spawn(wd_t *d, const char *const *env) {
  const char *path = wd_path("worker/ipcstamp-worker-c");
  const char *argv[] = {path, NULL};
  int rc = wd_spawn(d, path, argv, env, 0);
  if (rc) die("spawn worker/ipcstamp-worker-c", rc);
  deliver(d, "", 0); /* started and answering */
}

/* Stamps on (a) vs off (b) for one kind of delivery. */
static void compare(wd_t *on, wd_t *off, const char *label, const char *cmd,
                    int rounds) {
  double *ton = calloc((size_t)rounds, sizeof *ton);
  double *toff = calloc((size_t)rounds, sizeof *toff);
  double *ratio = calloc((size_t)rounds, sizeof *ratio);
  int r;

  per_delivery(on, cmd, DELIVERIES / 10); /* warm both up */
  per_delivery(off, cmd, DELIVERIES / 10);
  for (r = 0; r < rounds; r++) {
    if (r % 2) {
      toff[r] = per_delivery(off, cmd, DELIVERIES);
      ton[r] = per_delivery(on, cmd, DELIVERIES);
    } else {
      ton[r] = per_delivery(on, cmd, DELIVERIES);
      toff[r] = per_delivery(off, cmd, DELIVERIES);
    }
    ratio[r] = ton[r] / toff[r];
  }
  double mr = median(ratio, rounds);
  printf("  %-18s stamps on %6.2f us   off %6.2f us   ratio %.3f "
         "(quartiles %.3f-%.3f)\n",
         label, median(ton, rounds) * 1e6, median(toff, rounds) * 1e6, mr,
         quantile(ratio, rounds, 0.25), quantile(ratio, rounds, 0.75));
  free(ton);
  free(toff);
  free(ratio);
}

int main(int argc, char **argv) {
  static const char *const disable[] = {"IPCSTAMP_DISABLE=1", NULL};
  int rounds = argc > 1 ? atoi(argv[1]) : DEFAULT_ROUNDS, r;
  char many[64];
  wd_t on, off;

  if (rounds < 1) rounds = 1;
  snprintf(many, sizeof many, "{\"upcalls\":%d}", UPCALLS);
  printf("bench_upcall: a blocking C parent and worker/ipcstamp-worker-c over "
         "pipes on fds 3/4\n");
  printf("command: make bench   (or: tests/bench/bench_upcall [rounds]; "
         "rounds = %d)\n",
         rounds);

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
    double m = median(per, rounds);
    printf("upcall round trip (stamps on): median %.2f us "
           "(quartiles %.2f-%.2f)\n",
           m * 1e6, quantile(per, rounds, 0.25) * 1e6,
           quantile(per, rounds, 0.75) * 1e6);
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
    double t0 = now_s();
    int i, k = 200000;
    for (i = 0; i < k; i++) clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    printf("  of which cpu_ns: 2 x clock_gettime(CLOCK_PROCESS_CPUTIME_ID) "
           "= %.2f us per delivery\n",
           2 * (now_s() - t0) / k * 1e6);
  }

  wd_send(&on, 'q', NULL, 0);
  wd_send(&off, 'q', NULL, 0);
  wd_wait(&on);
  wd_wait(&off);
  wd_free(&on);
  wd_free(&off);
  return 0;
}
