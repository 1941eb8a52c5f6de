/* slow_marks.c — the marks and spans of the slowest deliveries, kept by the
 * report so that its slowest list can show them: the analysis keeps a fixed
 * record per slow delivery, without its marks (issue 14).
 *
 * Only deliveries with marks are kept, the `top` slowest of them: a marked
 * delivery in the analysis's top list is also among the slowest marked
 * ones, so nothing it lists is missed, and a slog without marks costs
 * nothing. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "output.h"

/* Marks shown per slow delivery; the rest are counted. */
#define SHOWN 32

struct slow_marks_entry {
  long line;
  long long dnum;
  char vat[64];
  size_t n, more;
  ips_delivery_mark_t m[SHOWN];
  char names[SHOWN][64];  /* names cut to 63 bytes for the list */
};

int slow_marks_init(slow_marks_t *s, size_t top) {
  s->seq = 0;
  s->e = top ? calloc(top, sizeof *s->e) : NULL;
  if ((top && !s->e) || ips_slowest_init(&s->keeper, top) != 0) {
    free(s->e);
    s->e = NULL;
    return -1;
  }
  return 0;
}

void slow_marks_add(slow_marks_t *s, const ips_delivery_t *d) {
  struct slow_marks_entry *e;
  size_t i;
  uint64_t seq = s->seq++; /* arrival order: ties keep the earlier one */
  long slot;
  if (d->n_marks == 0 || (slot = ips_slowest_slot(&s->keeper, d->total, seq)) < 0)
    return;
  e = &s->e[slot];
  e->line = d->line;
  e->dnum = d->dnum;
  snprintf(e->vat, sizeof e->vat, "%s", d->vat);
  e->n = d->n_marks < SHOWN ? d->n_marks : SHOWN;
  e->more = d->n_marks - e->n;
  for (i = 0; i < e->n; i++) {
    e->m[i] = d->marks[i];
    e->m[i].at -= d->W[0]; /* kept relative to the worker's d */
    out_copy_cut(e->names[i], sizeof e->names[i], d->marks[i].name);
    e->m[i].name = e->names[i];
  }
}

const struct slow_marks_entry *slow_marks_find(const slow_marks_t *s,
                                               const ips_slow_t *slow) {
  size_t i;
  for (i = 0; i < s->keeper.n; i++)
    if (s->e[i].line == slow->line && s->e[i].dnum == slow->dnum &&
        !strcmp(s->e[i].vat, slow->vat))
      return &s->e[i];
  return NULL;
}

size_t slow_marks_count(const struct slow_marks_entry *e, size_t *more) {
  *more = e->more;
  return e->n;
}

const ips_delivery_mark_t *slow_marks_get(const struct slow_marks_entry *e,
                                          size_t i) {
  return &e->m[i];
}

void slow_marks_free(slow_marks_t *s) {
  free(s->e);
  s->e = NULL;
  ips_slowest_free(&s->keeper);
}
