/* run_util.c — helpers of tests/tools/check_run and tests/tools/check_timequake: run
 * the real `ipcstamp`, and check the slogfile it leaves (see
 * run_suites.h). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "ipcstamp-slog.h"
#include "parent_suites.h"
#include "run_suites.h"

char ipcstamp[1024], dir[512], slog[600], errfile[600], wl[600];
char worker_good[1200];

void run_setup(void) {
  const char *b = getenv("IPCSTAMP_BUILDDIR");
  static int n;
  snprintf(ipcstamp, sizeof ipcstamp, "%s/tools/ipcstamp", b ? b : ".");
  snprintf(dir, sizeof dir, "%s", parent_tmpdir());
  snprintf(slog, sizeof slog, "%s/run-%d-%d.slog", dir, (int)getpid(), n);
  snprintf(errfile, sizeof errfile, "%s/err-%d-%d", dir, (int)getpid(), n);
  snprintf(wl, sizeof wl, "%s/wl-%d-%d.jsonl", dir, (int)getpid(), n++);
  snprintf(worker_good, sizeof worker_good, "%s --peer good",
           parent_self_exe());
}

void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  char *buf;
  long len;
  if (!f)
    return strdup("");
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)len + 1);
  len = (long)fread(buf, 1, (size_t)len, f);
  buf[len] = 0;
  fclose(f);
  return buf;
}

/* Start ipcstamp with args (NULL-terminated, after "ipcstamp"); stderr
 * goes to errfile, stdout to /dev/null. */
pid_t start(const char **args) { return start_to(args, "/dev/null"); }

pid_t start_to(const char **args, const char *out) {
  const char *argv[32];
  int i = 0;
  pid_t pid;
  argv[i++] = ipcstamp;
  while (*args && i < 31)
    argv[i++] = *args++;
  argv[i] = NULL;
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int e = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(e, 2);
    dup2(o, 1);
    execv(ipcstamp, (char **)argv);
    _exit(127);
  }
  return pid;
}

int finish(pid_t pid) {
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert_msg(WIFEXITED(st), "ipcstamp died of signal %d",
                WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  return WEXITSTATUS(st);
}

int run(const char **args) { return finish(start(args)); }

/* Like finish(), and the child's resource use (with its waited-for
 * descendants': the workers). */
static int finish_usage(pid_t pid, struct rusage *ru) {
  int st;
  ck_assert_int_eq(wait4(pid, &st, 0, ru), pid);
  ck_assert_msg(WIFEXITED(st), "ipcstamp died of signal %d",
                WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  return WEXITSTATUS(st);
}

int finish_rss(pid_t pid, long *maxrss_kb) {
  struct rusage ru;
  int rc = finish_usage(pid, &ru);
  *maxrss_kb = ru.ru_maxrss;
  return rc;
}

int finish_faults(pid_t pid, long *pages) {
  struct rusage ru;
  int rc = finish_usage(pid, &ru);
  *pages = ru.ru_minflt + ru.ru_majflt;
  return rc;
}

void assert_err(const char *words) {
  char *e = slurp(errfile);
  ck_assert_msg(strstr(e, words) != NULL, "stderr lacks '%s': %s", words, e);
  free(e);
}

const char *failed_slog(void) {
  static char path[sizeof slog + 8];
  snprintf(path, sizeof path, "%s.failed", slog);
  ck_assert_msg(access(slog, F_OK) != 0, "a failed run left %s", slog);
  ck_assert_msg(access(path, F_OK) == 0, "no %s", path);
  return path;
}

/* Seconds text ("764.404427069") to integer nanoseconds. */
long long ns_of(const char *line, const char *key) {
  char pat[32];
  const char *p;
  long long s = 0, f = 0;
  int d = 0;
  snprintf(pat, sizeof pat, "\"%s\":", key);
  p = strstr(line, pat);
  ck_assert_ptr_nonnull(p);
  p += strlen(pat);
  while (*p >= '0' && *p <= '9')
    s = s * 10 + (*p++ - '0');
  ck_assert_int_eq(*p, '.');
  for (p++; *p >= '0' && *p <= '9'; p++, d++)
    f = f * 10 + (*p - '0');
  ck_assert_int_eq(d, 9);
  return s * 1000000000LL + f;
}

/* The schema (ipcstamp-slog.h): the types the parent writes, and each
 * one's fields in order.  A line of any other type, or with other fields,
 * did not come from the writer. */
static const struct {
  int id;
  const char *type;
  int status;
} slog_types[] = {
#define X(id, type, status) {IPS_SLOG_##id, type, status},
    IPS_SLOG_RECORDS(X)
#undef X
};
static const struct {
  int id;
  const char *key;
  int presence;
} slog_fields[] = {
#define X(id, key, kind, presence) {IPS_SLOG_##id, key, presence},
    IPS_SLOG_FIELDS(X)
#undef X
};

/* The keys of v between "type" and "time" are the schema's for record id,
 * in order, optional ones possibly left out. */
static void check_fields(yajl_val v, int id, int lineno) {
  size_t i, k = 1, n = v->u.object.len;
  for (i = 0; i < sizeof slog_fields / sizeof *slog_fields; i++) {
    if (slog_fields[i].id != id)
      continue;
    if (k < n - 2 && !strcmp(v->u.object.keys[k], slog_fields[i].key))
      k++;
    else
      ck_assert_msg(slog_fields[i].presence == IPS_SLOG_OPT,
                    "line %d: no %s where the schema has it", lineno,
                    slog_fields[i].key);
  }
  ck_assert_msg(k == n - 2, "line %d: field '%s' is not in the schema",
                lineno, v->u.object.keys[k]);
}

/* Every line one JSON object (valid UTF-8: yajl checks it), no empty
 * line, "type" first and one the parent writes, its fields those of the
 * schema in order, "time" and "monotime" last, kernel-init-start first,
 * every deliver inside its crank (crank-start, deliver, ..., deliver-result,
 * crank-finish, all with its crankNum), each deliver-result's seconds =
 * E - D.  Returns the number of lines of the given type. */
int check_slog(const char *path, const char *count_type) {
  char *buf = slurp(path), *line, *save;
  int count = 0, nlines = 0;
  long long D = -1, in_crank = -1;
  size_t len = strlen(buf);
  ck_assert_msg(len > 0 && buf[len - 1] == '\n', "slog empty or last line "
                                                 "incomplete");
  ck_assert_msg(strstr(buf, "\n\n") == NULL, "an empty line in the slog");
  for (line = strtok_r(buf, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    char err[200];
    yajl_val v = yajl_tree_parse(line, err, sizeof err);
    const char *type;
    size_t n;
    ck_assert_msg(v && YAJL_IS_OBJECT(v), "line %d not a JSON object: %s",
                  nlines + 1, line);
    n = v->u.object.len;
    ck_assert_str_eq(v->u.object.keys[0], "type");
    ck_assert(n >= 3);
    ck_assert_str_eq(v->u.object.keys[n - 2], "time");
    ck_assert_str_eq(v->u.object.keys[n - 1], "monotime");
    type = YAJL_GET_STRING(v->u.object.values[0]);
    ck_assert_ptr_nonnull(type);
    {
      size_t i = 0, nt = sizeof slog_types / sizeof *slog_types;
      const char *cpath[] = {"crankNum", NULL};
      yajl_val cn = yajl_tree_get(v, cpath, yajl_t_number);
      long long crank = cn ? YAJL_GET_INTEGER(cn) : -1;
      while (i < nt && strcmp(slog_types[i].type, type))
        i++;
      ck_assert_msg(i < nt && slog_types[i].status == IPS_SLOG_WRITTEN,
                    "line %d: a type the parent does not write: '%s'",
                    nlines + 1, type);
      check_fields(v, slog_types[i].id, nlines + 1);
      switch (slog_types[i].id) {
      case IPS_SLOG_CRANK_START:
        ck_assert_msg(in_crank < 0, "line %d: crank-start inside a crank",
                      nlines + 1);
        in_crank = crank;
        break;
      case IPS_SLOG_DELIVER:
      case IPS_SLOG_SYSCALL:
      case IPS_SLOG_SYSCALL_RESULT:
      case IPS_SLOG_DELIVER_RESULT:
        ck_assert_msg(crank >= 0 && crank == in_crank,
                      "line %d: %s outside its crank", nlines + 1, type);
        break;
      case IPS_SLOG_CRANK_FINISH:
        ck_assert_msg(crank >= 0 && crank == in_crank,
                      "line %d: crank-finish of another crank", nlines + 1);
        in_crank = -1;
        break;
      }
    }
    ck_assert_msg((nlines == 0) == !strcmp(type, "kernel-init-start"),
                  "line %d: kernel-init-start only first", nlines + 1);
    if (!strcmp(type, "deliver"))
      D = ns_of(line, "monotime");
    if (!strcmp(type, "deliver-result")) {
      ck_assert(D >= 0);
      ck_assert_int_eq(ns_of(line, "seconds"), ns_of(line, "monotime") - D);
    }
    if (count_type && !strcmp(type, count_type))
      count++;
    yajl_tree_free(v);
    nlines++;
  }
  free(buf);
  return count;
}
