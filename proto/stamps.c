/* stamps.c — the per-delivery stamp table (docs/protocol.md, "Stamps"). */
#include "config.h"

#include <stdlib.h>

#include "ipcstamp-proto.h"

int ips_stamps_init(ips_stamps_t *t, uint32_t cap) {
  t->v = NULL;
  t->cap = t->n = t->dropped = 0;
  t->drop_next_r = 0;
  if (cap < 2)
    return IPS_EINVAL;
  t->v = calloc(cap, sizeof *t->v);
  if (t->v == NULL)
    return IPS_ENOMEM;
  t->cap = cap;
  return 0;
}

void ips_stamps_free(ips_stamps_t *t) {
  free(t->v);
  t->v = NULL;
  t->cap = t->n = t->dropped = 0;
  t->drop_next_r = 0;
}

void ips_stamps_reset(ips_stamps_t *t) {
  t->n = 0;
  t->dropped = 0;
  t->drop_next_r = 0;
}

static int is_final(char kind) { return kind == 'e' || kind == 'E'; }
static int is_upcall(char kind) { return kind == 'u' || kind == 'U'; }
static int is_reply(char kind) { return kind == 'r' || kind == 'R'; }

/* Whether a stamp of this kind gets a slot.  The last slot is the final
 * stamp's; an upcall stamp needs room for its reply too, so that recorded
 * upcalls always come in pairs and attribution never sees half of one. */
static int admit(ips_stamps_t *t, char kind) {
  uint32_t room = t->cap - 1 - t->n; /* slots before the final one */
  if (is_final(kind))
    return t->n < t->cap;
  if (is_reply(kind) && t->drop_next_r) {
    t->drop_next_r = 0;
    return 0;
  }
  if (is_upcall(kind)) {
    if (room >= 2)
      return 1;
    t->drop_next_r = 1;
    return 0;
  }
  return room >= 1;
}

int ips_stamps_put(ips_stamps_t *t, const ips_stamp_t *s) {
  if (!admit(t, s->kind)) {
    t->dropped++;
    return 1;
  }
  t->v[t->n++] = *s;
  return 0;
}

int ips_stamps_add(ips_stamps_t *t, char kind) {
  ips_stamp_t *s;
  if (!admit(t, kind)) {
    t->dropped++;
    return 1;
  }
  /* Read the clocks straight into the slot: this is the hot path. */
  s = &t->v[t->n];
  if (ips_clock_read(s) != 0)
    return IPS_ECLOCK;
  s->kind = kind;
  t->n++;
  return 0;
}
