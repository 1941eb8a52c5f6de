/* meter.h — the one decoder of the metering (internal, not installed).
 *
 * The metering (ipcstamp-metering.h, docs/protocol.md "The metering") has
 * one writer, proto/metering.c, and two readers: the parent, which reads a
 * worker's reply (parent/metering.c) and embeds it in the slogfile, and
 * the analysis, which reads it back from a deliver-result's dr[2]
 * (analyze/slog_meter.c).  Both read it with this decoder:
 *
 *   meter_fast.c   the writer's exact bytes, matched without yajl
 *   meter_read.c   everything else, with yajl's streaming parser (the
 *                  fallback, and the one that says what is wrong, where)
 *   meter_check.c  the writer's rules, which the parent holds a worker to
 *
 * The sources live in proto/ beside the schema they read, but are not in
 * libipcstamp-proto: that library is libc only (the worker inside xsnap
 * links it), and the fallback needs yajl.  So, like proto/attribution.c,
 * each of the two libraries that read meterings (libipcstamp-parent and
 * the analysis) lists them among its own sources and links yajl itself.
 *
 * Decoding reads the form (what each known key holds, the bounds); it
 * does not judge the stamps: a slogfile's metering may break the writer's
 * rules (an unknown version, kinds that are not d(ur)*e), which the
 * analysis reports per delivery instead of refusing the line.  The parent
 * refuses such a metering with ips__meter_check().
 */
#ifndef IPCSTAMP_PROTO_METER_H
#define IPCSTAMP_PROTO_METER_H

#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-proto.h"

/* One event of ipcstamp.marks as sent: kind 'm', 'b' or 'e', an index into
 * the names, the worker's two clocks in ns. */
typedef struct {
  int64_t wall, mono;
  uint32_t name;
  char kind;
} ips__mark_t;

/* Which keys a metering had (ips__meter_t.have). */
enum {
  IPS__M_TS = 1 << 0,       /* "timestamps" */
  IPS__M_IPC = 1 << 1,      /* "ipcstamp" */
  IPS__M_V = 1 << 2,        /* ipcstamp.v */
  IPS__M_KINDS = 1 << 3,
  IPS__M_MONO = 1 << 4,
  IPS__M_DROPPED = 1 << 5,
  IPS__M_CPU = 1 << 6,      /* ipcstamp.cpu_ns */
  IPS__M_RUNQ = 1 << 7,     /* ipcstamp.run_delay_ns */
  IPS__M_MARKS = 1 << 8,    /* ipcstamp.marks (v2) */
  IPS__M_COMPUTE = 1 << 9,  /* xsnap's counters, when integers */
  IPS__M_ALLOCATE = 1 << 10,
  IPS__M_XSMETER = 1 << 11  /* xsnap's meterType: its timestamps are
                               xsnap's own stamps */
};

/* A decoded metering.  The caller gives the stamp arrays (walls, mono and
 * runq of cap values each, kinds of cap + 1 bytes; runq may be NULL: the
 * run delays are then read, not kept) and may keep them from one metering
 * to the next; more than cap stamps (or kinds) are refused,
 * so cap is the one bound on stamps (at most IPS_MAX_STAMPS).  The marks'
 * arrays are the decoder's, allocated on the first metering with marks
 * and kept for the next (ips__meter_release frees them); zero them before
 * the first decode.  Every count below is valid after a decode that
 * returned 0. */
typedef struct {
  int64_t *walls;       /* timestamps: wall stamps, ns */
  int64_t *mono;        /* ipcstamp.mono, ns */
  int64_t *runq;        /* ipcstamp.run_delay_ns, ns */
  char *kinds;          /* ipcstamp.kinds, NUL-terminated */
  size_t cap;
  ips__mark_t *marks;   /* IPS_MAX_MARKS */
  uint32_t *mname_off;  /* name i at mnames + mname_off[i], NUL-terminated */
  char *mnames;         /* IPS__METER_NAMES bytes */
  unsigned have;        /* IPS__M_* */
  size_t n_walls, n_mono, n_runq, n_kinds;
  size_t n_marks, n_mnames, mnames_len;
  int64_t v, dropped, cpu_ns, compute, allocate;
  int64_t mdropped, munbalanced; /* marks.dropped, marks.unbalanced */
  size_t used;          /* bytes of the input the metering took */
  int syntax;           /* after IPS_EMETERING: the input is not JSON */
  int fast;             /* after 0: the exact form matched (canonical
                           JSON: the bytes are their re-serialisation) */
} ips__meter_t;

/* Room for one metering's mark names: the worker's bound on their bytes,
 * plus a NUL each. */
#define IPS__METER_NAMES (IPS_MAX_MARK_BYTES + IPS_MAX_MARKS)

/* flags: bytes may follow the metering's object (it is dr[2] of a
 * slogfile line; m->used says where it ends); the fallback only (the
 * tests compare the two paths). */
#define IPS__METER_TRAILING 1
#define IPS__METER_GENERAL 2

/* *m emptied for a decode: its counts and keys, not its arrays. */
static inline void ips__meter_reset(ips__meter_t *m) {
  m->have = 0;
  m->n_walls = m->n_mono = m->n_runq = m->n_kinds = 0;
  m->n_marks = m->n_mnames = m->mnames_len = 0;
  m->v = m->dropped = m->cpu_ns = m->compute = m->allocate = 0;
  m->mdropped = m->munbalanced = 0;
  m->used = 0;
  m->syntax = 0;
  m->fast = 0;
  if (m->kinds)
    m->kinds[0] = '\0';
}

/* Decode the metering at buf[0..n) into *m: the exact form first
 * (ips__meter_fast), else yajl (ips__meter_general).  Returns 0, or
 * IPS_EMETERING with a message in err saying what and at which byte
 * (m->syntax when it is not JSON at all), or IPS_ENOMEM.  Never reads
 * past buf[n); allocates only the marks' arrays. */
int ips__meter_decode(ips__meter_t *m, const char *buf, size_t n, int flags,
                      char *err, size_t errsize);

/* The exact form our worker library writes, matched byte for byte: 1 with
 * *m filled as ips__meter_general would fill it, or 0 with *m undefined,
 * for the general reader to decide (every error is its).  Marks are
 * matched only when m already has their arrays. */
int ips__meter_fast(ips__meter_t *m, const char *buf, size_t n, int flags);

/* The general reader (yajl).  The same contract as ips__meter_decode. */
int ips__meter_general(ips__meter_t *m, const char *buf, size_t n, int flags,
                       char *err, size_t errsize);

/* The writer's rules, which the parent holds a worker's metering to: wall
 * stamps that are not negative, and with an "ipcstamp" object a known
 * version, kinds d(ur)*e, one mono stamp per wall stamp, mono stamps that
 * never go back, and marks whose events name a name and lie inside the
 * command's d..e.  Returns 0, or IPS_EMETERING or IPS_EVERSION with a
 * message in err. */
int ips__meter_check(const ips__meter_t *m, char *err, size_t errsize);

/* Free the marks' arrays (the stamp arrays stay the caller's). */
void ips__meter_release(ips__meter_t *m);

#endif
