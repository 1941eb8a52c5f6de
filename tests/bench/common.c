/* common.c — see common.h. */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "ipcstamp-proto.h"

int64_t bench_now_ns(void) {
  ips_stamp_t s;
  if (ips_clock_read(&s))
    abort();
  return s.mono_ns;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_quantile(double *v, int n, double q) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[(int)(q * (n - 1) + 0.5)];
}

double bench_median(double *v, int n) { return bench_quantile(v, n, 0.5); }

const char *bench_path(char *buf, size_t n, const char *rel) {
  const char *b = getenv("IPCSTAMP_BUILDDIR");
  snprintf(buf, n, "%s/%s", b ? b : ".", rel);
  return buf;
}

bench_ab_t bench_compare(bench_batch_fn fa, void *a, bench_batch_fn fb,
                         void *b, int rounds) {
  double *ta = calloc((size_t)rounds, sizeof *ta);
  double *tb = calloc((size_t)rounds, sizeof *tb);
  double *ratio = calloc((size_t)rounds, sizeof *ratio);
  bench_ab_t r;
  int i;
  if (!ta || !tb || !ratio)
    abort();
  fa(a);
  fb(b);
  for (i = 0; i < rounds; i++) {
    if (i % 2) {
      tb[i] = fb(b);
      ta[i] = fa(a);
    } else {
      ta[i] = fa(a);
      tb[i] = fb(b);
    }
    ratio[i] = ta[i] / tb[i];
  }
  r.a = bench_median(ta, rounds);
  r.b = bench_median(tb, rounds);
  r.q1 = bench_quantile(ratio, rounds, 0.25);
  r.q3 = bench_quantile(ratio, rounds, 0.75);
  r.ratio = bench_median(ratio, rounds);
  free(ta);
  free(tb);
  free(ratio);
  return r;
}

int bench_pin(void) {
  cpu_set_t set;
  int cpu = sched_getcpu();
  const char *no = getenv("IPCSTAMP_BENCH_NOPIN");
  if (cpu < 0 || (no && *no == '1'))
    return -1;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

