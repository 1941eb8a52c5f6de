/* slow_marks.c — the marks and spans of the slowest deliveries, kept with
 * them (ips_analysis_slow_marks): a slowest list that shows where the time
 * of each went needs them after the delivery's callback, when the
 * analysis's own copy of its marks is gone.
 *
 * A fixed record per slot (the first IPS_SLOW_MARKS marks, names cut to 63
 * bytes), copied only when a delivery with marks takes a slot: a slog
 * without marks costs nothing but the slots. */
#include "config.h"

#include <string.h>

#include "attribute.h"

void ips_copy_cut(char *dst, size_t n, const char *s) {
  size_t l = strlen(s);
  if (l >= n) {
    l = n - 1;
    while (l > 0 && ((unsigned char)s[l] & 0xc0) == 0x80)
      l--;
  }
  memcpy(dst, s, l);
  dst[l] = '\0';
}

void ips__slow_marks_keep(ips__slow_marks_t *e, const ips_delivery_t *d) {
  size_t i;
  e->n = d->n_marks < IPS_SLOW_MARKS ? d->n_marks : IPS_SLOW_MARKS;
  e->more = d->n_marks - e->n;
  for (i = 0; i < e->n; i++) {
    e->m[i] = d->marks[i];
    e->m[i].at -= d->W[0]; /* kept relative to the worker's d */
    ips_copy_cut(e->names[i], sizeof e->names[i], d->marks[i].name);
    e->m[i].name = e->names[i];
  }
}

const ips_delivery_mark_t *ips_analysis_slow_marks(const ips_analysis_t *a,
                                                   size_t i, size_t *n,
                                                   size_t *more) {
  const ips__slow_marks_t *e;
  *n = *more = 0;
  if (i >= a->keeper.n)
    return NULL;
  e = &a->slow_marks[a->slow_order[i]];
  if (e->n == 0)
    return NULL;
  *n = e->n;
  *more = e->more;
  return e->m;
}
