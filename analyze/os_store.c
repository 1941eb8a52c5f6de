/* os_store.c — what both readers of a recording (os_read.c: version 1,
 * os_bin.c: version 2) add to it: frame sides and waits, each checked to
 * be in order and each array bounded by IPS_OS_MAX_RECORDS; and, once
 * sorted, each checked against the one before it (a recording that
 * contradicts itself is not believed: its parts would come out
 * negative). */
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

const char *ips__os_arg1(const char *args, size_t len, size_t *n) {
  size_t n0 = strnlen(args, len);
  if (n0 + 1 >= len)
    return NULL;
  *n = strnlen(args + n0 + 1, len - n0 - 1);
  return args + n0 + 1;
}

/* A process exec'd at ns whose first argument is arg1 (n bytes): kept (0)
 * when arg1 names a vat, "VATID:NAME" (SwingSet's xsnap workers), else
 * ignored (0); or -ENOMEM / -E2BIG. */
static int add_proc(ips_os_t *os, int64_t ns, uint32_t pid, const char *arg1,
                    size_t n) {
  ips__os_proc_t p;
  const char *colon = memchr(arg1, ':', n);
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
  if (s->last_enter < s->enter || s->last_ret < s->last_enter)
    return 1;
  if ((rc = grow((void **)&os->sides, os->nsides, &os->capsides, sizeof *s)))
    return rc;
  os->sides[os->nsides] = *s;
  os->sides[os->nsides++].at = os->at;
  return 0;
}

int ips__os_add_wait(ips_os_t *os, const ips__os_wait_t *w) {
  int rc;
  if (w->on < w->off || (w->wake && (w->wake < w->off || w->wake > w->on)))
    return 1;
  if ((rc = grow((void **)&os->waits, os->nwaits, &os->capwaits, sizeof *w)))
    return rc;
  os->waits[os->nwaits] = *w;
  os->waits[os->nwaits++].at = os->at;
  return 0;
}

void ips__os_printable(char *s, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if (s[i] && ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f))
      s[i] = '?';
}

int ips__os_add_task(ips_os_t *os, uint32_t tid, uint32_t pid,
                     const char *comm) {
  ips__os_task_t t;
  int rc;
  memset(&t, 0, sizeof t);
  t.tid = tid;
  t.pid = pid;
  snprintf(t.comm, sizeof t.comm, "%s", comm);
  ips__os_printable(t.comm, strlen(t.comm));
  if ((rc = grow((void **)&os->tasks, os->ntasks, &os->captasks, sizeof t)))
    return rc;
  os->tasks[os->ntasks++] = t;
  return 0;
}

int ips__os_add_exec(ips_os_t *os, int64_t ns, uint32_t pid, uint32_t ppid,
                     const char *args, size_t len) {
  ips__os_launch_t *l;
  const char *a1;
  size_t n;
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
  a1 = ips__os_arg1(args, len, &n);
  return a1 ? add_proc(os, ns, pid, a1, n) : 0;
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

/* A record at `at` that contradicts another: counted as bad, the first
 * in the file named (the reading counted the others as it went). */
static void contradicting(ips_os_t *os, int64_t at) {
  int first = !os->info.bad_lines++;
  if (os->bin) {
    if (first || at < os->info.first_bad_offset)
      os->info.first_bad_offset = at;
  } else if (first || at < os->info.first_bad_line) {
    os->info.first_bad_line = (long)at;
  }
  os->info.contradicting++;
}

void ips__os_drop_sides(ips_os_t *os) {
  size_t i, k = 0;
  for (i = 0; i < os->nsides; i++) {
    const ips__os_side_t *s = &os->sides[i], *p = k ? &os->sides[k - 1] : NULL;
    if (p && p->pipe == s->pipe && p->write == s->write &&
        s->enter < p->last_enter) {
      contradicting(os, s->at);
      continue;
    }
    os->sides[k++] = *s;
  }
  os->nsides = k;
}

void ips__os_drop_waits(ips_os_t *os) {
  size_t i, k = 0;
  for (i = 0; i < os->nwaits; i++) {
    const ips__os_wait_t *w = &os->waits[i], *p = k ? &os->waits[k - 1] : NULL;
    if (p && p->tid == w->tid && w->off < p->on) {
      contradicting(os, w->at);
      continue;
    }
    os->waits[k++] = *w;
  }
  os->nwaits = k;
}

