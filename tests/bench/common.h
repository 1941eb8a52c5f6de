/* common.h — what the benchmarks share: a clock, medians, paths to
 * built programs, and the A/B comparison every ratio in BENCHMARKS.md is
 * measured with (alternating in one run, median of per-round ratios). */
#ifndef IPCSTAMP_TESTS_BENCH_COMMON_H
#define IPCSTAMP_TESTS_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Monotonic nanoseconds (ips_clock_read; aborts if it cannot). */
int64_t bench_now_ns(void);

/* The q-quantile of v[0..n), by nearest rank (sorts v). */
double bench_quantile(double *v, int n, double q);
double bench_median(double *v, int n);

/* $IPCSTAMP_BUILDDIR/rel, else ./rel (make bench runs in the build
 * directory), written to buf. */
const char *bench_path(char *buf, size_t n, const char *rel);

/* Pin this process (and the workers it spawns afterwards, which inherit
 * it) to the CPU it runs on, so that a ratio does not depend on which
 * process the scheduler put beside which.  Returns the CPU, or -1 when not
 * pinned (IPCSTAMP_BENCH_NOPIN=1, or no affinity). */
int bench_pin(void);

/* One batch of side A or B: returns seconds per operation. */
typedef double (*bench_batch_fn)(void *ctx);

typedef struct {
  double a, b;          /* median seconds per operation */
  double ratio;         /* median of the per-round ratios a/b */
  double q1, q3;        /* their quartiles */
} bench_ab_t;

/* rounds rounds of one batch of A and one of B, the order flipping every
 * round so that both see the same load; one warm-up batch each first. */
bench_ab_t bench_compare(bench_batch_fn fa, void *a, bench_batch_fn fb,
                         void *b, int rounds);

#endif
