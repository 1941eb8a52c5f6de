/* The ring reader (analyze/ipcstamp-ring-read.h, docs/ring.md). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipcstamp-ring-read.h"
#include "ring-format.h"

typedef struct {
  char name[IPS_RING_NAME_MAX];
  uint16_t offset, size;
  uint8_t kind;
} rfield;

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
  int err;
  unsigned char rec[16 + IPS__RING_MAX_PAYLOAD];
  char msg[512];
};

static int fail(ips_ring_reader_t *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(ips_ring_reader_t *r, int err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->msg, sizeof r->msg, fmt, ap);
  va_end(ap);
  r->err = err;
  return err;
}

/* A name field must be NUL-terminated inside its bytes and non-empty. */
static int name_ok(const char *s, size_t cap) {
  size_t n = strnlen(s, cap);
  return n > 0 && n < cap;
}

static int check_header(ips_ring_reader_t *r) {
  ips__ring_hdr_t h;
  size_t i, j, off, nf = 0, maxf = 0, maxstr = 1;
  const unsigned char *p;

  if (r->map_size < IPS__RING_HDR_FIXED)
    return fail(r, IPS_ERING, "file of %zu bytes is shorter than a ring header "
                "(%u bytes)", r->map_size, IPS__RING_HDR_FIXED);
  memcpy(&h, r->map, sizeof h);
  if (memcmp(h.magic, IPS_RING_MAGIC, 8) != 0)
    return fail(r, IPS_ERING, "bad magic at byte 0: not a ring file");
  if (h.endian != IPS_RING_ENDIAN)
    return fail(r, IPS_EVERSION, "byte-order mark 0x%08" PRIx32 " at byte 12: "
                "written on a machine of another byte order", h.endian);
  if (h.version != IPS_RING_VERSION)
    return fail(r, IPS_EVERSION, "format version %" PRIu32 " at byte 8: this "
                "reader knows version %u", h.version, IPS_RING_VERSION);
  if (h.header_size < IPS__RING_HDR_FIXED || h.header_size % 64 ||
      h.header_size > IPS__RING_MAX_HEADER || h.header_size > r->map_size)
    return fail(r, IPS_ERING, "header size %" PRIu32 " at byte 16: expected a "
                "multiple of 64 from %u to %u within the file (%zu bytes)",
                h.header_size, IPS__RING_HDR_FIXED, IPS__RING_MAX_HEADER,
                r->map_size);
  if (h.data_size < IPS_RING_MIN_SIZE || h.data_size > IPS_RING_MAX_SIZE ||
      h.data_size % 16)
    return fail(r, IPS_ERING, "data size %" PRIu64 " at byte 24: expected a "
                "multiple of 16 from %u to %u", h.data_size, IPS_RING_MIN_SIZE,
                IPS_RING_MAX_SIZE);
  if ((uint64_t)h.header_size + h.data_size != r->map_size)
    return fail(r, IPS_ERING, "header (%" PRIu32 ") + data (%" PRIu64 ") bytes "
                "!= file size %zu: truncated or extended", h.header_size,
                h.data_size, r->map_size);
  if (h.pid <= 0 || h.pid > INT_MAX)
    return fail(r, IPS_ERING, "pid %" PRId64 " at byte 40 out of range", h.pid);
  if (h.ntypes > IPS__RING_MAX_TYPES)
    return fail(r, IPS_ERING, "%" PRIu32 " event types at byte 20: at most %u",
                h.ntypes, IPS__RING_MAX_TYPES);
  if (h.types_off < IPS__RING_HDR_FIXED || h.types_off % 16 ||
      h.types_off > h.header_size)
    return fail(r, IPS_ERING, "event table offset %" PRIu32 " at byte 32 "
                "outside the header", h.types_off);

  /* First pass: bounds, so that the allocations below are bounded by the
   * header's own size. */
  off = h.types_off;
  for (i = 0; i < h.ntypes; i++) {
    ips__ring_type_t t;
    if (off + sizeof t > h.header_size)
      return fail(r, IPS_ERING, "event type %zu at byte %zu runs past the "
                  "header (%" PRIu32 " bytes)", i, off, h.header_size);
    memcpy(&t, r->map + off, sizeof t);
    if (!name_ok(t.name, sizeof t.name))
      return fail(r, IPS_ERING, "event type %zu at byte %zu: name not a "
                  "NUL-terminated string of 1 to 23 bytes", i, off);
    if (t.id == IPS__RING_PAD)
      return fail(r, IPS_ERING, "event type \"%s\" at byte %zu has id 0 "
                  "(reserved for padding)", t.name, off);
    if (t.payload > IPS__RING_MAX_PAYLOAD || t.payload % 16)
      return fail(r, IPS_ERING, "event type \"%s\" at byte %zu: payload of "
                  "%" PRIu32 " bytes (a multiple of 16 up to %u)", t.name, off,
                  t.payload, IPS__RING_MAX_PAYLOAD);
    if (t.nfields > IPS__RING_MAX_FIELDS)
      return fail(r, IPS_ERING, "event type \"%s\" at byte %zu: %u fields "
                  "(at most %u)", t.name, off, t.nfields, IPS__RING_MAX_FIELDS);
    off += sizeof t;
    if (off + (size_t)t.nfields * sizeof(ips__ring_field_t) > h.header_size)
      return fail(r, IPS_ERING, "fields of event type \"%s\" run past the "
                  "header at byte %zu", t.name, off);
    off += (size_t)t.nfields * sizeof(ips__ring_field_t);
    nf += t.nfields;
    if (t.nfields > maxf) maxf = t.nfields;
  }

  r->ntypes = h.ntypes;
  r->types = calloc(h.ntypes ? h.ntypes : 1, sizeof *r->types);
  r->fields = calloc(nf ? nf : 1, sizeof *r->fields);
  r->out = calloc(maxf ? maxf : 1, sizeof *r->out);
  r->max_fields = maxf;
  if (!r->types || !r->fields || !r->out)
    return fail(r, IPS_ENOMEM, "out of memory for the event table");

  off = h.types_off;
  nf = 0;
  for (i = 0; i < h.ntypes; i++) {
    ips__ring_type_t t;
    rtype *rt = &r->types[i];
    memcpy(&t, r->map + off, sizeof t);
    off += sizeof t;
    for (j = 0; j < i; j++)
      if (r->types[j].id == t.id || strcmp(r->types[j].name, t.name) == 0)
        return fail(r, IPS_ERING, "event type \"%s\" (id %u) at byte %zu "
                    "repeats the id or name of \"%s\"", t.name, t.id,
                    off - sizeof t, r->types[j].name);
    size_t strbytes = 0;
    memcpy(rt->name, t.name, sizeof rt->name);
    rt->id = t.id;
    rt->payload = t.payload;
    rt->fields = &r->fields[nf];
    rt->nfields = t.nfields;
    for (j = 0; j < t.nfields; j++, off += sizeof(ips__ring_field_t)) {
      ips__ring_field_t f;
      rfield *rf = &r->fields[nf++];
      p = r->map + off;
      memcpy(&f, p, sizeof f);
      if (!name_ok(f.name, sizeof f.name))
        return fail(r, IPS_ERING, "field %zu of \"%s\" at byte %zu: name not "
                    "a NUL-terminated string of 1 to 23 bytes", j, t.name, off);
      if (f.kind < IPS__RING_INT || f.kind > IPS__RING_STR ||
          f.size == 0 || (uint32_t)f.offset + f.size > t.payload ||
          (f.kind != IPS__RING_STR && f.size != 1 && f.size != 2 &&
           f.size != 4 && f.size != 8))
        return fail(r, IPS_ERING, "field \"%s\" of \"%s\" at byte %zu: kind "
                    "%u, %u bytes at offset %u does not fit a payload of %"
                    PRIu32 " bytes", f.name, t.name, off, f.kind, f.size,
                    f.offset, t.payload);
      memcpy(rf->name, f.name, sizeof rf->name);
      rf->offset = f.offset;
      rf->size = f.size;
      rf->kind = f.kind;
      if (f.kind == IPS__RING_STR) strbytes += (size_t)f.size + 1;
    }
    if (strbytes > maxstr) maxstr = strbytes;
  }
  /* Each text field's copy takes at most its size + 1 bytes; fields may
   * overlap, so the bound is per type's sum (at most 64 x 4097 bytes). */
  r->strs = malloc(maxstr);
  if (!r->strs) return fail(r, IPS_ENOMEM, "out of memory for the event table");
  r->data = r->map + h.header_size;
  r->size = h.data_size;
  r->pid = (long)h.pid;
  return 0;
}

int ips_ring_reader_open(ips_ring_reader_t **out, const char *path, char *msg,
                         size_t size) {
  ips_ring_reader_t *r;
  struct stat st;
  int fd, rc;
  void *m;

  *out = NULL;
  if (msg && size) msg[0] = '\0';
  r = calloc(1, sizeof *r);
  if (!r) return IPS_ENOMEM;
  /* Read-write when allowed, so that this reader may pause the producer
   * through the control word; read-only otherwise. */
  fd = open(path, O_RDWR | O_CLOEXEC);
  r->writable = fd >= 0;
  if (fd < 0) fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    rc = -errno;
    fail(r, rc, "%s: %s", path, strerror(errno));
    goto error;
  }
  if (fstat(fd, &st) != 0) {
    rc = -errno;
    fail(r, rc, "%s: %s", path, strerror(errno));
    close(fd);
    goto error;
  }
  if (!S_ISREG(st.st_mode) || st.st_size < (off_t)IPS__RING_HDR_FIXED ||
      (uint64_t)st.st_size > (uint64_t)IPS_RING_MAX_SIZE + IPS__RING_MAX_HEADER) {
    fail(r, IPS_ERING, "%s: %s of %lld bytes is not a ring file", path,
         S_ISREG(st.st_mode) ? "a file" : "not a regular file",
         (long long)st.st_size);
    rc = IPS_ERING;
    close(fd);
    goto error;
  }
  r->map_size = (size_t)st.st_size;
  m = mmap(NULL, r->map_size, PROT_READ | (r->writable ? PROT_WRITE : 0),
           MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    rc = -errno;
    fail(r, rc, "%s: cannot map: %s", path, strerror(errno));
    r->map = NULL;
    goto error;
  }
  r->map = m;
  r->hdr = m;
  rc = check_header(r);
  if (rc != 0) {
    char tmp[sizeof r->msg];
    memcpy(tmp, r->msg, sizeof tmp);
    snprintf(r->msg, sizeof r->msg, "%.250s: %.250s", path, tmp);
    goto error;
  }
  *out = r;
  return 0;

error:
  if (msg && size) snprintf(msg, size, "%s", r->msg);
  ips_ring_reader_close(r);
  return rc;
}

int ips_ring_reader_open_pid(ips_ring_reader_t **out, const char *dir,
                             long pid, char *msg, size_t size) {
  char path[PATH_MAX];
  int n = snprintf(path, sizeof path, "%s/%ld.ring", dir, pid);
  if (n < 0 || (size_t)n >= sizeof path) {
    *out = NULL;
    if (msg && size) snprintf(msg, size, "ring directory name too long");
    return IPS_EINVAL;
  }
  return ips_ring_reader_open(out, path, msg, size);
}

void ips_ring_reader_close(ips_ring_reader_t *r) {
  if (!r) return;
  if (r->map) munmap(r->map, r->map_size);
  free(r->types);
  free(r->fields);
  free(r->out);
  free(r->strs);
  free(r);
}

const char *ips_ring_reader_message(const ips_ring_reader_t *r) {
  return r->msg;
}

uint64_t ips_ring_reader_lost(const ips_ring_reader_t *r) { return r->lost; }

int ips_ring_reader_set_paused(ips_ring_reader_t *r, int paused) {
  if (!r->writable) return -EACCES;
  if (paused)
    atomic_fetch_or_explicit(&r->hdr->control, IPS_RING_CTL_PAUSED,
                             memory_order_relaxed);
  else
    atomic_fetch_and_explicit(&r->hdr->control, ~IPS_RING_CTL_PAUSED,
                              memory_order_relaxed);
  return 0;
}

static const rtype *find_type(const ips_ring_reader_t *r, uint16_t id) {
  size_t i;
  for (i = 0; i < r->ntypes; i++)
    if (r->types[i].id == id) return &r->types[i];
  return NULL;
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

static void decode(ips_ring_reader_t *r, const rtype *t,
                   const unsigned char *p, ips_ring_event_t *ev) {
  size_t i, used = 0;
  for (i = 0; i < t->nfields; i++) {
    const rfield *f = &t->fields[i];
    ips_ring_field_t *o = &r->out[i];
    const unsigned char *v = p + f->offset;
    memset(o, 0, sizeof *o);
    o->name = f->name;
    o->kind = f->kind;
    if (f->kind == IPS__RING_STR) {
      size_t n = strnlen((const char *)v, f->size);
      char *s = r->strs + used;
      memcpy(s, v, n);
      s[n] = '\0';
      used += n + 1;
      o->s = s;
      o->len = n;
    } else {
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
  }
  ev->name = t->name;
  ev->nfields = t->nfields;
  ev->fields = r->out;
}

int ips_ring_reader_poll(ips_ring_reader_t *r, size_t max,
                         ips_ring_event_cb on_event, ips_ring_lost_cb on_lost,
                         void *arg) {
  uint64_t head;
  int delivered = 0, rc;

  if (r->err) return r->err;
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
    const rtype *t = NULL;
    uint64_t off = r->pos % r->size;
    size_t plen = 0;
    ips_ring_event_t ev;

    if (atomic_load_explicit(&r->hdr->tail, memory_order_acquire) > r->pos) {
      rc = resync(r, on_lost, arg);
      if (rc < 0) return rc;
      if (rc == 0) break;  /* not knowable now: the next poll tries again */
      continue;
    }
    copy_at(r, r->pos, &rec, sizeof rec);
    /* Lengths are checked before they are used to copy, even though the
     * copy may still prove stale: a stale length must not overrun. */
    if (rec.len >= sizeof rec && rec.len % 16 == 0 && off + rec.len <= r->size &&
        r->pos + rec.len <= head) {
      t = rec.type == IPS__RING_PAD ? NULL : find_type(r, rec.type);
      if (t && rec.len >= sizeof rec + t->payload) {
        plen = t->payload;
        copy_at(r, r->pos + sizeof rec, r->rec, plen);
      }
    }
    if (!still_intact(r, r->pos)) continue;  /* lapped while copying */

    /* The copy is what the producer wrote: now a bad value is corruption. */
    if (rec.len < sizeof rec || rec.len % 16 || off + rec.len > r->size ||
        r->pos + rec.len > head)
      return fail(r, IPS_ERING, "record at position %" PRIu64 " (data byte %"
                  PRIu64 "): length %" PRIu32 " is not a multiple of 16 that "
                  "fits before the end of the data and the head %" PRIu64,
                  r->pos, off, rec.len, head);
    if (r->synced == 2) {
      r->seq = rec.seq;  /* the first record after seek_end */
      r->synced = 1;
    }
    if (rec.seq != r->seq)
      return fail(r, IPS_ERING, "record at position %" PRIu64 ": event number "
                  "%" PRIu64 ", expected %" PRIu64, r->pos, rec.seq, r->seq);
    if (rec.type == IPS__RING_PAD) {
      if (off + rec.len != r->size)
        return fail(r, IPS_ERING, "padding at data byte %" PRIu64 " stops "
                    "short of the end of the data", off);
      r->pos += rec.len;
      continue;
    }
    if (!t)
      return fail(r, IPS_ERING, "record at position %" PRIu64 ": type %u is "
                  "not in the header's event table", r->pos, rec.type);
    if (plen != t->payload)
      return fail(r, IPS_ERING, "record at position %" PRIu64 ": %" PRIu32
                  " bytes, too short for a \"%s\" event (%zu)", r->pos,
                  rec.len, t->name, sizeof rec + t->payload);
    decode(r, t, r->rec, &ev);
    ev.seq = rec.seq;
    r->pos += rec.len;
    r->seq++;
    delivered++;
    if (on_event && on_event(arg, &ev) != 0) break;
  }
  return delivered;
}

void ips_ring_reader_seek_end(ips_ring_reader_t *r) {
  if (r->err) return;
  /* Not the header's written count: it is stored just before head moves,
   * so it may already count an event head does not cover yet.  The next
   * record tells its own number. */
  r->pos = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
  r->synced = 2;
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
  memset(info, 0, sizeof *info);
  if (r->err) return r->err;
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
  return 0;
}

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
