/* ring_read.h — the ring reader's state, shared by its three files
 * (internal).
 *
 * The reader of analyze/ipcstamp-ring-read.h is cut along its seams:
 * ring_open.c maps a file and checks its header into the event table
 * below, ring_decode.h turns one record's payload into named fields
 * through that table (ring_decode.c looks them up by name), and
 * ring_read.c keeps the cursor and polls.  This header is what they
 * share; nothing outside them includes it.
 */
#ifndef IPCSTAMP_ANALYZE_RING_READ_H
#define IPCSTAMP_ANALYZE_RING_READ_H

#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-ring-read.h"
#include "ring-format.h"

/* One field of an event type, as checked from the header. */
typedef struct {
  char name[IPS_RING_NAME_MAX];
  uint16_t offset, size;
  uint8_t kind;
} rfield;

/* One event type of the header's table. */
typedef struct {
  char name[IPS_RING_NAME_MAX];
  uint16_t id;
  uint32_t payload;
  rfield *fields;   /* points into the reader's field array */
  size_t nfields;
} rtype;

struct ips_ring_reader_s {
  unsigned char *map;
  size_t map_size;
  ips__ring_hdr_t *hdr;
  const unsigned char *data;
  uint64_t size;
  int writable;
  long pid;
  rtype *types;           /* owned */
  size_t ntypes;
  rfield *fields;         /* owned, all types' fields */
  ips_ring_field_t *out;  /* owned: one event's decoded fields */
  char *strs;             /* owned: their texts */
  size_t max_fields;
  uint64_t pos;           /* the cursor: a position in the stream */
  uint64_t seq;           /* the seq expected at pos */
  int synced;             /* 1: pos and seq known; 2: pos known, seq is
                             the next record's (after seek_end); 0: start
                             at tail */
  uint64_t lost;
  /* The "stamp" events' mono_ns field (NULL when the table has none) and
   * the last one read: a ring's stamps come from one monotonic clock in
   * the order taken, so one below its predecessor is corruption. */
  const rtype *stamp_type;
  const rfield *stamp_mono;
  int64_t last_mono;
  int have_mono;
  int err;
  unsigned char rec[16 + IPS__RING_MAX_PAYLOAD];
  char msg[512];
};

/* Record a failure: the formatted message replaces r->msg and err becomes
 * the reader's sticky error.  Returns err, so that callers can
 * `return ips__ring_fail(...)`. */
int ips__ring_fail(ips_ring_reader_t *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A read of the mapping faulted at `at` (from the bus guard; NULL when not
 * known): the file was truncated under the reader.  Fails with IPS_ERING,
 * sticky like any other corruption. */
int ips__ring_shrank(ips_ring_reader_t *r, const char *at);

#endif
