/* slog_read.c — lines from a plain file, a gzip file, stdin, or Agoric's
 * flight recorder file (flight.c turns its records into lines).
 *
 * zlib's gzread reads plain files transparently, so one code path serves
 * both.  The buffer grows only up to max_line: a longer line is dropped
 * (and reported by the caller), so memory never follows the input.
 *
 * A regular uncompressed file, when the caller asks (ips__slog_map), is
 * mapped instead: its lines are handed out where they are, and the
 * kernel's copy of every byte into our buffer (a fifth of a report's time
 * on a large file) is gone.  Memory then follows the page cache, not us:
 * the process maps the file but holds no copy of it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "bus_guard.h"
#include "flight_spool.h"
#include "regular.h"
#include "slog.h"

/* zlib reads straight into our buffer, without a copy through its own,
 * when a read asks for at least twice its buffer size. */
#define CHUNK (256u << 10)
#define ZBUF (64u << 10)

struct ips__slog_in {
  gzFile gz;
  ips__flight_t *fr;      /* a flight recorder file: read through this */
  int fd;
  char *buf;
  size_t cap, start, end; /* unread bytes are buf[start..end) */
  size_t max_line;
  int eof;
  long lineno;
  uint64_t total;
  int hold;               /* lines handed out stay put until detached */
  size_t dropped;         /* bytes of a too-long line dropped so far */
  char *follow;           /* following: the path, to notice a rotation */
  unsigned long reopened;
  const char *map;        /* mapped (ips__slog_map): the file, map_len */
  size_t map_len, map_pos; /* bytes; lines before map_pos handed out */
  size_t map_freed;        /* bytes at the start no longer mapped */
  char *path;             /* mapped: for the message if the file shrinks */
  int guarded;            /* mapped: the caller guards ips__slog_next */
  int began;              /* the stream's first bytes were looked at */
};

ips__slog_in_t *ips__slog_open(const char *path, size_t max_line, char *err,
                               size_t errlen) {
  ips__slog_in_t *in = calloc(1, sizeof *in);
  struct stat st;
  if (!in) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  in->max_line = max_line;
  in->cap = IPS__SLOG_BUF;
  in->buf = malloc(in->cap);
  if (!in->buf) {
    snprintf(err, errlen, "out of memory");
    free(in);
    return NULL;
  }
  if (!strcmp(path, "-")) {
    in->fd = dup(0);
  } else {
    in->fd = open(path, O_RDONLY | O_CLOEXEC);
  }
  if (in->fd < 0) {
    snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    goto error;
  }
  if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
    in->began = 1; /* a file is a flight recorder only by its header */
    in->total = (uint64_t)st.st_size;
    switch (ips__flight_unpack(&in->fd, in->buf, in->cap, path, err, errlen)) {
      case -1:
        close(in->fd);
        goto error;
      case 1:
        in->total = 0; /* the flight reader tells the progress */
    }
  }
  switch (ips__flight_open(in->fd, &in->fr, err, errlen)) {
    case 1:
      return in;
    case -1: {
      char m[256];
      snprintf(m, sizeof m, "%s", err);
      snprintf(err, errlen, "%s: %s", path, m);
      close(in->fd);
      goto error;
    }
  }
  in->gz = gzdopen(in->fd, "rb");
  if (!in->gz) {
    snprintf(err, errlen, "cannot read %s: out of memory", path);
    close(in->fd);
    goto error;
  }
  gzbuffer(in->gz, ZBUF);
  return in;
error:
  free(in->buf);
  free(in);
  return NULL;
}

int ips__slog_follow(ips__slog_in_t *in, const char *path) {
  struct stat st;
  if (in->map)
    return -1; /* mapped: what is appended would never be read */
  if (in->fr || fstat(in->fd, &st) != 0 || !S_ISREG(st.st_mode))
    return in->fr ? -1 : 0; /* a pipe's end is the end: nothing to follow */
  in->follow = strdup(path);
  return in->follow ? 0 : -1;
}

int ips__slog_map(ips__slog_in_t *in, const char *path) {
  struct stat st;
  unsigned char magic[2];
  void *m;
  /* stdin may be a file read from elsewhere than its start; a file being
   * followed grows (it keeps reading); a gzip file is not its text. */
  if (in->fr || in->follow || in->map || !strcmp(path, "-") ||
      fstat(in->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
      (uint64_t)st.st_size > (uint64_t)SIZE_MAX ||
      (pread(in->fd, magic, 2, 0) == 2 && magic[0] == 0x1f &&
       magic[1] == 0x8b) ||
      ips__guard_init() != 0)
    return 0;
  if (!(in->path = strdup(path)))
    return 0;
  /* The size seen now is the file read: what is appended later is not
   * read (it is not mapped), and what is cut away makes a read of it fault,
   * which the guards in ips__slog_next and the parsers' callers turn into
   * an error.  MAP_PRIVATE: no write of ours could ever reach the file. */
  m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
  if (m == MAP_FAILED) {
    free(in->path);
    in->path = NULL;
    return 0; /* read it as before */
  }
  /* Read once, front to back: the kernel may read ahead further. */
  madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
  in->map = m;
  in->map_len = (size_t)st.st_size;
  in->total = (uint64_t)st.st_size;
  return 1;
}

void ips__slog_guarded(ips__slog_in_t *in) { in->guarded = 1; }

int ips__slog_range(ips__slog_in_t *in, size_t *from, size_t *to) {
  size_t at = in->map_pos + IPS__SLOG_BUF;
  const char *nl;
  *from = in->map_pos;
  if (in->map_pos == in->map_len) {
    *to = in->map_pos;
    return 0;
  }
  /* Only the line across the cut is read here. */
  nl = at < in->map_len ? memchr(in->map + at, '\n', in->map_len - at) : NULL;
  *to = nl ? (size_t)(nl - in->map) + 1 : in->map_len;
  in->map_pos = *to;
  return 1;
}

#define PREFETCH_AHEAD 4096
/* Released in pieces of at least this much: each munmap of a process
 * with two threads interrupts the other core to flush its TLB. */
#define RELEASE_MIN (4u << 20)

size_t ips__slog_line_at(const ips__slog_in_t *in, size_t pos, size_t to,
                         const char **line, size_t *len, int *flags) {
  const char *s = in->map + pos, *nl = memchr(s, '\n', to - pos);
  size_t l = nl ? (size_t)(nl - s) : to - pos;
  uintptr_t q;
  /* The file comes from memory here, for the first time, and a line at a
   * time: the processor's own prefetching stops at each 4 KiB page, so
   * the bytes a page ahead of this line are asked for now.  A prefetch
   * never faults, past the end of the mapping either.  CPU time of a
   * report: -4% (the same at 8 or 16 KiB ahead; 32 KiB is worse). */
  for (q = (uintptr_t)s & ~(uintptr_t)63; q < (uintptr_t)s + l; q += 64)
    __builtin_prefetch((const char *)q + PREFETCH_AHEAD);
  *line = s;
  *len = l;
  *flags = (nl ? 0 : IPS__LINE_NOEOL) |
           (l > in->max_line ? IPS__LINE_TOOLONG : 0);
  return pos + l + (nl != NULL);
}

void ips__slog_release(ips__slog_in_t *in, size_t upto) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), end;
  if (!in->map || upto > in->map_len)
    return;
  end = upto / page * page; /* the page upto is in may still be read */
  if (end >= in->map_freed + RELEASE_MIN &&
      munmap((void *)(in->map + in->map_freed), end - in->map_freed) == 0)
    in->map_freed = end;
}

void ips__slog_mapping(const ips__slog_in_t *in, const char **base,
                       size_t *len) {
  *base = in->map;
  *len = in->map ? in->map_len : 0;
}

void ips__slog_shrank(const ips__slog_in_t *in, const char *at, char *err,
                      size_t errlen) {
  struct stat st;
  char now[64] = "";
  if (fstat(in->fd, &st) == 0)
    snprintf(now, sizeof now, " (now %lld bytes)", (long long)st.st_size);
  snprintf(err, errlen,
           "%s was truncated while being read: byte %zu of its %zu is gone%s",
           in->path, (size_t)(at - in->map), in->map_len, now);
}

unsigned long ips__slog_reopened(const ips__slog_in_t *in) {
  return in->reopened;
}

/* Following, at the end of what the file holds: 1 when path now names
 * another file, or this one was truncated below what was read (the old
 * one is then read to its end, and path reopened); else 0. */
static int replaced(ips__slog_in_t *in) {
  struct stat now, open;
  long off = gzoffset(in->gz);
  if (stat(in->follow, &now) != 0 || fstat(in->fd, &open) != 0)
    return 0; /* gone for now (mid-rotation): wait for it */
  return now.st_ino != open.st_ino || now.st_dev != open.st_dev ||
         (off > 0 && (uint64_t)open.st_size < (uint64_t)off);
}

/* The followed path names a new file: opened only when it is a regular
 * file (a FIFO would block the open, or the reads, forever; a device may
 * never end).  Checked before the open and again after it (the name may
 * be swapped in between: O_NONBLOCK keeps that open from waiting). */
static int reopen(ips__slog_in_t *in, char *err, size_t errlen) {
  struct stat st;
  int fd = ips__open_regular(in->follow, 0, NULL, &st);
  if (fd == -1) {
    snprintf(err, errlen, "cannot open %s again: %s", in->follow,
             strerror(errno));
    return -1;
  }
  if (fd < 0) {
    snprintf(err, errlen, "%s was replaced by %s: not followed", in->follow,
             ips__file_kind(st.st_mode));
    return -1;
  }
  gzclose(in->gz);
  in->fd = fd;
  in->gz = gzdopen(fd, "rb");
  if (!in->gz) {
    close(fd);
    snprintf(err, errlen, "cannot read %s: out of memory", in->follow);
    return -1;
  }
  gzbuffer(in->gz, ZBUF);
  if (fstat(fd, &st) == 0)
    in->total = (uint64_t)st.st_size;
  in->reopened++;
  return 0;
}

/* Reads more input after buf[end].  Returns 1 when it read some, 0 at
 * EOF, -1, IPS__SLOG_FULL when holding and there is no room without moving
 * lines already handed out, or IPS__SLOG_AGAIN (following) when the file
 * holds no more yet.  Not the count of bytes read: a read of 2 or 3 bytes
 * (a short file, a pipe) was taken for FULL or AGAIN. */
static long fill(ips__slog_in_t *in, char *err, size_t errlen);

/* The flight recorder whose first n bytes fill() just read into in->buf at
 * in->end is copied whole (ips__flight_spool), then read from the copy like
 * any flight recorder.  Returns what fill() returns. */
static long from_pipe(ips__slog_in_t *in, size_t n, char *err,
                      size_t errlen) {
  int tmp, r;
  if (n < 32) {
    snprintf(err, errlen,
             "a flight recorder (it starts with AG-SLOG!) ends after %zu "
             "bytes, inside its 32-byte header",
             n);
    return -1;
  }
  tmp = ips__flight_spool(in->gz, in->buf + in->end, n, in->buf, in->cap,
                          "standard input", err, errlen);
  if (tmp < 0)
    return -1;
  if ((r = ips__flight_open(tmp, &in->fr, err, errlen)) != 1) {
    if (r == 0)
      snprintf(err, errlen, "standard input: not a flight recorder");
    close(tmp);
    return -1;
  }
  gzclose(in->gz); /* closes the pipe */
  in->gz = NULL;
  in->fd = tmp;
  return fill(in, err, errlen);
}

static long fill(ips__slog_in_t *in, char *err, size_t errlen) {
  int n, zerr;
  if (in->eof)
    return 0;
  if (!in->hold && in->start > 0 && in->start == in->end)
    in->start = in->end = 0;
  if (in->cap - in->end < CHUNK) {
    if (in->hold && in->start > 0)
      return IPS__SLOG_FULL;
    /* Slide the unread tail down, then grow if a long line needs it. */
    memmove(in->buf, in->buf + in->start, in->end - in->start);
    in->end -= in->start;
    in->start = 0;
    if (in->cap - in->end < CHUNK) {
      char *nb = realloc(in->buf, in->cap * 2);
      if (!nb) {
        snprintf(err, errlen, "out of memory");
        return -1;
      }
      in->buf = nb;
      in->cap *= 2;
    }
  }
  if (in->fr) {
    long k = ips__flight_read(in->fr, in->buf + in->end, CHUNK, err, errlen);
    if (k < 0)
      return -1;
    if (k == 0)
      in->eof = 1;
    in->end += (size_t)k;
    return k > 0;
  }
  n = gzread(in->gz, in->buf + in->end, CHUNK);
  /* A flight recorder on a pipe (ssh node cat flight-recorder.bin |
   * ipcstamp report -) is known by its first bytes.  (A file is judged by
   * its header at opening.) */
  if (!in->began && n > 0) {
    in->began = 1;
    if ((size_t)n >= 8 && !memcmp(in->buf + in->end, "AG-SLOG!", 8))
      return from_pipe(in, (size_t)n, err, errlen);
  }
  if (n < 0) {
    const char *m = gzerror(in->gz, &zerr);
    snprintf(err, errlen, "read error: %s",
             zerr == Z_ERRNO ? strerror(errno) : m);
    return -1;
  }
  if (n == 0) {
    /* A cut gzip stream is an input problem, not silence. */
    const char *m = gzerror(in->gz, &zerr);
    if (zerr != Z_OK && zerr != Z_BUF_ERROR) {
      snprintf(err, errlen, "read error: %s", m);
      return -1;
    }
    if (in->follow) {
      /* zlib remembers the end; the file may grow past it (gzclearerr is
       * there for reading a file being written). */
      gzclearerr(in->gz);
      if (replaced(in)) {
        if (in->start < in->end || in->dropped)
          return 0; /* the old file's unfinished last line comes first */
        return reopen(in, err, errlen) < 0 ? -1 : IPS__SLOG_AGAIN;
      }
      return IPS__SLOG_AGAIN;
    }
    if (zerr == Z_BUF_ERROR) {
      snprintf(err, errlen, "gzip input is truncated");
      return -1;
    }
    in->eof = 1;
  }
  in->end += (size_t)n;
  return n > 0;
}

/* ips__slog_next on a mapped file: the line where it is, in the map.  Only
 * the newline search reads the mapping here, under a guard unless the
 * caller has one (a guard's entry costs about as much as a short line's
 * search); the caller reads the line under its own. */
static int next_mapped(ips__slog_in_t *in, const char **line, size_t *len,
                       int *flags, char *err, size_t errlen) {
  const char *s, *volatile nl; /* nl: set after the guard's entry */
  size_t rest, l;
  ips__guard_t g;
  if (in->map_pos == in->map_len)
    return 0;
  if (in->guarded) {
    nl = memchr(in->map + in->map_pos, '\n', in->map_len - in->map_pos);
  } else {
    if (IPS__GUARD(&g, in->map, in->map_len)) {
      ips__slog_shrank(in, g.at, err, errlen);
      return -1;
    }
    nl = memchr(in->map + in->map_pos, '\n', in->map_len - in->map_pos);
    ips__guard_leave(&g);
  }
  s = in->map + in->map_pos;
  rest = in->map_len - in->map_pos;
  l = nl ? (size_t)(nl - s) : rest;
  *line = s;
  *len = l;
  *flags = (nl ? 0 : IPS__LINE_NOEOL) | (l > in->max_line ? IPS__LINE_TOOLONG : 0);
  in->map_pos += nl ? l + 1 : l;
  in->lineno++;
  return 1;
}

int ips__slog_next(ips__slog_in_t *in, const char **line, size_t *len,
                   int *flags, char *err, size_t errlen) {
  size_t seen = 0; /* bytes after start with no '\n' */
  *flags = 0;
  if (in->map)
    return next_mapped(in, line, len, flags, err, errlen);
  for (;;) {
    char *nl = memchr(in->buf + in->start + seen, '\n',
                      in->end - in->start - seen);
    long r;
    if (nl) {
      size_t l = (size_t)(nl - (in->buf + in->start));
      *line = in->buf + in->start;
      in->start += l + 1;
      in->lineno++;
      /* A line that came whole into the buffer can still be over the
       * limit: the buffer is larger than a small --max-line. */
      if (in->dropped || l > in->max_line) {
        *flags = IPS__LINE_TOOLONG;
        *len = in->dropped + l;
      } else {
        *len = l;
      }
      in->dropped = 0;
      return 1;
    }
    if (in->end - in->start > in->max_line) {
      /* Lines handed out are still in the buffer: detach them first
       * (nothing was dropped yet in this call). */
      if (in->hold && in->start > 0)
        return IPS__SLOG_FULL;
      /* Drop what we hold of this line; keep counting its length (in the
       * reader, since following may return before the line ends). */
      in->dropped += in->end - in->start;
      in->start = in->end = 0;
    }
    seen = in->end - in->start;
    r = fill(in, err, errlen);
    if (r == IPS__SLOG_FULL || r == IPS__SLOG_AGAIN)
      return (int)r;
    if (r < 0)
      return -1;
    if (r == 0) {
      if (in->start == in->end && !in->dropped)
        return 0;
      *line = in->buf + in->start;
      *len = in->dropped + (in->end - in->start);
      *flags = IPS__LINE_NOEOL |
               (*len > in->max_line ? IPS__LINE_TOOLONG : 0);
      in->start = in->end;
      in->lineno++;
      in->dropped = 0;
      return 1;
    }
  }
}

void ips__slog_hold(ips__slog_in_t *in) { in->hold = 1; }

char *ips__slog_detach(ips__slog_in_t *in, char *fresh, size_t *cap) {
  size_t unread = in->end - in->start, fcap = *cap;
  char *old = in->buf;
  if (in->map)
    return fresh; /* the lines are in the map: nothing to hand over */
  if (fcap > IPS__SLOG_BUF && unread + CHUNK <= IPS__SLOG_BUF) {
    /* Grown for a long line once: not kept at that size. */
    char *nb = realloc(fresh, IPS__SLOG_BUF);
    if (nb) {
      fresh = nb;
      fcap = IPS__SLOG_BUF;
    }
  }
  if (fcap < unread + CHUNK) {
    char *nb = realloc(fresh, unread + CHUNK);
    if (!nb)
      return NULL;
    fresh = nb;
    fcap = unread + CHUNK;
  }
  memcpy(fresh, in->buf + in->start, unread);
  *cap = in->cap;
  in->buf = fresh;
  in->cap = fcap;
  in->start = 0;
  in->end = unread;
  return old;
}

long ips__slog_lineno(const ips__slog_in_t *in) { return in->lineno; }

void ips__slog_progress(const ips__slog_in_t *in, uint64_t *done,
                        uint64_t *total) {
  long off;
  if (in->fr) {
    ips__flight_progress(in->fr, done, total);
    return;
  }
  if (in->map) {
    *done = in->map_pos;
    *total = in->map_len;
    return;
  }
  off = gzoffset(in->gz);
  *done = off > 0 ? (uint64_t)off : 0;
  *total = in->total;
}

void ips__slog_close(ips__slog_in_t *in) {
  if (!in)
    return;
  if (in->fr) {
    ips__flight_close(in->fr);
    close(in->fd);
  } else {
    gzclose(in->gz); /* closes fd */
  }
  /* Only what is still ours: the pages released before may hold another
   * mapping by now. */
  if (in->map && in->map_freed < in->map_len)
    munmap((void *)(in->map + in->map_freed), in->map_len - in->map_freed);
  free(in->buf);
  free(in->follow);
  free(in->path);
  free(in);
}
