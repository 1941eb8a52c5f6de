/* bench_report.c — `ipcstamp report` against the straightforward Python
 * report (tests/bench/report_baseline.py) on the same slogfile.
 *
 * Generates slogfiles deterministically in the build tree
 * (tests/bench/gen_slog.py, not committed): 100 MB with large payloads,
 * 100 MB with small ones (the shape of `ipcstamp run --demo`), and 10 MB.
 * For each 100 MB file it checks once that both programs print the same
 * report, then runs them alternately and prints the median wall time of
 * each and the ratio; then the peak RSS on 10 and 100 MB (flat memory: the
 * 100 MB run needs no more than the 10 MB one).  Both are started as a
 * user's shell would start them, without launcher scripts in between: the
 * command without libtool's wrapper, Python as its own executable.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 7

/* The command without the libtool wrapper script (tests/bench/local.mk). */
#define TOOL IPS_BUILDDIR "/tests/bench/ipcstamp-direct"

typedef struct {
  double secs;
  long rss_kb;
} run_t;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs argv with stdout to out; returns its exit status or -1. */
static int run(char *const argv[], const char *out, run_t *r) {
  struct rusage ru;
  int st;
  double t0 = now();
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 1) < 0)
      _exit(127);
    execvp(argv[0], argv);
    fprintf(stderr, "bench_report: cannot run %s: %s\n", argv[0],
            strerror(errno));
    _exit(127);
  }
  if (wait4(pid, &st, 0, &ru) < 0)
    return -1;
  r->secs = now() - t0;
  r->rss_kb = ru.ru_maxrss;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int same_file(const char *a, const char *b) {
  FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
  int ca, cb, same = fa && fb;
  while (same) {
    ca = getc(fa);
    cb = getc(fb);
    if (ca != cb)
      same = 0;
    if (ca == EOF)
      break;
  }
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

static int ensure_slog(const char *py, const char *path, const char *mb,
                       const char *shape) {
  struct stat st;
  char *argv[7];
  run_t r;
  if (stat(path, &st) == 0 && st.st_size >= atol(mb) * 1024L * 1024L)
    return 0;
  argv[0] = (char *)py;
  argv[1] = (char *)IPS_SRCDIR "/tests/bench/gen_slog.py";
  argv[2] = (char *)path;
  argv[3] = (char *)mb;
  argv[4] = (char *)"1";
  argv[5] = (char *)shape;
  argv[6] = NULL;
  fprintf(stderr, "bench_report: generating %s (%s MB, %s payloads)\n", path,
          mb, shape);
  return run(argv, "/dev/null", &r) == 0 ? 0 : -1;
}

/* Python, report --strict and report, alternating; prints one section. */
static int bench_file(const char *py, const char *slog, const char *what,
                      long *rss_c, long *rss_p) {
  const char *tool = TOOL;
  const char *base = IPS_SRCDIR "/tests/bench/report_baseline.py";
  const char *outc = IPS_BUILDDIR "/tests/bench/bench-report-c.out";
  const char *outp = IPS_BUILDDIR "/tests/bench/bench-report-py.out";
  char *cargv[] = {(char *)tool, (char *)"report", (char *)slog, NULL};
  char *sargv[] = {(char *)tool, (char *)"report", (char *)"--strict",
                   (char *)slog, NULL};
  char *pargv[] = {(char *)py, (char *)base, (char *)slog, NULL};
  double tc[ROUNDS], ts[ROUNDS], tp[ROUNDS], mb;
  long rc = 0, rs = 0, rp = 0;
  run_t r;
  int i, k;
  struct stat st;
  /* Both must have done the same work before their times mean anything. */
  if (run(cargv, outc, &r) != 0 || run(pargv, outp, &r) != 0 ||
      !same_file(outc, outp)) {
    fprintf(stderr, "bench_report: the two reports differ (%s, %s)\n", outc,
            outp);
    return -1;
  }
  for (i = 0; i < ROUNDS; i++) {
    for (k = 0; k < 3; k++) {
      int which = (i + k) % 3; /* rotate who runs first */
      if (which == 0) {
        run(cargv, "/dev/null", &r);
        tc[i] = r.secs;
        if (r.rss_kb > rc) rc = r.rss_kb;
      } else if (which == 1) {
        run(sargv, "/dev/null", &r);
        ts[i] = r.secs;
        if (r.rss_kb > rs) rs = r.rss_kb;
      } else {
        run(pargv, "/dev/null", &r);
        tp[i] = r.secs;
        if (r.rss_kb > rp) rp = r.rss_kb;
      }
    }
  }
  qsort(tc, ROUNDS, sizeof tc[0], cmp_double);
  qsort(ts, ROUNDS, sizeof ts[0], cmp_double);
  qsort(tp, ROUNDS, sizeof tp[0], cmp_double);
  stat(slog, &st);
  mb = (double)st.st_size / 1e6;
  printf("%s: %s (%.1f MB), median of %d alternating runs, same output "
         "checked\n", what, slog, mb, ROUNDS);
  printf("  python baseline (json.loads per line)  %8.3f s  %6.1f MB/s  peak RSS %ld KB\n",
         tp[ROUNDS / 2], mb / tp[ROUNDS / 2], rp);
  printf("  ipcstamp report --strict               %8.3f s  %6.1f MB/s  peak RSS %ld KB\n",
         ts[ROUNDS / 2], mb / ts[ROUNDS / 2], rs);
  printf("  ipcstamp report                        %8.3f s  %6.1f MB/s  peak RSS %ld KB\n",
         tc[ROUNDS / 2], mb / tc[ROUNDS / 2], rc);
  printf("  ratio python / report: %.1fx (range %.1fx to %.1fx); "
         "python / report --strict: %.1fx\n",
         tp[ROUNDS / 2] / tc[ROUNDS / 2], tp[0] / tc[ROUNDS - 1],
         tp[ROUNDS - 1] / tc[0], tp[ROUNDS / 2] / ts[ROUNDS / 2]);
  *rss_c = rc;
  *rss_p = rp;
  return 0;
}

/* The interpreter itself, found once: "python3" on PATH may be a launcher
 * (pyenv's shims are shell scripts) that would add its start-up to every
 * Python run.  Falls back to the name. */
static const char *interpreter(const char *name, char *buf, size_t n) {
  char cmd[512];
  FILE *f;
  size_t len;
  snprintf(cmd, sizeof cmd, "'%s' -c 'import sys; print(sys.executable)'",
           name);
  f = popen(cmd, "r");
  if (!f)
    return name;
  if (!fgets(buf, (int)n, f)) {
    pclose(f);
    return name;
  }
  pclose(f);
  len = strcspn(buf, "\n");
  buf[len] = '\0';
  return len > 0 && access(buf, X_OK) == 0 ? buf : name;
}

int main(void) {
  char pybuf[4096];
  const char *py = interpreter(getenv("PYTHON3") ? getenv("PYTHON3") : "python3",
                               pybuf, sizeof pybuf);
  const char *heavy = IPS_BUILDDIR "/tests/bench/bench-100.slog";
  const char *small = IPS_BUILDDIR "/tests/bench/bench-100-small.slog";
  const char *ten = IPS_BUILDDIR "/tests/bench/bench-10.slog";
  const char *tool = TOOL;
  const char *base = IPS_SRCDIR "/tests/bench/report_baseline.py";
  char *c10[] = {(char *)tool, (char *)"report", (char *)ten, NULL};
  char *p10[] = {(char *)py, (char *)base, (char *)ten, NULL};
  long rc, rp, rc2, rp2;
  run_t r10c, r10p;
  if (ensure_slog(py, heavy, "100", "heavy") ||
      ensure_slog(py, small, "100", "small") ||
      ensure_slog(py, ten, "10", "heavy")) {
    fprintf(stderr, "bench_report: cannot generate the slogfiles\n");
    return 1;
  }
  if (bench_file(py, heavy, "large payloads (most bytes skipped)", &rc, &rp) ||
      bench_file(py, small, "small payloads (most bytes parsed)", &rc2, &rp2))
    return 1;
  run(c10, "/dev/null", &r10c);
  run(p10, "/dev/null", &r10p);
  printf("memory: peak RSS of report on 10 MB %ld KB, on 100 MB %ld KB "
         "(python %ld KB, %ld KB)\n", r10c.rss_kb, rc, r10p.rss_kb, rp);
  return 0;
}
