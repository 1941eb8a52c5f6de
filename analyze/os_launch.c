/* os_launch.c — the worker processes a recording saw launched and how
 * each ended (docs/os.md, "Workers launched and how they ended"): its
 * exec records (which vat, which arguments) joined with its exit records
 * (the wait status), for the workers only — the processes whose first
 * argument names a vat (SwingSet's xsnap workers) or that answered
 * commands on a pipe (any parent's workers) — so that a worker that died
 * on a signal or a non-zero status is said. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "os.h"

static int by_u32(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  return a < b ? -1 : a > b;
}

static int by_pid_ns(const void *x, const void *y) {
  const ips__os_exit_t *a = x, *b = y;
  if (a->pid != b->pid)
    return a->pid < b->pid ? -1 : 1;
  return a->ns < b->ns ? -1 : a->ns > b->ns;
}

/* The first exit of pid at or after ns in e[0..n) (sorted), or NULL. */
static const ips__os_exit_t *exit_of(const ips__os_exit_t *e, size_t n,
                                     uint32_t pid, int64_t ns) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (e[mid].pid < pid || (e[mid].pid == pid && e[mid].ns < ns))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && e[lo].pid == pid ? &e[lo] : NULL;
}

/* l's vat: "v12" of a first argument "v12:bank" (SwingSet's vat ids: v
 * and digits, not any word before a colon: a sed script), else "". */
static void vat_of(const ips__os_launch_t *l, char *vat, size_t n) {
  size_t n1, i;
  const char *a1 = ips__os_arg1(l->args, l->len, &n1), *colon;
  vat[0] = '\0';
  if (!a1 || !(colon = memchr(a1, ':', n1)) ||
      colon - a1 < 2 || (size_t)(colon - a1) >= n || a1[0] != 'v')
    return;
  for (i = 1; a1 + i < colon; i++)
    if (a1[i] < '0' || a1[i] > '9')
      return;
  memcpy(vat, a1, (size_t)(colon - a1));
  vat[colon - a1] = '\0';
}

static void fill(ips_os_launch_t *o, const ips__os_launch_t *l,
                 const ips__os_exit_t *e, const char *vat) {
  memset(o, 0, sizeof *o);
  o->ns = l->ns;
  o->pid = l->pid;
  o->ppid = l->ppid;
  snprintf(o->vat, sizeof o->vat, "%s", vat);
  memcpy(o->args, l->args, l->len);
  o->len = l->len;
  ips__os_printable(o->args, o->len);
  if (o->len && o->args[o->len - 1]) /* cut mid-argument: ended */
    o->args[o->len < sizeof o->args - 1 ? o->len++ : o->len - 1] = '\0';
  o->exit_code = -1;
  if (!e)
    return;
  o->ended = 1;
  o->end_ns = e->ns;
  o->status = e->status;
  if ((e->status & 0x7f) == 0) /* WIFEXITED */
    o->exit_code = (e->status >> 8) & 0xff;
  else
    o->signal = e->status & 0x7f;
}

int ips_os_launches(const ips_os_t *os, ips_os_launch_t **out, size_t *n) {
  uint32_t *ans = malloc((os->nframes ? os->nframes : 1) * sizeof *ans);
  ips__os_exit_t *ex = malloc((os->nexits ? os->nexits : 1) * sizeof *ex);
  ips_os_launch_t *o = calloc(os->nlaunches ? os->nlaunches : 1, sizeof *o);
  size_t i, na = 0;
  *out = NULL;
  *n = 0;
  if (!ans || !ex || !o) {
    free(ans);
    free(ex);
    free(o);
    return IPS_ENOMEM;
  }
  for (i = 0; i < os->nframes; i++) /* the processes that answered */
    if (os->frames[i].tag == '.' || os->frames[i].tag == '!')
      ans[na++] = os->frames[i].wpid;
  if (na)
    qsort(ans, na, sizeof *ans, by_u32);
  if (os->nexits) {
    memcpy(ex, os->exits, os->nexits * sizeof *ex);
    qsort(ex, os->nexits, sizeof *ex, by_pid_ns);
  }
  for (i = 0; i < os->nlaunches; i++) {
    const ips__os_launch_t *l = &os->launches[i];
    char vat[24];
    vat_of(l, vat, sizeof vat);
    if (!vat[0] && !bsearch(&l->pid, ans, na, sizeof *ans, by_u32))
      continue;
    fill(&o[(*n)++], l, exit_of(ex, os->nexits, l->pid, l->ns), vat);
  }
  free(ans);
  free(ex);
  *out = o;
  return 0;
}
