/* bench_memory — peak RSS of `ipcstamp run` for 10,000 and for 1,000,000
 * deliveries through ipcstamp-worker-c (memory must stay flat).
 *
 * The workload is two lines, a delivery making one upcall and an empty
 * one, run with --repeat; the slogfile goes to a temporary file that is
 * removed afterwards (at 1M deliveries it is about half a gigabyte).  The
 * peak RSS is the child's ru_maxrss from wait4(), so it is exactly the
 * parent process's, without the worker's.
 *
 * usage: bench_memory [SMALL [BIG]]   (deliveries; default 10000 1000000)
 *   ipcstamp: $IPCSTAMP_BUILDDIR/tools/ipcstamp, else ./tools/ipcstamp
 *   (make bench runs in the build directory); likewise the worker.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char workload[] = "{\"vat\":\"v1\",\"vd\":{\"upcalls\":1}}\n"
                               "{\"vat\":\"v1\",\"vd\":{}}\n";
#define LINES 2

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run ipcstamp for n deliveries; returns its peak RSS in KiB. */
static long run(const char *ipcstamp, const char *worker, const char *wl,
                const char *slog, long n, double *secs) {
  char repeat[32];
  struct rusage ru;
  int st;
  double t0 = now_s();
  pid_t pid;
  snprintf(repeat, sizeof repeat, "%ld", n / LINES);
  printf("  %s run --worker %s --workload %s --repeat %s --slog %s --force "
         "--quiet\n",
         ipcstamp, worker, wl, repeat, slog);
  fflush(stdout);
  pid = fork();
  if (pid < 0) {
    perror("bench_memory: fork");
    exit(1);
  }
  if (pid == 0) {
    execl(ipcstamp, ipcstamp, "run", "--worker", worker, "--workload", wl,
          "--repeat", repeat, "--slog", slog, "--force", "--quiet",
          (char *)NULL);
    perror("bench_memory: exec ipcstamp");
    _exit(127);
  }
  if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) ||
      WEXITSTATUS(st) != 0) {
    fprintf(stderr, "bench_memory: ipcstamp run failed (status 0x%x)\n", st);
    unlink(slog);
    exit(1);
  }
  *secs = now_s() - t0;
  unlink(slog);
  return ru.ru_maxrss;
}

int main(int argc, char **argv) {
  const char *b = getenv("IPCSTAMP_BUILDDIR");
  const char *tmp = getenv("TMPDIR");
  long small = argc > 1 ? atol(argv[1]) : 10000;
  long big = argc > 2 ? atol(argv[2]) : 1000000;
  char ipcstamp[4096], worker[4096], dir[4096], wl[4200], slog[4200];
  long rs, rb;
  double ts, tb;
  FILE *f;
  if (small < LINES || big < LINES)
    return 2;
  snprintf(ipcstamp, sizeof ipcstamp, "%s/tools/ipcstamp", b ? b : ".");
  snprintf(worker, sizeof worker, "%s/worker/ipcstamp-worker-c", b ? b : ".");
  snprintf(dir, sizeof dir, "%s/bench-memory-XXXXXX", tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("bench_memory: mkdtemp");
    return 1;
  }
  snprintf(wl, sizeof wl, "%s/workload.jsonl", dir);
  snprintf(slog, sizeof slog, "%s/run.slog", dir);
  if (!(f = fopen(wl, "w")) || fputs(workload, f) < 0 || fclose(f)) {
    perror("bench_memory: write the workload");
    return 1;
  }
  printf("bench_memory: peak RSS of `ipcstamp run` (wait4 ru_maxrss), "
         "worker ipcstamp-worker-c,\nworkload: a 1-upcall delivery and an "
         "empty one, repeated; commands:\n");
  rs = run(ipcstamp, worker, wl, slog, small, &ts);
  rb = run(ipcstamp, worker, wl, slog, big, &tb);
  unlink(wl);
  rmdir(dir);
  printf("  %8ld deliveries: peak RSS %6ld KiB (%.1f s)\n", small, rs, ts);
  printf("  %8ld deliveries: peak RSS %6ld KiB (%.1f s)\n", big, rb, tb);
  printf("  ratio %ld/%ld deliveries: %.3f\n", big, small,
         (double)rb / (double)rs);
  return 0;
}
