/* summary.c — the text beside each dump of `record --always-on`
 * (docs/always-on.md, "The summary"): which stall made it, how long, and
 * where the stalled thread's time went, split by the analysis library
 * from the dump itself (the split `report --os` and `blocks --os` make:
 * on CPU, waiting for a CPU, disk by system call, page faults, sleeping
 * by system call).  Runs in the dump's child, never in the recorder. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "always.h"
#include "record.h"
#include "ipcstamp-analyze-os.h"

const char *const ao_kind_name[AO_KINDS] = {
    "manual", "delivery", "upcall", "exit", "block", "phase", "gap"};

/* A CLOCK_MONOTONIC instant as UTC, to the millisecond. */
static void utc(char *b, size_t n, uint64_t mono, long long wall_off) {
  long long w = (long long)mono + wall_off;
  time_t s = (time_t)(w / 1000000000ll);
  struct tm tm;
  size_t k;
  gmtime_r(&s, &tm);
  k = strftime(b, n, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(b + k, n - k, ".%03lldZ", w % 1000000000ll / 1000000ll);
}

/* n bytes of s as text: NULs as spaces, bytes outside printable ASCII as
 * \xNN (a worker's arguments and a frame's head are untrusted). */
static void text(FILE *f, const unsigned char *s, size_t n) {
  size_t i;
  while (n > 0 && s[n - 1] == 0)
    n--;
  for (i = 0; i < n; i++) {
    if (s[i] == 0)
      putc(' ', f);
    else if (s[i] < 0x20 || s[i] >= 0x7f || s[i] == '\\')
      fprintf(f, "\\x%02x", s[i]);
    else
      putc(s[i], f);
  }
}

static double secs(int64_t ns) { return (double)ns / 1e9; }

/* Each part of t with time, and its system calls. */
static void parts(FILE *f, const ips_os_time_t *t) {
  static const char *const name[] = {"on CPU", "waiting for a CPU", "disk",
                                     "page faults", "sleeping",
                                     "not measured"};
  const int64_t v[] = {t->on_cpu, t->cpu_wait, t->disk,
                       t->fault, t->sleep, t->not_measured};
  const char *sep = "";
  size_t i, j;
  for (i = 0; i < sizeof v / sizeof v[0]; i++) {
    const ips_os_by_t *by = i == 2 ? t->disk_by : i == 4 ? t->sleep_by : NULL;
    if (v[i] <= 0)
      continue;
    fprintf(f, "%s%s %.3f s", sep, name[i], secs(v[i]));
    for (j = 0; by && j < IPS_OS_BY && by[j].ns > 0; j++)
      fprintf(f, "%s%s %.3f", j ? ", " : " (",
              by[j].sc[0] ? by[j].sc : "outside any system call",
              secs(by[j].ns));
    if (by && by[0].ns > 0)
      putc(')', f);
    sep = ", ";
  }
  putc('\n', f);
}

/* A thread's largest part over a stall (part NULL: nothing recorded). */
typedef struct {
  const char *who, *part;
  char sc[24];
  int64_t ns;
} cause_t;

/* "sleep in read 0.681 s": a sleep or disk outside any system call is a
 * thread stopped (SIGSTOP, a debugger) or in a fault. */
static void cause_text(FILE *f, const cause_t *c) {
  int by = !strcmp(c->part, "sleep") || !strcmp(c->part, "disk");
  fprintf(f, "%s%s%s %.3f s", c->part, by ? " in " : "",
          c->sc[0] ? c->sc : by ? "no system call (stopped, or a fault)" : "",
          secs(c->ns));
}

/* The split of thread tid of pid over [from, to], said, its largest part
 * in *c. */
static void split(FILE *f, const ips_os_t *os, const char *who, unsigned pid,
                  unsigned tid, uint64_t from, uint64_t to, cause_t *c) {
  ips_os_kernel_t k;
  ips_os_time_t t;
  memset(&k, 0, sizeof k);
  memset(&t, 0, sizeof t);
  memset(c, 0, sizeof *c);
  k.known = 1;
  k.pid = pid;
  k.tid = tid ? tid : pid;
  ips_os_kernel_time(os, &k, (int64_t)from, (int64_t)to, &t);
  fprintf(f, "  %s (pid %u, thread %lld) over %.3f s: ", who, pid, k.tid,
          secs((int64_t)(to - from)));
  parts(f, &t);
  c->who = who;
  if ((c->part = ips_os_time_cause(&t, &c->ns, c->sc)) != NULL) {
    fputs("  largest part: ", f);
    cause_text(f, c);
    putc('\n', f);
  }
}

/* Whether a worker's largest part is waiting on its pipe (for the
 * parent's answer): then the cause is the parent's. */
static int on_pipe(const cause_t *c) {
  static const char *const calls[] = {"read", "readv", "epoll_wait",
                                      "epoll_pwait", "poll", "ppoll",
                                      "recvfrom", "recvmsg", "select",
                                      "pselect6"};
  size_t i;
  if (!c->part || strcmp(c->part, "sleep") != 0)
    return 0;
  for (i = 0; i < sizeof calls / sizeof calls[0]; i++)
    if (!strcmp(c->sc, calls[i]))
      return 1;
  return 0;
}

/* The threads a stall was on, split; and the cause: the largest part of
 * the thread that held it up. */
static void threads(FILE *f, const ips_os_t *os, const ao_stall_t *s,
                    uint64_t to) {
  cause_t w = {0}, p = {0}, *c = NULL;
  if ((s->kind == AO_DELIVERY || s->in_delivery) && s->worker) {
    split(f, os, "the worker", s->worker, s->worker_tid, s->start, to, &w);
    c = &w;
  }
  if (s->parent && (s->kind == AO_UPCALL || s->what[0] || !c || on_pipe(c))) {
    split(f, os,
          s->what[0] ? "the kernel's thread"
          : c        ? "the parent (the worker waited on it)"
                     : "the parent",
          s->parent, s->parent_tid, s->start, to, &p);
    if (p.part)
      c = &p;
  }
  if (!s->parent && s->what[0])
    fputs("  no delivery seen yet: the kernel's thread is not known\n", f);
  if (c && c->part) {
    fprintf(f, "  cause: %s: ", c->who);
    cause_text(f, c);
    putc('\n', f);
  }
}

static void exit_line(FILE *f, const ao_stall_t *s) {
  fprintf(f, "process %u (", s->worker);
  text(f, (const unsigned char *)s->args, s->args_len);
  if (WIFSIGNALED(s->code))
    fprintf(f, ") killed by signal %d (%s)", WTERMSIG(s->code),
            strsignal(WTERMSIG(s->code)));
  else
    fprintf(f, ") exited with status %d", WEXITSTATUS(s->code));
  fputs(s->in_delivery ? ", inside a delivery" : "", f);
}

/* One stall: what, when, how long; and its thread's split. */
static void stall(FILE *f, const ips_os_t *os, const ao_stall_t *s,
                  uint64_t now, long long wall_off) {
  uint64_t to = s->end ? s->end : now;
  char b[40];
  utc(b, sizeof b, s->trigger, wall_off);
  fprintf(f, "%s at %s: ", ao_kind_name[s->kind], b);
  if (s->kind == AO_EXIT)
    exit_line(f, s);
  if (s->kind == AO_DELIVERY || s->in_delivery ||
      s->kind == AO_UPCALL) {
    fprintf(f, "%s%s #%llu to worker %u (", s->kind == AO_EXIT ? ": " : "",
            s->kind == AO_UPCALL ? "upcall in delivery" : "delivery",
            (unsigned long long)s->delivery, s->worker);
    text(f, (const unsigned char *)s->args, s->args_len);
    fprintf(f, ") tag '%c', head \"", s->tag);
    text(f, s->head, s->head_len);
    fprintf(f, "\" from process %u", s->parent);
  }
  if (s->kind == AO_MANUAL) {
    fputs("asked for (SIGUSR1 or record --dump)\n", f);
    return;
  }
  if (s->what[0])
    fputs(s->what, f);
  if (s->kind == AO_EXIT && !s->in_delivery) {
    putc('\n', f);
    return;
  }
  utc(b, sizeof b, s->start, wall_off);
  fprintf(f, "\n  began %s, %s %.3f s\n", b,
          s->end ? "lasted" : "still on at the dump after",
          secs((int64_t)(to - s->start)));
  if (os)
    threads(f, os, s, to);
}

int ao_summary(FILE *f, const char *path, const char *name,
               const ao_stall_t *s, size_t n, long long wall_off) {
  ips_os_t *os = NULL;
  ips_os_info_t info;
  char err[512];
  uint64_t now = rec_mono_ns();
  size_t i;
  int rc = 0;
  fprintf(f, "ipcstamp record --always-on: %s\n", name);
  if (ips_os_open(&os, path, err, sizeof err) != 0) {
    fprintf(f, "the dump cannot be read back: %s\n", err);
    os = NULL;
    rc = -1;
  }
  fprintf(f, "reason: %s\n", ao_kind_name[s[0].kind]);
  for (i = 0; i < n; i++)
    stall(f, os, &s[i], now, wall_off);
  if (os) {
    ips_os_info(os, &info);
    fprintf(f, "window: %llu frames, %llu waits, %llu processes named, "
               "%llu events lost\n", (unsigned long long)info.frames,
            (unsigned long long)info.waits, (unsigned long long)info.procs,
            (unsigned long long)info.lost);
  }
  ips_os_free(os);
  return rc;
}
