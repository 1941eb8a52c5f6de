/* model.c — `ipcstamp top`'s model: from the events of a directory's rings
 * (libipcstamp-analyze's ips_ring_dir_t reads them), per process, the
 * delivery in flight and the latest finished ones. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-ring.h"
#include "top.h"

/* The figures of ring p, made at its first event (the directory's rings
 * keep their place: p->index).  NULL when out of memory: that ring's
 * figures are not kept. */
static top_proc_t *model_of(top_t *t, const ips_ring_proc_t *p) {
  while (t->nprocs <= p->index) {
    top_proc_t *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->ring = ips_ring_dir_proc(t->dir, t->nprocs);
    t->procs[t->nprocs++] = m;
  }
  return t->procs[p->index];
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
  int64_t mono = ips_ring_event_int(ev, "mono_ns", 0);
  /* A parent's ring mixes the stamps of all its workers: the in-flight
   * view comes from the workers' own rings. */
  if (p->ring->info.role == IPS_RING_ROLE_PARENT)
    return;
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
    if (p->seg_kind == 'u')
      p->wait_ns = top_add(p->wait_ns, top_sub(mono, p->seg_mono_ns));
    p->seg_kind = 'r';
    p->seg_mono_ns = mono;
    break;
  case 'e':
    if (p->in_delivery) {
      top_done_t d;
      d.end_mono_ns = mono;
      d.total_ns = top_sub(mono, p->d_mono_ns);
      d.pipe_ns = -1;
      d.kernel_ns = p->wait_ns;
      d.worker_ns = top_sub(d.total_ns, p->wait_ns);
      push_done(p, &d);
    }
    p->in_delivery = 0;
    break;
  default:
    break;
  }
}

static void on_event(void *arg, const ips_ring_proc_t *rp,
                     const ips_ring_event_t *ev) {
  top_proc_t *p = model_of(arg, rp);
  if (!p) return;
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
}

static void on_lost(void *arg, const ips_ring_proc_t *rp, uint64_t n) {
  top_proc_t *p = model_of(arg, rp);
  (void)n;
  /* The delivery in flight may have ended in the gap: forget it rather
   * than show a stall that is not there. */
  if (p) p->in_delivery = 0;
}

int top_init(top_t *t, const char *dir, const long *pids, size_t n) {
  ips_ring_dir_callbacks_t cb;
  int rc;
  memset(t, 0, sizeof *t);
  snprintf(t->path, sizeof t->path, "%s", dir);
  memset(&cb, 0, sizeof cb);
  cb.on_event = on_event;
  cb.on_lost = on_lost;
  cb.arg = t;
  if ((rc = ips_ring_dir_open(&t->dir, dir, &cb)) != 0)
    return rc;
  ips_ring_dir_follow_pids(t->dir, pids, n);
  return 0;
}

void top_free(top_t *t) {
  size_t i;
  for (i = 0; i < t->nprocs; i++)
    free(t->procs[i]);
  t->nprocs = 0;
  ips_ring_dir_close(t->dir);
  t->dir = NULL;
}

int top_refresh(top_t *t, char *msg, size_t size) {
  int rc = ips_ring_dir_poll(t->dir, msg, size);
  /* A ring without events yet (or unreadable) has a row too. */
  if (rc >= 0 && ips_ring_dir_count(t->dir) > 0)
    (void)model_of(t, ips_ring_dir_proc(t->dir, ips_ring_dir_count(t->dir) - 1));
  return rc < 0 ? rc : 0;
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
    if (d->end_mono_ns < top_sub(now_ns, window_ns) || d->end_mono_ns > now_ns)
      continue;
    totals[s->n++] = d->total_ns;
    s->total_ns = top_add(s->total_ns, d->total_ns);
    s->worker_ns = top_add(s->worker_ns, d->worker_ns);
    s->kernel_ns = top_add(s->kernel_ns, d->kernel_ns);
    if (d->pipe_ns < 0)
      s->have_pipe = 0;
    else
      s->pipe_ns = top_add(s->pipe_ns, d->pipe_ns);
  }
  if (!s->n) return;
  s->per_s = (double)s->n * 1e9 / (double)window_ns;
  qsort(totals, s->n, sizeof totals[0], cmp_i64);
  /* Nearest rank. */
  s->p50_ns = totals[(s->n * 50 + 99) / 100 - 1];
  s->p99_ns = totals[(s->n * 99 + 99) / 100 - 1];
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
  return a->p->ring->pid < b->p->ring->pid ? -1
                                          : a->p->ring->pid > b->p->ring->pid;
}

size_t top_order(const top_t *t, int64_t now_ns, int64_t window_ns,
                 const top_proc_t **out) {
  order_t o[TOP_MAX_PROCS];
  size_t i, j, n = t->nprocs;
  for (i = 0; i < n; i++) {
    top_stats_t s;
    top_stats(t->procs[i], now_ns, window_ns, &s);
    o[i].p = t->procs[i];
    o[i].run = ips_ring_proc_run(t->procs[i]->ring);
    o[i].busy = s.total_ns;
    o[i].parent = t->procs[i]->ring->info.role == IPS_RING_ROLE_PARENT;
  }
  /* A run is as busy as its parent when it has one (its attributions are
   * every delivery of the run), else as its workers together. */
  for (i = 0; i < n; i++) {
    int64_t sum = 0, parent = -1;
    for (j = 0; j < n; j++) {
      if (o[j].run != o[i].run) continue;
      if (o[j].parent) parent = o[j].busy;
      else sum = top_add(sum, o[j].busy);
    }
    /* Rings that cannot be followed go last, together. */
    o[i].run_busy = o[i].run == 0 ? -1 : parent >= 0 ? parent : sum;
  }
  qsort(o, n, sizeof o[0], by_order);
  for (i = 0; i < n; i++) out[i] = o[i].p;
  return n;
}
