/* ring_decode.c — a decoded ring event's fields looked up by name (the
 * ring reader, analyze/ipcstamp-ring-read.h, docs/ring.md).
 *
 * What a caller uses on each event it gets, beside the decoder that made
 * it (ring_decode.h): by name, never by position, so that an older or
 * newer producer's table still reads. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "ring_decode.h"

const ips_ring_field_t *ips_ring_event_field(const ips_ring_event_t *ev,
                                             const char *name) {
  size_t i;
  for (i = 0; i < ev->nfields; i++)
    if (strcmp(ev->fields[i].name, name) == 0) return &ev->fields[i];
  return NULL;
}

int64_t ips_ring_event_int(const ips_ring_event_t *ev, const char *name,
                           int64_t dflt) {
  const ips_ring_field_t *f = ips_ring_event_field(ev, name);
  if (!f || f->kind == IPS_RING_FIELD_STR) return dflt;
  return f->i;
}

const char *ips_ring_event_str(const ips_ring_event_t *ev, const char *name) {
  const ips_ring_field_t *f = ips_ring_event_field(ev, name);
  return f && f->kind == IPS_RING_FIELD_STR ? f->s : "";
}
