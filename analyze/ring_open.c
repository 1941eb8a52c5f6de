/* ring_open.c — opening a ring file and checking its header (the ring
 * reader, analyze/ipcstamp-ring-read.h, docs/ring.md).
 *
 * Separate from the cursor (ring_read.c) because it is a different job:
 * this file decides once, at open, whether a file is a ring at all and
 * turns its self-describing header into the reader's event table; every
 * later read trusts that table and checks only the records.  The file is
 * untrusted: each header field is checked before it is used, and the
 * allocations are bounded by the header's own checked size. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bus_guard.h"
#include "regular.h"
#include "ring_read.h"

int ips__ring_fail(ips_ring_reader_t *r, int err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->msg, sizeof r->msg, fmt, ap);
  va_end(ap);
  r->err = err;
  return err;
}

/* A producer never truncates its file; someone else did. */
int ips__ring_shrank(ips_ring_reader_t *r, const char *at) {
  size_t off = at ? (size_t)(at - (const char *)r->map) : 0;
  return ips__ring_fail(r, IPS_ERING, "the file was truncated while being "
                        "read: byte %zu of its %zu is gone", off, r->map_size);
}

/* Short at its many call sites below. */
#define fail ips__ring_fail

/* A name field must be NUL-terminated inside its bytes and non-empty. */
static int name_ok(const char *s, size_t cap) {
  size_t n = strnlen(s, cap);
  return n > 0 && n < cap;
}

/* The header's fixed part: magic, byte order, version, and sizes that
 * agree with each other and with the file. */
static int check_fixed(ips_ring_reader_t *r, ips__ring_hdr_t *h) {
  if (r->map_size < IPS__RING_HDR_FIXED)
    return fail(r, IPS_ERING, "file of %zu bytes is shorter than a ring header "
                "(%u bytes)", r->map_size, IPS__RING_HDR_FIXED);
  memcpy(h, r->map, sizeof *h);
  if (memcmp(h->magic, IPS_RING_MAGIC, 8) != 0)
    return fail(r, IPS_ERING, "bad magic at byte 0: not a ring file");
  if (h->endian != IPS_RING_ENDIAN)
    return fail(r, IPS_EVERSION, "byte-order mark 0x%08" PRIx32 " at byte 12: "
                "written on a machine of another byte order", h->endian);
  if (h->version != IPS_RING_VERSION)
    return fail(r, IPS_EVERSION, "format version %" PRIu32 " at byte 8: this "
                "reader knows version %u", h->version, IPS_RING_VERSION);
  if (h->header_size < IPS__RING_HDR_FIXED || h->header_size % 64 ||
      h->header_size > IPS__RING_MAX_HEADER || h->header_size > r->map_size)
    return fail(r, IPS_ERING, "header size %" PRIu32 " at byte 16: expected a "
                "multiple of 64 from %u to %u within the file (%zu bytes)",
                h->header_size, IPS__RING_HDR_FIXED, IPS__RING_MAX_HEADER,
                r->map_size);
  if (h->data_size < IPS_RING_MIN_SIZE || h->data_size > IPS_RING_MAX_SIZE ||
      h->data_size % 16)
    return fail(r, IPS_ERING, "data size %" PRIu64 " at byte 24: expected a "
                "multiple of 16 from %u to %u", h->data_size, IPS_RING_MIN_SIZE,
                IPS_RING_MAX_SIZE);
  if ((uint64_t)h->header_size + h->data_size != r->map_size)
    return fail(r, IPS_ERING, "header (%" PRIu32 ") + data (%" PRIu64 ") bytes "
                "!= file size %zu: truncated or extended", h->header_size,
                h->data_size, r->map_size);
  if (h->pid <= 0 || h->pid > INT_MAX)
    return fail(r, IPS_ERING, "pid %" PRId64 " at byte 40 out of range", h->pid);
  if (h->ntypes > IPS__RING_MAX_TYPES)
    return fail(r, IPS_ERING, "%" PRIu32 " event types at byte 20: at most %u",
                h->ntypes, IPS__RING_MAX_TYPES);
  if (h->types_off < IPS__RING_HDR_FIXED || h->types_off % 16 ||
      h->types_off > h->header_size)
    return fail(r, IPS_ERING, "event table offset %" PRIu32 " at byte 32 "
                "outside the header", h->types_off);
  return 0;
}

/* First pass over the event table: each type and its fields lie inside the
 * header, so that the allocations after it are bounded by the header's
 * own size.  Counts all types' fields into *nf and the most of one type
 * into *maxf. */
static int check_type_bounds(ips_ring_reader_t *r, const ips__ring_hdr_t *h,
                             size_t *nf, size_t *maxf) {
  size_t i, off = h->types_off;
  *nf = *maxf = 0;
  for (i = 0; i < h->ntypes; i++) {
    ips__ring_type_t t;
    if (off + sizeof t > h->header_size)
      return fail(r, IPS_ERING, "event type %zu at byte %zu runs past the "
                  "header (%" PRIu32 " bytes)", i, off, h->header_size);
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
    if (off + (size_t)t.nfields * sizeof(ips__ring_field_t) > h->header_size)
      return fail(r, IPS_ERING, "fields of event type \"%s\" run past the "
                  "header at byte %zu", t.name, off);
    off += (size_t)t.nfields * sizeof(ips__ring_field_t);
    *nf += t.nfields;
    if (t.nfields > *maxf) *maxf = t.nfields;
  }
  return 0;
}

/* Copy and check the fields of type t (whose table entry ends at *off)
 * into r->fields from index *nf; adds the bytes their texts need to
 * *strbytes. */
static int load_fields(ips_ring_reader_t *r, const ips__ring_type_t *t,
                       size_t *off, size_t *nf, size_t *strbytes) {
  size_t j;
  for (j = 0; j < t->nfields; j++, *off += sizeof(ips__ring_field_t)) {
    ips__ring_field_t f;
    rfield *rf = &r->fields[(*nf)++];
    memcpy(&f, r->map + *off, sizeof f);
    if (!name_ok(f.name, sizeof f.name))
      return fail(r, IPS_ERING, "field %zu of \"%s\" at byte %zu: name not "
                  "a NUL-terminated string of 1 to 23 bytes", j, t->name, *off);
    if (f.kind < IPS__RING_INT || f.kind > IPS__RING_STR ||
        f.size == 0 || (uint32_t)f.offset + f.size > t->payload ||
        (f.kind != IPS__RING_STR && f.size != 1 && f.size != 2 &&
         f.size != 4 && f.size != 8))
      return fail(r, IPS_ERING, "field \"%s\" of \"%s\" at byte %zu: kind "
                  "%u, %u bytes at offset %u does not fit a payload of %"
                  PRIu32 " bytes", f.name, t->name, *off, f.kind, f.size,
                  f.offset, t->payload);
    memcpy(rf->name, f.name, sizeof rf->name);
    rf->offset = f.offset;
    rf->size = f.size;
    rf->kind = f.kind;
    if (f.kind == IPS__RING_STR) *strbytes += (size_t)f.size + 1;
  }
  return 0;
}

/* Second pass: the types and their fields into the reader's table (ids and
 * names unique), and the buffer for one event's texts. */
static int load_types(ips_ring_reader_t *r, const ips__ring_hdr_t *h) {
  size_t i, j, off = h->types_off, nf = 0, maxstr = 1;
  int rc;
  for (i = 0; i < h->ntypes; i++) {
    ips__ring_type_t t;
    rtype *rt = &r->types[i];
    size_t strbytes = 0;
    memcpy(&t, r->map + off, sizeof t);
    off += sizeof t;
    for (j = 0; j < i; j++)
      if (r->types[j].id == t.id || strcmp(r->types[j].name, t.name) == 0)
        return fail(r, IPS_ERING, "event type \"%s\" (id %u) at byte %zu "
                    "repeats the id or name of \"%s\"", t.name, t.id,
                    off - sizeof t, r->types[j].name);
    memcpy(rt->name, t.name, sizeof rt->name);
    rt->id = t.id;
    rt->payload = t.payload;
    rt->fields = &r->fields[nf];
    rt->nfields = t.nfields;
    if ((rc = load_fields(r, &t, &off, &nf, &strbytes)) != 0) return rc;
    if (strbytes > maxstr) maxstr = strbytes;
  }
  /* Each text field's copy takes at most its size + 1 bytes; fields may
   * overlap, so the bound is per type's sum (at most 64 x 4097 bytes). */
  r->strs = malloc(maxstr);
  if (!r->strs) return fail(r, IPS_ENOMEM, "out of memory for the event table");
  return 0;
}

/* The "stamp" type's 8-byte mono_ns, if the table has one, for the check
 * that a process's clock never goes back (ring_read.c). */
static void find_stamp_clock(ips_ring_reader_t *r) {
  size_t i, j;
  for (i = 0; i < r->ntypes; i++) {
    if (strcmp(r->types[i].name, "stamp") != 0) continue;
    for (j = 0; j < r->types[i].nfields; j++) {
      const rfield *f = &r->types[i].fields[j];
      if (!strcmp(f->name, "mono_ns") && f->kind == IPS__RING_INT &&
          f->size == 8) {
        r->stamp_type = &r->types[i];
        r->stamp_mono = f;
      }
    }
  }
}

static int check_header(ips_ring_reader_t *r) {
  ips__ring_hdr_t h;
  size_t nf, maxf;
  int rc;

  if ((rc = check_fixed(r, &h)) != 0) return rc;
  if ((rc = check_type_bounds(r, &h, &nf, &maxf)) != 0) return rc;
  r->ntypes = h.ntypes;
  r->types = calloc(h.ntypes ? h.ntypes : 1, sizeof *r->types);
  r->fields = calloc(nf ? nf : 1, sizeof *r->fields);
  r->out = calloc(maxf ? maxf : 1, sizeof *r->out);
  r->max_fields = maxf;
  if (!r->types || !r->fields || !r->out)
    return fail(r, IPS_ENOMEM, "out of memory for the event table");
  if ((rc = load_types(r, &h)) != 0) return rc;
  r->data = r->map + h.header_size;
  r->size = h.data_size;
  r->pid = (long)h.pid;
  find_stamp_clock(r);
  return 0;
}

/* 0 when a file of this mode and size may be a ring file; otherwise fails
 * with IPS_ERING, saying why not. */
static int not_a_ring(ips_ring_reader_t *r, const char *path,
                      const struct stat *st) {
  if (S_ISREG(st->st_mode) && st->st_size >= (off_t)IPS__RING_HDR_FIXED &&
      (uint64_t)st->st_size <=
          (uint64_t)IPS_RING_MAX_SIZE + IPS__RING_MAX_HEADER)
    return 0;
  if (S_ISREG(st->st_mode))
    fail(r, IPS_ERING, "%s: a file of %lld bytes is not a ring file", path,
         (long long)st->st_size);
  else
    fail(r, IPS_ERING, "%s: not a regular file (%s): not a ring file, "
         "not opened", path, ips__file_kind(st->st_mode));
  return IPS_ERING;
}

/* Open path into *fd (-1 when it is not opened) and stat what was opened
 * into *st.  Only a regular file is opened: opening a FIFO waits for a
 * writer (forever), and opening a device may do anything, so what the name
 * is is checked before it is opened, and what was opened after (the name
 * may have been swapped between the two: O_NONBLOCK keeps such an open
 * from waiting).  Anyone who can write the ring directory can put anything
 * there. */
static int open_regular(ips_ring_reader_t *r, const char *path, int *fd,
                        struct stat *st) {
  int rc;
  /* Read-write when allowed, so that this reader may pause the producer
   * through the control word; read-only otherwise. */
  *fd = ips__open_regular(path, 1, &r->writable, st);
  if (*fd == -1) {
    rc = -errno;
    return fail(r, rc, "%s: %s", path, strerror(errno));
  }
  if (*fd < 0)
    *fd = -1;
  if ((rc = not_a_ring(r, path, st)) != 0 && *fd >= 0) {
    close(*fd);
    *fd = -1;
  }
  return rc;
}

/* Map the open file fd (closed here) of st's size and check its header,
 * under the bus guard: the file may be cut between fstat and here. */
static int map_and_check(ips_ring_reader_t *r, const char *path, int fd,
                         const struct stat *st) {
  ips__guard_t g;
  void *m;
  int rc;
  if (ips__guard_init() != 0) {
    close(fd);
    return fail(r, IPS_ERING, "%s: cannot guard a mapping against truncation "
                "(SIGBUS handler)", path);
  }
  r->map_size = (size_t)st->st_size;
  m = mmap(NULL, r->map_size, PROT_READ | (r->writable ? PROT_WRITE : 0),
           MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    rc = -errno;
    fail(r, rc, "%s: cannot map: %s", path, strerror(errno));
    r->map = NULL;
    return rc;
  }
  r->map = m;
  r->hdr = m;
  if (IPS__GUARD(&g, (const char *)r->map, r->map_size)) {
    rc = ips__ring_shrank(r, g.at);
  } else {
    rc = check_header(r);
    ips__guard_leave(&g);
  }
  if (rc != 0) {
    char tmp[sizeof r->msg];
    memcpy(tmp, r->msg, sizeof tmp);
    snprintf(r->msg, sizeof r->msg, "%.250s: %.250s", path, tmp);
  }
  return rc;
}

int ips_ring_reader_open(ips_ring_reader_t **out, const char *path, char *msg,
                         size_t size) {
  ips_ring_reader_t *r;
  struct stat st;
  int fd, rc;

  *out = NULL;
  if (msg && size) msg[0] = '\0';
  r = calloc(1, sizeof *r);
  if (!r) return IPS_ENOMEM;
  rc = open_regular(r, path, &fd, &st);
  if (rc == 0) rc = map_and_check(r, path, fd, &st);
  if (rc != 0) {
    if (msg && size) snprintf(msg, size, "%s", r->msg);
    ips_ring_reader_close(r);
    return rc;
  }
  *out = r;
  return 0;
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
