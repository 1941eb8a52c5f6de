/* dumps.c — the directory of `record --always-on DIR` (docs/always-on.md,
 * "Where dumps go"): each dump written under a temporary name and renamed
 * when whole, its summary beside it, the oldest removed beyond
 * --max-dumps and --max-dump-bytes; recorder.pid, by which `record --dump
 * DIR` finds the recorder. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "always.h"
#include "cli.h"
#include "record.h"

#define PREFIX "ipcstamp-"
#define SUMMARY ".summary.txt"

static int is_dump(const struct dirent *e) {
  size_t n = strlen(e->d_name);
  return strncmp(e->d_name, PREFIX, sizeof PREFIX - 1) == 0 && n > 3 &&
         strcmp(e->d_name + n - 3, ".os") == 0;
}

static int is_tmp(const struct dirent *e) {
  size_t n = strlen(e->d_name);
  return strncmp(e->d_name, "." PREFIX, sizeof PREFIX) == 0 && n > 4 &&
         strcmp(e->d_name + n - 4, ".tmp") == 0;
}

/* The summary's path of dump name (DIR/ipcstamp-...-REASON.os). */
static void summary_of(char *out, size_t n, const char *dir, const char *name) {
  snprintf(out, n, "%s/%.*s" SUMMARY, dir, (int)(strlen(name) - 3), name);
}

static uint64_t size_of(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

typedef struct {
  struct timespec mtime;
  uint64_t bytes;    /* the dump's and its summary's */
  char name[256];
} dump_t;

/* Oldest first: by the time each was written, then by name. */
static int by_age(const void *x, const void *y) {
  const dump_t *a = x, *b = y;
  if (a->mtime.tv_sec != b->mtime.tv_sec)
    return a->mtime.tv_sec < b->mtime.tv_sec ? -1 : 1;
  if (a->mtime.tv_nsec != b->mtime.tv_nsec)
    return a->mtime.tv_nsec < b->mtime.tv_nsec ? -1 : 1;
  return strcmp(a->name, b->name);
}

/* The oldest dumps removed until at most max_dumps are left and they
 * take at most max_bytes; the newest always stays. */
static void rotate(const ao_dir_t *d) {
  struct dirent **e = NULL;
  int n = scandir(d->dir, &e, is_dump, alphasort), i, k = 0;
  dump_t *v = n > 0 ? calloc((size_t)n, sizeof *v) : NULL;
  uint64_t total = 0;
  char p[4096], q[4096];
  struct stat st;
  for (i = 0; i < n; i++) {
    snprintf(p, sizeof p, "%s/%s", d->dir, e[i]->d_name);
    summary_of(q, sizeof q, d->dir, e[i]->d_name);
    if (v && stat(p, &st) == 0) {
      v[k].mtime = st.st_mtim;
      v[k].bytes = (uint64_t)st.st_size + size_of(q);
      snprintf(v[k].name, sizeof v[k].name, "%s", e[i]->d_name);
      total += v[k++].bytes;
    }
    free(e[i]);
  }
  free(e);
  if (v)
    qsort(v, (size_t)k, sizeof *v, by_age);
  for (i = 0; i < k - 1 && ((unsigned)(k - i) > d->max_dumps ||
                            total > d->max_bytes); i++) {
    snprintf(p, sizeof p, "%s/%s", d->dir, v[i].name);
    summary_of(q, sizeof q, d->dir, v[i].name);
    unlink(q);
    if (unlink(p) == 0)
      fprintf(stderr, "ipcstamp record: removed the oldest dump %s\n", p);
    total -= v[i].bytes;
  }
  free(v);
}

/* tmp: the window w, or (w NULL) the summary of the dump at dump (named
 * by its final name shown); path: the file's own final name, for the
 * messages.  0, or 1 (said; tmp removed). */
static int write_file(const char *tmp, const char *path, const ao_window_t *w,
                      long pid, const ao_counters_t *c, const ao_stall_t *s,
                      size_t n, long long wall_off, const char *dump,
                      const char *shown) {
  FILE *f = fopen(tmp, "wbx");
  int rc;
  if (!f) {
    fprintf(stderr, "ipcstamp record: cannot write %s: %s\n", tmp,
            strerror(errno));
    return 1;
  }
  errno = 0;
  if (w) {
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    rc = ao_window_write(w, f, pid, c);
  } else {
    rc = ao_summary(f, dump, shown, s, n, wall_off) != 0 || ferror(f);
  }
  if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0)
    rc = -1;
  if (fclose(f) != 0)
    rc = -1;
  if (rc != 0) {
    fprintf(stderr, "ipcstamp record: cannot write %s: %s (the recorder "
                    "goes on)\n", path, strerror(errno ? errno : EIO));
    unlink(tmp);
    return 1;
  }
  return 0;
}

int ao_dump_write(const ao_dir_t *d, const ao_window_t *w, long pid,
                  const ao_counters_t *c, const ao_stall_t *s, size_t n) {
  long long wall_off = rec_wall_off(), wall;
  char base[128], path[4096], tmp[4096], sum[4096], sumtmp[4096];
  time_t secs;
  struct tm tm;
  int k;
  wall = (long long)s[0].trigger + wall_off;
  secs = (time_t)(wall / 1000000000ll);
  gmtime_r(&secs, &tm);
  strftime(base, sizeof base, PREFIX "%Y%m%dT%H%M%SZ", &tm);
  for (k = 1; k < 100; k++) { /* two dumps in one second: -2, -3... */
    if (k == 1)
      snprintf(path, sizeof path, "%s/%s-%s.os", d->dir, base,
               ao_kind_name[s[0].kind]);
    else
      snprintf(path, sizeof path, "%s/%s-%s-%d.os", d->dir, base,
               ao_kind_name[s[0].kind], k);
    if (access(path, F_OK) != 0)
      break;
  }
  snprintf(tmp, sizeof tmp, "%s/.%s.tmp", d->dir, strrchr(path, '/') + 1);
  summary_of(sum, sizeof sum, d->dir, strrchr(path, '/') + 1);
  snprintf(sumtmp, sizeof sumtmp, "%s/.%s.tmp", d->dir, strrchr(sum, '/') + 1);
  if (write_file(tmp, path, w, pid, c, s, n, wall_off, NULL, NULL) != 0)
    return 1;
  /* The summary read from the dump itself, in place before the dump is
   * (a reader that sees the dump finds its summary); a dump whose summary
   * cannot be written stays: the recording is what matters. */
  if (write_file(sumtmp, sum, NULL, pid, c, s, n, wall_off, tmp, path) == 0 &&
      rename(sumtmp, sum) != 0)
    unlink(sumtmp);
  if (rename(tmp, path) != 0) {
    fprintf(stderr, "ipcstamp record: cannot write %s: %s (the recorder "
                    "goes on)\n", path, strerror(errno));
    unlink(tmp);
    unlink(sum);
    return 1;
  }
  fprintf(stderr, "ipcstamp record: wrote %s\n", path);
  rotate(d);
  return 0;
}

/* The pid in dir's recorder.pid, or 0 (none, or not a number). */
static long read_pid(const char *dir) {
  char p[4096], b[32] = "";
  FILE *f;
  long v = 0;
  snprintf(p, sizeof p, "%s/recorder.pid", dir);
  if ((f = fopen(p, "r")) != NULL) {
    if (fgets(b, sizeof b, f))
      v = strtol(b, NULL, 10);
    fclose(f);
  }
  return v > 0 ? v : 0;
}

int ao_pid_file(const ao_dir_t *d) {
  char p[4096], t[4096];
  struct dirent **e = NULL;
  long other = read_pid(d->dir);
  FILE *f;
  int n, i;
  if (mkdir(d->dir, 0750) != 0 && errno != EEXIST) {
    fprintf(stderr, "ipcstamp record: cannot make %s: %s\n", d->dir,
            strerror(errno));
    return CLI_EXIT_IO;
  }
  if (other && other != (long)getpid() && kill((pid_t)other, 0) == 0) {
    fprintf(stderr, "ipcstamp record: another recorder (pid %ld, in "
                    "%s/recorder.pid) dumps to %s: stop it first\n",
            other, d->dir, d->dir);
    return CLI_EXIT_USAGE;
  }
  /* Temporary files a recorder killed while dumping left. */
  n = scandir(d->dir, &e, is_tmp, alphasort);
  for (i = 0; i < n; i++) {
    snprintf(p, sizeof p, "%s/%s", d->dir, e[i]->d_name);
    unlink(p);
    free(e[i]);
  }
  free(e);
  snprintf(p, sizeof p, "%s/recorder.pid", d->dir);
  snprintf(t, sizeof t, "%s/.recorder.pid.tmp", d->dir);
  if (!(f = fopen(t, "w")) || fprintf(f, "%ld\n", (long)getpid()) < 0 ||
      fclose(f) != 0 || rename(t, p) != 0) {
    fprintf(stderr, "ipcstamp record: cannot write %s: %s\n", p,
            strerror(errno));
    return CLI_EXIT_IO;
  }
  return 0;
}

/* Whether name is among the n names of old. */
static int known(struct dirent **old, int n, const char *name) {
  int i;
  for (i = 0; i < n; i++)
    if (strcmp(old[i]->d_name, name) == 0)
      return 1;
  return 0;
}

static void free_list(struct dirent **e, int n) {
  int i;
  for (i = 0; i < n; i++)
    free(e[i]);
  free(e);
}

int ao_dump_request(const char *dir) {
  struct dirent **old = NULL, **now = NULL;
  long pid = read_pid(dir);
  int nold, n, i, tries, rc = CLI_EXIT_FAIL;
  if (!pid || kill((pid_t)pid, 0) != 0) {
    fprintf(stderr, "ipcstamp record: no recorder runs for %s (%s/recorder.pid "
                    "%s)\n", dir, dir, pid ? "names a process that is gone"
                                           : "is missing");
    return CLI_EXIT_FAIL;
  }
  nold = scandir(dir, &old, is_dump, alphasort);
  if (kill((pid_t)pid, SIGUSR1) != 0) {
    fprintf(stderr, "ipcstamp record: cannot signal the recorder (pid %ld): "
                    "%s\n", pid, strerror(errno));
    free_list(old, nold);
    return CLI_EXIT_FAIL;
  }
  /* The dump is renamed into place once whole, after its summary: at
   * most 10 minutes (a window of gigabytes on a slow disk). */
  for (tries = 0; tries < 6000 && rc != CLI_EXIT_OK; tries++) {
    struct timespec ms100 = {0, 100000000};
    nanosleep(&ms100, NULL);
    n = scandir(dir, &now, is_dump, alphasort);
    for (i = 0; i < n; i++)
      if (rc != CLI_EXIT_OK && strstr(now[i]->d_name, "-manual") &&
          !known(old, nold, now[i]->d_name)) {
        printf("%s/%s\n", dir, now[i]->d_name);
        rc = CLI_EXIT_OK;
      }
    free_list(now, n);
    if (rc != CLI_EXIT_OK && kill((pid_t)pid, 0) != 0) {
      fprintf(stderr, "ipcstamp record: the recorder (pid %ld) ended before "
                      "it wrote the dump\n", pid);
      break;
    }
  }
  if (tries >= 6000)
    fprintf(stderr, "ipcstamp record: no dump appeared in %s within 10 "
                    "minutes (see the recorder's messages)\n", dir);
  free_list(old, nold);
  return rc;
}
