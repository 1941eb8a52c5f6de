/* ring_decode.h — one ring event's payload as named, typed fields (the
 * ring reader, internal).
 *
 * Decoding trusts the event table that ring_open.c checked and a payload
 * that ring_read.c has copied out of the mapping and validated, so it
 * needs neither the file nor the producer's protocol: it is its own step.
 * static inline because ring_read.c's poll loop calls it for every event
 * and the compiler inlined it there before it had a file of its own;
 * ring_decode.c holds the lookups by name that callers use on the result.
 */
#ifndef IPCSTAMP_ANALYZE_RING_DECODE_H
#define IPCSTAMP_ANALYZE_RING_DECODE_H

#include <stdint.h>
#include <string.h>

#include "ring_read.h"

/* A number of 1, 2, 4 or 8 bytes: INT sign-extended, UINT saturated into
 * the signed view. */
static inline void ips__ring_decode_number(const rfield *f,
                                           const unsigned char *v,
                                           ips_ring_field_t *o) {
  uint64_t u = 0;
  int64_t x = 0;
  switch (f->size) {
  case 1: { uint8_t a; memcpy(&a, v, 1); u = a; x = (int8_t)a; break; }
  case 2: { uint16_t a; memcpy(&a, v, 2); u = a; x = (int16_t)a; break; }
  case 4: { uint32_t a; memcpy(&a, v, 4); u = a; x = (int32_t)a; break; }
  default: { uint64_t a; memcpy(&a, v, 8); u = a; memcpy(&x, &a, 8); }
  }
  if (f->kind == IPS__RING_INT) {
    o->i = x;
    o->u = (uint64_t)x;
  } else {
    o->u = u;
    o->i = u > INT64_MAX ? INT64_MAX : (int64_t)u;
  }
}

/* Decode the payload p of an event of type t (checked to hold t->payload
 * bytes) into r's field array and texts, and point ev's name, nfields and
 * fields at them; ev->seq is the caller's.  Valid until the next decode. */
static inline void ips__ring_decode(ips_ring_reader_t *r, const rtype *t,
                                    const unsigned char *p,
                                    ips_ring_event_t *ev) {
  size_t i, used = 0;
  for (i = 0; i < t->nfields; i++) {
    const rfield *f = &t->fields[i];
    ips_ring_field_t *o = &r->out[i];
    const unsigned char *v = p + f->offset;
    memset(o, 0, sizeof *o);
    o->name = f->name;
    o->kind = f->kind;
    if (f->kind == IPS__RING_STR) {
      /* A text need not be NUL-terminated in the record: it is cut at its
       * field's size and terminated in the copy. */
      size_t n = strnlen((const char *)v, f->size);
      char *s = r->strs + used;
      memcpy(s, v, n);
      s[n] = '\0';
      used += n + 1;
      o->s = s;
      o->len = n;
    } else {
      ips__ring_decode_number(f, v, o);
    }
  }
  ev->name = t->name;
  ev->nfields = t->nfields;
  ev->fields = r->out;
}

#endif
