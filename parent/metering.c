/* metering.c — the parent's reader of a worker's metering (docs/protocol.md,
 * "The metering"): untrusted bytes through the one decoder (proto/meter.h:
 * the writer's exact form without yajl, anything else with it), held to
 * the writer's rules (ips__meter_check), into the public ips_metering_t.
 *
 * The arrays are a store's, sized to what the input can hold (each stamp
 * takes at least two of its bytes) and never beyond
 * IPS_METERING_MAX_STAMPS, so a worker cannot make us allocate more than a
 * small multiple of what it sent; a child keeps its store from one result
 * to the next. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-parent.h"
#include "metering.h"

void ips__mstore_free(ips__mstore_t *s) {
  ips__meter_t *d = &s->meter;
  free(d->walls);
  free(d->mono);
  free(d->kinds);
  ips__meter_release(d);
  memset(s, 0, sizeof *s);
}

/* Room for the stamps buf[0..n) can hold (each takes a digit and a
 * separator: at most n / 2), kept when it is there.  The run delays are
 * read, not kept: the parent does not use them, the slogfile has them in
 * the bytes. */
static int room(ips__mstore_t *s, size_t n) {
  ips__meter_t *d = &s->meter;
  size_t cap = n / 2 + 1;
  int64_t *w, *mo;
  char *k;
  if (cap > IPS_METERING_MAX_STAMPS)
    cap = IPS_METERING_MAX_STAMPS;
  if (d->cap >= cap && d->walls)
    return 0;
  w = realloc(d->walls, cap * sizeof *w);
  if (w)
    d->walls = w;
  mo = realloc(d->mono, cap * sizeof *mo);
  if (mo)
    d->mono = mo;
  k = realloc(d->kinds, cap + 1);
  if (k)
    d->kinds = k;
  if (!w || !mo || !k)
    return IPS_ENOMEM;
  d->cap = cap;
  return 0;
}

/* The decoded metering as the public struct: walls in microseconds (in
 * place), and for xsnap's plain list the kinds its count implies when it
 * is even (xsnap silently drops the final stamp when its table is full). */
static void to_public(ips__meter_t *d, ips_metering_t *m) {
  size_t i;
  memset(m, 0, sizeof *m);
  m->n = (uint32_t)d->n_walls;
  for (i = 0; i < d->n_walls; i++)
    d->walls[i] /= 1000;
  m->wall_us = d->n_walls ? d->walls : NULL;
  m->dropped = d->dropped;
  m->has_cpu_ns = (d->have & IPS__M_CPU) != 0;
  m->cpu_ns = d->cpu_ns;
  m->has_compute = (d->have & IPS__M_COMPUTE) != 0;
  m->compute = d->compute;
  m->has_allocate = (d->have & IPS__M_ALLOCATE) != 0;
  m->allocate = d->allocate;
  if (d->have & IPS__M_IPC) {
    m->has_ipcstamp = 1;
    m->version = (int)d->v;
    m->kinds = d->n_walls ? d->kinds : NULL;
    m->mono_ns = d->n_walls ? d->mono : NULL;
  } else if (m->n >= 2 && (m->n & 1) == 0) {
    d->kinds[0] = 'd';
    for (i = 1; i + 1 < m->n; i++)
      d->kinds[i] = (i & 1) ? 'u' : 'r';
    d->kinds[m->n - 1] = 'e';
    d->kinds[m->n] = 0;
    m->kinds = d->kinds;
  }
}

int ips__metering_read(const char *buf, size_t n, ips_metering_t *m,
                       ips__mstore_t *s, char *err, size_t errsize) {
  int rc = room(s, n);
  if (rc != 0 && errsize)
    snprintf(err, errsize, "metering: out of memory");
  if (rc == 0)
    rc = ips__meter_decode(&s->meter, buf, n, 0, err, errsize);
  if (rc == 0)
    rc = ips__meter_check(&s->meter, err, errsize);
  if (rc == 0)
    to_public(&s->meter, m);
  else
    memset(m, 0, sizeof *m);
  return rc;
}

int ips_metering_parse(const char *buf, size_t n, ips_metering_t *m,
                       char *err, size_t errsize) {
  ips__mstore_t s;
  int rc;
  memset(&s, 0, sizeof s);
  rc = ips__metering_read(buf, n, m, &s, err, errsize);
  if (rc == 0) {
    /* *m owns the arrays it points to; the store gives up the rest */
    if (m->wall_us != s.meter.walls)
      free(s.meter.walls);
    if (m->mono_ns != s.meter.mono)
      free(s.meter.mono);
    if (m->kinds != s.meter.kinds)
      free(s.meter.kinds);
    ips__meter_release(&s.meter);
    return 0;
  }
  ips__mstore_free(&s);
  return rc;
}

void ips_metering_free(ips_metering_t *m) {
  free(m->wall_us);
  free(m->kinds);
  free(m->mono_ns);
  memset(m, 0, sizeof *m);
}
