/* meter_same.h — whether two decodes of one metering (meter.h) read the
 * same: every key, count, stamp, kind and mark.  For the tests and the
 * fuzzers that hold the decoder's two paths together. */
#ifndef IPCSTAMP_TESTS_METER_SAME_H
#define IPCSTAMP_TESTS_METER_SAME_H

#include <string.h>

#include "meter.h"

static inline int meter_same(const ips__meter_t *a, const ips__meter_t *b) {
  size_t i;
  if (a->have != b->have || a->n_walls != b->n_walls ||
      a->n_mono != b->n_mono || a->n_runq != b->n_runq ||
      a->n_kinds != b->n_kinds || a->n_marks != b->n_marks ||
      a->n_mnames != b->n_mnames || a->mnames_len != b->mnames_len ||
      a->v != b->v || a->dropped != b->dropped || a->cpu_ns != b->cpu_ns ||
      a->compute != b->compute || a->allocate != b->allocate ||
      a->mdropped != b->mdropped || a->munbalanced != b->munbalanced ||
      a->used != b->used)
    return 0;
  if (memcmp(a->walls, b->walls, a->n_walls * sizeof *a->walls) ||
      memcmp(a->mono, b->mono, a->n_mono * sizeof *a->mono) ||
      memcmp(a->runq, b->runq, a->n_runq * sizeof *a->runq) ||
      memcmp(a->kinds, b->kinds, a->n_kinds))
    return 0;
  if (a->n_mnames && (memcmp(a->mname_off, b->mname_off,
                             a->n_mnames * sizeof *a->mname_off) ||
                      memcmp(a->mnames, b->mnames, a->mnames_len)))
    return 0;
  for (i = 0; i < a->n_marks; i++)
    if (a->marks[i].kind != b->marks[i].kind ||
        a->marks[i].name != b->marks[i].name ||
        a->marks[i].wall != b->marks[i].wall ||
        a->marks[i].mono != b->marks[i].mono)
      return 0;
  return 1;
}

/* A decoder's arrays: room for cap stamps (the analysis's bound). */
static inline int meter_alloc(ips__meter_t *m, size_t cap) {
  memset(m, 0, sizeof *m);
  m->cap = cap;
  m->walls = malloc(cap * sizeof *m->walls);
  m->mono = malloc(cap * sizeof *m->mono);
  m->runq = malloc(cap * sizeof *m->runq);
  m->kinds = malloc(cap + 1);
  return m->walls && m->mono && m->runq && m->kinds;
}

#endif
