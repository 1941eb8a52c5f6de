/* bench_cputime.c — the ways a Linux process can read its own CPU time,
 * side by side, for the worker's cpu_ns (read twice per command).
 *
 * Candidates, each read once per operation:
 *   process   clock_gettime(CLOCK_PROCESS_CPUTIME_ID)  (what cpu_ns used)
 *   thread    clock_gettime(CLOCK_THREAD_CPUTIME_ID)   (the same for a
 *             one-thread worker; the kernel need not sum the threads)
 *   rusage    getrusage(RUSAGE_THREAD)                  (µs resolution)
 *   perf-read read() of a perf_event task-clock counter
 *   perf-mmap the same counter's mmap'd page and the TSC: no system call
 *             (the page's time_enabled advances only while the task runs,
 *             and cap_user_time says how to extend it to now)
 * and, as the floor, clock_gettime(CLOCK_MONOTONIC) from the vDSO.
 *
 * Each candidate is compared with the floor in one run (A/B alternating,
 * median of rounds), and checked for honesty: over a 20 ms spin, it must
 * agree with CLOCK_THREAD_CPUTIME_ID within 2%.
 *
 * Usage: bench_cputime [rounds]   (default 21) */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define N 20000

static int perf_fd = -1;
static volatile struct perf_event_mmap_page *perf_page;

static int64_t ts_ns(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t rd_process(void) { return ts_ns(CLOCK_PROCESS_CPUTIME_ID); }
static int64_t rd_thread(void) { return ts_ns(CLOCK_THREAD_CPUTIME_ID); }
static int64_t rd_mono(void) { return ts_ns(CLOCK_MONOTONIC); }

static int64_t rd_rusage(void) {
  struct rusage r;
  getrusage(RUSAGE_THREAD, &r);
  return ((int64_t)r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000000 +
         ((int64_t)r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1000;
}

static int64_t rd_perf_read(void) {
  uint64_t v = 0;
  if (read(perf_fd, &v, sizeof v) != (ssize_t)sizeof v)
    return -1;
  return (int64_t)v;
}

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t rdtsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return ((uint64_t)hi << 32) | lo;
}

/* The seqlock protocol of perf_event_mmap_page (linux/perf_event.h): read
 * lock, the fields, the TSC; retry if the kernel updated the page. */
static int64_t rd_perf_mmap(void) {
  volatile struct perf_event_mmap_page *pc = perf_page;
  uint32_t seq;
  uint64_t enabled, cyc, quot, rem, delta;
  do {
    seq = pc->lock;
    __asm__ volatile("" ::: "memory");
    enabled = pc->time_enabled;
    cyc = rdtsc();
    quot = cyc >> pc->time_shift;
    rem = cyc & (((uint64_t)1 << pc->time_shift) - 1);
    delta = pc->time_offset + quot * pc->time_mult +
            ((rem * pc->time_mult) >> pc->time_shift);
    __asm__ volatile("" ::: "memory");
  } while (pc->lock != seq);
  return (int64_t)(enabled + delta);
}
#else
static int64_t rd_perf_mmap(void) { return -1; }
#endif

/* A task-clock counter of this thread, user and kernel time, readable by
 * read() and, when the kernel allows it, from its mmap'd page. */
static int open_perf(void) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  perf_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (perf_fd < 0)
    return -errno;
  perf_page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
                   perf_fd, 0);
  if (perf_page == MAP_FAILED) {
    perf_page = NULL;
    return 0;
  }
  return 0;
}

typedef int64_t (*reader_fn)(void);

static double batch(void *ctx) {
  reader_fn rd = *(reader_fn *)ctx;
  int64_t t0 = bench_now_ns(), sink = 0;
  int i;
  for (i = 0; i < N; i++)
    sink += rd();
  if (sink == 42)
    putchar(' ');
  return (double)(bench_now_ns() - t0) / 1e9 / N;
}

/* Over a spin of about 20 ms of CPU, how far the candidate's elapsed CPU
 * time is from CLOCK_THREAD_CPUTIME_ID's, as a fraction. */
static double honesty(reader_fn rd) {
  int64_t a0 = rd(), t0 = rd_thread(), a1, t1;
  volatile uint64_t x = 0;
  while (rd_thread() - t0 < 20000000)
    x += 1;
  a1 = rd();
  t1 = rd_thread();
  return (double)((a1 - a0) - (t1 - t0)) / (double)(t1 - t0);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 21;
  struct {
    const char *name;
    reader_fn rd;
  } c[] = {{"process", rd_process}, {"thread", rd_thread},
           {"rusage", rd_rusage},   {"perf-read", rd_perf_read},
           {"perf-mmap", rd_perf_mmap}};
  int i, pe = open_perf(), cpu = bench_pin();
  int mmap_ok = perf_page && perf_page->cap_user_time;
#if !(defined(__x86_64__) || defined(__i386__))
  mmap_ok = 0;
#endif
  if (rounds < 3)
    rounds = 3;
  printf("# bench_cputime: %d rounds x %d reads, pinned to CPU %d\n", rounds, N,
         cpu);
  printf("# each candidate vs clock_gettime(CLOCK_MONOTONIC) (vDSO), median of "
         "per-round ratios\n");
  printf("%-10s %10s %10s %8s %18s %10s\n", "candidate", "ns/read", "mono ns",
         "ratio", "quartiles", "honest");
  for (i = 0; i < (int)(sizeof c / sizeof c[0]); i++) {
    bench_ab_t r;
    if ((!strcmp(c[i].name, "perf-read") && pe < 0) ||
        (!strcmp(c[i].name, "perf-mmap") && !mmap_ok)) {
      printf("%-10s unavailable (%s)\n", c[i].name,
             pe < 0 ? strerror(-pe) : "no cap_user_time on this machine");
      continue;
    }
    reader_fn mono = rd_mono;
    r = bench_compare(batch, &c[i].rd, batch, &mono, rounds);
    printf("%-10s %10.1f %10.1f %8.2f %8.2f-%-8.2f %+9.2f%%\n", c[i].name,
           r.a * 1e9, r.b * 1e9, r.ratio, r.q1, r.q3, 100 * honesty(c[i].rd));
  }
  return 0;
}
