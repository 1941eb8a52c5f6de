/* os_other.c — the work of no delivery (docs/os.md, "Work of no
 * delivery"): the recorded frames that no delivery's split took are
 * joined into the exchanges of xsnap's protocol they belong to (a
 * command, its upcalls and their replies, its answer) and counted by the
 * command's kind, so that every recorded frame is accounted for — a
 * delivery's, or a named kind of other work's (SwingSet's setBundle, a
 * heap snapshot written, a quit...).
 *
 * The protocol is strictly one command at a time per worker, so each
 * worker's frames are walked in order: a command to it opens an exchange,
 * an upcall from it and a reply to it belong to the open one, and an
 * answer (`.` or `!`) closes it.  Which process is the worker: the one
 * that writes answers, or reads commands only a worker reads. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "os.h"

/* Tags only the parent writes (commands, and the reply to an upcall). */
#define TO_WORKER "ewsmRq/"
/* Tags only a worker writes: its answers. */
#define ANSWERS ".!"

static int by_u32(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  return a < b ? -1 : a > b;
}

/* The workers' pids, sorted and unique, into *out (*n of them). */
static int workers(const ips_os_t *os, uint32_t **out, size_t *n) {
  uint32_t *p = malloc((os->nframes ? os->nframes : 1) * sizeof *p);
  size_t i, k = 0;
  if (!p)
    return IPS_ENOMEM;
  for (i = 0; i < os->nframes; i++) {
    const ips__os_frame_t *f = &os->frames[i];
    if (f->tag && strchr(ANSWERS, f->tag))
      p[k++] = f->wpid;
    else if (f->tag && strchr(TO_WORKER, f->tag))
      p[k++] = f->rpid;
  }
  if (k)
    qsort(p, k, sizeof *p, by_u32);
  for (i = 0, *n = 0; i < k; i++)
    if (!*n || p[*n - 1] != p[i])
      p[(*n)++] = p[i];
  *out = p;
  return 0;
}

static int is_worker(const uint32_t *w, size_t n, uint32_t pid) {
  return bsearch(&pid, w, n, sizeof *w, by_u32) != NULL;
}

/* The kind of a command's tag. */
static int kind_of(unsigned char tag) {
  static const unsigned char tags[] = {
#define IPS_OS_WORK_TAG(name, tag, meaning) tag,
      IPS_OS_WORK_KINDS(IPS_OS_WORK_TAG)
#undef IPS_OS_WORK_TAG
  };
  size_t i;
  for (i = 0; i < IPS_OS_WORK_N; i++)
    if (tags[i] && tags[i] == tag)
      return (int)i;
  return IPS_OS_WORK_other_command;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/* One exchange: command c (NULL: none, its frames of no command), n
 * frames, answered by a (or NULL), into out. */
static void exchange(const ips_os_t *os, const ips__os_frame_t *c,
                     const ips__os_frame_t *a, uint64_t n,
                     ips_os_other_t *out) {
  ips_os_work_t *w;
  int64_t b, p1, p2, p3;
  if (!c) {
    out->kind[IPS_OS_WORK_no_command].frames += n;
    return;
  }
  w = &out->kind[kind_of(c->tag)];
  w->exchanges++;
  w->frames += n;
  w->answered += a && a->tag == '.';
  w->errors += a && a->tag == '!';
  b = a && a->r_ret > c->w_enter ? a->r_ret
      : c->r_ret > c->w_enter    ? c->r_ret : c->w_enter;
  p1 = clamp(c->w_ret, c->w_enter, b);
  p2 = clamp(c->r_ret, p1, b);
  p3 = a ? clamp(a->w_enter, p2, b) : b;
  ips_sum_add(&w->ns, b - c->w_enter);
  ips_sum_add(&w->write, p1 - c->w_enter);
  ips_sum_add(&w->pipe, p2 - p1);
  ips_sum_add(&w->worker_ns, p3 - p2);
  ips_sum_add(&w->reply, b - p3);
  if (p3 > p2) {
    ips_os_time_t t;
    memset(&t, 0, sizeof t);
    ips__os_thread_split(os, c->rtid, p2, p3, &t);
    ips_os_time_add(&w->worker, &t);
  }
}

/* A frame of a worker: the worker's pid, the frame's index. */
typedef struct {
  uint32_t worker;
  size_t i;
} wframe_t;

/* By worker, then the frames' order (by write entered). */
static int by_worker(const void *x, const void *y) {
  const wframe_t *a = x, *b = y;
  if (a->worker != b->worker)
    return a->worker < b->worker ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

/* Walks one worker's frames idx[0..n) (w: the workers). */
static void walk(const ips_os_t *os, const wframe_t *idx, size_t n,
                 const uint32_t *w, size_t nw, ips_os_other_t *out) {
  const ips__os_frame_t *cmd = NULL;
  uint64_t in = 0, lone = 0; /* frames of the open command; of none */
  size_t i;
  for (i = 0; i < n; i++) {
    const ips__os_frame_t *f = &os->frames[idx[i].i];
    int from_worker = is_worker(w, nw, f->wpid);
    if (f->used) { /* a delivery's: any open command was not answered */
      out->delivery_frames++;
      if (cmd)
        exchange(os, cmd, NULL, in, out);
      cmd = NULL;
      continue;
    }
    if (!from_worker && f->tag != '/') { /* a command opens an exchange */
      if (cmd)
        exchange(os, cmd, NULL, in, out);
      cmd = f;
      in = 1;
    } else if (from_worker && f->tag && strchr(ANSWERS, f->tag)) {
      if (cmd)
        exchange(os, cmd, f, in + 1, out);
      else
        lone++;
      cmd = NULL;
    } else if (cmd) { /* an upcall in it, or its reply */
      in++;
    } else {
      lone++;
    }
  }
  if (cmd)
    exchange(os, cmd, NULL, in, out);
  exchange(os, NULL, NULL, lone, out);
}

int ips_os_other(const ips_os_t *os, ips_os_other_t *out) {
  uint32_t *w;
  wframe_t *idx;
  size_t nw, i, k;
  memset(out, 0, sizeof *out);
  out->frames = os->nframes;
  if (workers(os, &w, &nw) != 0)
    return IPS_ENOMEM;
  if (!(idx = malloc((os->nframes ? os->nframes : 1) * sizeof *idx))) {
    free(w);
    return IPS_ENOMEM;
  }
  for (i = 0; i < os->nframes; i++) {
    const ips__os_frame_t *f = &os->frames[i];
    idx[i].worker = is_worker(w, nw, f->wpid) ? f->wpid : f->rpid;
    idx[i].i = i;
  }
  if (os->nframes)
    qsort(idx, os->nframes, sizeof *idx, by_worker);
  for (i = 0; i < os->nframes; i = k) {
    for (k = i; k < os->nframes && idx[k].worker == idx[i].worker; k++)
      ;
    walk(os, idx + i, k - i, w, nw, out);
  }
  free(idx);
  free(w);
  return 0;
}
