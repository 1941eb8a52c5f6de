/* ring_dir.c — a directory of rings followed (ipcstamp-ring-read.h): the
 * one place that scans it, opens a reader per ring and polls them, for
 * `top`, `watch`, `otel --ring` and the analysis' ring source alike. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-ring-read.h"
#include "ipcstamp-ring.h"

/* A ring followed: the caller's view, and its reader. */
typedef struct {
  ips_ring_proc_t p;           /* first: the caller's pointer is this */
  ips_ring_reader_t *reader;   /* owned; NULL after a failure */
  ips_ring_dir_t *dir;
} proc_t;

struct ips_ring_dir_s {
  char path[4096];
  ips_ring_dir_options_t o;
  proc_t *procs[IPS_RING_DIR_MAX]; /* owned */
  size_t nprocs;
  size_t skipped;
  int more;
};

int ips_ring_dir_open(ips_ring_dir_t **out, const char *dir,
                      const ips_ring_dir_options_t *o) {
  ips_ring_dir_t *d = calloc(1, sizeof *d);
  *out = NULL;
  if (!d)
    return IPS_ENOMEM;
  snprintf(d->path, sizeof d->path, "%s", dir);
  if (o)
    d->o = *o;
  *out = d;
  return 0;
}

void ips_ring_dir_close(ips_ring_dir_t *d) {
  size_t i;
  if (!d)
    return;
  for (i = 0; i < d->nprocs; i++) {
    ips_ring_reader_close(d->procs[i]->reader);
    free(d->procs[i]);
  }
  free(d);
}

size_t ips_ring_dir_count(const ips_ring_dir_t *d) { return d->nprocs; }
ips_ring_proc_t *ips_ring_dir_proc(ips_ring_dir_t *d, size_t i) {
  return i < d->nprocs ? &d->procs[i]->p : NULL;
}
int ips_ring_dir_more(const ips_ring_dir_t *d) { return d->more; }
size_t ips_ring_dir_skipped(const ips_ring_dir_t *d) { return d->skipped; }
const char *ips_ring_dir_path(const ips_ring_dir_t *d) { return d->path; }

/* "<digits>.ring" only: temporary files and anything else are not rings. */
static long ring_pid(const char *name) {
  long pid = 0;
  const char *s = name;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (pid > 100000000L)
      return -1;
    pid = pid * 10 + (*s - '0');
  }
  if (s == name || strcmp(s, ".ring") != 0 || pid <= 0)
    return -1;
  return pid;
}

static void add_proc(ips_ring_dir_t *d, const char *name, long pid) {
  proc_t *pr;
  char msg[256];
  size_t i;
  for (i = 0; i < d->nprocs; i++)
    if (d->procs[i]->p.pid == pid)
      return;
  if (d->nprocs == IPS_RING_DIR_MAX) {
    d->skipped++;
    return;
  }
  pr = calloc(1, sizeof *pr);
  if (!pr)
    return;
  pr->dir = d;
  pr->p.pid = pid;
  snprintf(pr->p.path, sizeof pr->p.path, "%s/%s", d->path, name);
  if (ips_ring_reader_open(&pr->reader, pr->p.path, msg, sizeof msg) != 0)
    snprintf(pr->p.error, sizeof pr->p.error, "%s", msg);
  else
    (void)ips_ring_reader_info(pr->reader, &pr->p.info); /* the role, first */
  d->procs[d->nprocs++] = pr;
  if (d->o.on_ring)
    d->o.on_ring(d->o.arg, &pr->p);
}

static int on_event(void *arg, const ips_ring_event_t *ev) {
  proc_t *pr = arg;
  /* The ring's vat, as its stamps say: a parent's ring mixes the stamps
   * of all its workers, so its vat is the whole process, "*". */
  if (strcmp(ev->name, "stamp") == 0) {
    const char *vat = ips_ring_event_str(ev, "vat");
    if (pr->p.info.role == IPS_RING_ROLE_PARENT)
      snprintf(pr->p.vat, sizeof pr->p.vat, "*");
    else if (vat[0])
      snprintf(pr->p.vat, sizeof pr->p.vat, "%s", vat);
  }
  if (pr->dir->o.on_event)
    pr->dir->o.on_event(pr->dir->o.arg, &pr->p, ev);
  return 0;
}

static void on_lost(void *arg, uint64_t n) {
  proc_t *pr = arg;
  pr->p.lost += n;
  if (pr->dir->o.on_lost)
    pr->dir->o.on_lost(pr->dir->o.arg, &pr->p, n);
}

/* One ring's new events.  Bounded per poll, so one flooding producer
 * cannot starve the others; what is left is read at the next poll (or
 * lost, counted). */
static void poll_one(ips_ring_dir_t *d, proc_t *pr) {
  size_t max = d->o.poll_max ? d->o.poll_max : 1000000;
  int rc = ips_ring_reader_poll(pr->reader, max, on_event, on_lost, pr);
  pr->p.more = d->o.poll_max && rc >= 0 && (size_t)rc == d->o.poll_max;
  if (pr->p.more)
    d->more = 1;
  if (rc >= 0)
    rc = ips_ring_reader_info(pr->reader, &pr->p.info);
  if (rc < 0) {
    snprintf(pr->p.error, sizeof pr->p.error, "%s",
             ips_ring_reader_message(pr->reader));
    ips_ring_reader_close(pr->reader);
    pr->reader = NULL;
    return;
  }
  if (!pr->p.vat[0] && pr->p.info.vat[0])
    snprintf(pr->p.vat, sizeof pr->p.vat, "%s", pr->p.info.vat);
}

int ips_ring_dir_poll(ips_ring_dir_t *d, char *msg, size_t size) {
  DIR *dir = opendir(d->path);
  struct dirent *e;
  size_t i;
  if (!dir) {
    int rc = -errno;
    snprintf(msg, size, "cannot read the directory %s: %s", d->path,
             strerror(errno));
    return rc;
  }
  d->skipped = 0;
  d->more = 0;
  while ((e = readdir(dir)) != NULL) {
    long pid = ring_pid(e->d_name);
    if (pid > 0)
      add_proc(d, e->d_name, pid);
  }
  closedir(dir);
  for (i = 0; i < d->nprocs; i++) {
    proc_t *pr = d->procs[i];
    if (!pr->reader)
      continue;
    if (pr->p.hold) { /* the caller reads the others first */
      if (pr->p.more)
        d->more = 1;
      continue;
    }
    poll_one(d, pr);
  }
  return 0;
}
