/* ring-format.h — the byte layout of a ring file, shared by the producer
 * (proto/ring.c), the reader (analyze/ring_open.c and ring_read.c) and the
 * tests that write odd rings on purpose.  Not installed: docs/ring.md is the public
 * description, and a reader must never rely on these structs' sizes beyond
 * what the header itself declares.
 *
 * Every integer is in the producer's byte order (the endian mark says which;
 * a reader refuses a foreign one).  Counters are positions in an infinite
 * stream of bytes: a record at position p lives at data[p % data_size].
 */
#ifndef IPCSTAMP_RING_FORMAT_H
#define IPCSTAMP_RING_FORMAT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-ring.h"

/* The fixed part of the header: 256 bytes.  The producer-written counters
 * and the reader-written control word sit on cache lines of their own, so
 * a reader pausing the ring does not slow the producer's stores. */
typedef struct ips__ring_hdr_s {
  char magic[8];              /*   0 IPS_RING_MAGIC */
  uint32_t version;           /*   8 IPS_RING_VERSION */
  uint32_t endian;            /*  12 IPS_RING_ENDIAN */
  uint32_t header_size;       /*  16 where the data starts (multiple of 64) */
  uint32_t ntypes;            /*  20 entries of the event table */
  uint64_t data_size;         /*  24 bytes of data (multiple of 16) */
  uint32_t types_off;         /*  32 the table's offset in the file */
  uint32_t role;              /*  36 IPS_RING_ROLE_* */
  int64_t pid;                /*  40 */
  int64_t start_wall_us;      /*  48 both clocks when the ring was opened: */
  int64_t start_mono_ns;      /*  56 gettimeofday µs, CLOCK_MONOTONIC ns */
  char program[32];           /*  64 NUL-padded */
  char vat[16];               /*  96 NUL-padded; "" when unknown */
  int64_t ppid;               /* 112 the parent process at open; 0 unknown
                                 (written by producers since the run
                                 grouping of `top`; older ones left 0) */
  uint8_t pad0[8];            /* 120 */
  _Atomic uint64_t head;      /* 128 end of the last whole record */
  _Atomic uint64_t tail;      /* 136 start of the oldest intact record */
  _Atomic uint64_t written;   /* 144 events written (not padding) */
  _Atomic uint64_t overwritten; /* 152 events overwritten */
  uint8_t pad1[32];           /* 160 */
  _Atomic uint32_t control;   /* 192 IPS_RING_CTL_* bits */
  uint8_t pad2[60];           /* 196 */
} ips__ring_hdr_t;

/* One event type: a 32-byte entry followed by nfields field entries. */
typedef struct ips__ring_type_s {
  char name[IPS_RING_NAME_MAX]; /* NUL-terminated inside the 24 bytes */
  uint16_t id;                  /* the record's type number; never 0 */
  uint16_t nfields;
  uint32_t payload;             /* bytes of payload the fields describe */
} ips__ring_type_t;

/* Field kinds. */
#define IPS__RING_INT 1u   /* signed, size 1, 2, 4 or 8 */
#define IPS__RING_UINT 2u  /* unsigned, size 1, 2, 4 or 8 */
#define IPS__RING_STR 3u   /* text, NUL-padded to size */

typedef struct ips__ring_field_s {
  char name[IPS_RING_NAME_MAX];
  uint16_t offset;              /* in the payload */
  uint16_t size;
  uint8_t kind;                 /* IPS__RING_* */
  uint8_t pad[3];
} ips__ring_field_t;

/* Every record starts with this; len covers it and is a multiple of 16.
 * Type 0 is padding up to the end of the data area, so that no record
 * straddles the end; its seq is the next event's.  seq counts events from
 * 0 without gaps: a reader's lost count is a difference of two seqs. */
typedef struct ips__ring_rec_s {
  uint32_t len;
  uint16_t type;
  uint16_t flags;
  uint64_t seq;
} ips__ring_rec_t;

#define IPS__RING_PAD 0u
#define IPS__RING_HDR_FIXED 256u
/* Bounds a reader enforces on a header (an untrusted file). */
#define IPS__RING_MAX_HEADER (1u << 20)
#define IPS__RING_MAX_TYPES 256u
#define IPS__RING_MAX_FIELDS 64u
#define IPS__RING_MAX_PAYLOAD 4096u

/* The events of format version 1. */
#define IPS__RING_T_STAMP 1u
#define IPS__RING_T_ATTRIBUTION 2u
#define IPS__RING_T_MARK 3u
#define IPS__RING_T_CPU 4u

typedef struct ips__ring_stamp_s {
  int64_t wall_us;     /*  0 */
  int64_t mono_ns;     /*  8 */
  uint64_t delivery;   /* 16 */
  uint32_t upcall;     /* 24 */
  char kind[4];        /* 28 the letter, NUL-padded */
  char vat[16];        /* 32 */
} ips__ring_stamp_t;   /* 48 */

typedef struct ips__ring_attr_s {
  int64_t pipe_ns;     /*  0 */
  int64_t worker_ns;   /*  8 */
  int64_t kernel_ns;   /* 16 */
  int64_t total_ns;    /* 24 */
  uint64_t crank;      /* 32 */
  uint64_t delivery;   /* 40 */
  char vat[16];        /* 48 */
  int64_t mono_ns;     /* 64 when the delivery ended (the parent's 'E') */
  uint8_t pad[8];      /* 72 */
} ips__ring_attr_t;    /* 80 */

typedef struct ips__ring_mark_s {
  int64_t wall_us;     /*  0 */
  int64_t mono_ns;     /*  8 */
  uint64_t delivery;   /* 16 the worker's command, 0 when unknown */
  char kind[4];        /* 24 'm' a mark, 'b'/'e' a span's begin/end */
  uint8_t pad[4];      /* 28 */
  char name[32];       /* 32 */
} ips__ring_mark_t;    /* 64 */

typedef struct ips__ring_cpu_s {
  int64_t cpu_ns;      /*  0 the worker's CPU time from its d to its e */
  uint64_t delivery;   /*  8 the worker's command */
} ips__ring_cpu_t;     /* 16 */

_Static_assert(sizeof(ips__ring_hdr_t) == IPS__RING_HDR_FIXED, "header");
_Static_assert(offsetof(ips__ring_hdr_t, head) == 128, "head offset");
_Static_assert(offsetof(ips__ring_hdr_t, control) == 192, "control offset");
_Static_assert(sizeof(ips__ring_type_t) == 32, "type entry");
_Static_assert(sizeof(ips__ring_field_t) == 32, "field entry");
_Static_assert(sizeof(ips__ring_rec_t) == 16, "record header");
_Static_assert(sizeof(ips__ring_stamp_t) % 16 == 0, "stamp payload");
_Static_assert(sizeof(ips__ring_attr_t) % 16 == 0, "attribution payload");
_Static_assert(sizeof(ips__ring_mark_t) % 16 == 0, "mark payload");
_Static_assert(sizeof(ips__ring_cpu_t) % 16 == 0, "cpu payload");

#endif /* IPCSTAMP_RING_FORMAT_H */
