/* flight.c — Agoric's flight recorder file as a stream of slog lines.
 *
 * agd keeps the last part of its slog in flight-recorder.bin
 * (docs/flight-recorder.md): a 32-byte header of four big-endian u64 (the
 * magic "AG-SLOG!", the arena's size, where the oldest record starts and
 * where the newest ends, both offsets into the arena), then the arena, a
 * circular buffer of records, each a big-endian u64 length and that many
 * bytes: "\n" and one JSON object.  A record may wrap around the arena's
 * end.
 *
 * The reader turns the records, oldest first, into the bytes of a JSON
 * lines file ("JSON\n" per record), so that everything after it (lines,
 * --max-line, the read-ahead thread, the parsers) is the slogfile reader's
 * and record N is line N.  The file is untrusted: every length is checked
 * against the recorded region before anything is read, and nothing is
 * allocated after opening.  It reads what the header said at opening (a
 * recorder still writing adds records after that point, which are not
 * read), and notices when the recorder has dropped the records it was
 * reading to make room for new ones.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slog.h"

#define HEADER 32u

struct ips__flight {
  int fd;
  uint64_t arena;     /* size of the circular buffer */
  uint64_t start;     /* the oldest record, when opened */
  uint64_t used;      /* bytes of records between start and end */
  uint64_t pos;       /* bytes of the region consumed so far */
  uint64_t rec_left;  /* bytes of the current record still to copy */
  uint64_t rec_start; /* pos of the current record's header */
  long record;        /* 1-based number of the current record */
  int in_record;      /* copying a record's data */
  int first;          /* the next byte is the record's first */
  int nl_due;         /* the record's closing newline is still to write */
  int failed;         /* the fault below is returned by the next call */
  char msg[200];
};

static uint64_t be64(const unsigned char *b) {
  uint64_t v = 0;
  int i;
  for (i = 0; i < 8; i++)
    v = v << 8 | b[i];
  return v;
}

/* n bytes of the file at off, all of them, or -1. */
static int pread_all(int fd, void *buf, size_t n, uint64_t off) {
  char *p = buf;
  while (n > 0) {
    ssize_t r = pread(fd, p, n, (off_t)off);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      if (r == 0)
        errno = 0; /* the file ends first: no system error to name */
      return -1;
    }
    p += r;
    n -= (size_t)r;
    off += (uint64_t)r;
  }
  return 0;
}

/* n bytes of the region from pos (relative to the oldest record), across
 * the arena's end if they wrap. */
static int circ_read(ips__flight_t *f, uint64_t pos, void *buf, size_t n) {
  uint64_t at = (f->start + pos) % f->arena;
  size_t first = n;
  if (at + n > f->arena)
    first = (size_t)(f->arena - at);
  if (pread_all(f->fd, buf, first, HEADER + at) < 0)
    return -1;
  if (first < n &&
      pread_all(f->fd, (char *)buf + first, n - first, HEADER) < 0)
    return -1;
  return 0;
}

int ips__flight_open(int fd, ips__flight_t **out, char *err, size_t errlen) {
  unsigned char h[HEADER];
  struct stat st;
  uint64_t arena, start, end;
  ips__flight_t *f;
  *out = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size < (off_t)HEADER || pread_all(fd, h, HEADER, 0) < 0 ||
      memcmp(h, "AG-SLOG!", 8))
    return 0; /* not a flight recorder: read as a slogfile */
  arena = be64(h + 8);
  start = be64(h + 16);
  end = be64(h + 24);
  if (arena == 0 || arena > (uint64_t)st.st_size - HEADER) {
    snprintf(err, errlen,
             "flight recorder header: arena of %llu bytes, but the file "
             "has %llu after its header",
             (unsigned long long)arena,
             (unsigned long long)((uint64_t)st.st_size - HEADER));
    return -1;
  }
  if (start >= arena || end >= arena) {
    snprintf(err, errlen,
             "flight recorder header: start %llu or end %llu is past the "
             "arena's %llu bytes",
             (unsigned long long)start, (unsigned long long)end,
             (unsigned long long)arena);
    return -1;
  }
  f = calloc(1, sizeof *f);
  if (!f) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  f->fd = fd;
  f->arena = arena;
  f->start = start;
  f->used = end >= start ? end - start : arena - start + end;
  *out = f;
  return 1;
}

/* Whether the recorder has dropped the record at rec_start since we
 * opened: its oldest record has moved past it. */
static int lapped(ips__flight_t *f) {
  unsigned char b[8];
  uint64_t now, moved;
  if (pread_all(f->fd, b, 8, 16) < 0)
    return 0;
  now = be64(b);
  if (now >= f->arena)
    return 1;
  moved = (now + f->arena - f->start) % f->arena;
  return moved > f->rec_start;
}

static long records(ips__flight_t *f, char *buf, size_t cap, size_t *np);

long ips__flight_read(ips__flight_t *f, char *buf, size_t cap, char *err,
                      size_t errlen) {
  size_t n = 0;
  if (!f->failed && records(f, buf, cap, &n) < 0)
    f->failed = 1;
  /* The records before a fault are read first; the fault comes next. */
  if (n > 0)
    return (long)n;
  if (f->failed) {
    snprintf(err, errlen, "%s", f->msg);
    return -1;
  }
  return 0;
}

/* A read of the recorded data failed: the fault into f->msg; -1. */
static int read_error(ips__flight_t *f) {
  snprintf(f->msg, sizeof f->msg, "flight recorder record %ld: read error: "
           "%s", f->record, errno ? strerror(errno) : "the file is shorter");
  return -1;
}

/* The next record's 8-byte length at f->pos: 1 when read (the record is
 * open), 0 when the data ends, -1 on a fault (described in f->msg). */
static int record_head(ips__flight_t *f) {
  unsigned char b[8];
  uint64_t len;
  if (f->pos == f->used)
    return 0;
  f->record++;
  f->rec_start = f->pos;
  if (f->used - f->pos < 8) {
    snprintf(f->msg, sizeof f->msg,
             "flight recorder record %ld: %llu bytes left, too few for "
             "its length",
             f->record, (unsigned long long)(f->used - f->pos));
    return -1;
  }
  if (circ_read(f, f->pos, b, 8) < 0)
    return read_error(f);
  len = be64(b);
  if (len > f->used - f->pos - 8) {
    snprintf(f->msg, sizeof f->msg,
             "flight recorder record %ld: length %llu runs past the "
             "recorded data (%llu bytes left)",
             f->record, (unsigned long long)len,
             (unsigned long long)(f->used - f->pos - 8));
    return -1;
  }
  f->pos += 8;
  f->rec_left = len;
  f->in_record = 1;
  f->first = 1;
  return 1;
}

/* Copies records into buf until it is full or they end (*np bytes);
 * returns -1 on a fault, described in f->msg. */
static long records(ips__flight_t *f, char *buf, size_t cap, size_t *np) {
  size_t n = 0;
  char *err = f->msg;
  size_t errlen = sizeof f->msg;
  while (n < cap) {
    if (f->nl_due) {
      buf[n++] = '\n';
      f->nl_due = 0;
      continue;
    }
    if (!f->in_record) {
      int rc = record_head(f);
      if (rc < 0) {
        *np = n;
        return -1;
      }
      if (rc == 0)
        break;
      continue;
    }
    if (f->rec_left > 0) {
      size_t k = cap - n;
      if (k > f->rec_left)
        k = (size_t)f->rec_left;
      if (circ_read(f, f->pos, buf + n, k) < 0)
        goto read_error;
      f->pos += k;
      f->rec_left -= k;
      /* Each record's data starts with a newline: the line ends with it
       * instead. */
      if (f->first && buf[n] == '\n') {
        memmove(buf + n, buf + n + 1, k - 1);
        k--;
      }
      f->first = 0;
      /* Record N is line N: a raw newline inside a record would split it
       * and shift every later line number.  It becomes a CR, which JSON
       * takes exactly as it takes a newline (whitespace between tokens,
       * invalid inside a string). */
      {
        char *q = buf + n, *end = buf + n + k;
        while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL)
          *q++ = '\r';
      }
      n += k;
    }
    if (f->rec_left == 0) {
      if (lapped(f)) {
        *np = n;
        snprintf(err, errlen,
                 "flight recorder record %ld: overwritten by the recorder "
                 "while it was read",
                 f->record);
        return -1;
      }
      f->in_record = 0;
      f->nl_due = 1;
    }
  }
  *np = n;
  return 0;
read_error:
  *np = n;
  return read_error(f);
}

void ips__flight_progress(const ips__flight_t *f, uint64_t *done,
                          uint64_t *total) {
  *done = f->pos;
  *total = f->used;
}

void ips__flight_close(ips__flight_t *f) { free(f); }
