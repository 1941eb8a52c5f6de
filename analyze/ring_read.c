/* ring_read.c — the ring reader's cursor: polling the events a producer
 * wrote since the last poll, counting those it overwrote first, and what
 * the header says now (analyze/ipcstamp-ring-read.h, docs/ring.md).
 *
 * This is the part that races the producer, by the rules of proto/ring.c:
 * every copy out of the shared mapping is checked against tail after it is
 * made, and only a copy still intact is judged.  Opening and checking the
 * header is ring_open.c; decoding a payload into fields is ring_decode.c. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>

#include "bus_guard.h"
#include "ring_decode.h"
#include "ring_read.h"

/* Short at its many call sites below. */
#define fail ips__ring_fail
#define shrank ips__ring_shrank

/* The event type of the header's table whose id is id, or NULL. */
static const rtype *find_type(const ips_ring_reader_t *r, uint16_t id) {
  size_t i;
  for (i = 0; i < r->ntypes; i++)
    if (r->types[i].id == id) return &r->types[i];
  return NULL;
}

uint64_t ips_ring_reader_lost(const ips_ring_reader_t *r) { return r->lost; }

int ips_ring_reader_set_paused(ips_ring_reader_t *r, int paused) {
  ips__guard_t g;
  if (!r->writable) return -EACCES;
  if (r->err) return r->err;
  if (IPS__GUARD(&g, (const char *)r->map, r->map_size))
    return shrank(r, g.at);
  if (paused)
    atomic_fetch_or_explicit(&r->hdr->control, IPS_RING_CTL_PAUSED,
                             memory_order_relaxed);
  else
    atomic_fetch_and_explicit(&r->hdr->control, ~IPS_RING_CTL_PAUSED,
                              memory_order_relaxed);
  ips__guard_leave(&g);
  return 0;
}

/* Copy n bytes at stream position pos (which does not straddle the end)
 * out of the shared mapping.  The bytes may be changing under us: the
 * caller validates the copy against tail afterwards (ring.c, rule 1). */
static void copy_at(const ips_ring_reader_t *r, uint64_t pos, void *dst,
                    size_t n) {
  memcpy(dst, r->data + pos % r->size, n);
}

/* Was everything copied from position pos onwards still intact?  The
 * acquire fence pairs with the producer's release fence after it moves
 * tail: if our copy saw an overwritten byte, this load sees the tail that
 * released it. */
static int still_intact(const ips_ring_reader_t *r, uint64_t pos) {
  atomic_thread_fence(memory_order_acquire);
  return pos >= atomic_load_explicit(&r->hdr->tail, memory_order_relaxed);
}

/* Move the cursor to tail and learn the seq there (the first event after a
 * gap, or the first the reader sees).  Returns 1 when synced, 0 when it
 * cannot be known yet (the producer moved meanwhile: try again), or an
 * error.
 *
 * head is read on both sides of tail: tail never passes the head that was
 * current when it was stored, so tail <= the second head always holds, and
 * when the two heads agree they and tail form one consistent window, no
 * wider than the data.  A file that breaks either is corrupt. */
static int resync(ips_ring_reader_t *r, ips_ring_lost_cb on_lost, void *arg) {
  ips__ring_rec_t rec;
  uint64_t h1 = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
  uint64_t tail = atomic_load_explicit(&r->hdr->tail, memory_order_acquire);
  uint64_t h2 = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
  if (tail > h2 || tail % 16 || (h1 == h2 && h2 - tail > r->size))
    return fail(r, IPS_ERING, "tail %" PRIu64 " and head %" PRIu64 " are not "
                "a window of the %" PRIu64 "-byte ring", tail, h2, r->size);
  if (tail == h2) {
    /* Nothing in the ring.  At the very start the next event is number
     * 0; otherwise its number shows with the event itself. */
    if (h2 != 0) return 0;
    rec.seq = 0;
  } else {
    copy_at(r, tail, &rec, sizeof rec);
    if (!still_intact(r, tail)) return 0;
  }
  if (r->synced == 1) {
    if (rec.seq < r->seq)
      return fail(r, IPS_ERING, "event number %" PRIu64 " at position %"
                  PRIu64 " is below the %" PRIu64 " already read", rec.seq,
                  tail, r->seq);
    if (rec.seq > r->seq) {
      uint64_t n = rec.seq - r->seq;
      r->lost += n;
      if (on_lost) on_lost(arg, n);
    }
  }
  r->pos = tail;
  r->seq = rec.seq;
  r->synced = 1;
  return 1;
}

/* A stamp's mono_ns below the previous stamp's: the clock of one process
 * never goes back, so the ring is corrupt (otherwise its deliveries would
 * have negative durations, which the analysis refuses in a slogfile). */
static int stamp_goes_back(ips_ring_reader_t *r, const rtype *t,
                           const unsigned char *p, uint64_t pos) {
  int64_t mono;
  if (t != r->stamp_type || !r->stamp_mono) return 0;
  memcpy(&mono, p + r->stamp_mono->offset, sizeof mono);
  if (r->have_mono && mono < r->last_mono)
    return fail(r, IPS_ERING, "stamp at position %" PRIu64 ": mono_ns %"
                PRId64 " is before the previous stamp's %" PRId64 " (one "
                "process's clock never goes back)", pos, mono, r->last_mono);
  r->last_mono = mono;
  r->have_mono = 1;
  return 0;
}

/* Copy the record at the cursor out of the mapping into *rec, and its
 * payload into r->rec when its type is known and it is long enough (then
 * *plen is that type's payload; otherwise 0).  Returns its type, or NULL.
 * Lengths are checked before they are used to copy, even though the copy
 * may still prove stale: a stale length must not overrun. */
static const rtype *copy_record(ips_ring_reader_t *r, uint64_t head,
                                ips__ring_rec_t *rec, size_t *plen) {
  const rtype *t = NULL;
  uint64_t off = r->pos % r->size;
  *plen = 0;
  copy_at(r, r->pos, rec, sizeof *rec);
  if (rec->len >= sizeof *rec && rec->len % 16 == 0 &&
      off + rec->len <= r->size && r->pos + rec->len <= head) {
    t = rec->type == IPS__RING_PAD ? NULL : find_type(r, rec->type);
    if (t && rec->len >= sizeof *rec + t->payload) {
      *plen = t->payload;
      copy_at(r, r->pos + sizeof *rec, r->rec, *plen);
    }
  }
  return t;
}

/* Judge an intact copy of the record at the cursor (copy_record's rec, t
 * and plen): it is what the producer wrote, so a bad value is now
 * corruption.  Returns 1 for an event to deliver, 0 for padding (the
 * cursor is moved past it), or the error. */
static int judge_record(ips_ring_reader_t *r, uint64_t head,
                        const ips__ring_rec_t *rec, const rtype *t,
                        size_t plen) {
  uint64_t off = r->pos % r->size;
  if (rec->len < sizeof *rec || rec->len % 16 || off + rec->len > r->size ||
      r->pos + rec->len > head)
    return fail(r, IPS_ERING, "record at position %" PRIu64 " (data byte %"
                PRIu64 "): length %" PRIu32 " is not a multiple of 16 that "
                "fits before the end of the data and the head %" PRIu64,
                r->pos, off, rec->len, head);
  if (r->synced == 2) {
    r->seq = rec->seq;  /* the first record after seek_end */
    r->synced = 1;
  }
  if (rec->seq != r->seq)
    return fail(r, IPS_ERING, "record at position %" PRIu64 ": event number "
                "%" PRIu64 ", expected %" PRIu64, r->pos, rec->seq, r->seq);
  if (rec->type == IPS__RING_PAD) {
    if (off + rec->len != r->size)
      return fail(r, IPS_ERING, "padding at data byte %" PRIu64 " stops "
                  "short of the end of the data", off);
    r->pos += rec->len;
    return 0;
  }
  if (!t)
    return fail(r, IPS_ERING, "record at position %" PRIu64 ": type %u is "
                "not in the header's event table", r->pos, rec->type);
  if (plen != t->payload)
    return fail(r, IPS_ERING, "record at position %" PRIu64 ": %" PRIu32
                " bytes, too short for a \"%s\" event (%zu)", r->pos,
                rec->len, t->name, sizeof *rec + t->payload);
  if (stamp_goes_back(r, t, r->rec, r->pos)) return r->err;
  return 1;
}

static int poll_mapped(ips_ring_reader_t *r, size_t max,
                       ips_ring_event_cb on_event, ips_ring_lost_cb on_lost,
                       void *arg) {
  uint64_t head;
  int delivered = 0, rc;

  /* Acquire: every record below head is whole (ring.c, rule 2). */
  head = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
  if (head % 16)
    return fail(r, IPS_ERING, "head %" PRIu64 " is not a multiple of 16", head);
  if (!r->synced) {
    rc = resync(r, NULL, NULL);
    if (rc < 0) return rc;
    if (rc == 0) return 0;  /* the producer is busy: next poll */
  }
  if (head < r->pos)
    return fail(r, IPS_ERING, "head %" PRIu64 " went back below this reader's "
                "position %" PRIu64 ": the file was rewritten", head, r->pos);
  while (r->pos < head && (max == 0 || (size_t)delivered < max)) {
    ips__ring_rec_t rec;
    const rtype *t;
    size_t plen;
    ips_ring_event_t ev;

    if (atomic_load_explicit(&r->hdr->tail, memory_order_acquire) > r->pos) {
      rc = resync(r, on_lost, arg);
      if (rc < 0) return rc;
      if (rc == 0) break;  /* not knowable now: the next poll tries again */
      continue;
    }
    t = copy_record(r, head, &rec, &plen);
    if (!still_intact(r, r->pos)) continue;  /* lapped while copying */
    rc = judge_record(r, head, &rec, t, plen);
    if (rc < 0) return rc;
    if (rc == 0) continue;
    ips__ring_decode(r, t, r->rec, &ev);
    ev.seq = rec.seq;
    r->pos += rec.len;
    r->seq++;
    delivered++;
    if (on_event && on_event(arg, &ev) != 0) break;
  }
  return delivered;
}

/* Every read of the mapping is guarded: a file truncated under this
 * reader (its producer never does it; anyone who can write the file can)
 * is an error, not SIGBUS.  The callbacks run inside the guard but read
 * only the decoded copies. */
int ips_ring_reader_poll(ips_ring_reader_t *r, size_t max,
                         ips_ring_event_cb on_event, ips_ring_lost_cb on_lost,
                         void *arg) {
  ips__guard_t g;
  int rc;
  if (r->err) return r->err;
  if (IPS__GUARD(&g, (const char *)r->map, r->map_size))
    return shrank(r, g.at);
  rc = poll_mapped(r, max, on_event, on_lost, arg);
  ips__guard_leave(&g);
  return rc;
}

void ips_ring_reader_seek_end(ips_ring_reader_t *r) {
  ips__guard_t g;
  if (r->err) return;
  if (IPS__GUARD(&g, (const char *)r->map, r->map_size)) {
    shrank(r, g.at);
    return;
  }
  /* Not the header's written count: it is stored just before head moves,
   * so it may already count an event head does not cover yet.  The next
   * record tells its own number. */
  r->pos = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
  r->synced = 2;
  r->have_mono = 0;  /* the stamps before are not read */
  ips__guard_leave(&g);
}

/* A record begun at head but never published: the producer died between
 * writing its header and moving head (ring.c writes the header first).
 * Known only to a reader that has caught up (its next seq is the one such
 * a record carries); the header's written count may already include it. */
static const char *torn_at(ips_ring_reader_t *r, uint64_t head) {
  uint64_t written = r->seq;
  ips__ring_rec_t rec;
  uint64_t off = head % r->size;
  copy_at(r, head, &rec, sizeof rec);
  if (rec.type == IPS__RING_PAD && rec.seq == written &&
      rec.len == r->size - off && rec.len >= sizeof rec) {
    off = 0;
    copy_at(r, head + rec.len, &rec, sizeof rec);
  }
  if (rec.seq != written || rec.type == IPS__RING_PAD || rec.len < 16 ||
      rec.len % 16 || off + rec.len > r->size)
    return NULL;
  {
    const rtype *t = find_type(r, rec.type);
    return t ? t->name : NULL;
  }
}

int ips_ring_reader_info(ips_ring_reader_t *r, ips_ring_info_t *info) {
  ips__ring_hdr_t *h = r->hdr;
  ips__guard_t g;
  memset(info, 0, sizeof *info);
  if (r->err) return r->err;
  if (IPS__GUARD(&g, (const char *)r->map, r->map_size)) {
    memset(info, 0, sizeof *info);
    return shrank(r, g.at);
  }
  info->pid = r->pid;
  info->role = h->role;
  memcpy(info->program, h->program, sizeof h->program);
  info->program[sizeof info->program - 1] = '\0';
  memcpy(info->vat, h->vat, sizeof h->vat);
  info->vat[sizeof info->vat - 1] = '\0';
  info->start_wall_us = h->start_wall_us;
  info->start_mono_ns = h->start_mono_ns;
  /* Untrusted like the rest: a pid is positive and fits a pid_t. */
  info->ppid = h->ppid > 0 && h->ppid <= INT32_MAX ? (long)h->ppid : 0;
  info->data_size = r->size;
  info->head = atomic_load_explicit(&h->head, memory_order_acquire);
  info->tail = atomic_load_explicit(&h->tail, memory_order_acquire);
  info->written = atomic_load_explicit(&h->written, memory_order_acquire);
  info->overwritten = atomic_load_explicit(&h->overwritten, memory_order_relaxed);
  info->paused = (atomic_load_explicit(&h->control, memory_order_relaxed) &
                  IPS_RING_CTL_PAUSED) != 0;
  info->alive = kill((pid_t)r->pid, 0) == 0 || errno == EPERM;
  if (!info->alive && r->synced == 1 && r->pos == info->head &&
      info->head % 16 == 0)
    info->torn = torn_at(r, info->head);
  ips__guard_leave(&g);
  return 0;
}
