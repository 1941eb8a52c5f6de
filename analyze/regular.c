/* regular.c — a path opened only when it names a regular file
 * (regular.h): one guard for the follow path's reopen (slog_read.c) and
 * the ring reader (ring_open.c). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "regular.h"

const char *ips__file_kind(mode_t m) {
  return S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m) || S_ISBLK(m) ? "a device"
         : S_ISDIR(m) ? "a directory"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

int ips__open_regular(const char *path, int rw, int *writable,
                      struct stat *st) {
  const int flags = O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  int fd = -1, e;
  if (writable)
    *writable = 0;
  if (stat(path, st) != 0)
    return -1;
  if (!S_ISREG(st->st_mode))
    return -2;
  if (rw && (fd = open(path, O_RDWR | flags)) >= 0 && writable)
    *writable = 1;
  if (fd < 0 && (fd = open(path, O_RDONLY | flags)) < 0)
    return -1;
  if (fstat(fd, st) != 0) {
    e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    close(fd);
    return -2;
  }
  return fd;
}
