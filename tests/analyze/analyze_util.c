/* analyze_util.c — see analyze_util.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze_util.h"

static char tmpdir[256];
static char pathbuf[4][1024];
static int pathi;

static const char *prog_name = "check";

static void ensure_env(void) {
  char buf[1200];
  const char *b = getenv("IPCSTAMP_BUILDDIR"), *s = getenv("IPCSTAMP_SRCDIR");
  if (!b || !s) {
    fprintf(stderr, "%s: run me through make check "
                    "(IPCSTAMP_BUILDDIR, IPCSTAMP_SRCDIR)\n", prog_name);
    exit(77);
  }
  if (!tmpdir[0]) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ips-%s-XXXXXX", prog_name);
    if (!mkdtemp(tmpdir))
      abort();
  }
  snprintf(buf, sizeof buf, "%s/tools/ipcstamp", b);
  setenv("IPS", buf, 1);
  snprintf(buf, sizeof buf, "%s/tests/data", s);
  setenv("DATA", buf, 1);
  setenv("TMP", tmpdir, 1);
}

int tt_sh(const char *cmd) {
  int st;
  ensure_env();
  st = system(cmd);
  ck_assert_msg(st != -1 && WIFEXITED(st), "cannot run: %s", cmd);
  return WEXITSTATUS(st);
}

const char *tt_tmp(const char *name) {
  char *p = pathbuf[pathi++ & 3];
  ensure_env();
  snprintf(p, sizeof pathbuf[0], "%s/%s", tmpdir, name);
  return p;
}

const char *tt_data(const char *name) {
  char *p = pathbuf[pathi++ & 3];
  ensure_env();
  snprintf(p, sizeof pathbuf[0], "%s/%s", getenv("DATA"), name);
  return p;
}

char *tt_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(buf);
  ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  fclose(f);
  if (len)
    *len = (size_t)n;
  return buf;
}

ips_analysis_t *tt_analyse_src(const char *text,
                               const ips_source_options_t *so,
                               const ips_analysis_options_t *o) {
  const char *path = tt_tmp("in.slog");
  FILE *f = fopen(path, "w");
  ips_analysis_options_t ao;
  ips_analysis_t *a;
  ips_source_t *src;
  char err[256];
  long n;
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(ips_source_open(&src, path, so, err, sizeof err), 0);
  if (o)
    ao = *o;
  else
    ips_analysis_options_init(&ao);
  ck_assert_int_eq(ips_analysis_new(&a, &ao), 0);
  while ((n = ips_analysis_read(a, src, 0, err, sizeof err)) > 0)
    ;
  ck_assert_msg(n == 0, "analysis: %s", err);
  ips_analysis_finish(a);
  ips_source_close(src);
  return a;
}

ips_analysis_t *tt_analyse(const char *text, size_t max_line,
                           const ips_analysis_options_t *o) {
  ips_source_options_t so;
  ips_source_options_init(&so);
  if (max_line)
    so.max_line = max_line;
  return tt_analyse_src(text, &so, o);
}

int tt_run(SRunner *sr, const char *prog) {
  int failed;
  prog_name = prog;
  ensure_env();
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
      fprintf(stderr, "%s: could not remove %s\n", prog_name, tmpdir);
  }
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
