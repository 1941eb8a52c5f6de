/* os_bin.c — reading version 2 of `ipcstamp record`'s file (docs/os.md,
 * "The file"): a header that says each record type's size and the system
 * calls' names, then fixed-size little-endian records.  The file is
 * untrusted: the header's sizes are bounded, each record is decoded field
 * by field (never cast), and a record that is not what its type says is
 * counted as bad, with its byte offset, and skipped; a record whose size
 * cannot be known ends the reading there (the rest cannot be followed). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

/* The header's fixed part, and where its fields are. */
enum {
  H_VERSION = 8, H_SIZE = 12, H_CLOCK = 16, H_START = 24, H_WALL = 32,
  H_NTYPES = 44, H_TYPES = 48, H_NNAMES = 192, H_NAMESIZE = 196,
  H_FIXED = IPS__OS_BIN_HEAD,
  NTYPES = 16,    /* entries of the header's size table */
  NAME = 20,      /* bytes of a system call's name */
  MAX_RECORD = 4096,
  MAX_NAMES = 1024,
  COMMON = 24     /* type, pid, tid, pad, ts */
};
/* The record types this reader knows, and the least size of each. */
enum { T_EXEC = 1, T_FORK, T_EXIT, T_FRAME, T_WAIT, T_LOST, T_END };
static const uint32_t least[T_END + 1] = {0, 288, 32, 32, 104, 56, 32, 56};

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static uint64_t le64(const unsigned char *p) {
  return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* A time: in [0, IPS_STAMP_LIMIT), or -1. */
static int stamp(const unsigned char *p, int64_t *out) {
  uint64_t v = le64(p);
  if (v >= (uint64_t)IPS_STAMP_LIMIT)
    return -1;
  *out = (int64_t)v;
  return 0;
}

typedef struct {
  uint32_t size[NTYPES];
} layout_t;

/* The system call names of the header (n of them at p): kept printable. */
static int read_names(ips_os_t *os, const unsigned char *p, uint32_t n) {
  uint32_t i;
  if (n == 0)
    return 0;
  if (!(os->names = calloc(n, sizeof *os->names)))
    return -ENOMEM;
  for (i = 0; i < n; i++, p += 4 + NAME) {
    ips__os_name_t *nm = &os->names[os->nnames];
    size_t k;
    nm->nr = (int32_t)le32(p);
    memcpy(nm->name, p + 4, NAME);
    nm->name[NAME] = '\0';
    for (k = 0; nm->name[k]; k++)
      if ((unsigned char)nm->name[k] < 0x20 || (unsigned char)nm->name[k] >= 0x7f)
        nm->name[k] = '?';
    os->nnames++;
  }
  return 0;
}

/* The header (its fixed part in h, already read).  0, or -1 with err. */
static int read_header(ips_os_t *os, FILE *f, const unsigned char *h,
                       layout_t *l, const char *path, char *err,
                       size_t errlen) {
  uint32_t hsize = le32(h + H_SIZE), nnames = le32(h + H_NNAMES), t;
  unsigned char *rest = NULL;
  int64_t wall;
  int rc = -1;
  if (le32(h + H_VERSION) != 2) {
    snprintf(err, errlen, "%s: format version %lu of ipcstamp record, this "
             "ipcstamp reads versions 1 and 2", path,
             (unsigned long)le32(h + H_VERSION));
    return -1;
  }
  if (le32(h + H_CLOCK) != 1 || le32(h + H_NTYPES) != NTYPES ||
      le32(h + H_NAMESIZE) != 4 + NAME || nnames > MAX_NAMES ||
      hsize < H_FIXED + nnames * (4 + NAME) ||
      hsize > H_FIXED + MAX_NAMES * (4 + NAME) + 8 ||
      stamp(h + H_START, &os->start) != 0) {
    snprintf(err, errlen, "%s: a bad header (its clock, size table or "
             "names; byte offset 8 to %u)", path, (unsigned)H_FIXED);
    return -1;
  }
  for (t = 0; t < NTYPES; t++) {
    uint32_t s = le32(h + H_TYPES + 4 * t);
    if (s > MAX_RECORD || (s && s < COMMON) || (t <= T_END && t && s < least[t])) {
      snprintf(err, errlen, "%s: a bad header: records of type %u said to "
               "be %lu bytes (byte offset %u)", path, (unsigned)t,
               (unsigned long)s, (unsigned)(H_TYPES + 4 * t));
      return -1;
    }
    l->size[t] = s;
  }
  if (!(rest = malloc(hsize - H_FIXED + 1)) ||
      fread(rest, 1, hsize - H_FIXED, f) != hsize - H_FIXED)
    snprintf(err, errlen, "%s: %s", path,
             rest ? "cut short in its header" : "out of memory");
  else if (read_names(os, rest, nnames) != 0)
    snprintf(err, errlen, "%s: out of memory", path);
  else
    rc = 0;
  free(rest);
  wall = (int64_t)le64(h + H_WALL);
  if (rc == 0 && wall > 0)
    os->wall_minus_mono = wall - os->start;
  return rc;
}

static void name_of(const ips_os_t *os, int32_t nr, char *out, size_t n) {
  size_t i;
  if (nr < 0) {
    out[0] = '\0';
    return;
  }
  for (i = 0; i < os->nnames; i++)
    if (os->names[i].nr == nr) {
      snprintf(out, n, "%s", os->names[i].name);
      return;
    }
  snprintf(out, n, "#%ld", (long)nr);
}

/* One record of type t (r, its size bytes): 0, 1 (bad), or a negative
 * code. */
static int decode(ips_os_t *os, uint32_t t, const unsigned char *r,
                  uint32_t size) {
  const unsigned char *u = r + COMMON;
  int64_t v;
  if (t == T_FRAME) {
    ips__os_side_t s;
    memset(&s, 0, sizeof s);
    s.pid = le32(r + 4);
    s.tid = le32(r + 8);
    s.pipe = le64(u);
    s.len = le64(u + 8);
    s.write = u[56];
    s.tag = u[57];
    if (s.write > 1 || s.len >= (uint64_t)IPS_STAMP_LIMIT ||
        stamp(u + 16, &s.enter) || stamp(u + 32, &s.last_enter) ||
        stamp(u + 40, &s.last_ret))
      return 1;
    return ips__os_add_side(os, &s);
  }
  if (t == T_WAIT) {
    ips__os_wait_t w;
    uint32_t why = le32(u + 28); /* unsigned: 0xffffffff is no reason */
    int32_t nr = (int32_t)le32(u + 24); /* signed: -1 outside any */
    memset(&w, 0, sizeof w);
    w.tid = le32(r + 8);
    w.why = (int)why;
    if (why > 2 || nr < -1 || stamp(u, &w.off) || stamp(u + 8, &w.wake) ||
        stamp(u + 16, &w.on))
      return 1;
    if (size >= COMMON + 40) { /* recorded since the wait carried it */
      w.maj_flt = le64(u + 32);
      w.has_maj = 1;
    }
    name_of(os, nr, w.sc, sizeof w.sc);
    return ips__os_add_wait(os, &w);
  }
  if (t == T_EXEC) {
    /* The arguments, each NUL-terminated, within len (at most the 256
     * bytes kept). */
    char args[257];
    uint32_t len = le32(u + 4);
    int64_t ns;
    os->info.procs++;
    if (len > 256 || stamp(r + 16, &ns))
      return 1;
    memcpy(args, u + 8, len);
    args[len] = 0;
    return ips__os_add_exec(os, ns, le32(r + 4), le32(u), args, len);
  }
  if (t == T_LOST) {
    if (stamp(u, &v))
      return 1;
    os->info.lost = (uint64_t)v;
  } else if (t == T_END) {
    int64_t end;
    if (stamp(r + 16, &end) || stamp(u + 8, &v))
      return 1;
    os->end = end;
    os->info.lost = (uint64_t)v;
    os->info.ended = 1;
  } else if (t == T_EXIT) {
    if (stamp(r + 16, &v))
      return 1;
    return ips__os_add_exit(os, v, le32(r + 4), (int)le32(u));
  } /* fork and types a later version adds: nothing to keep */
  return 0;
}

/* A bad record at offset: counted, the first named. */
static void bad(ips_os_t *os, uint64_t offset) {
  if (!os->info.bad_lines++)
    os->info.first_bad_offset = (int64_t)offset;
}

int ips__os_read_bin(ips_os_t *os, FILE *f, const unsigned char *h,
                     const char *path, char *err, size_t errlen) {
  unsigned char r[MAX_RECORD];
  layout_t l;
  uint64_t at;
  if (read_header(os, f, h, &l, path, err, errlen) != 0)
    return -EINVAL;
  at = le32(h + H_SIZE);
  for (;;) {
    size_t got = fread(r, 1, 4, f);
    uint32_t t, size;
    int rc;
    if (got == 0)
      break;
    t = got == 4 ? le32(r) : NTYPES;
    size = t < NTYPES ? l.size[t] : 0;
    if (!size || fread(r + 4, 1, size - 4, f) != size - 4) {
      /* A type the header does not size, or the file cut short inside a
       * record: nothing after it can be read. */
      bad(os, at);
      break;
    }
    os->at = (int64_t)at;
    if ((rc = decode(os, t, r, size)) < 0) {
      snprintf(err, errlen, "%s: byte offset %llu: %s", path,
               (unsigned long long)at,
               rc == -E2BIG ? "more records than ipcstamp reads from one "
                              "recording (IPS_OS_MAX_RECORDS)"
                            : "out of memory");
      return rc;
    }
    if (rc > 0)
      bad(os, at);
    at += size;
  }
  if (ferror(f)) {
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    return -EIO;
  }
  return 0;
}
