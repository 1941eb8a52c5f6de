/* parent_util.c — helpers shared by tests/parent/check_parent and tests/tools/check_run. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parent_suites.h"

const char *parent_self_exe(void) {
  static char path[4096];
  ssize_t n;
  if (path[0])
    return path;
  n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0)
    abort();
  path[n] = 0;
  return path;
}

const char *parent_tmpdir(void) {
  static char dir[256];
  if (!dir[0]) {
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ips-parent-XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(dir))
      abort();
  }
  return dir;
}

void parent_res_copy(parent_res_t *r, const ips_result_t *res) {
  size_t i;
  r->done = 1;
  r->kind = res->kind;
  r->status = res->status;
  snprintf(r->message, sizeof r->message, "%s", res->message);
  r->data = malloc(res->len + 1);
  memcpy(r->data, res->data ? res->data : "", res->len);
  r->data[res->len] = 0;
  r->len = res->len;
  r->nstamps = res->nstamps < 256 ? res->nstamps : 256;
  for (i = 0; i < r->nstamps; i++)
    r->stamps[i] = res->stamps[i];
  if (res->metering_error)
    snprintf(r->metering_error, sizeof r->metering_error, "%s",
             res->metering_error);
  if (res->metering) {
    char err[200];
    r->has_metering = 1;
    ck_assert_int_eq(ips_metering_parse(res->metering_raw, res->metering_len,
                                        &r->m, err, sizeof err),
                     0);
  }
}

void parent_res_free(parent_res_t *r) {
  free(r->data);
  ips_metering_free(&r->m);
  memset(r, 0, sizeof *r);
}

