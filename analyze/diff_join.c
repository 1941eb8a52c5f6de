/* diff_join.c — the window that joins the nodes' deliveries.
 *
 * Entries wait in a ring in the order they were first read.  A delivery
 * of node i goes to the oldest entry of its key (vat, delivery number,
 * replay) that node i has not filled yet, or starts a new one.  An entry
 * leaves when every node has it, or every node that lacks it has gone past
 * it (it read a later crank, or its file ended): in the ring's order, but
 * one that waits does not hold back those after it that are done (a file
 * that started later has its first delivery wait for the others to reach
 * it, while theirs before it leave as theirs alone).  What left is a hole
 * until the ring is full; then the holes are closed up when they are at
 * least half of it, else the oldest entry leaves however incomplete: so
 * no file's length or gap makes the window grow past its maximum, and
 * closing up costs at most one move per entry that left.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "diff.h"

#define MIN_SLOTS 64u

static diff_ent_t *ent(const diff_window_t *w, size_t slot) {
  return (diff_ent_t *)(w->ring + slot * w->stride);
}

/* The project's one hash over the key's bytes; its high bits folded in,
 * since a slot is the low bits. */
static uint64_t key_hash(const char *vat, long long dnum, int replay) {
  unsigned char r = (unsigned char)replay;
  uint64_t h = ips_fnv1a_str(vat);
  h = ips_fnv1a(h, &dnum, sizeof dnum);
  h = ips_fnv1a(h, &r, 1);
  return h ^ (h >> 29);
}

int ips__diff_window_init(diff_window_t *w, size_t n_nodes, size_t max) {
  memset(w, 0, sizeof *w);
  w->n_nodes = n_nodes;
  w->stride = sizeof(diff_ent_t) + n_nodes * sizeof(ips_diff_side_t);
  w->stride = (w->stride + 15) & ~(size_t)15;
  w->max = max;
  return 0;
}

void ips__diff_window_free(diff_window_t *w) {
  free(w->ring);
  free(w->bucket);
  w->ring = NULL;
  w->bucket = NULL;
}

static void link_slot(diff_window_t *w, size_t slot) {
  diff_ent_t *e = ent(w, slot);
  size_t b = e->h & (w->nb - 1);
  e->next = w->bucket[b];
  w->bucket[b] = (uint32_t)(slot + 1);
}

/* cap slots, the entries still waiting in order from slot 0 (the holes
 * closed up). */
static int rebuild(diff_window_t *w, size_t cap) {
  size_t i, nb, k = 0;
  unsigned char *ring;
  uint32_t *bucket;
  nb = 1;
  while (nb < 2 * cap)
    nb <<= 1;
  ring = malloc(cap * w->stride);
  bucket = calloc(nb, sizeof *bucket);
  if (!ring || !bucket) {
    free(ring);
    free(bucket);
    return IPS_ENOMEM;
  }
  for (i = 0; i < w->len; i++) {
    const diff_ent_t *e = ent(w, (w->head + i) % w->cap);
    if (e->mask)
      memcpy(ring + k++ * w->stride, e, w->stride);
  }
  free(w->ring);
  free(w->bucket);
  w->ring = ring;
  w->bucket = bucket;
  w->cap = cap;
  w->nb = nb;
  w->head = 0;
  w->len = k;
  w->holes = 0;
  for (i = 0; i < w->len; i++)
    link_slot(w, i);
  return 0;
}

/* The oldest entry of the key that node i has not filled, or NULL. */
static diff_ent_t *find(diff_window_t *w, uint64_t h, const char *vat,
                        long long dnum, int replay, size_t i) {
  diff_ent_t *best = NULL;
  size_t best_age = 0;
  uint32_t s;
  if (!w->nb)
    return NULL;
  for (s = w->bucket[h & (w->nb - 1)]; s; s = ent(w, s - 1)->next) {
    diff_ent_t *e = ent(w, s - 1);
    size_t age = (s - 1 + w->cap - w->head) % w->cap;
    if (e->h != h || e->dnum != dnum || e->replay != replay ||
        (e->mask >> i & 1) || strcmp(e->vat, vat))
      continue;
    if (!best || age < best_age) {
      best = e;
      best_age = age;
    }
  }
  return best;
}

/* src into dst (size bytes), cut to fit, never inside a UTF-8 character. */
static void copy_cut(char *dst, size_t size, const char *src) {
  size_t n = strlen(src);
  if (n >= size)
    n = size - 1;
  while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
    n--;
  memcpy(dst, src, n);
  dst[n] = 0;
}

static void fill(ips_diff_side_t *sd, const ips_delivery_t *dv, int has_block,
                 long long block) {
  sd->present = 1;
  sd->line = dv->line;
  sd->crank = dv->replay ? -1 : dv->crank;
  sd->has_block = has_block;
  sd->block = has_block ? block : 0;
  sd->has_compute = dv->has_compute;
  sd->compute = dv->has_compute ? dv->compute : 0;
  sd->ok = dv->ok;
  copy_cut(sd->method, sizeof sd->method, dv->method);
  sd->total = dv->total;
  sd->part[IPS_DIFF_PIPE] = dv->pipe;
  sd->part[IPS_DIFF_WORKER] = dv->worker;
  sd->part[IPS_DIFF_KERNEL] = dv->kernel;
  sd->part[IPS_DIFF_UNMATCHED] = dv->unmatched;
  if (dv->os)
    ips__diff_os_fill(sd, dv->os);
}


/* The entry at slot out: unlinked, handed to the summaries, a hole left
 * (the holes at the head are let go). */
static void hand_out(ips_diff_t *d, size_t slot) {
  diff_window_t *w = &d->w;
  diff_ent_t *e = ent(w, slot);
  ips_diff_delivery_t *x = &d->out;
  uint32_t *p = &w->bucket[e->h & (w->nb - 1)];
  size_t i, first = w->n_nodes;
  while (*p != slot + 1)
    p = &ent(w, *p - 1)->next;
  *p = e->next;
  memset(x, 0, offsetof(ips_diff_delivery_t, side));
  memcpy(x->vat, e->vat, sizeof x->vat);
  x->dnum = e->dnum;
  x->replay = e->replay;
  for (i = 0; i < w->n_nodes; i++) {
    x->side[i] = e->side[i];
    if (e->side[i].present) {
      x->n_present++;
      if (first == w->n_nodes)
        first = i;
    }
  }
  memcpy(x->method, x->side[first].method, sizeof x->method);
  x->crank = x->side[first].crank;
  x->has_block = x->side[first].has_block;
  x->block = x->side[first].block;
  e->mask = 0;
  w->holes++;
  while (w->len && !ent(w, w->head)->mask) {
    w->head = (w->head + 1) % w->cap;
    w->len--;
    w->holes--;
  }
  ips__diff_sums_add(d, x);
}

/* Room for one more entry: more slots, the holes closed up, or the
 * oldest out.  Returns 0 or IPS_ENOMEM. */
static int make_room(ips_diff_t *d) {
  diff_window_t *w = &d->w;
  size_t cap;
  if (w->len < w->cap)
    return 0;
  if (w->cap < w->max) {
    cap = w->cap ? w->cap * 2 : MIN_SLOTS;
    return rebuild(w, cap < w->max ? cap : w->max);
  }
  if (w->holes >= w->cap / 2)
    return rebuild(w, w->cap);
  d->s.st.window_full++; /* the oldest goes, however incomplete */
  hand_out(d, w->head);
  return 0;
}

/* Node i has e at crank: its delta from the other side's. */
static void learn_delta(ips_diff_t *d, const diff_ent_t *e, size_t i,
                        long long crank) {
  size_t k;
  for (k = 0; k < d->w.n_nodes; k++) {
    if ((e->mask >> k & 1) && e->side[k].crank >= 0) {
      d->node[i].delta = crank - e->side[k].crank + d->node[k].delta;
      return;
    }
  }
}

int ips__diff_join_add(ips_diff_t *d, size_t i, const ips_delivery_t *dv,
                       int has_block, long long block) {
  diff_window_t *w = &d->w;
  char vat[64];
  uint64_t h;
  diff_ent_t *e;
  int replay = dv->replay != 0;
  copy_cut(vat, sizeof vat, dv->vat);
  h = key_hash(vat, dv->dnum, replay);
  e = find(w, h, vat, dv->dnum, replay, i);
  if (!e) {
    size_t slot;
    if (make_room(d) < 0)
      return IPS_ENOMEM;
    slot = (w->head + w->len) % w->cap;
    e = ent(w, slot);
    memset(e, 0, w->stride);
    e->h = h;
    memcpy(e->vat, vat, sizeof vat);
    e->dnum = dv->dnum;
    e->replay = replay;
    e->key_crank = (replay ? d->node[i].last_crank : dv->crank) -
                   d->node[i].delta;
    w->len++;
    link_slot(w, slot);
  } else if (!replay) {
    learn_delta(d, e, i, dv->crank);
  }
  e->mask |= 1u << i;
  fill(&e->side[i], dv, has_block, block);
  return 0;
}

/* Whether node j has gone past e without having it. */
static int past(const ips_diff_t *d, const diff_ent_t *e, size_t j) {
  const diff_node_t *n = &d->node[j];
  return n->eof || (n->last_crank >= 0 &&
                    n->last_crank - n->delta > e->key_crank);
}

/* Whether e can leave: every node has it, or has gone past it. */
static int done(const ips_diff_t *d, const diff_ent_t *e) {
  size_t j;
  for (j = 0; j < d->w.n_nodes; j++)
    if (!(e->mask >> j & 1) && !past(d, e, j))
      return 0;
  return 1;
}

void ips__diff_join_drain(ips_diff_t *d, int all) {
  diff_window_t *w = &d->w;
  size_t i = 0;
  while (i < w->len) {
    size_t head = w->head, slot = (head + i) % w->cap, k;
    diff_ent_t *e = ent(w, slot);
    if (!e->mask || !(all || done(d, e))) {
      i++;
      continue;
    }
    hand_out(d, slot);
    /* the holes at the head were let go: the head moved on by k */
    k = (w->head - head + w->cap) % w->cap;
    i = i >= k ? i - k : 0;
  }
}
