/* ab.c — two commands, alternately, ROUNDS times each; prints the median
 * wall time of each and their ratio B / A.  For before/after figures in
 * BENCHMARKS.md on a shared, noisy machine: alternating spreads the noise
 * over both, and the median ignores the worst rounds.
 *
 *   tests/bench/ab ROUNDS OUTPUT-A OUTPUT-B -- COMMAND-A ... -- COMMAND-B ...
 *
 * Each command's stdout goes to its OUTPUT file ("/dev/null" to drop); the
 * first rounds' outputs can then be compared.  A second line gives the CPU
 * time (user + system) of each command and of the processes it waited
 * for, the same way: on a loaded machine it moves far less than the wall
 * time.  Both lines also give the median of the per-round ratios. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs argv; returns its wall time, and its CPU time in *cpu. */
static double run(char **argv, const char *out, double *cpu) {
  double t0 = now();
  struct rusage ru;
  int st;
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 1) < 0)
      _exit(127);
    execvp(argv[0], argv);
    fprintf(stderr, "ab: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) == 127)
    return -1;
  *cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
  return now() - t0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* "A ... B ... B/A ..." for one measure: medians, ranges, and the median
 * of the per-round ratios.  Sorts the arrays. */
static void report(const char *what, double *ta, double *tb, double *r,
                   int rounds) {
  int i;
  for (i = 0; i < rounds; i++)
    r[i] = tb[i] / ta[i];
  qsort(ta, (size_t)rounds, sizeof *ta, cmp);
  qsort(tb, (size_t)rounds, sizeof *tb, cmp);
  qsort(r, (size_t)rounds, sizeof *r, cmp);
  printf("%sA %.4f s  B %.4f s  (medians of %d alternating rounds)  B/A %.3f  "
         "(range A %.4f-%.4f, B %.4f-%.4f; median of the rounds' ratios %.3f)\n",
         what, ta[rounds / 2], tb[rounds / 2], rounds,
         tb[rounds / 2] / ta[rounds / 2], ta[0], ta[rounds - 1], tb[0],
         tb[rounds - 1], r[rounds / 2]);
}

int main(int argc, char **argv) {
  char **a, **b;
  double *ta, *tb, *ca, *cb, *r;
  int rounds, i, sep = 0;
  if (argc < 8 || (rounds = atoi(argv[1])) < 1 || strcmp(argv[4], "--")) {
    fprintf(stderr, "usage: ab ROUNDS OUT-A OUT-B -- CMD-A ... -- CMD-B ...\n");
    return 2;
  }
  for (i = 5; i < argc; i++)
    if (!strcmp(argv[i], "--"))
      sep = i;
  if (!sep || sep == 5 || sep == argc - 1) {
    fprintf(stderr, "ab: two commands, each after --\n");
    return 2;
  }
  argv[sep] = NULL;
  a = argv + 5;
  b = argv + sep + 1;
  ta = calloc((size_t)rounds, sizeof *ta);
  tb = calloc((size_t)rounds, sizeof *tb);
  ca = calloc((size_t)rounds, sizeof *ca);
  cb = calloc((size_t)rounds, sizeof *cb);
  r = calloc((size_t)rounds, sizeof *r);
  if (!ta || !tb || !ca || !cb || !r)
    return 1;
  for (i = 0; i < rounds; i++) {
    /* Who goes first alternates too: caches favour the second. */
    const char *oa = i ? "/dev/null" : argv[2], *ob = i ? "/dev/null" : argv[3];
    if (i % 2) {
      tb[i] = run(b, ob, &cb[i]);
      ta[i] = run(a, oa, &ca[i]);
    } else {
      ta[i] = run(a, oa, &ca[i]);
      tb[i] = run(b, ob, &cb[i]);
    }
    if (ta[i] < 0 || tb[i] < 0) {
      fprintf(stderr, "ab: a command failed\n");
      return 1;
    }
  }
  report("", ta, tb, r, rounds);
  report("CPU: ", ca, cb, r, rounds);
  free(ta);
  free(tb);
  free(ca);
  free(cb);
  free(r);
  return 0;
}
