/* bench_top.c — does `ipcstamp top` keep up (goal: 100,000
 * events a second at the default ring size, nothing lost)?  A child
 * process writes stamp events into a default (1 MiB) ring at RATE a
 * second for SECONDS, paced by the clock; this process follows the ring's
 * directory with top's own model (tools/top/model.c), reading it every
 * 50 ms as the full-screen view does between repaints, and prints what it
 * read and what it lost.
 *
 * usage: bench_top [RATE [SECONDS [POLL_MS]]]   (default 100000 3 50;
 * POLL_MS 1000 is how top read before it polled between repaints) */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipcstamp-proto.h"
#include "ipcstamp-ring.h"
#include "top/top.h"

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The producer: a worker's d, u, r, ..., e stamps, RATE a second. */
static void produce(const char *dir, long rate, int seconds) {
  ips_ring_options_t o;
  ips_ring_t *r;
  char msg[256];
  int64_t t0, n = 0, total = (int64_t)rate * seconds;
  static const char kinds[] = "durure";
  ips_ring_options_init(&o);
  o.dir = dir;
  if (ips_ring_open(&r, &o, msg, sizeof msg) != 0) {
    fprintf(stderr, "bench_top: %s\n", msg);
    _exit(1);
  }
  t0 = mono_ns();
  while (n < total) {
    /* Catch up with the clock in bursts: as many as are due. */
    int64_t due = (mono_ns() - t0) * rate / 1000000000;
    if (due > total)
      due = total;
    for (; n < due; n++) {
      ips_stamp_t s;
      ips_clock_read(&s);
      s.kind = kinds[n % 6];
      ips_ring_stamp(r, &s, (uint64_t)(n / 6 + 1), (uint32_t)(n % 6 + 1) / 2);
    }
    usleep(1000);
  }
  ips_ring_close(r);
  _exit(0);
}

int main(int argc, char **argv) {
  long rate = argc > 1 ? atol(argv[1]) : 100000;
  int seconds = argc > 2 ? atoi(argv[2]) : 3, st, alive = 1;
  long poll_ms = argc > 3 ? atol(argv[3]) : 50;
  char dir[] = "/tmp/ipcstamp-bench-top-XXXXXX", msg[256];
  top_t *t = malloc(sizeof *t);
  uint64_t read_events = 0, lost = 0;
  pid_t pid;
  size_t i;
  if (!t || rate <= 0 || seconds <= 0 || poll_ms <= 0 || poll_ms > 60000 ||
      !mkdtemp(dir))
    return 1;
  if ((pid = fork()) == 0)
    produce(dir, rate, seconds);
  if (top_init(t, dir, NULL, 0) != 0)
    return 1;
  while (alive) {
    struct timespec ts = {poll_ms / 1000, poll_ms % 1000 * 1000000L};
    alive = waitpid(pid, &st, WNOHANG) == 0;
    if (top_refresh(t, msg, sizeof msg) != 0) {
      fprintf(stderr, "bench_top: %s\n", msg);
      return 1;
    }
    if (alive)
      nanosleep(&ts, NULL);
  }
  for (i = 0; i < t->nprocs; i++) {
    lost += t->procs[i]->ring->lost;
    read_events += t->procs[i]->ring->info.written - t->procs[i]->ring->lost;
    unlink(t->procs[i]->ring->path);
  }
  rmdir(dir);
  printf("bench_top: %ld events/s for %d s into a default ring, read every "
         "%ld ms: %llu written, %llu lost (goal: 0)\n",
         rate, seconds, poll_ms, (unsigned long long)read_events + lost,
         (unsigned long long)lost);
  top_free(t);
  free(t);
  return lost ? 1 : 0;
}
