/* The ring producer: open, header and the event path (docs/ring.md). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipcstamp-ring.h"
#include "ring-format.h"

struct ips_ring_s {
  ips__ring_hdr_t *hdr;   /* the mapping's start */
  unsigned char *data;    /* hdr + header_size */
  size_t map_size;
  uint64_t size;          /* data bytes */
  /* The producer's own copies of what it publishes: it never reads back
   * the shared counters on the event path (a reader may be writing the
   * control word on a neighbouring line; head and tail are only ours). */
  uint64_t head, tail, seq, overwritten;
  /* head and tail modulo size, kept beside them: a 64-bit division on
   * every event cost more than the rest of the event together. */
  uint64_t head_off, tail_off;
  char vat[16];
  char path[PATH_MAX];
};

/* ------------------------------------------------------------------------
 * The event table of format version 1.  A field is found by its name, so
 * adding a field or an event later keeps old readers working.
 */
typedef struct {
  const char *name;
  uint16_t offset, size;
  uint8_t kind;
} field_def;

typedef struct {
  const char *name;
  uint16_t id;
  uint32_t payload;
  const field_def *fields;
  uint16_t nfields;
} type_def;

#define F(s, m, k) \
  {#m, (uint16_t)offsetof(s, m), (uint16_t)sizeof(((s *)0)->m), k}
static const field_def stamp_fields[] = {
    F(ips__ring_stamp_t, kind, IPS__RING_STR),
    F(ips__ring_stamp_t, wall_us, IPS__RING_INT),
    F(ips__ring_stamp_t, mono_ns, IPS__RING_INT),
    F(ips__ring_stamp_t, delivery, IPS__RING_UINT),
    F(ips__ring_stamp_t, upcall, IPS__RING_UINT),
    F(ips__ring_stamp_t, vat, IPS__RING_STR),
};
static const field_def attr_fields[] = {
    F(ips__ring_attr_t, pipe_ns, IPS__RING_INT),
    F(ips__ring_attr_t, worker_ns, IPS__RING_INT),
    F(ips__ring_attr_t, kernel_ns, IPS__RING_INT),
    F(ips__ring_attr_t, total_ns, IPS__RING_INT),
    F(ips__ring_attr_t, crank, IPS__RING_UINT),
    F(ips__ring_attr_t, delivery, IPS__RING_UINT),
    F(ips__ring_attr_t, vat, IPS__RING_STR),
    F(ips__ring_attr_t, mono_ns, IPS__RING_INT),
};
static const field_def mark_fields[] = {
    F(ips__ring_mark_t, name, IPS__RING_STR),
    F(ips__ring_mark_t, wall_us, IPS__RING_INT),
    F(ips__ring_mark_t, mono_ns, IPS__RING_INT),
    F(ips__ring_mark_t, delivery, IPS__RING_UINT),
    F(ips__ring_mark_t, kind, IPS__RING_STR),
};
static const field_def cpu_fields[] = {
    F(ips__ring_cpu_t, cpu_ns, IPS__RING_INT),
    F(ips__ring_cpu_t, delivery, IPS__RING_UINT),
};
#undef F
#define N(a) (uint16_t)(sizeof(a) / sizeof((a)[0]))
static const type_def types[] = {
    {"stamp", IPS__RING_T_STAMP, sizeof(ips__ring_stamp_t), stamp_fields,
     N(stamp_fields)},
    {"attribution", IPS__RING_T_ATTRIBUTION, sizeof(ips__ring_attr_t),
     attr_fields, N(attr_fields)},
    {"mark", IPS__RING_T_MARK, sizeof(ips__ring_mark_t), mark_fields,
     N(mark_fields)},
    {"cpu", IPS__RING_T_CPU, sizeof(ips__ring_cpu_t), cpu_fields,
     N(cpu_fields)},
};

void ips_ring_options_init(ips_ring_options_t *o) {
  memset(o, 0, sizeof *o);
  o->size = IPS_RING_DEFAULT_SIZE;
  o->role = IPS_RING_ROLE_WORKER;
  o->program = "ipcstamp";
}

int ips_ring_options_env(ips_ring_options_t *o, char *msg, size_t size) {
  const char *dir = getenv("IPCSTAMP_RING_DIR");
  const char *v = getenv("IPCSTAMP_RING_SIZE");
  uint64_t x = 0;

  if (msg && size) msg[0] = '\0';
  if (v && *v) {
    const char *p = v;
    for (; *p; p++) {
      if (*p < '0' || *p > '9' || x > IPS_RING_MAX_SIZE) break;
      x = x * 10 + (uint64_t)(*p - '0');
    }
    if (*p || x < IPS_RING_MIN_SIZE || x > IPS_RING_MAX_SIZE) {
      if (msg)
        snprintf(msg, size,
                 "IPCSTAMP_RING_SIZE=\"%.40s\": expected a whole number of "
                 "bytes from %u to %u",
                 v, IPS_RING_MIN_SIZE, IPS_RING_MAX_SIZE);
      return IPS_EINVAL;
    }
    o->size = (size_t)x;
  }
  if (dir && *dir) o->dir = dir;
  v = getenv("IPCSTAMP_VAT");
  if (v && *v) o->vat = v;
  return 0;
}

static void copy_name(char *dst, size_t cap, const char *src) {
  size_t n = src ? strnlen(src, cap - 1) : 0;
  memset(dst, 0, cap);
  if (n) memcpy(dst, src, n);
}

static size_t table_size(void) {
  size_t n = 0, i;
  for (i = 0; i < sizeof types / sizeof types[0]; i++)
    n += sizeof(ips__ring_type_t) + types[i].nfields * sizeof(ips__ring_field_t);
  return n;
}

static void write_table(unsigned char *p) {
  size_t i, j;
  for (i = 0; i < sizeof types / sizeof types[0]; i++) {
    ips__ring_type_t t;
    memset(&t, 0, sizeof t);
    copy_name(t.name, sizeof t.name, types[i].name);
    t.id = types[i].id;
    t.nfields = types[i].nfields;
    t.payload = types[i].payload;
    memcpy(p, &t, sizeof t);
    p += sizeof t;
    for (j = 0; j < types[i].nfields; j++) {
      ips__ring_field_t f;
      memset(&f, 0, sizeof f);
      copy_name(f.name, sizeof f.name, types[i].fields[j].name);
      f.offset = types[i].fields[j].offset;
      f.size = types[i].fields[j].size;
      f.kind = types[i].fields[j].kind;
      memcpy(p, &f, sizeof f);
      p += sizeof f;
    }
  }
}

#define SAY(...) \
  do {           \
    if (msg && msgsize) snprintf(msg, msgsize, __VA_ARGS__); \
  } while (0)

/* The data size asked for (o->size, or the default) checked against the
 * bounds and rounded up to 16 bytes, and the header's size: the fixed
 * part and the type table, rounded up to whole pages so that the data
 * starts on a page of its own (the header's page is the one a reader
 * writes: the control word). */
static int ring_sizes(const ips_ring_options_t *o, size_t pagesz,
                      size_t *data, size_t *hsize, char *msg,
                      size_t msgsize) {
  *data = o->size ? o->size : IPS_RING_DEFAULT_SIZE;
  if (*data < IPS_RING_MIN_SIZE || *data > IPS_RING_MAX_SIZE) {
    SAY("ring: size %zu bytes: expected %u to %u", *data, IPS_RING_MIN_SIZE,
        IPS_RING_MAX_SIZE);
    return IPS_EINVAL;
  }
  *data = (*data + 15) & ~(size_t)15;
  *hsize = IPS__RING_HDR_FIXED + table_size();
  *hsize = (*hsize + pagesz - 1) / pagesz * pagesz;
  return 0;
}

/* A new file for the ring, beside its name r->path (<dir>/<pid>.ring),
 * its temporary name in tmp: the descriptor, or -errno with the message
 * said.  Built under a temporary name and renamed into place, so that a
 * reader never maps a file whose header is half written, and a reader
 * still mapping an older <pid>.ring keeps its own inode.  The temporary
 * name is a new one (mkostemp: O_EXCL, so a name planted in a shared
 * directory, a symlink above all, is never followed or reused), and
 * readers skip it (only <digits>.ring is a ring).  rename() replaces
 * whatever is at <pid>.ring without following it. */
static int ring_create(const ips_ring_t *r, char *tmp, size_t tmpsize,
                       char *msg, size_t msgsize) {
  int n = snprintf(tmp, tmpsize, "%s.XXXXXX", r->path), fd, rc;
  fd = n > 0 && (size_t)n < tmpsize ? mkostemp(tmp, O_CLOEXEC) : -1;
  if (fd < 0) {
    rc = -errno;
    SAY("ring: cannot create %s: %s", tmp, strerror(errno));
    return rc;
  }
  /* Readable by others (mkostemp makes it 0600): watchers run as anyone. */
  (void)fchmod(fd, 0644);
  return fd;
}

/* Every page of the file's size reserved now: a ring is written through
 * its mapping, and a page the filesystem cannot back then is SIGBUS in
 * the middle of a run.  A full filesystem is a refusal at start-up
 * instead (docs/ring.md).  Returns 0 or an errno. */
static int ring_reserve(int fd, size_t size, size_t pagesz) {
  int rc = posix_fallocate(fd, 0, (off_t)size);
  if (rc == EINVAL || rc == EOPNOTSUPP) {
    /* No fallocate here (glibc emulates it, other libcs may not): size the
     * file and write a byte into each block, which allocates it. */
    size_t at;
    rc = ftruncate(fd, (off_t)size) != 0 ? errno : 0;
    for (at = 0; !rc && at < size; at += pagesz)
      if (pwrite(fd, "", 1, (off_t)at) != 1) rc = errno ? errno : ENOSPC;
  }
  return rc;
}

/* The self-describing header at m: magic, version, byte order, sizes,
 * who writes (role, pid, parent pid, program, vat), when it started, and
 * the type table after the fixed part; the control word paused or not.
 * Nobody else has the file yet (it is not at its name): plain stores. */
static void ring_header(void *m, const ips_ring_options_t *o, size_t hsize,
                        size_t data, const ips_stamp_t *now) {
  ips__ring_hdr_t h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, IPS_RING_MAGIC, 8);
  h.version = IPS_RING_VERSION;
  h.endian = IPS_RING_ENDIAN;
  h.header_size = (uint32_t)hsize;
  h.ntypes = sizeof types / sizeof types[0];
  h.data_size = data;
  h.types_off = IPS__RING_HDR_FIXED;
  h.role = o->role;
  h.pid = (int64_t)getpid();
  h.ppid = (int64_t)getppid(); /* which run a worker belongs to (top) */
  h.start_wall_us = now->wall_us;
  h.start_mono_ns = now->mono_ns;
  copy_name(h.program, sizeof h.program, o->program);
  copy_name(h.vat, sizeof h.vat, o->vat);
  memcpy(m, &h, sizeof h);
  write_table((unsigned char *)m + IPS__RING_HDR_FIXED);
  atomic_store_explicit(&((ips__ring_hdr_t *)m)->control,
                        o->paused ? IPS_RING_CTL_PAUSED : 0,
                        memory_order_relaxed);
}

/* In stages: the sizes, the clock, a new file under a temporary name
 * (ring_create), its pages reserved (ring_reserve), mapped, the header
 * written (ring_header), and the file renamed to its name; a failure
 * after the file exists closes and unlinks it. */
int ips_ring_open(ips_ring_t **out, const ips_ring_options_t *o, char *msg,
                  size_t msgsize) {
  ips_ring_t *r;
  ips_stamp_t now;
  char tmp[PATH_MAX + 32];
  size_t data, hsize;
  long pagesz = sysconf(_SC_PAGESIZE);
  int fd = -1, rc, n;
  void *m;

  *out = NULL;
  if (msg && msgsize) msg[0] = '\0';
  if (!o || !o->dir || !*o->dir) {
    SAY("ring: no directory given");
    return IPS_EINVAL;
  }
  if (pagesz <= 0) pagesz = 4096;
  if ((rc = ring_sizes(o, (size_t)pagesz, &data, &hsize, msg, msgsize)) != 0)
    return rc;
  if (ips_clock_read(&now) != 0) {
    SAY("ring: %s", ips_strerror(IPS_ECLOCK));
    return IPS_ECLOCK;
  }

  r = calloc(1, sizeof *r);
  if (!r) return IPS_ENOMEM;
  n = snprintf(r->path, sizeof r->path, "%s/%ld.ring", o->dir, (long)getpid());
  if (n < 0 || (size_t)n >= sizeof r->path) {
    SAY("ring: directory name too long: %.60s...", o->dir);
    free(r);
    return IPS_EINVAL;
  }
  if ((fd = ring_create(r, tmp, sizeof tmp, msg, msgsize)) < 0) {
    free(r);
    return fd;
  }
  r->map_size = hsize + data;
  if ((rc = ring_reserve(fd, r->map_size, (size_t)pagesz)) != 0) {
    SAY("ring: no room for %s (%zu bytes): %s", tmp, r->map_size,
        strerror(rc));
    rc = -rc;
    goto error;
  }
  m = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    rc = -errno;
    SAY("ring: cannot map %s: %s", tmp, strerror(errno));
    goto error;
  }
  r->hdr = m;
  r->data = (unsigned char *)m + hsize;
  r->size = data;
  ring_header(m, o, hsize, data, &now);
  copy_name(r->vat, sizeof r->vat, o->vat);
  if (rename(tmp, r->path) != 0) {
    rc = -errno;
    SAY("ring: cannot rename %s to %s: %s", tmp, r->path, strerror(errno));
    munmap(m, r->map_size);
    goto error;
  }
  close(fd);  /* the mapping keeps the file; no descriptor to inherit */
  *out = r;
  return 0;

error:
  close(fd);
  unlink(tmp);
  free(r);
  return rc;
}

void ips_ring_close(ips_ring_t *r) {
  if (!r) return;
  munmap(r->hdr, r->map_size);
  free(r);
}

const char *ips_ring_path(const ips_ring_t *r) { return r->path; }

void ips_ring_set_vat(ips_ring_t *r, const char *vat) {
  if (!r) return;
  copy_name(r->vat, sizeof r->vat, vat);
  memcpy(r->hdr->vat, r->vat, sizeof r->vat);
}

void ips_ring_pause(ips_ring_t *r) {
  if (r)
    atomic_fetch_or_explicit(&r->hdr->control, IPS_RING_CTL_PAUSED,
                             memory_order_relaxed);
}

void ips_ring_resume(ips_ring_t *r) {
  if (r)
    atomic_fetch_and_explicit(&r->hdr->control, ~IPS_RING_CTL_PAUSED,
                              memory_order_relaxed);
}

int ips_ring_paused(const ips_ring_t *r) {
  return r && (atomic_load_explicit(&r->hdr->control, memory_order_relaxed) &
               IPS_RING_CTL_PAUSED) != 0;
}

uint64_t ips_ring_written(const ips_ring_t *r) { return r ? r->seq : 0; }
uint64_t ips_ring_overwritten(const ips_ring_t *r) {
  return r ? r->overwritten : 0;
}

/* ------------------------------------------------------------------------
 * The event path.  Plain stores into the data area; the ordering that makes
 * them safe for a reader on another core is carried by the counters:
 *
 *  1. tail moves forward *before* the bytes it releases are overwritten,
 *     with a release fence between the two.  A reader copies a record,
 *     issues an acquire fence and re-reads tail: if its copy saw any byte
 *     of the overwrite, the fences guarantee it also sees the new tail, so
 *     it discards the copy (it was lapped) instead of delivering garbage.
 *  2. head is stored with release after the whole record is written: a
 *     reader that loads head with acquire sees every byte below it.
 *
 * Nothing here waits, locks, allocates or enters the kernel.
 */
/* Paused (or no ring): one relaxed load and a branch, checked before any
 * payload is built.  Relaxed is enough: a pause that lands an event late is
 * harmless. */
static inline int off_now(const ips_ring_t *r) {
  return !r || (atomic_load_explicit(&r->hdr->control, memory_order_relaxed) &
                IPS_RING_CTL_PAUSED);
}

/* Makes room for a record of PLEN payload bytes (a multiple of 16) at
 * head, writes its header, and returns where its payload goes; publish()
 * then makes it visible.  The caller writes the payload in place: building
 * it on the stack and copying it cost a store-forwarding stall per event
 * (byte and word stores read back as 16-byte loads). */
static unsigned char *reserve(ips_ring_t *r, uint16_t type, uint32_t plen) {
  ips__ring_rec_t rec;
  uint32_t len = (uint32_t)sizeof rec + plen;
  uint64_t off = r->head_off, pad, need;

  pad = off + len > r->size ? r->size - off : 0;
  need = r->head + pad + len;
  if (need - r->tail > r->size) {
    /* Free room by dropping the oldest records; the producer reads only
     * its own earlier writes here. */
    while (need - r->tail > r->size) {
      ips__ring_rec_t old;
      memcpy(&old, r->data + r->tail_off, sizeof old);
      r->tail += old.len;
      r->tail_off += old.len;
      if (r->tail_off == r->size) r->tail_off = 0;
      if (old.type != IPS__RING_PAD) r->overwritten++;
    }
    atomic_store_explicit(&r->hdr->overwritten, r->overwritten,
                          memory_order_relaxed);
    atomic_store_explicit(&r->hdr->tail, r->tail, memory_order_relaxed);
    /* (1): the new tail is visible before any byte below it changes. */
    atomic_thread_fence(memory_order_release);
  }
  rec.flags = 0;
  rec.seq = r->seq;
  if (pad) {
    rec.len = (uint32_t)pad;
    rec.type = IPS__RING_PAD;
    memcpy(r->data + off, &rec, sizeof rec);
    off = 0;
  }
  /* The record's header first, then its payload: a producer killed in
   * between leaves a header with the next seq just past head, which a
   * reader reports as torn (ips_ring_reader_info()). */
  rec.len = len;
  rec.type = type;
  memcpy(r->data + off, &rec, sizeof rec);
  r->head = need;
  r->head_off = off + len == r->size ? 0 : off + len;
  return r->data + off + sizeof rec;
}

/* Publishes the record reserve() returned, once its payload is written. */
static void publish(ips_ring_t *r) {
  r->seq++;
  atomic_store_explicit(&r->hdr->written, r->seq, memory_order_relaxed);
  /* (2): the record is whole before head covers it. */
  atomic_store_explicit(&r->hdr->head, r->head, memory_order_release);
}

/* A record built whole on the stack (the rarer events). */
static void emit(ips_ring_t *r, uint16_t type, const void *payload,
                 uint32_t plen) {
  memcpy(reserve(r, type, plen), payload, plen);
  publish(r);
}

/* The hot one: every field stored straight into the mapping, each byte of
 * the payload exactly once (no memset), so nothing is read back. */
void ips_ring_stamp(ips_ring_t *r, const ips_stamp_t *s, uint64_t delivery,
                    uint32_t upcall) {
  ips_ring_stamp_vat(r, s, delivery, upcall, NULL);
}

void ips_ring_stamp_vat(ips_ring_t *r, const ips_stamp_t *s,
                        uint64_t delivery, uint32_t upcall, const char *vat) {
  unsigned char *p;
  char kind[4] = {0, 0, 0, 0}, v[sizeof r->vat];
  if (off_now(r)) return;
  if (vat)
    copy_name(v, sizeof v, vat);
  p = reserve(r, IPS__RING_T_STAMP, sizeof(ips__ring_stamp_t));
  kind[0] = s->kind;
#define PUT(field, v)                                              \
  memcpy(p + offsetof(ips__ring_stamp_t, field), v,                \
         sizeof(((ips__ring_stamp_t *)0)->field))
  PUT(wall_us, &s->wall_us);
  PUT(mono_ns, &s->mono_ns);
  PUT(delivery, &delivery);
  PUT(upcall, &upcall);
  PUT(kind, kind);
  PUT(vat, vat ? v : r->vat);
#undef PUT
  publish(r);
}

void ips_ring_attribution(ips_ring_t *r, const ips_ring_attribution_t *a) {
  ips__ring_attr_t e;
  if (off_now(r)) return;
  memset(&e, 0, sizeof e);
  e.pipe_ns = a->pipe_ns;
  e.worker_ns = a->worker_ns;
  e.kernel_ns = a->kernel_ns;
  e.total_ns = a->total_ns;
  e.crank = a->crank;
  e.delivery = a->delivery;
  e.mono_ns = a->mono_ns;
  if (a->vat)
    copy_name(e.vat, sizeof e.vat, a->vat);
  else
    memcpy(e.vat, r->vat, sizeof e.vat);
  emit(r, IPS__RING_T_ATTRIBUTION, &e, sizeof e);
}

void ips_ring_vm_mark(ips_ring_t *r, char kind, const char *name, size_t len,
                      const ips_stamp_t *s, uint64_t delivery) {
  ips__ring_mark_t e;
  if (off_now(r)) return;
  memset(&e, 0, sizeof e);
  e.wall_us = s->wall_us;
  e.mono_ns = s->mono_ns;
  e.delivery = delivery;
  e.kind[0] = kind;
  if (len > sizeof e.name - 1)
    len = sizeof e.name - 1;
  memcpy(e.name, name, len);
  emit(r, IPS__RING_T_MARK, &e, sizeof e);
}

void ips_ring_cpu(ips_ring_t *r, int64_t cpu_ns, uint64_t delivery) {
  ips__ring_cpu_t e;
  if (off_now(r)) return;
  e.cpu_ns = cpu_ns;
  e.delivery = delivery;
  emit(r, IPS__RING_T_CPU, &e, sizeof e);
}

void ips_ring_mark(ips_ring_t *r, const char *name, const ips_stamp_t *s) {
  ips_ring_vm_mark(r, 'm', name, name ? strlen(name) : 0, s, 0);
}
