/* keep.c — the N slowest deliveries, kept whole (`report --slowest N`):
 * the analysis hands out a delivery only during its callback, and the
 * slowest are known only at the end.  Which ones is the library's one
 * keeper's to say (ips_slowest_*); this keeps their copies.
 *
 * Each kept delivery is one block: the struct, its OS split (--os), its
 * stamps, its marks and its strings.  Memory is bounded by the count and by KEEP_BUDGET bytes:
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
  if (ips_slowest_init(&k->keeper, cap) != 0)
    return -1;
  if (!cap)
    return 0;
  k->slot = calloc(cap, sizeof *k->slot);
  k->sorted = calloc(cap, sizeof *k->sorted);
  k->order = calloc(cap, sizeof *k->order);
  if (!k->slot || !k->sorted || !k->order) {
    keep_free(k);
    return -1;
  }
  return 0;
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
  bytes = sizeof *e + (d->os ? sizeof *d->os : 0) +
          2 * nst * sizeof(int64_t) +
          d->n_marks * sizeof(ips_delivery_mark_t) + lv + ld + lm + names;
  if (bytes > KEEP_BUDGET - k->bytes || !(b = malloc(bytes)))
    return NULL;
  e = (struct kept *)(void *)b;
  e->d = *d;
  e->bytes = bytes;
  off = sizeof *e;
  if (d->os) { /* the analysis's, overwritten by the next delivery */
    e->d.os = memcpy(b + off, d->os, sizeof *d->os);
    off += sizeof *d->os;
  }
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
  uint64_t seq = k->seq++; /* arrival order: ties keep the earlier one */
  long s = ips_slowest_slot(&k->keeper, d->total, seq);
  struct kept *e;
  if (s < 0)
    return 0; /* not among the slowest */
  if (k->slot[s]) { /* the one it displaces */
    k->bytes -= k->slot[s]->bytes;
    free(k->slot[s]);
    k->slot[s] = NULL;
  }
  if (!(e = copy(k, d)))
    return -1;
  e->seq = seq;
  k->slot[s] = e;
  return 0;
}

static int by_line(const void *x, const void *y) {
  const struct kept *a = *(struct kept *const *)x, *b = *(struct kept *const *)y;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

size_t keep_sort(keep_t *k, int in_file_order) {
  size_t i, n = 0;
  ips_slowest_order(&k->keeper, k->order); /* slowest first */
  for (i = 0; i < k->keeper.n; i++)
    if (k->slot[k->order[i]]) /* (none is missing unless a copy failed) */
      k->sorted[n++] = k->slot[k->order[i]];
  if (in_file_order)
    qsort(k->sorted, n, sizeof *k->sorted, by_line);
  return n;
}

const ips_delivery_t *keep_get(const keep_t *k, size_t i) {
  return i < k->keeper.n && k->sorted[i] ? &k->sorted[i]->d : NULL;
}

void keep_free(keep_t *k) {
  size_t i;
  for (i = 0; k->slot && i < k->keeper.cap; i++)
    free(k->slot[i]);
  free(k->slot);
  free(k->sorted);
  free(k->order);
  ips_slowest_free(&k->keeper);
  memset(k, 0, sizeof *k);
}
