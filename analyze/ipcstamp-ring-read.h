/* ipcstamp-ring-read.h — following a process's ring of events.
 *
 * The reader side of proto/ipcstamp-ring.h (format: docs/ring.md).  A
 * reader maps a ring file, keeps its own cursor, and polls without
 * blocking: each new event is decoded by name through the table in the
 * file's header and handed to a callback with typed fields; events the
 * reader fell too far behind to see are counted exactly and reported to a
 * second callback.  Any number of readers may follow one ring; they never
 * slow its producer, which may be alive or dead (even killed in the middle
 * of an event: a torn event is never delivered).
 *
 * The file is untrusted input: every length and offset in it is checked
 * and a bad one is an IPS_ERING error with a message that says what and
 * where.  (A file truncated by someone else while it is mapped raises
 * SIGBUS, as with any mapping; the producer never truncates.)
 *
 * Conventions are ipcstamp-proto.h's; a reader is used by one thread.
 */
#ifndef IPCSTAMP_RING_READ_H
#define IPCSTAMP_RING_READ_H

#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-proto.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ips_ring_reader_s ips_ring_reader_t;

/* Field kinds as a reader sees them. */
#define IPS_RING_FIELD_INT 1   /* .i */
#define IPS_RING_FIELD_UINT 2  /* .u */
#define IPS_RING_FIELD_STR 3   /* .s (NUL-terminated), .len */

typedef struct ips_ring_field_s {
  const char *name;
  int kind;
  int64_t i;
  uint64_t u;
  const char *s;
  size_t len;
} ips_ring_field_t;

/* One event.  Everything it points to is owned by the reader and valid only
 * during the callback. */
typedef struct ips_ring_event_s {
  const char *name;   /* "stamp", "attribution", "mark", or a newer one */
  uint64_t seq;       /* the event's number in its ring, from 0 */
  size_t nfields;
  const ips_ring_field_t *fields;
} ips_ring_event_t;

/* The field called name, or NULL when this event has none (an older
 * producer): decode by name, never by position. */
IPS_EXTERN const ips_ring_field_t *ips_ring_event_field(
    const ips_ring_event_t *ev, const char *name);

/* Convenience: the field as a signed number (INT, or UINT up to INT64_MAX),
 * or dflt when absent or of another kind. */
IPS_EXTERN int64_t ips_ring_event_int(const ips_ring_event_t *ev,
                                      const char *name, int64_t dflt);

/* Convenience: the field's text, or "" when absent or not text. */
IPS_EXTERN const char *ips_ring_event_str(const ips_ring_event_t *ev,
                                          const char *name);

/* Open and check the ring file at path.  The cursor starts at the oldest
 * event still in the ring.  *out is owned by the caller until
 * ips_ring_reader_close().  Returns 0, -errno (open, mmap), IPS_ERING (bad
 * header: the message says which field), IPS_EVERSION (another format
 * version or byte order) or IPS_ENOMEM; msg (may be NULL) gets a one-line
 * message on failure. */
IPS_EXTERN int ips_ring_reader_open(ips_ring_reader_t **out, const char *path,
                                    char *msg, size_t size);

/* The same for <dir>/<pid>.ring. */
IPS_EXTERN int ips_ring_reader_open_pid(ips_ring_reader_t **out,
                                        const char *dir, long pid, char *msg,
                                        size_t size);

/* Unmap and free.  NULL is allowed. */
IPS_EXTERN void ips_ring_reader_close(ips_ring_reader_t *r);

/* Move the cursor to the newest position: only events written from now on
 * will be polled.  (A lap before the first of them is skipped without a
 * count: the number of the event at the seek position is not known.) */
IPS_EXTERN void ips_ring_reader_seek_end(ips_ring_reader_t *r);

/* Called with each event; return 0 to go on, nonzero to stop the poll
 * after this event (the event counts as read). */
typedef int (*ips_ring_event_cb)(void *arg, const ips_ring_event_t *ev);
/* Called when the producer overwrote events this reader had not read yet,
 * with their exact number, before the first event after the gap. */
typedef void (*ips_ring_lost_cb)(void *arg, uint64_t lost);

/* Hand the events written since the last poll to on_event (up to max
 * events; 0 = no limit), never waiting for more.  on_lost may be NULL.
 * Returns the number of events delivered (>= 0), or IPS_ERING when the ring
 * holds a record that cannot be (bad length, unknown type, broken
 * sequence): the message says what and at which position, and the reader
 * stays failed.  A lapped reader is not an error: it skips to the oldest
 * intact event and reports the gap to on_lost. */
IPS_EXTERN int ips_ring_reader_poll(ips_ring_reader_t *r, size_t max,
                                    ips_ring_event_cb on_event,
                                    ips_ring_lost_cb on_lost, void *arg);

/* Events lost by this reader so far (the sum of on_lost's counts). */
IPS_EXTERN uint64_t ips_ring_reader_lost(const ips_ring_reader_t *r);

/* What the header says, read now. */
typedef struct ips_ring_info_s {
  long pid;
  unsigned role;            /* IPS_RING_ROLE_* (1 worker, 2 parent) */
  char program[32];         /* NUL-terminated copies */
  char vat[16];
  int64_t start_wall_us, start_mono_ns;
  uint64_t data_size;
  uint64_t written;         /* events the producer wrote (counted just
                               before each is published: one more than
                               the reader can see if it died between) */
  uint64_t overwritten;     /* events it overwrote */
  uint64_t head, tail;
  int paused;               /* the control word's pause bit */
  int alive;                /* the producer's pid exists */
  /* When the producer is gone, this reader has polled everything, and a
   * record was begun but never finished at the head (killed mid-event):
   * its event's name, else NULL.  Owned by the reader. */
  const char *torn;
  /* The producer's parent process when it opened the ring (for a worker:
   * its kernel, the run it belongs to); 0 when the producer did not say
   * (older producers) or said something impossible. */
  long ppid;
} ips_ring_info_t;

/* Fill info.  Returns 0, or the reader's sticky error. */
IPS_EXTERN int ips_ring_reader_info(ips_ring_reader_t *r,
                                    ips_ring_info_t *info);

/* Set or clear the pause bit of the ring's control word (the producer
 * stops or restarts writing events).  Returns 0, or -EACCES when the file
 * could be opened only for reading. */
IPS_EXTERN int ips_ring_reader_set_paused(ips_ring_reader_t *r, int paused);

/* The message of the last failure ("" when none).  Owned by the reader. */
IPS_EXTERN const char *ips_ring_reader_message(const ips_ring_reader_t *r);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_RING_READ_H */
