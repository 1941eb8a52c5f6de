/* ab.c — two commands, alternately, ROUNDS times each; prints the median
 * wall time of each and their ratio B / A.  For before/after figures in
 * BENCHMARKS.md on a shared, noisy machine: alternating spreads the noise
 * over both, and the median ignores the worst rounds.
 *
 *   tests/bench/ab ROUNDS OUTPUT-A OUTPUT-B -- COMMAND-A ... -- COMMAND-B ...
 *
 * Each command's stdout goes to its OUTPUT file ("/dev/null" to drop); the
 * first rounds' outputs can then be compared. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double run(char **argv, const char *out) {
  double t0 = now();
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
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) == 127)
    return -1;
  return now() - t0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  char **a, **b;
  double *ta, *tb;
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
  if (!ta || !tb)
    return 1;
  for (i = 0; i < rounds; i++) {
    /* Who goes first alternates too: caches favour the second. */
    const char *oa = i ? "/dev/null" : argv[2], *ob = i ? "/dev/null" : argv[3];
    if (i % 2) {
      tb[i] = run(b, ob);
      ta[i] = run(a, oa);
    } else {
      ta[i] = run(a, oa);
      tb[i] = run(b, ob);
    }
    if (ta[i] < 0 || tb[i] < 0) {
      fprintf(stderr, "ab: a command failed\n");
      return 1;
    }
  }
  qsort(ta, (size_t)rounds, sizeof *ta, cmp);
  qsort(tb, (size_t)rounds, sizeof *tb, cmp);
  printf("A %.4f s  B %.4f s  (medians of %d alternating rounds)  B/A %.3f  "
         "(range A %.4f-%.4f, B %.4f-%.4f)\n",
         ta[rounds / 2], tb[rounds / 2], rounds, tb[rounds / 2] / ta[rounds / 2],
         ta[0], ta[rounds - 1], tb[0], tb[rounds - 1]);
  free(ta);
  free(tb);
  return 0;
}
