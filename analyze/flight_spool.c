/* flight_spool.c — a flight recorder that cannot be read by offset (gzipped,
 * or on a pipe) copied into an unlinked temporary file that can: its
 * records wrap around the arena, so flight.c reads it by offset.  Bounded
 * (FLIGHT_GZ_MAX), so that a small file claiming more cannot fill the
 * disk. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "flight_spool.h"
#include "slog.h"

/* The largest arena a gzipped flight recorder is unpacked for (Agoric's
 * default is 100 MiB): a small file claiming more cannot fill the disk. */
#define FLIGHT_GZ_MAX ((uint64_t)4 << 30)

static int write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Copies a flight recorder into an unlinked file in $TMPDIR (or /tmp),
 * gone when closed: its first nhead bytes (at least its 32-byte header)
 * are head, the rest comes from g, and at most the header and the arena
 * it names are copied (above FLIGHT_GZ_MAX it is refused).  The reason:
 * its records wrap around the arena, so flight.c reads it by offset,
 * which neither a gzip stream nor a pipe can give.  buf (cap bytes) is
 * the scratch buffer (head may lie in it: it is written first).  Returns the
 * file, or -1 with a message about name. */
int ips__flight_spool(gzFile g, const char *head, size_t nhead, char *buf,
                      size_t cap, const char *name, char *err,
                      size_t errlen) {
  char tpl[4096];
  const char *dir = getenv("TMPDIR");
  uint64_t arena = 0, want, done;
  int i, tmp, zerr;
  for (i = 8; i < 16; i++)
    arena = arena << 8 | (unsigned char)head[i];
  if (arena > FLIGHT_GZ_MAX) {
    snprintf(err, errlen,
             "%s: flight recorder with an arena of %llu bytes: more than "
             "the %llu copied here; give it as a plain file",
             name, (unsigned long long)arena,
             (unsigned long long)FLIGHT_GZ_MAX);
    return -1;
  }
  want = 32 + arena;
  snprintf(tpl, sizeof tpl, "%s/ipcstamp-flight-XXXXXX",
           dir && *dir ? dir : "/tmp");
  if ((tmp = mkostemp(tpl, O_CLOEXEC)) < 0) {
    snprintf(err, errlen, "%s: cannot copy it into %s: %s", name, tpl,
             strerror(errno));
    return -1;
  }
  unlink(tpl);
  done = nhead < want ? nhead : want;
  if (write_all(tmp, head, (size_t)done) < 0)
    goto write_error;
  while (done < want) {
    size_t ask = want - done < cap ? (size_t)(want - done) : cap;
    int n = gzread(g, buf, (unsigned)ask);
    if (n < 0 || (n == 0 && (gzerror(g, &zerr), zerr != Z_OK))) {
      const char *m = gzerror(g, &zerr);
      snprintf(err, errlen, "%s: gzip input is %s after %llu bytes", name,
               zerr == Z_BUF_ERROR ? "truncated" : m,
               (unsigned long long)done);
      close(tmp);
      return -1;
    }
    if (n == 0)
      break; /* shorter than its arena: flight.c says so */
    if (write_all(tmp, buf, (size_t)n) < 0)
      goto write_error;
    done += (uint64_t)n;
  }
  return tmp;
write_error:
  snprintf(err, errlen, "%s: cannot copy it into %s: %s", name,
           dir && *dir ? dir : "/tmp", strerror(errno));
  close(tmp);
  return -1;
}

int ips__flight_unpack(int *fd, char *buf, size_t cap, const char *path,
                       char *err, size_t errlen) {
  unsigned char h[32];
  int d, r, tmp;
  gzFile g;
  if (pread(*fd, h, 2, 0) != 2 || h[0] != 0x1f || h[1] != 0x8b)
    return 0;
  /* A dup, so that closing the peek leaves *fd open (its offset is
   * shared, and put back). */
  if ((d = dup(*fd)) < 0)
    return 0;
  if (!(g = gzdopen(d, "rb"))) {
    close(d);
    return 0;
  }
  r = gzread(g, h, sizeof h);
  if (r < 8 || memcmp(h, "AG-SLOG!", 8)) {
    gzclose(g);
    if (lseek(*fd, 0, SEEK_SET) == 0)
      return 0;
    snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
    return -1;
  }
  if (r < (int)sizeof h) {
    snprintf(err, errlen,
             "%s: gzipped flight recorder: its header ends after %d of 32 "
             "bytes",
             path, r);
    gzclose(g);
    return -1;
  }
  tmp = ips__flight_spool(g, (const char *)h, sizeof h, buf, cap, path, err,
                          errlen);
  gzclose(g);
  if (tmp < 0)
    return -1;
  close(*fd);
  *fd = tmp;
  return 1;
}

