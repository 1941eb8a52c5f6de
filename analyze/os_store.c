/* os_store.c — what both readers of a recording (os_read.c: version 1,
 * os_bin.c: version 2) add to it: frame sides and waits, each checked to
 * be in order and each array bounded by IPS_OS_MAX_RECORDS. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

/* Grows *p (n used, *cap slots of size) by one slot: 0, or -ENOMEM /
 * -E2BIG past IPS_OS_MAX_RECORDS. */
static int grow(void **p, size_t n, size_t *cap, size_t size) {
  void *q;
  size_t c;
  if (n < *cap)
    return 0;
  if (n >= IPS_OS_MAX_RECORDS)
    return -E2BIG;
  c = *cap ? *cap * 2 : 1024;
  if (c > IPS_OS_MAX_RECORDS)
    c = IPS_OS_MAX_RECORDS;
  if (!(q = realloc(*p, c * size)))
    return -ENOMEM;
  *p = q;
  *cap = c;
  return 0;
}

int ips__os_add_proc(ips_os_t *os, int64_t ns, uint32_t pid,
                     const char *arg1) {
  ips__os_proc_t p;
  const char *colon = strchr(arg1, ':');
  int rc;
  if (!colon || colon == arg1 || (size_t)(colon - arg1) >= sizeof p.vat)
    return 0;
  memset(&p, 0, sizeof p);
  memcpy(p.vat, arg1, (size_t)(colon - arg1));
  p.ns = ns;
  p.pid = pid;
  if ((rc = grow((void **)&os->procs, os->nprocs, &os->capprocs, sizeof p)))
    return rc;
  os->procs[os->nprocs++] = p;
  return 0;
}

int ips__os_add_side(ips_os_t *os, const ips__os_side_t *s) {
  int rc;
  if (s->last_ret < s->enter)
    return 1;
  if ((rc = grow((void **)&os->sides, os->nsides, &os->capsides, sizeof *s)))
    return rc;
  os->sides[os->nsides++] = *s;
  return 0;
}

int ips__os_add_wait(ips_os_t *os, const ips__os_wait_t *w) {
  int rc;
  if (w->on < w->off || (w->wake && (w->wake < w->off || w->wake > w->on)))
    return 1;
  if ((rc = grow((void **)&os->waits, os->nwaits, &os->capwaits, sizeof *w)))
    return rc;
  os->waits[os->nwaits++] = *w;
  return 0;
}

int ips__os_add_task(ips_os_t *os, uint32_t tid, uint32_t pid,
                     const char *comm) {
  ips__os_task_t t;
  int rc;
  memset(&t, 0, sizeof t);
  t.tid = tid;
  t.pid = pid;
  snprintf(t.comm, sizeof t.comm, "%s", comm);
  if ((rc = grow((void **)&os->tasks, os->ntasks, &os->captasks, sizeof t)))
    return rc;
  os->tasks[os->ntasks++] = t;
  return 0;
}

int ips__os_add_exec(ips_os_t *os, int64_t ns, uint32_t pid, uint32_t ppid,
                     const char *args, size_t len) {
  ips__os_launch_t *l;
  size_t n0;
  int rc;
  if (len > 256)
    len = 256;
  if (os->nlaunches >= IPS__OS_MAX_LAUNCHES) {
    os->info.launches_over++;
  } else {
    if ((rc = grow((void **)&os->launches, os->nlaunches, &os->caplaunches,
                   sizeof *l)))
      return rc;
    l = &os->launches[os->nlaunches++];
    memset(l, 0, sizeof *l);
    l->ns = ns;
    l->pid = pid;
    l->ppid = ppid;
    l->len = (uint32_t)len;
    memcpy(l->args, args, len);
  }
  n0 = strnlen(args, len);
  if (n0 + 1 >= len)
    return 0;
  {
    char a1[257];
    memcpy(a1, args + n0 + 1, len - n0 - 1);
    a1[len - n0 - 1] = 0;
    return ips__os_add_proc(os, ns, pid, a1);
  }
}

int ips__os_add_exit(ips_os_t *os, int64_t ns, uint32_t pid, int code) {
  ips__os_exit_t *e;
  int rc;
  if (os->nexits >= IPS__OS_MAX_LAUNCHES) {
    os->info.launches_over++;
    return 0;
  }
  if ((rc = grow((void **)&os->exits, os->nexits, &os->capexits, sizeof *e)))
    return rc;
  e = &os->exits[os->nexits++];
  e->ns = ns;
  e->pid = pid;
  e->status = code;
  return 0;
}
