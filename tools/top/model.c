/* model.c — `ipcstamp top`'s model: every ring of a directory, followed
 * by the analysis library's ring directory (ips_ring_dir_*), and per
 * process the delivery in flight and the latest finished ones. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-ring.h"
#include "top.h"

static void on_ring(void *arg, ips_ring_proc_t *r);
static void on_event(void *arg, ips_ring_proc_t *r, const ips_ring_event_t *ev);
static void on_lost(void *arg, ips_ring_proc_t *r, uint64_t n);

int top_init(top_t *t, const char *dir) {
  ips_ring_dir_options_t o;
  memset(t, 0, sizeof *t);
  memset(&o, 0, sizeof o);
  o.on_ring = on_ring;
  o.on_event = on_event;
  o.on_lost = on_lost;
  o.arg = t;
  return ips_ring_dir_open(&t->dir, dir, &o);
}

void top_free(top_t *t) {
  size_t i;
  for (i = 0; i < t->nprocs; i++)
    free(t->procs[i]);
  t->nprocs = 0;
  ips_ring_dir_close(t->dir);
  t->dir = NULL;
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
  /* A parent's ring mixes the stamps of all its workers (its vat is "*"):
   * the in-flight view comes from the workers' own rings. */
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

/* A new ring: its process gets a row (none past TOP_MAX_PROCS, which is
 * the directory's own bound; out of memory, the ring has no row). */
static void on_ring(void *arg, ips_ring_proc_t *r) {
  top_t *t = arg;
  top_proc_t *p;
  if (t->nprocs == TOP_MAX_PROCS || !(p = calloc(1, sizeof *p)))
    return;
  p->ring = r;
  r->user = p;
  t->procs[t->nprocs++] = p;
}

static void on_event(void *arg, ips_ring_proc_t *r, const ips_ring_event_t *ev) {
  top_proc_t *p = r->user;
  (void)arg;
  if (!p)
    return;
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

static void on_lost(void *arg, ips_ring_proc_t *r, uint64_t n) {
  top_proc_t *p = r->user;
  (void)arg;
  (void)n;
  /* The delivery in flight may have ended in the gap: forget it rather
   * than show a stall that is not there. */
  if (p)
    p->in_delivery = 0;
}

int top_refresh(top_t *t, char *msg, size_t size) {
  return ips_ring_dir_poll(t->dir, msg, size);
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
