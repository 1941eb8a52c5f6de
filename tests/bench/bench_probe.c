/* bench_probe.c — what the USDT probes (docs/probes.md) cost a worker's
 * stamp: compiled in with nobody attached against compiled out, and per
 * hit with bpftrace attached.
 *
 * The same source is built twice, with the worker library's sources
 * compiled into each: bench_probe with the probes, bench_probe_off with
 * IPS_NO_PROBES.  Run without arguments, bench_probe is the driver: ROUNDS
 * rounds, each running both programs (`--run N`, in alternating order) and
 * reading their CPU nanoseconds per stamp (CPU time, not wall: on a loaded
 * machine a process's wall time is mostly its wait for a CPU), then the
 * medians and the median of the per-round ratios (goal: <= 1.02).  Then, as root with bpftrace,
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

#include "common.h"
#include "ipcstamp-worker.h"

enum {
  ROUNDS = 41, STAMPS = 5000000,                   /* compiled in vs out */
  ATTACHED_ROUNDS = 7, ATTACHED_STAMPS = 500000,   /* bpftrace attached */
  PER_COMMAND = 512
};

static double cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* --run N: N stamps; prints CPU nanoseconds per stamp. */
static int run(int stamps) {
  ips_worker_options_t o;
  ips_worker_t w;
  double t0, t1;
  int i;
  ips_worker_options_init(&o);
  o.flags |= IPS_WORKER_HOST_IO;
  if (ips_worker_init(&w, &o) != 0 || ips_worker_begin(&w, '?') != 0)
    return 1;
  t0 = cpu_ns();
  for (i = 0; i < stamps; i++) {
    if (i % PER_COMMAND == 0 && i) {
      ips_worker_abandon(&w);
      if (ips_worker_begin(&w, '?') != 0) return 1;
    }
    if (ips_worker_stamp(&w, (i & 1) ? 'r' : 'u') != 0) return 1;
  }
  t1 = cpu_ns();
  printf("%.3f\n", (t1 - t0) / stamps);
  ips_worker_close(&w);
  return 0;
}

#ifndef IPS_NO_PROBES
/* prog --run stamps; its ns per stamp (exits when it cannot run). */
static double child(const char *prog, int stamps) {
  char cmd[1200], line[64];
  FILE *p;
  double v = -1;
  snprintf(cmd, sizeof cmd, "'%s' --run %d", prog, stamps);
  if ((p = popen(cmd, "r")) && fgets(line, sizeof line, p)) v = atof(line);
  if (!p || pclose(p) != 0 || v <= 0) {
    fprintf(stderr, "bench_probe: cannot run %s\n", prog);
    exit(1);
  }
  return v;
}

static double batch(void *prog) { return child(prog, STAMPS); }

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
  for (r = 0; r < ATTACHED_ROUNDS; r++) v[r] = child(on, ATTACHED_STAMPS);
  kill(pid, SIGINT);
  while (fgets(line, sizeof line, out))
    if (sscanf(line, "@hits: %lld", &hits) == 1) break;
  fclose(out);
  waitpid(pid, NULL, 0);
  printf("with bpftrace attached (counting both probes): %.1f CPU ns per stamp, "
         "so %.0f ns per probe hit; %lld hits counted for %lld stamps\n",
         bench_median(v, ATTACHED_ROUNDS),
         bench_median(v, ATTACHED_ROUNDS) - base, hits,
         (long long)ATTACHED_ROUNDS * ATTACHED_STAMPS);
}

int main(int argc, char **argv) {
  char self[1024], other[1100];
  bench_ab_t ab;
  ssize_t n;
  if (argc > 2 && strcmp(argv[1], "--run") == 0) return run(atoi(argv[2]));
  if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) < 0) return 1;
  self[n] = '\0';
  snprintf(other, sizeof other, "%s_off", self);
  bench_pin(); /* the children too: both sides on one CPU */
  ab = bench_compare(batch, self, batch, other, ROUNDS);
  printf("stamp, CPU ns: probes compiled in, nobody attached %.2f; compiled "
         "out %.2f (medians of %d alternating rounds of %d stamps); median of "
         "the rounds' ratios in/out %.3f (quartiles %.3f-%.3f; goal <= 1.02)\n",
         ab.a, ab.b, ROUNDS, STAMPS, ab.ratio, ab.q1, ab.q3);
  attached(self, ab.a);
  return 0;
}
#else
int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "--run") == 0) return run(atoi(argv[2]));
  fprintf(stderr, "bench_probe_off: run by bench_probe (--run)\n");
  return 2;
}
#endif
