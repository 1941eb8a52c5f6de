/* model.c — `ipcstamp top`'s model: follow every ring of a directory and
 * keep, per process, the delivery in flight and the latest finished ones. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-ring.h"
#include "top.h"

void top_init(top_t *t, const char *dir) {
  memset(t, 0, sizeof *t);
  snprintf(t->dir, sizeof t->dir, "%s", dir);
}

void top_free(top_t *t) {
  size_t i;
  for (i = 0; i < t->nprocs; i++) {
    ips_ring_reader_close(t->procs[i]->reader);
    free(t->procs[i]);
  }
  t->nprocs = 0;
}

static void push_done(top_proc_t *p, const top_done_t *d) {
  p->done[p->next] = *d;
  p->next = (p->next + 1) % TOP_HISTORY;
  if (p->ndone < TOP_HISTORY) p->ndone++;
  p->finished++;
}

/* A worker's stamp: d starts a delivery, u/r bracket the wait for an
 * upcall's reply, e ends it.  The parent's stamps (capitals) are not used
 * here: its attribution events say more. */
static void on_stamp(top_proc_t *p, const ips_ring_event_t *ev) {
  const char *kind = ips_ring_event_str(ev, "kind");
  const char *vat = ips_ring_event_str(ev, "vat");
  int64_t mono = ips_ring_event_int(ev, "mono_ns", 0);
  /* A parent's ring mixes the stamps of all its workers: its row is the
   * whole process ("*"), and the in-flight view comes from the workers'
   * own rings. */
  if (p->info.role == IPS_RING_ROLE_PARENT) {
    snprintf(p->vat, sizeof p->vat, "*");
    return;
  }
  if (vat[0]) snprintf(p->vat, sizeof p->vat, "%s", vat);
  switch (kind[0]) {
  case 'd':
    p->in_delivery = (uint64_t)ips_ring_event_int(ev, "delivery", 0);
    if (!p->in_delivery) p->in_delivery = 1;
    p->d_mono_ns = p->seg_mono_ns = mono;
    p->seg_kind = 'd';
    p->upcall = 0;
    p->wait_ns = 0;
    break;
  case 'u':
    if (!p->in_delivery) break;
    p->seg_kind = 'u';
    p->seg_mono_ns = mono;
    p->upcall = (uint32_t)ips_ring_event_int(ev, "upcall", 0);
    break;
  case 'r':
    if (!p->in_delivery) break;
    if (p->seg_kind == 'u') p->wait_ns += mono - p->seg_mono_ns;
    p->seg_kind = 'r';
    p->seg_mono_ns = mono;
    break;
  case 'e':
    if (p->in_delivery) {
      top_done_t d;
      d.end_mono_ns = mono;
      d.total_ns = mono - p->d_mono_ns;
      d.pipe_ns = -1;
      d.kernel_ns = p->wait_ns;
      d.worker_ns = d.total_ns - p->wait_ns;
      push_done(p, &d);
    }
    p->in_delivery = 0;
    break;
  default:
    break;
  }
}

static int on_event(void *arg, const ips_ring_event_t *ev) {
  top_proc_t *p = arg;
  if (strcmp(ev->name, "stamp") == 0) {
    on_stamp(p, ev);
  } else if (strcmp(ev->name, "attribution") == 0) {
    top_done_t d;
    d.end_mono_ns = ips_ring_event_int(ev, "mono_ns", 0);
    d.total_ns = ips_ring_event_int(ev, "total_ns", 0);
    d.pipe_ns = ips_ring_event_int(ev, "pipe_ns", 0);
    d.worker_ns = ips_ring_event_int(ev, "worker_ns", 0);
    d.kernel_ns = ips_ring_event_int(ev, "kernel_ns", 0);
    push_done(p, &d);
  }
  /* Other events (marks, newer kinds) do not change the figures. */
  if (p->top->event_cb)
    p->top->event_cb(p->top->cb_arg, p, ev);
  return 0;
}

static void on_lost(void *arg, uint64_t n) {
  top_proc_t *p = arg;
  p->lost += n;
  if (p->top->lost_cb)
    p->top->lost_cb(p->top->cb_arg, p, n);
  /* The delivery in flight may have ended in the gap: forget it rather
   * than show a stall that is not there. */
  p->in_delivery = 0;
}

long top_ring_pid(const char *name) {
  long pid = 0;
  const char *s = name;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (pid > 100000000L) return -1;
    pid = pid * 10 + (*s - '0');
  }
  if (s == name || strcmp(s, ".ring") != 0 || pid <= 0) return -1;
  return pid;
}

void top_follow_pids(top_t *t, const long *pids, size_t n) {
  if (n > TOP_MAX_PIDS)
    n = TOP_MAX_PIDS;
  memcpy(t->pids, pids, n * sizeof *pids);
  t->npids = n;
}

static int listed(const long *l, size_t n, long pid) {
  size_t i;
  for (i = 0; i < n; i++)
    if (l[i] == pid) return 1;
  return 0;
}

static void add_proc(top_t *t, const char *name, long pid) {
  top_proc_t *p;
  char msg[256];
  size_t i;
  for (i = 0; i < t->nprocs; i++)
    if (t->procs[i]->pid == pid) return;
  if (listed(t->ignored, t->nignored, pid)) return;
  if (t->nprocs == TOP_MAX_PROCS) {
    t->skipped++;
    return;
  }
  p = calloc(1, sizeof *p);
  if (!p) return;
  p->pid = pid;
  p->top = t;
  snprintf(p->path, sizeof p->path, "%s/%s", t->dir, name);
  if (ips_ring_reader_open(&p->reader, p->path, msg, sizeof msg) != 0) {
    snprintf(p->error, sizeof p->error, "%s", msg);
  } else {
    (void)ips_ring_reader_info(p->reader, &p->info); /* the role, first */
    p->ppid = p->info.ppid;
    /* Once, here: a pid used again is told by the mappings, which cost
     * a read of /proc per ring. */
    p->gone = p->info.alive && top_writer_dead(p->path, pid);
  }
  /* Only the runs asked for: the ring of a listed process, or of a child
   * of one.  A ring that cannot be read is shown only if it is listed. */
  if (t->npids && !listed(t->pids, t->npids, pid) &&
      (!p->reader || !listed(t->pids, t->npids, p->ppid))) {
    ips_ring_reader_close(p->reader);
    free(p);
    if (t->nignored < TOP_MAX_IGNORED) t->ignored[t->nignored++] = pid;
    return;
  }
  t->procs[t->nprocs++] = p;
}

int top_refresh(top_t *t, char *msg, size_t size) {
  DIR *d = opendir(t->dir);
  struct dirent *e;
  size_t i;
  if (!d) {
    int rc = -errno;
    snprintf(msg, size, "cannot read the directory %s: %s", t->dir,
             strerror(errno));
    return rc;
  }
  t->skipped = 0;
  t->more = 0;
  while ((e = readdir(d)) != NULL) {
    long pid = top_ring_pid(e->d_name);
    if (pid > 0) add_proc(t, e->d_name, pid);
  }
  closedir(d);
  for (i = 0; i < t->nprocs; i++) {
    top_proc_t *p = t->procs[i];
    int rc;
    if (!p->reader) continue;
    if (p->hold) { /* the caller reads the others first */
      if (p->more) t->more = 1;
      continue;
    }
    /* Bounded per refresh, so one flooding producer cannot starve the
     * view; what is left is read at the next refresh (or lost, counted). */
    rc = ips_ring_reader_poll(p->reader, t->poll_max ? t->poll_max : 1000000,
                              on_event, on_lost, p);
    p->more = t->poll_max && rc >= 0 && (size_t)rc == t->poll_max;
    if (p->more)
      t->more = 1;
    if (rc >= 0) rc = ips_ring_reader_info(p->reader, &p->info);
    if (rc < 0) {
      snprintf(p->error, sizeof p->error, "%s",
               ips_ring_reader_message(p->reader));
      ips_ring_reader_close(p->reader);
      p->reader = NULL;
      continue;
    }
    if (!p->vat[0] && p->info.vat[0])
      snprintf(p->vat, sizeof p->vat, "%s", p->info.vat);
  }
  return 0;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

void top_stats(const top_proc_t *p, int64_t now_ns, int64_t window_ns,
               top_stats_t *s) {
  static int64_t totals[TOP_HISTORY];
  size_t i;
  memset(s, 0, sizeof *s);
  s->p50_ns = s->p99_ns = -1;
  s->have_pipe = 1;
  for (i = 0; i < p->ndone; i++) {
    const top_done_t *d = &p->done[i];
    if (d->end_mono_ns < now_ns - window_ns || d->end_mono_ns > now_ns)
      continue;
    totals[s->n++] = d->total_ns;
    s->total_ns += d->total_ns;
    s->worker_ns += d->worker_ns;
    s->kernel_ns += d->kernel_ns;
    if (d->pipe_ns < 0)
      s->have_pipe = 0;
    else
      s->pipe_ns += d->pipe_ns;
  }
  if (!s->n) return;
  s->per_s = (double)s->n * 1e9 / (double)window_ns;
  qsort(totals, s->n, sizeof totals[0], cmp_i64);
  /* Nearest rank. */
  s->p50_ns = totals[(s->n * 50 + 99) / 100 - 1];
  s->p99_ns = totals[(s->n * 99 + 99) / 100 - 1];
}

long top_run(const top_proc_t *p) {
  if (!p->reader && p->error[0]) return 0;
  if (p->info.role == IPS_RING_ROLE_PARENT || p->ppid <= 0) return p->pid;
  return p->ppid;
}

typedef struct {
  const top_proc_t *p;
  long run;
  int64_t busy, run_busy;
  int parent;
} order_t;

static int by_order(const void *x, const void *y) {
  const order_t *a = x, *b = y;
  if (a->run_busy != b->run_busy) return a->run_busy > b->run_busy ? -1 : 1;
  if (a->run != b->run) return a->run < b->run ? -1 : 1;
  if (a->parent != b->parent) return a->parent ? -1 : 1;
  if (a->busy != b->busy) return a->busy > b->busy ? -1 : 1;
  return a->p->pid < b->p->pid ? -1 : a->p->pid > b->p->pid;
}

size_t top_order(const top_t *t, int64_t now_ns, int64_t window_ns,
                 const top_proc_t **out) {
  order_t o[TOP_MAX_PROCS];
  size_t i, j, n = t->nprocs;
  for (i = 0; i < n; i++) {
    top_stats_t s;
    top_stats(t->procs[i], now_ns, window_ns, &s);
    o[i].p = t->procs[i];
    o[i].run = top_run(t->procs[i]);
    o[i].busy = s.total_ns;
    o[i].parent = t->procs[i]->info.role == IPS_RING_ROLE_PARENT;
  }
  /* A run is as busy as its parent when it has one (its attributions are
   * every delivery of the run), else as its workers together. */
  for (i = 0; i < n; i++) {
    int64_t sum = 0, parent = -1;
    for (j = 0; j < n; j++) {
      if (o[j].run != o[i].run) continue;
      if (o[j].parent) parent = o[j].busy;
      else sum += o[j].busy;
    }
    /* Rings that cannot be followed go last, together. */
    o[i].run_busy = o[i].run == 0 ? -1 : parent >= 0 ? parent : sum;
  }
  qsort(o, n, sizeof o[0], by_order);
  for (i = 0; i < n; i++) out[i] = o[i].p;
  return n;
}
