/* bench_mark.c — what a mark costs next to a stamp: a span
 * begin/end pair and a mark through ips_marks_add() (both clocks, name
 * interned, the open-span stack) against ips_stamps_add().
 *
 * The two are timed in alternation, many rounds, and the median of the
 * per-round ratios is reported, so that a noisy neighbour slows both sides
 * of a ratio alike.  Four names, as a vat that marks a few phases would.
 *
 *   bench_mark [ROUNDS]      default 31 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ipcstamp-proto.h"

enum { PER_ROUND = 200000, TABLE = 1024 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double run_stamps(ips_stamps_t *t) {
  double t0 = now_s();
  int i;
  for (i = 0; i < PER_ROUND; i++) {
    /* A reset per "delivery" keeps every add on the recording path. */
    if (t->n >= TABLE - 2)
      ips_stamps_reset(t);
    ips_stamps_add(t, 'd');
  }
  return now_s() - t0;
}

/* PER_ROUND events: spans "deserialize" and "execute" around marks
 * "checkpoint" and "syscall", in the order a vat would emit them. */
static double run_marks(ips_marks_t *t) {
  static const struct {
    char kind;
    const char *name;
    size_t len;
  } seq[] = {{'b', "deserialize", 11}, {'m', "checkpoint", 10},
             {'e', "deserialize", 11}, {'b', "execute", 7},
             {'m', "syscall", 7},      {'e', "execute", 7}};
  double t0 = now_s();
  int i, k = 0;
  for (i = 0; i < PER_ROUND; i++) {
    if (t->n + 6 >= TABLE)
      ips_marks_reset(t);
    ips_marks_add(t, seq[k].kind, seq[k].name, seq[k].len);
    if (++k == 6)
      k = 0;
  }
  return now_s() - t0;
}

int main(int argc, char **argv) {
  ips_stamps_t t;
  ips_marks_t mk;
  double *ratio, *st, *mt;
  int r, rounds = argc > 1 ? atoi(argv[1]) : 31;
  if (rounds < 1 || rounds > 1001) {
    fprintf(stderr, "bench_mark: ROUNDS must be 1 to 1001\n");
    return 2;
  }
  ratio = calloc((size_t)rounds, sizeof *ratio);
  st = calloc((size_t)rounds, sizeof *st);
  mt = calloc((size_t)rounds, sizeof *mt);
  if (!ratio || !st || !mt || ips_stamps_init(&t, TABLE) != 0 ||
      ips_marks_init(&mk, TABLE, 4096) != 0)
    return 1;
  run_stamps(&t); /* warm up */
  run_marks(&mk);
  for (r = 0; r < rounds; r++) {
    /* Alternate which side goes first, so neither always runs warmer. */
    if (r % 2) {
      st[r] = run_stamps(&t);
      mt[r] = run_marks(&mk);
    } else {
      mt[r] = run_marks(&mk);
      st[r] = run_stamps(&t);
    }
    ratio[r] = mt[r] / st[r];
  }
  qsort(ratio, (size_t)rounds, sizeof *ratio, cmp_double);
  qsort(st, (size_t)rounds, sizeof *st, cmp_double);
  qsort(mt, (size_t)rounds, sizeof *mt, cmp_double);
  printf("mark cost: %d rounds x %d events, alternating\n", rounds,
         PER_ROUND);
  printf("  ips_stamps_add()      median %.1f ns\n",
         st[rounds / 2] / PER_ROUND * 1e9);
  printf("  ips_marks_add()       median %.1f ns\n",
         mt[rounds / 2] / PER_ROUND * 1e9);
  printf("  ratio mark/stamp      median %.3f (min %.3f, max %.3f)\n",
         ratio[rounds / 2], ratio[0], ratio[rounds - 1]);
  ips_stamps_free(&t);
  ips_marks_free(&mk);
  free(ratio);
  free(st);
  free(mt);
  return 0;
}
