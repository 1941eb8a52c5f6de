/* ipcstamp-ring.h — the live ring of stamps: the producer side.
 *
 * A process that enables its ring writes every event (each stamp as it is
 * taken, a parent's finished-delivery attribution, a VM's marks) into a file
 * <dir>/<pid>.ring that it maps into memory.  Any number of readers follow
 * the file from other processes (analyze/ipcstamp-ring-read.h); the producer
 * never waits for them: when the ring is full it overwrites the oldest
 * events and counts them.  The file describes itself (docs/ring.md): a
 * reader decodes events by name through the table in the header, so readers
 * and producers of different versions work together.  Keep it so: a new
 * field or event is a new name in the table, never a new fixed offset.
 *
 * Conventions are ipcstamp-proto.h's: 0 or a negative IPS_E* / -errno code.
 * One producer per ring: the ips_ring_* event functions must not be called
 * from two threads at once on the same ring (the worker and the parent are
 * single-threaded).  The event path takes no lock, allocates nothing and
 * makes no system call.
 */
#ifndef IPCSTAMP_RING_H
#define IPCSTAMP_RING_H

#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * The file format's fixed numbers (the byte layout is in docs/ring.md).
 */
#define IPS_RING_MAGIC "IPSRING1"          /* 8 bytes, no NUL */
#define IPS_RING_VERSION 1u                /* a reader refuses another */
#define IPS_RING_ENDIAN 0x01020304u        /* written in the host's order */
#define IPS_RING_DEFAULT_SIZE (1u << 20)   /* data bytes: 1 MiB */
#define IPS_RING_MIN_SIZE (4u << 10)       /* 4 KiB */
#define IPS_RING_MAX_SIZE (1u << 30)       /* 1 GiB */
#define IPS_RING_NAME_MAX 24               /* event and field names, NUL incl. */

/* Roles of the producing process. */
#define IPS_RING_ROLE_WORKER 1u
#define IPS_RING_ROLE_PARENT 2u

/* Bits of the header's control word.  A reader may set PAUSED from outside
 * (ips_ring_reader_pause()); the producer's own API sets the same bit. */
#define IPS_RING_CTL_PAUSED (1u << 0)

/* ------------------------------------------------------------------------
 * Producer.
 */
typedef struct ips_ring_s ips_ring_t;

typedef struct ips_ring_options_s {
  const char *dir;      /* where <pid>.ring goes; NULL or "" = no ring */
  size_t size;          /* data bytes, rounded up to 16; 0 = 1 MiB; must be
                           IPS_RING_MIN_SIZE..IPS_RING_MAX_SIZE */
  unsigned role;        /* IPS_RING_ROLE_* */
  const char *program;  /* the program's name (truncated to 31 bytes) */
  const char *vat;      /* the vat when known (15 bytes), or NULL */
  int paused;           /* start paused (resume with ips_ring_resume()) */
} ips_ring_options_t;

/* Fill o with the defaults: no directory, 1 MiB, role worker, program
 * "ipcstamp", no vat, running. */
IPS_EXTERN void ips_ring_options_init(ips_ring_options_t *o);

/* Read IPCSTAMP_RING_DIR (the directory), IPCSTAMP_RING_SIZE (data bytes,
 * a whole number in range) and IPCSTAMP_VAT (the vat, set by a parent that
 * knows it) into o.  o->dir and o->vat then point into the environment:
 * copy them if the environment may change.  Returns 0, or
 * IPS_EINVAL with a message in msg (which variable, what was wrong) and o
 * untouched. */
IPS_EXTERN int ips_ring_options_env(ips_ring_options_t *o, char *msg,
                                    size_t size);

/* Create <o->dir>/<pid>.ring (replacing a file of that name: a pid is
 * reused only after its process has gone), size and map it, and write the
 * header.  *out receives the ring, owned by the caller until
 * ips_ring_close().  This is the only call that allocates.  Returns 0,
 * IPS_EINVAL (no directory, size out of range) or -errno from open,
 * ftruncate or mmap, with a message in msg when msg is not NULL. */
IPS_EXTERN int ips_ring_open(ips_ring_t **out, const ips_ring_options_t *o,
                             char *msg, size_t size);

/* Unmap the ring and free it.  The file stays: readers still follow the
 * events of a process that has ended.  NULL is allowed. */
IPS_EXTERN void ips_ring_close(ips_ring_t *r);

/* The ring file's path; owned by r. */
IPS_EXTERN const char *ips_ring_path(const ips_ring_t *r);

/* Name the vat the process serves (15 bytes kept), for the header and the
 * events that follow.  Not on the event path: call it when the vat is
 * learnt.  A torn vat name in the header is possible if a reader reads at
 * that moment; events carry their own copy. */
IPS_EXTERN void ips_ring_set_vat(ips_ring_t *r, const char *vat);

/* Stop and restart writing events (the control word, so a reader sees it).
 * While paused each event function costs one relaxed load and a branch. */
IPS_EXTERN void ips_ring_pause(ips_ring_t *r);
IPS_EXTERN void ips_ring_resume(ips_ring_t *r);
/* Nonzero while paused, by this API or by a reader. */
IPS_EXTERN int ips_ring_paused(const ips_ring_t *r);

/* Event "stamp": one stamp as it is taken.  kind is the stamp's letter,
 * delivery the process's delivery (command) index, upcall the upcall's index
 * within it (0 for a 'd' or 'e').  Never fails; nothing happens while
 * paused or when r is NULL. */
IPS_EXTERN void ips_ring_stamp(ips_ring_t *r, const ips_stamp_t *s,
                               uint64_t delivery, uint32_t upcall);
/* The same, naming vat (NULL: the ring's): a parent's ring holds the
 * stamps of all its workers. */
IPS_EXTERN void ips_ring_stamp_vat(ips_ring_t *r, const ips_stamp_t *s,
                                   uint64_t delivery, uint32_t upcall,
                                   const char *vat);

/* Event "attribution": a parent's finished delivery. */
typedef struct ips_ring_attribution_s {
  int64_t pipe_ns, worker_ns, kernel_ns, total_ns;
  uint64_t crank;     /* 0 when unknown */
  uint64_t delivery;
  const char *vat;    /* NULL: the ring's vat */
  int64_t mono_ns;    /* when it ended (CLOCK_MONOTONIC ns) */
} ips_ring_attribution_t;
IPS_EXTERN void ips_ring_attribution(ips_ring_t *r,
                                     const ips_ring_attribution_t *a);

/* Event "mark": a VM's own mark (name up to 31 bytes) with both clocks. */
/* The same from a worker's ips_worker_mark/span_begin/span_end: kind 'm',
 * 'b' or 'e', name[0..len) (31 bytes kept), in the worker's command
 * delivery. */
IPS_EXTERN void ips_ring_vm_mark(ips_ring_t *r, char kind, const char *name,
                                 size_t len, const ips_stamp_t *s,
                                 uint64_t delivery);
IPS_EXTERN void ips_ring_mark(ips_ring_t *r, const char *name,
                              const ips_stamp_t *s);

/* Event "cpu": a worker's CPU time over its command delivery (cpu_ns of
 * its metering), written just before that command's 'e' stamp. */
IPS_EXTERN void ips_ring_cpu(ips_ring_t *r, int64_t cpu_ns, uint64_t delivery);

/* Counters from the header: events written, and events overwritten before
 * any reader could be sure to see them. */
IPS_EXTERN uint64_t ips_ring_written(const ips_ring_t *r);
IPS_EXTERN uint64_t ips_ring_overwritten(const ips_ring_t *r);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_RING_H */
