/* bench_stamp.c — what a stamp costs: ips_stamps_add() (both clocks, stored
 * in the table) against the two raw clock reads it is made of.
 *
 * The two are timed in alternation, many rounds, and the median of the
 * per-round ratios is reported, so that a noisy neighbour slows both sides
 * of a ratio alike.  Goal: ratio <= 1.15. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#include "ipcstamp-proto.h"

enum { ROUNDS = 31, PER_ROUND = 200000, TABLE = 1024 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The same work ips_stamps_add() does, minus the library: two raw reads
 * stored where the optimiser cannot drop them. */
static volatile int64_t sink_wall, sink_mono;

static double run_raw(void) {
  double t0 = now_s();
  int i;
  for (i = 0; i < PER_ROUND; i++) {
    struct timeval tv;
    struct timespec ts;
    gettimeofday(&tv, NULL);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    sink_wall = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
    sink_mono = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
  }
  return now_s() - t0;
}

static double run_stamps(ips_stamps_t *t) {
  double t0 = now_s();
  int i;
  for (i = 0; i < PER_ROUND; i++) {
    /* A table fills after TABLE-1 stamps; a reset per "delivery" keeps
     * every add on the recording path, as in a worker. */
    if (t->n == TABLE - 1)
      ips_stamps_reset(t);
    ips_stamps_add(t, 'd');
  }
  return now_s() - t0;
}

int main(void) {
  ips_stamps_t t;
  double ratio[ROUNDS], raw[ROUNDS], st[ROUNDS];
  int r;
  if (ips_stamps_init(&t, TABLE) != 0)
    return 1;
  run_raw(); /* warm up */
  run_stamps(&t);
  for (r = 0; r < ROUNDS; r++) {
    /* Alternate which side goes first, so neither always runs warmer. */
    if (r % 2) {
      raw[r] = run_raw();
      st[r] = run_stamps(&t);
    } else {
      st[r] = run_stamps(&t);
      raw[r] = run_raw();
    }
    ratio[r] = st[r] / raw[r];
  }
  qsort(ratio, ROUNDS, sizeof ratio[0], cmp_double);
  qsort(raw, ROUNDS, sizeof raw[0], cmp_double);
  qsort(st, ROUNDS, sizeof st[0], cmp_double);
  printf("stamp cost: %d rounds x %d stamps, alternating\n", ROUNDS, PER_ROUND);
  printf("  two raw clock reads   median %.1f ns\n",
         raw[ROUNDS / 2] / PER_ROUND * 1e9);
  printf("  ips_stamps_add()      median %.1f ns\n",
         st[ROUNDS / 2] / PER_ROUND * 1e9);
  printf("  ratio stamp/raw       median %.3f (min %.3f, max %.3f; goal <= "
         "1.15)\n",
         ratio[ROUNDS / 2], ratio[0], ratio[ROUNDS - 1]);
  ips_stamps_free(&t);
  return 0;
}
