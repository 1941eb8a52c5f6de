/* bench_probe.c — what the USDT probes (docs/probes.md) cost a worker's
 * stamp: compiled in with nobody attached against compiled out, and per
 * hit with bpftrace attached.
 *
 * The same source is built twice, with the worker library's sources
 * compiled into each: bench_probe with the probes, bench_probe_off with
 * IPS_NO_PROBES.  Run without arguments, bench_probe is the driver: ROUNDS
 * rounds, each running both programs (`--run`, in alternating order) and
 * reading their nanoseconds per stamp, then the medians and the median of
 * the per-round ratios (goal: <= 1.02).  Then, as root with bpftrace,
 * ATTACHED_ROUNDS runs of bench_probe with a bpftrace script counting every hit of
 * its two probes: the extra nanoseconds per stamp are the cost of a hit,
 * and the script's count must be the number of stamps.
 *
 * A stamp here is ips_worker_stamp() in IPS_WORKER_HOST_IO mode (the
 * clocks, the table, the probe; no I/O), 'u' and 'r' in turn as upcalls
 * take them, a new command every 256 upcalls. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipcstamp-worker.h"

enum { ROUNDS = 21, ATTACHED_ROUNDS = 7, STAMPS = 2000000, PER_COMMAND = 512 };

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* --run: STAMPS stamps; prints nanoseconds per stamp. */
static int run(void) {
  ips_worker_options_t o;
  ips_worker_t w;
  double t0, t1;
  int i;
  ips_worker_options_init(&o);
  o.flags |= IPS_WORKER_HOST_IO;
  if (ips_worker_init(&w, &o) != 0 || ips_worker_begin(&w, '?') != 0)
    return 1;
  t0 = now_ns();
  for (i = 0; i < STAMPS; i++) {
    if (i % PER_COMMAND == 0 && i) {
      ips_worker_abandon(&w);
      if (ips_worker_begin(&w, '?') != 0) return 1;
    }
    if (ips_worker_stamp(&w, (i & 1) ? 'r' : 'u') != 0) return 1;
  }
  t1 = now_ns();
  printf("%.3f\n", (t1 - t0) / STAMPS);
  ips_worker_close(&w);
  return 0;
}

#ifndef IPS_NO_PROBES
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* prog --run; its ns per stamp, or -1. */
static double child(const char *prog) {
  char cmd[1200], line[64];
  FILE *p;
  double v = -1;
  snprintf(cmd, sizeof cmd, "'%s' --run", prog);
  if (!(p = popen(cmd, "r"))) return -1;
  if (fgets(line, sizeof line, p)) v = atof(line);
  if (pclose(p) != 0) return -1;
  return v;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

/* bpftrace counting both probes of prog, started and attached (it printed
 * "tracing"); its pid in *pid, its output in *out.  0 or -1. */
static int attach(const char *prog, pid_t *pid, FILE **out) {
  char script[2400], line[256];
  int fd[2];
  snprintf(script, sizeof script,
           "BEGIN { printf(\"tracing\\n\"); }"
           " usdt:%s:ipcstamp:upcall_sent, usdt:%s:ipcstamp:reply_received"
           " { @hits = count(); }",
           prog, prog);
  if (pipe(fd) != 0) return -1;
  if ((*pid = fork()) < 0) return -1;
  if (*pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execlp("bpftrace", "bpftrace", "-e", script, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  *out = fdopen(fd[0], "r");
  while (fgets(line, sizeof line, *out))
    if (strncmp(line, "tracing", 7) == 0) return 0;
  waitpid(*pid, NULL, 0);
  return -1;
}

/* With bpftrace attached: ns per hit over the unattached median. */
static void attached(const char *on, double base) {
  double v[ATTACHED_ROUNDS];
  char line[256];
  long long hits = -1;
  pid_t pid;
  FILE *out;
  int r;
  if (getuid() != 0 || attach(on, &pid, &out) != 0) {
    printf("with bpftrace attached: not measured (needs root and bpftrace)\n");
    return;
  }
  for (r = 0; r < ATTACHED_ROUNDS; r++) v[r] = child(on);
  kill(pid, SIGINT);
  while (fgets(line, sizeof line, out))
    if (sscanf(line, "@hits: %lld", &hits) == 1) break;
  fclose(out);
  waitpid(pid, NULL, 0);
  printf("with bpftrace attached (counting both probes): %.1f ns per stamp, "
         "so %.0f ns per probe hit; %lld hits counted for %lld stamps\n",
         median(v, ATTACHED_ROUNDS), median(v, ATTACHED_ROUNDS) - base, hits,
         (long long)ATTACHED_ROUNDS * STAMPS);
}

int main(int argc, char **argv) {
  double on[ROUNDS], off[ROUNDS], ratio[ROUNDS];
  char self[1024], other[1100];
  ssize_t n;
  int r;
  if (argc > 1 && strcmp(argv[1], "--run") == 0) return run();
  if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) < 0) return 1;
  self[n] = '\0';
  snprintf(other, sizeof other, "%s_off", self);
  for (r = 0; r < ROUNDS; r++) {
    if (r % 2) {
      on[r] = child(self);
      off[r] = child(other);
    } else {
      off[r] = child(other);
      on[r] = child(self);
    }
    if (on[r] < 0 || off[r] < 0) {
      fprintf(stderr, "bench_probe: cannot run %s or %s\n", self, other);
      return 1;
    }
    ratio[r] = on[r] / off[r];
  }
  printf("stamp, probes compiled out %.2f ns, compiled in with nobody "
         "attached %.2f ns (medians of %d alternating rounds of %d stamps); "
         "median of the rounds' ratios %.3f (goal <= 1.02)\n",
         median(off, ROUNDS), median(on, ROUNDS), ROUNDS, STAMPS,
         median(ratio, ROUNDS));
  attached(self, median(on, ROUNDS));
  return 0;
}
#else
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--run") == 0) return run();
  fprintf(stderr, "bench_probe_off: run by bench_probe (--run)\n");
  return 2;
}
#endif
