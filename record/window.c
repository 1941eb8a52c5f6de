/* window.c — the always-on recorder's memory (docs/always-on.md): the
 * last --window seconds of records in one ring of --window-bytes,
 * allocated once (so the recorder's memory is bounded whatever it runs
 * for), and the exec record of each process while it lives, so that a
 * dump of a worker's stall names the worker even when it started hours
 * before the window. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "always.h"
#include "record.h"

/* The processes a window names at most: beyond, a new one is not kept
 * (its records still are; a dump then lacks its arguments). */
#define PROCS 4096

typedef struct {
  unsigned pid, ppid, len;
  uint64_t ts;      /* its exec (or fork) record's */
  uint64_t dead;    /* its exit's ts; 0 while it lives */
  char args[OS_ARGS];
} proc_t;

struct ao_window_s {
  unsigned char *buf;
  size_t cap;
  uint64_t head, tail; /* logical offsets: buf[head % cap] is the oldest */
  uint64_t span;
  ao_counters_t *c;
  proc_t *procs;
  size_t nprocs;
};

ao_window_t *ao_window_new(size_t bytes, uint64_t span_ns, ao_counters_t *c) {
  ao_window_t *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->cap = bytes / 8 * 8;
  /* Allocated once: the pages are the kernel's to give as they are
   * first written, and never more than cap of them. */
  w->buf = malloc(w->cap);
  w->procs = calloc(PROCS, sizeof *w->procs);
  w->span = span_ns;
  w->c = c;
  if (!w->buf || !w->procs || w->cap < 4096) {
    ao_window_free(w);
    return NULL;
  }
  return w;
}

void ao_window_free(ao_window_t *w) {
  if (!w)
    return;
  free(w->buf);
  free(w->procs);
  free(w);
}

static unsigned u32_at(const unsigned char *p) {
  unsigned v;
  memcpy(&v, p, sizeof v);
  return v;
}

static uint64_t u64_at(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The record at logical offset at: its bytes, and in *size its size (the
 * rest of the buffer when at is in the gap left at its end). */
static const unsigned char *at_rec(const ao_window_t *w, uint64_t at,
                                   size_t *size, int *gap) {
  size_t phys = (size_t)(at % w->cap), rest = w->cap - phys;
  const unsigned char *r = w->buf + phys;
  unsigned type = rest >= 4 ? u32_at(r) : 0;
  *gap = type == 0;
  *size = type ? rec_bin_size(type) : rest;
  return r;
}

static void evict(ao_window_t *w) {
  size_t size;
  int gap;
  at_rec(w, w->head, &size, &gap);
  w->head += size;
  if (!gap) {
    w->c->window_records--;
    w->c->evicted++;
  }
  w->c->window_bytes = w->tail - w->head;
}

static proc_t *proc_find(ao_window_t *w, unsigned pid) {
  size_t i;
  for (i = 0; i < w->nprocs; i++)
    if (w->procs[i].pid == pid)
      return &w->procs[i];
  return NULL;
}

/* The oldest time the window holds (now when empty). */
static uint64_t oldest(const ao_window_t *w, uint64_t now) {
  uint64_t at = w->head;
  while (at < w->tail) {
    size_t size;
    int gap;
    const unsigned char *r = at_rec(w, at, &size, &gap);
    if (!gap)
      return u64_at(r + 16);
    at += size;
  }
  return now;
}

/* A process's entry, made (or taken from one that ended before the
 * window's start) when it has none; NULL when the table is full. */
static proc_t *proc_slot(ao_window_t *w, unsigned pid, uint64_t now) {
  proc_t *p = proc_find(w, pid);
  size_t i;
  uint64_t from;
  if (p || w->nprocs < PROCS) {
    if (!p)
      p = &w->procs[w->nprocs++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    return p;
  }
  from = oldest(w, now);
  for (i = 0; i < w->nprocs; i++)
    if (w->procs[i].dead && w->procs[i].dead < from) {
      p = &w->procs[i];
      memset(p, 0, sizeof *p);
      p->pid = pid;
      return p;
    }
  return NULL;
}

/* Exec, fork and exit: the process table. */
static void note_proc(ao_window_t *w, const struct os_event *e) {
  proc_t *p, *parent;
  if (e->type == OS_EV_EXEC && (p = proc_slot(w, e->tgid, e->ts))) {
    p->ppid = e->u.exec.ppid;
    p->len = e->u.exec.len > OS_ARGS ? OS_ARGS : e->u.exec.len;
    memcpy(p->args, e->u.exec.args, p->len);
    p->ts = e->ts;
  } else if (e->type == OS_EV_FORK) {
    if ((p = proc_slot(w, e->u.fork.child, e->ts))) {
      p->ppid = e->tgid;
      p->ts = e->ts;
      /* It runs its parent's program until an exec. */
      if ((parent = proc_find(w, e->tgid)) != NULL) {
        p->len = parent->len;
        memcpy(p->args, parent->args, p->len);
      }
    }
  } else if (e->type == OS_EV_EXIT && (p = proc_find(w, e->tgid))) {
    p->dead = e->ts ? e->ts : 1;
  }
}

void ao_window_add(ao_window_t *w, const void *data, size_t size,
                   uint64_t now) {
  struct os_event e;
  unsigned type;
  size_t want, phys, gap;
  if (size < 24)
    return;
  memcpy(&type, data, sizeof type);
  want = rec_bin_size(type);
  if (!want || size > want || want > w->cap)
    return;
  if (type == OS_EV_EXEC || type == OS_EV_FORK || type == OS_EV_EXIT) {
    memset(&e, 0, sizeof e);
    memcpy(&e, data, size);
    note_proc(w, &e);
  }
  phys = (size_t)(w->tail % w->cap);
  gap = phys + want > w->cap ? w->cap - phys : 0;
  while (w->tail + gap + want - w->head > w->cap)
    evict(w);
  if (gap) { /* the end of the buffer left empty: a type 0 says so */
    if (gap >= 4)
      memset(w->buf + phys, 0, 4);
    w->tail += gap;
    phys = 0;
  }
  memcpy(w->buf + phys, data, size);
  memset(w->buf + phys + size, 0, want - size);
  w->tail += want;
  w->c->window_records++;
  w->c->window_bytes = w->tail - w->head;
  ao_window_expire(w, now);
}

double ao_window_seconds(const ao_window_t *w, uint64_t now) {
  uint64_t from = oldest(w, now);
  return from < now ? (double)(now - from) / 1e9 : 0;
}

void ao_window_expire(ao_window_t *w, uint64_t now) {
  while (w->head < w->tail) {
    size_t size;
    int gap;
    const unsigned char *r = at_rec(w, w->head, &size, &gap);
    if (!gap && u64_at(r + 16) + w->span >= now)
      break;
    evict(w);
  }
}

const char *ao_window_args(const ao_window_t *w, unsigned pid,
                           unsigned *len) {
  const proc_t *p = proc_find((ao_window_t *)w, pid);
  if (!p || !p->len)
    return NULL;
  *len = p->len;
  return p->args;
}

/* The end record: what the recorder took and lost, its own cost. */
static int write_end(FILE *f, const ao_counters_t *c, uint64_t now) {
  struct os_event e;
  rec_end_event(&e, now, c->window_records, c->lost);
  return rec_bin_event(f, &e, rec_bin_size(OS_EV_END));
}

int ao_window_write(const ao_window_t *w, FILE *f, long pid,
                    const ao_counters_t *c) {
  uint64_t now = rec_mono_ns(), from, at;
  long long wall_off = rec_wall_off();
  size_t i;
  from = oldest(w, now);
  if (rec_bin_header(f, from, (long long)from + wall_off, pid) != 0)
    return -1;
  /* The processes whose exec left the window (or that it never had):
   * named at its start, as --pid names those already running. */
  for (i = 0; i < w->nprocs; i++) {
    const proc_t *p = &w->procs[i];
    struct os_event e;
    if (p->ts >= from || (p->dead && p->dead < from) || !p->len)
      continue;
    rec_proc_event(&e, from, p->pid, p->ppid, p->args, p->len);
    rec_bin_event(f, &e, rec_bin_size(OS_EV_EXEC));
  }
  for (at = w->head; at < w->tail;) {
    size_t size;
    int gap;
    const unsigned char *rec = at_rec(w, at, &size, &gap);
    if (!gap)
      rec_bin_event(f, rec, size);
    at += size;
  }
  write_end(f, c, now);
  return fflush(f) != 0 || ferror(f) ? -1 : 0;
}
