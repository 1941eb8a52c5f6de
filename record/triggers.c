/* triggers.c — stalls found in the frames alone (docs/always-on.md,
 * "What makes a dump"), as the records come, with no slogfile:
 *
 *  - a delivery is a frame tagged `?` or `e` written on a pipe that no
 *    live process wrote a result on, by a process not itself inside a
 *    delivery; it is in flight until its reader (the worker) writes a
 *    result (`.` or `!`) or ends.  Past --stall-delivery it is a stall,
 *    said once, also when the worker never read it (a worker stopped);
 *  - an upcall is a `?` the worker writes inside its delivery; it is in
 *    flight until the worker reads the reply (`/`);
 *  - an exit of a process that framed, by a signal or a non-zero status.
 *
 * A pipe's id is the kernel's address of its pipe or socket, which the
 * kernel gives again once both ends are closed: what a pipe was to a
 * process (its result pipe, its delivery pipe) is forgotten when that
 * process ends, so that a new worker's delivery pipe at a reused address
 * is one (SwingSet's xsnap sockets are).
 *
 * Only frames' heads and the exec, fork and exit fields are read. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "always.h"
#include "record.h"

/* Pipes and processes followed at most; a full table is emptied of all
 * but the deliveries in flight (their history is only a guess's help). */
#define SLOTS 4096

typedef struct {
  uint64_t id;          /* 0: free */
  unsigned up;          /* the process that wrote a result on it (0:
                           none): while it lives, never a delivery */
  int inflight, said, up_said;
  unsigned reader, reader_tid, writer, writer_tid;
  uint64_t start, up_start, last_end, up_end, number;
  unsigned char tag, head_len, head[OS_HEAD];
} pipe_t;

typedef struct {
  uint64_t pid;         /* 0: free */
  uint64_t cur_pipe;    /* the pipe it last read a delivery or reply on */
  uint64_t deliveries, last_result;
} proc_t;

struct ao_triggers_s {
  ao_limits_t l;
  const ao_window_t *w;
  pipe_t *pipes;
  proc_t *procs;
  size_t npipes, nprocs;
  unsigned kernel, kernel_tid; /* the writer of the latest delivery */
};

ao_triggers_t *ao_triggers_new(const ao_limits_t *l, const ao_window_t *w) {
  ao_triggers_t *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->l = *l;
  t->w = w;
  t->pipes = calloc(SLOTS, sizeof *t->pipes);
  t->procs = calloc(SLOTS, sizeof *t->procs);
  if (!t->pipes || !t->procs) {
    ao_triggers_free(t);
    return NULL;
  }
  return t;
}

void ao_triggers_free(ao_triggers_t *t) {
  if (!t)
    return;
  free(t->pipes);
  free(t->procs);
  free(t);
}

/* Open addressing, linear probing, in a table of SLOTS entries of size
 * bytes, each keyed by its first member (a uint64_t; 0: free): key's
 * entry, or the free one it would take, or NULL when the table is full. */
static void *slot(void *tab, size_t size, uint64_t key) {
  size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 52) % SLOTS, n;
  for (n = 0; n < SLOTS; n++, i = (i + 1) % SLOTS) {
    uint64_t *k = (uint64_t *)((unsigned char *)tab + i * size);
    if (*k == key || *k == 0)
      return k;
  }
  return NULL;
}

/* A full table keeps only the pipes in flight and forgets the
 * processes. */
static pipe_t *pipe_get(ao_triggers_t *t, uint64_t id, int make) {
  pipe_t *p = slot(t->pipes, sizeof *p, id);
  if (p && p->id == id)
    return p;
  if (!make)
    return NULL;
  if (!p || t->npipes >= SLOTS * 3 / 4) {
    pipe_t *old = t->pipes;
    size_t k;
    if (!(t->pipes = calloc(SLOTS, sizeof *t->pipes))) {
      t->pipes = old;
      return NULL;
    }
    t->npipes = 0;
    for (k = 0; k < SLOTS; k++)
      if (old[k].id && old[k].inflight)
        *pipe_get(t, old[k].id, 1) = old[k];
    free(old);
    return pipe_get(t, id, 1);
  }
  memset(p, 0, sizeof *p);
  p->id = id;
  t->npipes++;
  return p;
}

static proc_t *proc_get(ao_triggers_t *t, unsigned pid, int make) {
  proc_t *r = slot(t->procs, sizeof *r, pid);
  if (r && r->pid == pid)
    return r;
  if (!make)
    return NULL;
  if (!r || t->nprocs >= SLOTS * 3 / 4) {
    memset(t->procs, 0, SLOTS * sizeof *t->procs);
    t->nprocs = 0;
    return proc_get(t, pid, 1);
  }
  r->pid = pid;
  t->nprocs++;
  return r;
}

/* The stall of pipe p's delivery (kind AO_DELIVERY or AO_UPCALL). */
static void fill(const ao_triggers_t *t, const pipe_t *p, int kind,
                 uint64_t now, ao_stall_t *s) {
  const char *a;
  unsigned len = 0;
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->pipe = p->id;
  s->start = kind == AO_UPCALL ? p->up_start : p->start;
  s->trigger = now;
  s->worker = p->reader;
  s->worker_tid = p->reader_tid;
  s->parent = p->writer;
  s->parent_tid = p->writer_tid;
  s->tag = p->tag;
  s->head_len = p->head_len > OS_HEAD ? OS_HEAD : p->head_len;
  memcpy(s->head, p->head, s->head_len);
  s->delivery = p->number;
  if (p->reader && (a = ao_window_args(t->w, p->reader, &len))) {
    memcpy(s->args, a, len);
    s->args_len = len;
  }
}

/* The pipe p whose delivery is in flight to process pid, or NULL. */
static pipe_t *inflight_to(ao_triggers_t *t, unsigned pid) {
  proc_t *w = proc_get(t, pid, 0);
  pipe_t *p = w && w->cur_pipe ? pipe_get(t, w->cur_pipe, 0) : NULL;
  return p && p->inflight && p->reader == pid ? p : NULL;
}

static void on_write(ao_triggers_t *t, const struct os_event *e) {
  unsigned char tag = e->u.frame.tag;
  pipe_t *x = inflight_to(t, e->tgid), *p;
  proc_t *r;
  if (tag == '.' || tag == '!') {
    if ((p = pipe_get(t, e->u.frame.pipe, 1)) != NULL) {
      p->up = e->tgid;
      p->inflight = 0;
    }
    if ((r = proc_get(t, e->tgid, 1)) != NULL)
      r->last_result = e->ts;
    if (x) {
      x->inflight = 0;
      x->up_start = 0;
      x->last_end = e->ts;
    }
    return;
  }
  if (tag != '?' && tag != 'e')
    return;
  if (x && tag == '?') { /* the worker asks its parent: an upcall */
    if (!x->up_start) {
      x->up_start = e->u.frame.first_enter;
      x->up_said = 0;
    }
    return;
  }
  if (!(p = pipe_get(t, e->u.frame.pipe, 1)) || p->up)
    return;
  /* A record that came after its delivery's result (the writer was
   * preempted before its call's end was seen): over already. */
  if (p->reader && (r = proc_get(t, p->reader, 0)) &&
      r->last_result > e->u.frame.first_enter)
    return;
  p->inflight = 1;
  t->kernel = e->tgid;
  t->kernel_tid = e->tid;
  p->said = p->up_said = 0;
  p->up_start = 0;
  p->start = e->u.frame.first_enter;
  p->writer = e->tgid;
  p->writer_tid = e->tid;
  p->tag = tag;
  p->head_len = e->u.frame.head_len > OS_HEAD ? OS_HEAD : e->u.frame.head_len;
  memcpy(p->head, e->u.frame.head, p->head_len);
  p->number = 0;
  if (p->reader && (r = proc_get(t, p->reader, 1)) != NULL)
    p->number = ++r->deliveries;
}

static void on_read(ao_triggers_t *t, const struct os_event *e) {
  unsigned char tag = e->u.frame.tag;
  pipe_t *p;
  proc_t *r;
  if (tag != '?' && tag != 'e' && tag != '/')
    return;
  if (!(p = pipe_get(t, e->u.frame.pipe, 1)) ||
      !(r = proc_get(t, e->tgid, 1)))
    return;
  r->cur_pipe = p->id;
  if (p->reader != e->tgid && p->inflight && !p->number)
    p->number = ++r->deliveries;
  p->reader = e->tgid;
  p->reader_tid = e->tid;
  if (tag == '/' && p->up_start) {
    p->up_start = 0;
    p->up_end = e->ts;
  }
}

/* Process pid ended: the pipes it wrote results on or read deliveries on
 * are no longer its (their ids may come again for another's), but keep
 * when their last delivery and upcall ended (ao_triggers_update). */
static void forget(ao_triggers_t *t, unsigned pid) {
  size_t i;
  for (i = 0; i < SLOTS; i++) {
    pipe_t *p = &t->pipes[i];
    if (!p->id)
      continue;
    if (p->up == pid)
      p->up = 0;
    if (p->reader == pid)
      p->reader = p->reader_tid = 0;
  }
}

int ao_triggers_feed(ao_triggers_t *t, const void *data, size_t size,
                     ao_stall_t *out) {
  struct os_event e;
  pipe_t *x;
  unsigned len = 0, type;
  const char *a;
  if (size < 24 || size > sizeof e)
    return 0;
  /* Most records are waits: only frames and exits are copied. */
  memcpy(&type, data, sizeof type);
  if (type != OS_EV_FRAME && type != OS_EV_EXIT)
    return 0;
  memset(&e, 0, sizeof e);
  memcpy(&e, data, size);
  if (e.type == OS_EV_FRAME) {
    if (e.u.frame.len == 0 || !proc_get(t, e.tgid, 1))
      return 0;
    if (e.u.frame.write)
      on_write(t, &e);
    else
      on_read(t, &e);
    return 0;
  }
  if (e.type != OS_EV_EXIT || !proc_get(t, e.tgid, 0))
    return 0; /* only a process that framed is a worker or a parent */
  x = inflight_to(t, e.tgid);
  if (x)
    fill(t, x, AO_DELIVERY, e.ts, out);
  else
    memset(out, 0, sizeof *out);
  out->kind = AO_EXIT;
  out->in_delivery = x != NULL;
  out->code = e.u.exit.code;
  out->worker = e.tgid;
  out->trigger = out->end = e.ts;
  if (!x)
    out->start = e.ts;
  if (!out->args_len && (a = ao_window_args(t->w, e.tgid, &len))) {
    memcpy(out->args, a, len);
    out->args_len = len;
  }
  if (x) {
    x->inflight = 0;
    x->last_end = e.ts;
  }
  forget(t, e.tgid);
  return out->code != 0; /* killed by a signal, or a non-zero status */
}

int ao_triggers_check(ao_triggers_t *t, uint64_t now, ao_stall_t *out) {
  size_t i;
  for (i = 0; i < SLOTS; i++) {
    pipe_t *p = &t->pipes[i];
    if (!p->id || !p->inflight)
      continue;
    if (t->l.delivery_ns && !p->said && now > p->start &&
        now - p->start > t->l.delivery_ns) {
      p->said = 1;
      fill(t, p, AO_DELIVERY, now, out);
      return 1;
    }
    if (t->l.upcall_ns && p->up_start && !p->up_said && now > p->up_start &&
        now - p->up_start > t->l.upcall_ns) {
      p->up_said = 1;
      fill(t, p, AO_UPCALL, now, out);
      return 1;
    }
  }
  return 0;
}

void ao_triggers_update(const ao_triggers_t *t, ao_stall_t *s) {
  const pipe_t *p;
  if (s->end || !s->pipe ||
      !(p = pipe_get((ao_triggers_t *)t, s->pipe, 0)))
    return;
  if (s->kind == AO_DELIVERY && (!p->inflight || p->start != s->start))
    s->end = p->last_end >= s->start ? p->last_end : 0;
  else if (s->kind == AO_UPCALL && p->up_start != s->start)
    s->end = p->up_end >= s->start ? p->up_end : 0;
}

void ao_triggers_kernel(const ao_triggers_t *t, unsigned *pid,
                        unsigned *tid) {
  *pid = t->kernel;
  *tid = t->kernel_tid;
}
