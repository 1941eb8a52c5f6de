/* os_bin.c — reading versions 3 and 2 of `ipcstamp record`'s file
 * (docs/os.md, "The file"): a header that says each record type's size and
 * the system calls' names, then fixed-size little-endian records, whose
 * layout is proto/os-format.h's (every offset here comes from it).  The file is
 * untrusted: the header's sizes are bounded, each record is decoded field
 * by field (never cast), and a record that is not what its type says is
 * counted as bad, with its byte offset, and skipped; a record whose size
 * cannot be known ends the reading there (the rest cannot be followed). */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

/* The header's fixed part, and where its fields are. */
#define H(field) offsetof(struct os_file_header, field)
enum {
  H_FIXED = IPS__OS_BIN_HEAD,
  NTYPES = OS_FILE_TYPES, /* entries of the header's size table */
  NAME = OS_FILE_NAME,    /* bytes of a system call's name */
  MAX_RECORD = 4096,
  MAX_NAMES = 1024,
  COMMON = OS_REC_HEAD    /* type, pid, tid, pad, ts */
};
/* Where the record head's fields are (every record's). */
#define R(field) offsetof(struct os_event, field)
enum { R_PID = R(tgid), R_TID = R(tid), R_TS = R(ts) };
/* The least size of each record type this reader knows, by version: a
 * record must hold the fields read from it. */
static const uint32_t least3[OS_EV_TYPES] = {OS_PARTS(OS_FILE_SIZE_INIT)};
static const uint32_t least2[OS_EV_TYPES] = {
    0, OS_PAD8(OS_PART(exec)), OS_PAD8(OS_PART(fork)), OS_PAD8(OS_PART(exit)),
    OS_PART(frame_v2), OS_AT(wait_v2, maj_flt), OS_PART(lost),
    OS_AT(end, max_rss_kb), 0};

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
  uint32_t version;
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
    nm->nr = (int32_t)le32(p);
    memcpy(nm->name, p + 4, NAME);
    nm->name[NAME] = '\0';
    ips__os_printable(nm->name, strlen(nm->name));
    os->nnames++;
  }
  return 0;
}

/* The header (its fixed part in h, already read).  0, or -1 with err. */
static int read_header(ips_os_t *os, FILE *f, const unsigned char *h,
                       layout_t *l, const char *path, char *err,
                       size_t errlen) {
  uint32_t hsize = le32(h + H(header_size)), nnames = le32(h + H(nnames)), t;
  const uint32_t *least;
  unsigned char *rest = NULL;
  int64_t wall;
  int rc = -1;
  l->version = le32(h + H(version));
  if (l->version != 2 && l->version != 3) {
    snprintf(err, errlen, "%s: format version %lu of ipcstamp record, this "
             "ipcstamp reads versions 1 to 3", path,
             (unsigned long)l->version);
    return -1;
  }
  least = l->version == 2 ? least2 : least3;
  if (le32(h + H(clock)) != 1 || le32(h + H(ntypes)) != NTYPES ||
      le32(h + H(name_size)) != sizeof(struct os_file_name) ||
      nnames > MAX_NAMES || hsize < H_FIXED + nnames * (4 + NAME) ||
      hsize > H_FIXED + MAX_NAMES * (4 + NAME) + 8 ||
      stamp(h + H(start), &os->start) != 0) {
    snprintf(err, errlen, "%s: a bad header (its clock, size table or "
             "names; byte offset 8 to %u)", path, (unsigned)H_FIXED);
    return -1;
  }
  for (t = 0; t < NTYPES; t++) {
    uint32_t s = le32(h + H(size) + 4 * t);
    if (s > MAX_RECORD || (s && s < COMMON) ||
        (t < OS_EV_TYPES && least[t] && s < least[t])) {
      snprintf(err, errlen, "%s: a bad header: records of type %u said to "
               "be %lu bytes (byte offset %u)", path, (unsigned)t,
               (unsigned long)s, (unsigned)(H(size) + 4 * t));
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
  wall = (int64_t)le64(h + H(start_wall_ns));
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

/* Where a frame side's fields are, in each version (version 3's last
 * return is the record's ts, its len 4 bytes). */
static const struct {
  size_t pipe, len, len_size, write, tag, enter, last_enter, last_ret;
} frame_at[2] = {
    {OS_AT(frame_v2, pipe), OS_AT(frame_v2, len), 8, OS_AT(frame_v2, write),
     OS_AT(frame_v2, tag), OS_AT(frame_v2, first_enter),
     OS_AT(frame_v2, last_enter), OS_AT(frame_v2, last_exit)},
    {OS_AT(frame, pipe), OS_AT(frame, len), 4, OS_AT(frame, write),
     OS_AT(frame, tag), OS_AT(frame, first_enter), OS_AT(frame, last_enter),
     R_TS}};

/* One frame side (r, of a version v file): 0, 1 (bad), or a negative
 * code. */
static int decode_frame(ips_os_t *os, uint32_t v, const unsigned char *r) {
  ips__os_side_t s;
  int k = v == 2 ? 0 : 1;
  memset(&s, 0, sizeof s);
  s.pid = le32(r + R_PID);
  s.tid = le32(r + R_TID);
  s.pipe = le64(r + frame_at[k].pipe);
  s.len = frame_at[k].len_size == 8 ? le64(r + frame_at[k].len)
                                    : le32(r + frame_at[k].len);
  s.write = r[frame_at[k].write];
  s.tag = r[frame_at[k].tag];
  if (stamp(r + frame_at[k].enter, &s.enter) ||
      stamp(r + frame_at[k].last_enter, &s.last_enter) ||
      stamp(r + frame_at[k].last_ret, &s.last_ret))
    return 1;
  if (s.write > 1 || s.len >= (uint64_t)IPS_STAMP_LIMIT)
    return 1;
  return ips__os_add_side(os, &s);
}

/* Where the fields of a wait that both versions have are (version 3's
 * return to a CPU is the record's ts). */
static const struct {
  size_t off, wake, on, sc, why, maj_flt;
} wait_at[2] = {
    {OS_AT(wait_v2, off), OS_AT(wait_v2, wake), OS_AT(wait_v2, on),
     OS_AT(wait_v2, sc), OS_AT(wait_v2, why), OS_AT(wait_v2, maj_flt)},
    {OS_AT(wait, off), OS_AT(wait, wake), R_TS, OS_AT(wait, sc),
     OS_AT(wait, why), OS_AT(wait, maj_flt)}};

/* One wait (r, size bytes, of a version v file): 0, 1, or a negative
 * code. */
static int decode_wait(ips_os_t *os, uint32_t v, const unsigned char *r,
                       uint32_t size) {
  ips__os_wait_t w;
  int k = v == 2 ? 0 : 1;
  uint32_t why = le32(r + wait_at[k].why);
  int32_t sc = (int32_t)le32(r + wait_at[k].sc);
  memset(&w, 0, sizeof w);
  w.tid = le32(r + R_TID);
  if (stamp(r + wait_at[k].off, &w.off) ||
      stamp(r + wait_at[k].wake, &w.wake) || stamp(r + wait_at[k].on, &w.on))
    return 1;
  /* Always in version 3; in version 2 recorded since the wait carried it
   * (the first files' waits end before it). */
  if (size >= wait_at[k].maj_flt + 8) {
    w.maj_flt = le64(r + wait_at[k].maj_flt);
    w.has_maj = 1;
  }
  if (v >= 3) {
    w.runtime = le64(r + OS_AT(wait, runtime));
    w.steal_off = le64(r + OS_AT(wait, steal_off));
    w.steal_on = le64(r + OS_AT(wait, steal_on));
    w.has_run = 1;
    w.waker = le32(r + OS_AT(wait, waker));
    w.took = le32(r + OS_AT(wait, took));
    w.left = le32(r + OS_AT(wait, left));
  }
  /* Each field as the type it is: the reason unsigned (0xffffffff is no
   * reason, not -1), the system call signed and -1 at the least. */
  if (why > 2 || sc < -1)
    return 1;
  w.why = (int)why;
  name_of(os, sc, w.sc, sizeof w.sc);
  return ips__os_add_wait(os, &w);
}

/* A thread's name (a version 3 task record). */
static int decode_task(ips_os_t *os, const unsigned char *r) {
  char comm[OS_COMM + 1];
  memcpy(comm, r + OS_AT(task, comm), OS_COMM);
  comm[OS_COMM] = '\0';
  return ips__os_add_task(os, le32(r + R_TID), le32(r + R_PID), comm);
}

/* One record of type t (r, its size bytes) of a version v file: 0, 1
 * (bad), or a negative code. */
static int decode(ips_os_t *os, uint32_t v, uint32_t t,
                  const unsigned char *r, uint32_t size) {
  int64_t n;
  if (t == OS_EV_FRAME)
    return decode_frame(os, v, r);
  if (t == OS_EV_WAIT)
    return decode_wait(os, v, r, size);
  if (t == OS_EV_TASK && v >= 3)
    return decode_task(os, r);
  if (t == OS_EV_EXEC) {
    /* The arguments, each NUL-terminated, within len (at most the 256
     * bytes kept). */
    char args[257];
    uint32_t len = le32(r + OS_AT(exec, len));
    int64_t ns;
    os->info.procs++;
    if (len > OS_ARGS || stamp(r + R_TS, &ns))
      return 1;
    memcpy(args, r + OS_AT(exec, args), len);
    args[len] = 0;
    return ips__os_add_exec(os, ns, le32(r + R_PID), le32(r + OS_AT(exec, ppid)),
                            args, len);
  }
  if (t == OS_EV_LOST) {
    if (stamp(r + OS_AT(lost, n), &n))
      return 1;
    os->info.lost = (uint64_t)n;
  } else if (t == OS_EV_END) {
    int64_t end;
    if (stamp(r + R_TS, &end) || stamp(r + OS_AT(end, lost), &n))
      return 1;
    os->end = end;
    os->info.lost = (uint64_t)n;
    os->info.ended = 1;
  } else if (t == OS_EV_EXIT) {
    if (stamp(r + R_TS, &n))
      return 1;
    return ips__os_add_exit(os, n, le32(r + R_PID),
                            (int)le32(r + OS_AT(exit, code)));
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
  at = le32(h + H(header_size));
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
    if ((rc = decode(os, l.version, t, r, size)) < 0) {
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
