/* follow.c — what `ipcstamp record` follows (docs/os.md): a running
 * process and the descendants it has (--pid, and --always-on's
 * --process), or a command started for it (-- COMMAND). */
#include "config.h"

#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os.skel.h"
#include "record.h"

/* /proc/PID/stat of process pid (its decimal name) read into buf, from
 * its state on ("S 1 ..."): comm, before it, may hold ')' itself, so the
 * state follows the last one.  NULL when it cannot be read. */
static const char *stat_after_comm(const char *pid, char *buf, size_t n) {
  char path[64], *p;
  FILE *f;
  size_t got;
  snprintf(path, sizeof path, "/proc/%.20s/stat", pid);
  if (!(f = fopen(path, "r")))
    return NULL;
  got = fread(buf, 1, n - 1, f);
  fclose(f);
  buf[got] = '\0';
  return (p = strrchr(buf, ')')) && p[1] == ' ' ? p + 2 : NULL;
}

/* The process and the descendants it has now, each followed and handed
 * to emit_fn as an exec record of its own (argv from /proc), so that
 * workers started before the recording are named too. */
void rec_follow_existing(struct os *s, unsigned root, rec_emit_fn emit_fn,
                         void *ctx) {
  enum { MAXP = 65536 };
  unsigned *pid = malloc(MAXP * sizeof *pid), *ppid = malloc(MAXP * sizeof *ppid);
  unsigned char *in = calloc(MAXP, 1);
  size_t n = 0, i;
  int grew = 1;
  DIR *d = opendir("/proc");
  struct dirent *de;
  if (!pid || !ppid || !in || !d)
    goto out;
  while ((de = readdir(d)) && n < MAXP) {
    char buf[512];
    const char *p;
    unsigned pp = 0;
    if (de->d_name[0] < '1' || de->d_name[0] > '9')
      continue;
    if (!(p = stat_after_comm(de->d_name, buf, sizeof buf)) ||
        sscanf(p, "%*c %u", &pp) != 1)
      continue;
    pid[n] = (unsigned)strtoul(de->d_name, NULL, 10);
    ppid[n] = pp;
    in[n] = pid[n] == root;
    n++;
  }
  while (grew) /* descendants: whoever's parent is in, until none is added */
    for (grew = 0, i = 0; i < n; i++)
      if (!in[i] && ppid[i]) {
        size_t j;
        for (j = 0; j < n; j++)
          if (in[j] && pid[j] == ppid[i]) {
            in[i] = 1;
            grew = 1;
            break;
          }
      }
  for (i = 0; i < n; i++) {
    char path[64], args[OS_ARGS];
    size_t len = 0;
    struct os_event e;
    FILE *c;
    if (!in[i])
      continue;
    rec_trace(s, pid[i]);
    snprintf(path, sizeof path, "/proc/%u/cmdline", pid[i]);
    if ((c = fopen(path, "r"))) {
      len = fread(args, 1, sizeof args, c);
      fclose(c);
    }
    rec_proc_event(&e, rec_mono_ns(), pid[i], ppid[i], args, len);
    emit_fn(ctx, &e);
  }
out:
  if (d)
    closedir(d);
  free(pid);
  free(ppid);
  free(in);
}

pid_t rec_start_command(struct os *s, char **cmd) {
  int p[2];
  pid_t c;
  if (pipe(p) != 0) {
    fprintf(stderr, "ipcstamp record: pipe: %s\n", strerror(errno));
    return -1;
  }
  if ((c = fork()) < 0) {
    fprintf(stderr, "ipcstamp record: fork: %s\n", strerror(errno));
    return -1;
  }
  if (c == 0) {
    char b;
    close(p[1]);
    if (read(p[0], &b, 1) != 1) /* the collector gave up: do not run */
      _exit(127);
    close(p[0]);
    execvp(cmd[0], cmd);
    fprintf(stderr, "ipcstamp record: cannot run %s: %s\n", cmd[0],
            strerror(errno));
    _exit(127);
  }
  close(p[0]);
  rec_trace(s, (unsigned)c);
  if (write(p[1], "g", 1) != 1)
    fprintf(stderr, "ipcstamp record: cannot start %s\n", cmd[0]);
  close(p[1]);
  return c;
}

/* Whether process pid has ended: no such process, or a zombie (its
 * parent has not reaped it yet: kill(pid, 0) still succeeds on one, and
 * a --pid recording of it never ended), from /proc/PID/stat's state. */
int rec_process_gone(long pid) {
  char name[24], buf[512];
  const char *p;
  if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
    return 1;
  snprintf(name, sizeof name, "%ld", pid);
  if (!(p = stat_after_comm(name, buf, sizeof buf)))
    return 0; /* no /proc: kill's answer stands */
  return p[0] == 'Z' || p[0] == 'X';
}
