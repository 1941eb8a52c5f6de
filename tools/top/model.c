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

/* A worker's stamp, to the analysis's live split.  The parent's stamps
 * (capitals) are not used here: its attribution events say more; and a
 * parent's ring mixes the stamps of all its workers: the in-flight view
 * comes from the workers' own rings. */
static void on_stamp(top_proc_t *p, const ips_ring_event_t *ev) {
  ips_live_done_t d;
  if (p->ring->info.role == IPS_RING_ROLE_PARENT)
    return;
  if (ips_worker_live_stamp(
          &p->live, ips_ring_event_str(ev, "kind")[0],
          ips_ring_event_int(ev, "mono_ns", 0),
          (uint64_t)ips_ring_event_int(ev, "delivery", 0),
          (uint32_t)ips_ring_event_int(ev, "upcall", 0), &d))
    ips_live_add(&p->hist, &d);
}

static void on_event(void *arg, const ips_ring_proc_t *rp,
                     const ips_ring_event_t *ev) {
  top_proc_t *p = model_of(arg, rp);
  if (!p) return;
  if (strcmp(ev->name, "stamp") == 0) {
    on_stamp(p, ev);
  } else if (strcmp(ev->name, "attribution") == 0) {
    ips_live_done_t d;
    d.end_mono_ns = ips_ring_event_int(ev, "mono_ns", 0);
    d.total_ns = ips_ring_event_int(ev, "total_ns", 0);
    d.pipe_ns = ips_ring_event_int(ev, "pipe_ns", 0);
    d.worker_ns = ips_ring_event_int(ev, "worker_ns", 0);
    d.kernel_ns = ips_ring_event_int(ev, "kernel_ns", 0);
    ips_live_add(&p->hist, &d);
  }
  /* Other events (marks, newer kinds) do not change the figures. */
}

static void on_lost(void *arg, const ips_ring_proc_t *rp, uint64_t n) {
  top_proc_t *p = model_of(arg, rp);
  (void)n;
  /* The delivery in flight may have ended in the gap: forget it rather
   * than show a stall that is not there. */
  if (p) p->live.delivery = 0;
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
    ips_live_stats_t s;
    ips_live_stats(&t->procs[i]->hist, now_ns, window_ns, &s);
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
