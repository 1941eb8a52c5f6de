/* keep.c — the N slowest deliveries, kept whole (`report --slowest N`):
 * the analysis hands out a delivery only during its callback, and the
 * slowest are known only at the end.
 *
 * Each kept delivery is one block: the struct, its stamps, its marks and
 * its strings.  Memory is bounded by the count and by KEEP_BUDGET bytes:
 * a delivery that would go past the budget is refused (keep_add returns
 * -1) rather than kept in part. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "output.h"

struct kept {
  ips_delivery_t d;   /* its pointers point into this block */
  uint64_t seq;       /* arrival order: ties keep the earlier one */
  size_t bytes;
};

int keep_init(keep_t *k, size_t cap) {
  memset(k, 0, sizeof *k);
  k->cap = cap;
  k->e = cap ? calloc(cap, sizeof *k->e) : NULL;
  return cap && !k->e ? -1 : 0;
}

/* Whether a is to be shown before b: slower, or as slow and earlier. */
static int before(const struct kept *a, const struct kept *b) {
  return a->d.total > b->d.total ||
         (a->d.total == b->d.total && a->seq < b->seq);
}

/* A copy of d in one block; NULL when memory runs out or the budget
 * would be passed. */
static struct kept *copy(keep_t *k, const ips_delivery_t *d) {
  size_t nst = 2 + 2 * d->n_up, i, bytes, off;
  size_t lv = strlen(d->vat) + 1, ld = strlen(d->desc) + 1;
  size_t lm = strlen(d->method) + 1, names = 0;
  struct kept *e;
  char *b, *s;
  for (i = 0; i < d->n_marks; i++)
    names += strlen(d->marks[i].name) + 1;
  bytes = sizeof *e + 2 * nst * sizeof(int64_t) +
          d->n_marks * sizeof(ips_delivery_mark_t) + lv + ld + lm + names;
  if (bytes > KEEP_BUDGET - k->bytes || !(b = malloc(bytes)))
    return NULL;
  e = (struct kept *)(void *)b;
  e->d = *d;
  e->bytes = bytes;
  off = sizeof *e;
  e->d.P = memcpy(b + off, d->P, nst * sizeof(int64_t));
  off += nst * sizeof(int64_t);
  e->d.W = memcpy(b + off, d->W, nst * sizeof(int64_t));
  off += nst * sizeof(int64_t);
  if (d->n_marks) {
    ips_delivery_mark_t *m = memcpy(b + off, d->marks,
                                    d->n_marks * sizeof *d->marks);
    e->d.marks = m;
    off += d->n_marks * sizeof *d->marks;
    s = b + off;
    for (i = 0; i < d->n_marks; i++) {
      size_t n = strlen(d->marks[i].name) + 1;
      m[i].name = memcpy(s, d->marks[i].name, n);
      s += n;
    }
    off = (size_t)(s - b);
  } else {
    e->d.marks = NULL;
  }
  e->d.vat = memcpy(b + off, d->vat, lv);
  e->d.desc = memcpy(b + off + lv, d->desc, ld);
  e->d.method = memcpy(b + off + lv + ld, d->method, lm);
  k->bytes += bytes;
  return e;
}

int keep_add(keep_t *k, const ips_delivery_t *d) {
  struct kept probe, *e;
  size_t i;
  uint64_t seq = k->seq++;
  if (k->cap == 0)
    return 0;
  probe.d.total = d->total;
  probe.seq = seq;
  if (k->n == k->cap && !before(&probe, k->e[k->last]))
    return 0; /* not among the slowest */
  if (k->n == k->cap) { /* the last of them makes room */
    k->bytes -= k->e[k->last]->bytes;
    free(k->e[k->last]);
    k->e[k->last] = k->e[--k->n];
  }
  if (!(e = copy(k, d)))
    return -1;
  e->seq = seq;
  k->e[k->n++] = e;
  /* The one to give way next, looked for only when the list changes. */
  k->last = 0;
  for (i = 1; i < k->n; i++)
    if (before(k->e[k->last], k->e[i]))
      k->last = i;
  return 0;
}

static int by_speed(const void *x, const void *y) {
  const struct kept *a = *(struct kept *const *)x, *b = *(struct kept *const *)y;
  return before(a, b) ? -1 : before(b, a);
}

static int by_line(const void *x, const void *y) {
  const struct kept *a = *(struct kept *const *)x, *b = *(struct kept *const *)y;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

size_t keep_sort(keep_t *k, int in_file_order) {
  qsort(k->e, k->n, sizeof *k->e, in_file_order ? by_line : by_speed);
  k->last = 0;
  return k->n;
}

const ips_delivery_t *keep_get(const keep_t *k, size_t i) {
  return i < k->n ? &k->e[i]->d : NULL;
}

void keep_free(keep_t *k) {
  while (k->n)
    free(k->e[--k->n]);
  free(k->e);
  memset(k, 0, sizeof *k);
}
