/* ring_dir.c — a directory of rings as a source (ipcstamp-analyze.h):
 * every "<pid>.ring" in it followed by a reader of its own, its events
 * handed on as read and, for a caller that wants deliveries, joined
 * (ring_join.c).  `top`, `watch` and `otel --ring` read rings only
 * through it, so that a hostile directory (FIFOs, devices, corrupt rings,
 * rings of other runs) is met in one place. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribute.h" /* ips__ring_account */
#include "ipcstamp-ring.h"

#define MAX_IGNORED 4096
#define MAX_RETIRED 65536 /* rings read to their end and closed (retire_done):
                             past it, the others stay open and the bound
                             counts what is left */

typedef struct proc_s {
  ips_ring_proc_t pub;        /* first: the callbacks get &pub */
  ips_ring_dir_t *dir;
  ips_ring_reader_t *reader;  /* owned; NULL once it cannot be read */
  char path[4400];
  /* Skipped at the next poll: ahead in time of a ring with more to read
   * (with a joiner: the rings are read level, so few halves wait). */
  int hold;
  int polled;                 /* read at least once */
  ino_t ino;                  /* the file's, as the directory lists it */
} proc_t;

typedef struct {
  long pid;
  ino_t ino;
} retired_t;

struct ips_ring_dir_s {
  char dir[4096];
  ips_ring_dir_callbacks_t cb;
  long pids[IPS_RING_DIR_MAX_PIDS];  /* only these runs; npids 0: all */
  size_t npids;
  long ignored[MAX_IGNORED];         /* rings not of those runs */
  size_t nignored;
  proc_t *procs[IPS_RING_DIR_MAX_PROCS];  /* owned */
  size_t nprocs, skipped;
  ips_ring_join_t *join;             /* owned; with cb.on_delivery only */
  retired_t *retired;                /* owned: files not to read again */
  size_t nretired, capretired;
  int swept;                         /* this poll looked for rings done */
  int blocked;                       /* ... and found none, every ring read */
};

/* The header's text as a view may print it. */
static void info_printable(ips_ring_info_t *info) {
  ips_ring_printable(info->program);
  ips_ring_printable(info->vat);
}

/* A delivery joined: to the analysis, then to the caller. */
static void joined(void *arg, const ips_delivery_t *dv, const ips_stats_t *st) {
  ips_ring_dir_t *d = arg;
  if (d->cb.analysis)
    ips__ring_account(d->cb.analysis, dv, st);
  if (d->cb.on_delivery)
    d->cb.on_delivery(d->cb.arg, dv, st);
}

int ips_ring_dir_open(ips_ring_dir_t **out, const char *dir,
                      const ips_ring_dir_callbacks_t *cb) {
  ips_ring_dir_t *d;
  *out = NULL;
  if (!dir || strlen(dir) >= sizeof d->dir)
    return IPS_EINVAL;
  if (!(d = calloc(1, sizeof *d)))
    return IPS_ENOMEM;
  memcpy(d->dir, dir, strlen(dir) + 1);
  if (cb)
    d->cb = *cb;
  if ((d->cb.on_delivery || d->cb.analysis) &&
      !(d->join = ips_ring_join_new(joined, d))) {
    free(d);
    return IPS_ENOMEM;
  }
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
  ips_ring_join_free(d->join);
  free(d->retired);
  free(d);
}

void ips_ring_dir_follow_pids(ips_ring_dir_t *d, const long *pids, size_t n) {
  if (n > IPS_RING_DIR_MAX_PIDS)
    n = IPS_RING_DIR_MAX_PIDS;
  if (n) /* (pids may be NULL then) */
    memcpy(d->pids, pids, n * sizeof *pids);
  d->npids = n;
}

size_t ips_ring_dir_count(const ips_ring_dir_t *d) { return d->nprocs; }

const ips_ring_proc_t *ips_ring_dir_proc(const ips_ring_dir_t *d, size_t i) {
  return i < d->nprocs ? &d->procs[i]->pub : NULL;
}

size_t ips_ring_dir_skipped(const ips_ring_dir_t *d) { return d->skipped; }

void ips_ring_dir_finish(ips_ring_dir_t *d, ips_ring_join_counts_t *c) {
  if (d->join)
    ips_ring_join_tick(d->join, 1);
  if (!c)
    return;
  if (d->join)
    ips_ring_join_get_counts(d->join, c);
  else
    memset(c, 0, sizeof *c);
}

long ips_ring_proc_run(const ips_ring_proc_t *p) {
  if (p->error[0]) return 0;
  if (p->info.role == IPS_RING_ROLE_PARENT || p->ppid <= 0) return p->pid;
  return p->ppid;
}

/* A stamp names the vat its worker serves; a parent's ring mixes the
 * stamps of all its workers: its vat is the whole process ("*"). */
static void note_vat(proc_t *p, const ips_ring_event_t *ev) {
  const char *vat;
  if (strcmp(ev->name, "stamp") != 0)
    return;
  if (p->pub.info.role == IPS_RING_ROLE_PARENT) {
    snprintf(p->pub.vat, sizeof p->pub.vat, "*");
    return;
  }
  vat = ips_ring_event_str(ev, "vat");
  if (vat[0]) {
    snprintf(p->pub.vat, sizeof p->pub.vat, "%s", vat);
    ips_ring_printable(p->pub.vat);
  }
}

static int on_event(void *arg, const ips_ring_event_t *ev) {
  proc_t *p = arg;
  ips_ring_dir_t *d = p->dir;
  note_vat(p, ev);
  if (d->cb.on_event)
    d->cb.on_event(d->cb.arg, &p->pub, ev);
  if (d->join)
    ips_ring_join_event(d->join, p->pub.pid, &p->pub.info, p->pub.vat, ev);
  return 0;
}

static void on_lost(void *arg, uint64_t n) {
  proc_t *p = arg;
  p->pub.lost += n;
  if (p->dir->cb.on_lost)
    p->dir->cb.on_lost(p->dir->cb.arg, &p->pub, n);
  if (p->dir->join)
    ips_ring_join_lost(p->dir->join, p->pub.pid);
}

static int listed(const long *l, size_t n, long pid) {
  size_t i;
  for (i = 0; i < n; i++)
    if (l[i] == pid) return 1;
  return 0;
}

/* p can no longer be read: why, kept as printable ASCII (the reader's
 * messages quote the file, which anyone owning it wrote), and said once.
 * What its deliveries had in flight never ends. */
static void set_error(ips_ring_dir_t *d, proc_t *p, const char *msg) {
  snprintf(p->pub.error, sizeof p->pub.error, "%s", msg[0] ? msg : "unreadable");
  ips_ring_printable(p->pub.error);
  if (d->cb.on_error)
    d->cb.on_error(d->cb.arg, &p->pub);
  if (d->join)
    ips_ring_join_lost(d->join, p->pub.pid);
}

static int poll_one(ips_ring_dir_t *d, proc_t *p);

static int retired_cmp(const void *a, const void *b) {
  const retired_t *x = a, *y = b;
  if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
  return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Whether the file (pid, ino) was read to its end and closed.  Asked of
 * every file of the folder at every poll, and a busy node leaves
 * thousands of dead workers' rings: the list is kept sorted (sweep). */
static int is_retired(const ips_ring_dir_t *d, long pid, ino_t ino) {
  retired_t k;
  k.pid = pid;
  k.ino = ino;
  return d->nretired &&
         bsearch(&k, d->retired, d->nretired, sizeof k, retired_cmp);
}

/* Once a poll, with retire_done, when the bound is reached: each ring
 * read to its end whose writer is dead (or that cannot be read, said
 * already) is read one last time and closed, its file remembered so
 * that it is not read again; the others keep their order. */
static void sweep(ips_ring_dir_t *d) {
  size_t i, k = 0, was = d->nretired;
  int unread = 0;
  d->swept = 1;
  for (i = 0; i < d->nprocs; i++) {
    proc_t *p = d->procs[i];
    unread |= p->reader && !p->polled;
    int done = !p->reader || (p->polled && !p->pub.more &&
               (!p->pub.info.alive || ips_ring_writer_dead(p->path, p->pub.pid)));
    if (done && d->nretired == d->capretired && d->capretired < MAX_RETIRED) {
      size_t c = d->capretired ? d->capretired * 2 : 256;
      retired_t *v = realloc(d->retired, c * sizeof *v);
      if (v) {
        d->retired = v;
        d->capretired = c;
      }
    }
    if (!done || d->nretired == d->capretired) {
      p->pub.index = k;
      d->procs[k++] = p;
      continue;
    }
    while (p->reader && poll_one(d, p)) /* what it wrote before it died */
      ;
    d->retired[d->nretired].pid = p->pub.pid;
    d->retired[d->nretired++].ino = p->ino;
    ips_ring_reader_close(p->reader);
    free(p);
  }
  if (d->nretired > was)
    qsort(d->retired, d->nretired, sizeof *d->retired, retired_cmp);
  /* Full of rings still read from: the bound is reached (a ring not read
   * yet may be done at the next poll). */
  d->blocked = k == d->nprocs && !unread;
  d->nprocs = k;
}

static void add_proc(ips_ring_dir_t *d, const char *name, long pid,
                     ino_t ino) {
  proc_t *p;
  char msg[256];
  size_t i;
  if (is_retired(d, pid, ino)) return;
  for (i = 0; i < d->nprocs; i++)
    if (d->procs[i]->pub.pid == pid) return;
  if (listed(d->ignored, d->nignored, pid)) return;
  if (d->nprocs == IPS_RING_DIR_MAX_PROCS && d->cb.retire_done && !d->swept)
    sweep(d);
  if (d->nprocs == IPS_RING_DIR_MAX_PROCS) {
    /* With retire_done, only what waits on rings that are not done is
     * skipped: the others are taken as the done ones make room. */
    if (!d->cb.retire_done || d->blocked)
      d->skipped++;
    return;
  }
  if (!(p = calloc(1, sizeof *p))) return; /* found again at the next poll */
  p->dir = d;
  p->ino = ino;
  p->pub.pid = pid;
  p->pub.path = p->path;
  snprintf(p->path, sizeof p->path, "%s/%s", d->dir, name);
  msg[0] = '\0';
  if (ips_ring_reader_open(&p->reader, p->path, msg, sizeof msg) == 0) {
    (void)ips_ring_reader_info(p->reader, &p->pub.info); /* the role, first */
    info_printable(&p->pub.info);
    p->pub.ppid = p->pub.info.ppid;
    /* Once, here: a pid used again is told by the mappings, which cost a
     * read of /proc per ring. */
    p->pub.gone = p->pub.info.alive && ips_ring_writer_dead(p->path, pid);
  }
  /* Only the runs asked for: the ring of a listed process, or of a child
   * of one.  A ring that cannot be read is kept only if it is listed. */
  if (d->npids && !listed(d->pids, d->npids, pid) &&
      (!p->reader || !listed(d->pids, d->npids, p->pub.ppid))) {
    ips_ring_reader_close(p->reader);
    free(p);
    if (d->nignored < MAX_IGNORED) d->ignored[d->nignored++] = pid;
    return;
  }
  p->pub.index = d->nprocs;
  d->procs[d->nprocs++] = p;
  if (!p->reader)
    set_error(d, p, msg);
}

/* Reads what p has, poll_max events at most.  Returns whether it had
 * more. */
static int poll_one(ips_ring_dir_t *d, proc_t *p) {
  size_t max = d->cb.poll_max ? d->cb.poll_max : 1000000;
  /* Bounded per poll, so that one flooding producer cannot starve the
   * others; what is left is read at the next poll (or lapped, counted). */
  int rc = ips_ring_reader_poll(p->reader, max, on_event, on_lost, p);
  p->polled = 1;
  p->pub.more = d->cb.poll_max && rc >= 0 && (size_t)rc == d->cb.poll_max;
  if (rc >= 0) rc = ips_ring_reader_info(p->reader, &p->pub.info);
  if (rc < 0) {
    char m[sizeof p->pub.error];
    snprintf(m, sizeof m, "%s", ips_ring_reader_message(p->reader));
    ips_ring_reader_close(p->reader);
    p->reader = NULL;
    p->pub.more = 0;
    set_error(d, p, m);
    return 0;
  }
  info_printable(&p->pub.info);
  if (!p->pub.vat[0] && p->pub.info.vat[0])
    snprintf(p->pub.vat, sizeof p->pub.vat, "%s", p->pub.info.vat);
  return p->pub.more;
}

/* Holds, for the next poll, each ring with more to read that is ahead in
 * time of the latest-behind ring with more to read (which is never held,
 * so that every poll makes progress). */
static void level(ips_ring_dir_t *d) {
  int64_t lo = INT64_MAX;
  size_t i;
  for (i = 0; i < d->nprocs; i++) {
    proc_t *p = d->procs[i];
    int64_t m = ips_ring_join_last_mono(d->join, p->pub.pid);
    if (p->pub.more && m < lo) lo = m;
  }
  for (i = 0; i < d->nprocs; i++) {
    proc_t *p = d->procs[i];
    p->hold = p->pub.more && ips_ring_join_last_mono(d->join, p->pub.pid) > lo;
  }
}

int ips_ring_dir_poll(ips_ring_dir_t *d, char *msg, size_t size) {
  DIR *dd = opendir(d->dir);
  struct dirent *e;
  int more = 0;
  size_t i;
  if (!dd) {
    int rc = -errno;
    snprintf(msg, size, "cannot read the directory %s: %s", d->dir,
             strerror(errno));
    return rc;
  }
  d->skipped = 0;
  d->swept = 0;
  while ((e = readdir(dd)) != NULL) {
    long pid = ips_ring_name_pid(e->d_name);
    if (pid > 0) add_proc(d, e->d_name, pid, e->d_ino);
  }
  closedir(dd);
  for (i = 0; i < d->nprocs; i++) {
    proc_t *p = d->procs[i];
    if (!p->reader) continue;
    if (p->hold) { /* the others are read first */
      more |= p->pub.more;
      continue;
    }
    more |= poll_one(d, p);
  }
  if (d->join) {
    if (more) {
      level(d); /* a backlog: read on at once, level in time */
      return 1;
    }
    for (i = 0; i < d->nprocs; i++)
      d->procs[i]->hold = 0;
    ips_ring_join_tick(d->join, 0);
  }
  return more;
}
