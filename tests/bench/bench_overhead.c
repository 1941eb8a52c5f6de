/* bench_overhead — the cost of the instrumentation through the real parent:
 * deliveries through the libuv parent library to two
 * ipcstamp-worker-c processes, one with stamps and one with
 * IPCSTAMP_DISABLE=1, for an empty delivery and for one making 4 upcalls.
 * The two alternate in one run (bench_compare: the order flips every
 * round) and the figure is the median of the per-round ratios, since these
 * machines are shared and noisy.  The parent stamps D/U/R/E either way:
 * what is compared is the worker's instrumentation as a parent sees it.
 *
 * The parent and both workers are pinned to one CPU (children inherit the
 * affinity).  Unpinned, on a 2-core machine, whichever worker the scheduler
 * happens to keep on the parent's core answers several times faster than
 * the other (a wake-up on the same core against one across cores), and
 * that placement, not the stamps, decided the ratio: 0.25 in one run, 1.44
 * in the next.  IPCSTAMP_BENCH_NOPIN=1 leaves the placement alone.
 *
 * The floor, measured in the same run: what the worker's
 * instrumentation cannot avoid, its 2 + 2k stamps (two clock reads each:
 * gettimeofday and CLOCK_MONOTONIC, timed here) and the extra metering
 * bytes through a pipe (a raw two-pipe ping-pong with a forked process,
 * answering with the stamped reply's size against the unstamped one's).
 * The overhead (on - off) is printed as a multiple of that floor.
 *
 * IPCSTAMP_BENCH_AA=1 starts both workers without stamps: an A/A run that
 * shows how far apart two identical workers come out (within 1% here).
 *
 * IPCSTAMP_BENCH_VS=run-delay compares two options instead, stamps on in
 * both: the run-queue delay on both sides (IPCSTAMP_RUN_DELAY=1 for the
 * worker, ips_child_options_t.run_delay for the parent) against
 * cpu_ns (IPCSTAMP_CPU_TIME=1); the floor is then the stamps' alone.
 *
 * usage: bench_overhead [ROUNDS [BATCH]]   (default 41 rounds of 500)
 */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "ipcstamp-parent.h"

extern char **environ;

#define DEFAULT_ROUNDS 41
#define DEFAULT_BATCH 500

typedef struct {
  uv_loop_t *loop;
  ips_child_t *w;
  const char *payload;
  int batch;
  int remaining;
  char metering[4096];  /* the last metering received, for the breakdown */
  size_t mlen;
} side_t;

static void reply_null(ips_child_t *w, void *arg, const char *p, size_t n,
                       const ips_stamp_t *U) {
  if (ips_child_reply(w, "null", 4, NULL) != 0)
    exit(1);
}

/* Each result queues the next delivery: one at a time, as a kernel does. */
static void on_result(ips_child_t *w, void *arg, const ips_result_t *res) {
  side_t *s = arg;
  if (res->kind != IPS_RESULT_OK) {
    fprintf(stderr, "bench_overhead: delivery failed: %s\n", res->message);
    exit(1);
  }
  s->mlen = res->metering_len < sizeof s->metering ? res->metering_len : 0;
  if (s->mlen)
    memcpy(s->metering, res->metering_raw, s->mlen);
  if (--s->remaining > 0 &&
      ips_child_deliver(w, s->payload, strlen(s->payload), on_result, s))
    exit(1);
}

static double batch(void *ctx) {
  side_t *s = ctx;
  int64_t t0 = bench_now_ns();
  s->remaining = s->batch;
  if (ips_child_deliver(s->w, s->payload, strlen(s->payload), on_result, s))
    exit(1);
  while (s->remaining > 0)
    uv_run(s->loop, UV_RUN_ONCE);
  return (double)(bench_now_ns() - t0) * 1e-9 / s->batch;
}

/* The sides: stamps on (1), off (0), or with the run-queue delay (2) or
 * cpu_ns (3), the other option off (IPCSTAMP_BENCH_VS=run-delay). */
enum { SIDE_OFF, SIDE_ON, SIDE_RUNQ, SIDE_CPU };

static int is_var(const char *e, const char *name) {
  size_t n = strlen(name);
  return !strncmp(e, name, n) && e[n] == '=';
}

/* The parent's environment with the side's IPCSTAMP_ variables. */
static char **env_for(int side) {
  size_t n = 0, i, k = 0;
  char **env;
  while (environ[n])
    n++;
  if (!(env = calloc(n + 3, sizeof *env)))
    exit(1);
  for (i = 0; i < n; i++)
    if (!is_var(environ[i], "IPCSTAMP_DISABLE") &&
        !is_var(environ[i], "IPCSTAMP_RUN_DELAY") &&
        !is_var(environ[i], "IPCSTAMP_CPU_TIME"))
      env[k++] = environ[i];
  if (side == SIDE_OFF)
    env[k++] = "IPCSTAMP_DISABLE=1";
  if (side == SIDE_RUNQ)
    env[k++] = "IPCSTAMP_RUN_DELAY=1";
  if (side == SIDE_CPU)
    env[k++] = "IPCSTAMP_CPU_TIME=1";
  return env;
}

static ips_child_t *spawn(uv_loop_t *loop, const char *path, int side) {
  ips_child_options_t o;
  ips_child_t *w;
  char **env = env_for(side);
  memset(&o, 0, sizeof o);
  o.file = path;
  o.env = env;
  o.upcall_cb = reply_null;
  o.run_delay = side == SIDE_RUNQ; /* the parent's side of it too */
  if (ips_child_spawn(loop, &o, &w) != 0) {
    fprintf(stderr, "bench_overhead: cannot start %s\n", path);
    exit(1);
  }
  free(env); /* copied by ips_child_spawn */
  return w;
}

/* ---- the floor ---------------------------------------------------- */

/* Seconds per pair of clock reads a stamp takes. */
static double clock_pair(void *ctx) {
  struct timeval tv;
  struct timespec ts;
  int64_t t0 = bench_now_ns(), sink = 0;
  int i, k = 20000;
  (void)ctx;
  for (i = 0; i < k; i++) {
    gettimeofday(&tv, NULL);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    sink += tv.tv_usec + ts.tv_nsec;
  }
  if (sink == 42)
    putchar(' ');
  return (double)(bench_now_ns() - t0) * 1e-9 / k;
}

/* A process that answers each 4-byte size with that many bytes. */
typedef struct {
  int to, from;
  pid_t pid;
  uint32_t size;
} echo_t;

static void full_io(int fd, char *b, size_t n, int wr) {
  while (n) {
    ssize_t k = wr ? write(fd, b, n) : read(fd, b, n);
    if (k <= 0)
      exit(1);
    b += k;
    n -= (size_t)k;
  }
}

static void echo_start(echo_t *e) {
  int a[2], b[2];
  static char buf[1 << 16];
  if (pipe(a) || pipe(b))
    exit(1);
  if ((e->pid = fork()) == 0) {
    uint32_t n;
    close(a[1]);
    close(b[0]);
    for (;;) {
      if (read(a[0], &n, sizeof n) != (ssize_t)sizeof n || n > sizeof buf)
        _exit(0);
      full_io(b[1], buf, n, 1);
    }
  }
  close(a[0]);
  close(b[1]);
  e->to = a[1];
  e->from = b[0];
}

static double ping(void *ctx) {
  echo_t *e = ctx;
  static char buf[1 << 16];
  int64_t t0 = bench_now_ns();
  int i, k = 2000;
  for (i = 0; i < k; i++) {
    full_io(e->to, (char *)&e->size, sizeof e->size, 1);
    full_io(e->from, buf, e->size, 0);
  }
  return (double)(bench_now_ns() - t0) * 1e-9 / k;
}

static echo_t echo;

/* The floor of k upcalls' worker instrumentation, in seconds: 2 + 2k clock
 * pairs, and extra bytes more through the pipe than base bytes. */
static double floor_of(int k, size_t base, size_t extra, int rounds,
                       double *pair, double *bytes) {
  echo_t with = echo, without = echo;
  bench_ab_t c = bench_compare(clock_pair, NULL, clock_pair, NULL, rounds);
  bench_ab_t p;
  with.size = (uint32_t)(base + extra);
  without.size = (uint32_t)base;
  p = bench_compare(ping, &with, ping, &without, rounds);
  *pair = c.a;
  *bytes = p.a > p.b ? p.a - p.b : 0;
  return (2 + 2 * k) * *pair + *bytes;
}

static void compare(uv_loop_t *loop, ips_child_t *on, ips_child_t *off,
                    const char *label, const char *payload, int rounds,
                    int n, int upcalls) {
  side_t a, b;
  bench_ab_t r;
  memset(&a, 0, sizeof a);
  a.loop = loop;
  a.payload = payload;
  a.batch = n;
  b = a;
  a.w = on;
  b.w = off;
  r = bench_compare(batch, &a, batch, &b, rounds);
  printf("  %-18s stamps on %7.2f us   off %7.2f us   ratio %.4f "
         "(quartiles %.4f-%.4f): %+.2f%%\n",
         label, r.a * 1e6, r.b * 1e6, r.ratio, r.q1, r.q3,
         (r.ratio - 1) * 100);
  {
    double pair, bytes;
    /* The reply frame without stamps is about the off metering plus a
     * short header; the base size matters little, the extra bytes do. */
    size_t extra = a.mlen > b.mlen ? a.mlen - b.mlen : 0;
    double fl = floor_of(upcalls, b.mlen + 8, extra, rounds, &pair, &bytes);
    printf("    floor %.3f us = %d stamps x %.1f ns (two clock reads) + "
           "%zu more bytes through a pipe %.3f us;\n"
           "    overhead on - off = %.3f us = %.1f x the floor\n",
           fl * 1e6, 2 + 2 * upcalls, pair * 1e9, extra, bytes * 1e6,
           (r.a - r.b) * 1e6, (r.a - r.b) / fl);
  }
  /* Part of the difference is the parent's: it parses the metering the
   * stamped worker sends (the other sends none or less). */
  {
    ips_metering_t m;
    char err[200];
    int i, k = 20000;
    int64_t t0 = bench_now_ns();
    for (i = 0; i < k && a.mlen; i++) {
      if (ips_metering_parse(a.metering, a.mlen, &m, err, sizeof err) != 0)
        break;
      ips_metering_free(&m);
    }
    printf("    of which the parent parsing the metering: %.2f us per "
           "delivery (%zu bytes; off: %zu bytes)\n",
           i ? (double)(bench_now_ns() - t0) / i / 1e3 : 0.0, a.mlen,
           b.mlen);
  }
  /* And the worker's: writing that metering again from its stamps. */
  {
    ips_metering_t m;
    ips_stamps_t t;
    char err[200], out[4096];
    size_t len = 0;
    uint32_t j;
    int i, k = 20000;
    int64_t t0;
    if (a.mlen && ips_metering_parse(a.metering, a.mlen, &m, err, sizeof err) == 0 &&
        m.mono_ns && ips_stamps_init(&t, m.n + 1) == 0) {
      for (j = 0; j < m.n; j++) {
        ips_stamp_t st = {m.wall_us[j], m.mono_ns[j], m.kinds[j], 0, 0};
        ips_stamps_put(&t, &st);
      }
      for (i = 0; i < 2000; i++) /* warm: code, table, output page */
        (void)ips_metering_write(out, sizeof out, &t, NULL, &len);
      t0 = bench_now_ns();
      for (i = 0; i < k; i++)
        if (ips_metering_write(out, sizeof out, &t, NULL, &len) != 0)
          break;
      printf("    of which the worker writing it: %.2f us per delivery "
             "(%zu bytes)\n",
             i ? (double)(bench_now_ns() - t0) / i / 1e3 : 0.0, len);
      ips_stamps_free(&t);
      ips_metering_free(&m);
    }
  }
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : DEFAULT_ROUNDS;
  int n = argc > 2 ? atoi(argv[2]) : DEFAULT_BATCH;
  char path[4096];
  uv_loop_t loop;
  ips_child_t *on, *off;
  int cpu, vs;
  if (rounds < 1 || n < 1)
    return 2;
  bench_path(path, sizeof path, "worker/ipcstamp-worker-c");
  cpu = bench_pin();
  uv_loop_init(&loop);
  /* IPCSTAMP_BENCH_AA=1: both workers without stamps, to see how far
   * apart two identical workers come out (the bias of the method). */
  vs = getenv("IPCSTAMP_BENCH_VS") &&
       !strcmp(getenv("IPCSTAMP_BENCH_VS"), "run-delay");
  on = spawn(&loop, path,
             vs ? SIDE_RUNQ
                : getenv("IPCSTAMP_BENCH_AA") ? SIDE_OFF : SIDE_ON);
  off = spawn(&loop, path, vs ? SIDE_CPU : SIDE_OFF);
  if (vs)
    printf("IPCSTAMP_BENCH_VS=run-delay: 'on' is the run-queue delay on both "
           "sides, 'off' cpu_ns, stamps on in both\n");
  printf("bench_overhead: deliveries through the libuv parent to %s,\n"
         "stamps on vs IPCSTAMP_DISABLE=1, alternating, median of per-round "
         "ratios;\n%s\n",
         path, cpu >= 0 ? "parent and workers pinned to one CPU"
                        : "not pinned (IPCSTAMP_BENCH_NOPIN=1 or no affinity)");
  printf("command: make bench   (or: tests/bench/bench_overhead %d %d = "
         "rounds, deliveries per round and side)\n",
         rounds, n);
  if (getenv("IPCSTAMP_BENCH_AA"))
    printf("IPCSTAMP_BENCH_AA: the 'stamps on' worker has its stamps off too "
           "(an A/A run: any difference is the method's)\n");
  echo_start(&echo);
  compare(&loop, on, off, "empty delivery", "", rounds, n, 0);
  compare(&loop, on, off, "4-upcall delivery", "{\"upcalls\":4}", rounds, n,
          4);
  close(echo.to);
  close(echo.from);
  waitpid(echo.pid, NULL, 0);
  ips_child_close(on, NULL);
  ips_child_close(off, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  return uv_loop_close(&loop) == 0 ? 0 : 1;
}
