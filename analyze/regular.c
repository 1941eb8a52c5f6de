/* regular.c — a path opened only when it names a regular file
 * (regular.h, ips_open_regular() in ipcstamp-analyze.h): one guard for the
 * follow path's reopen (slog_read.c), the ring reader (ring_open.c) and
 * the files of a node's tree that `ipcstamp xsnap` swaps. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "ipcstamp-analyze.h"
#include "regular.h"

const char *ips__file_kind(mode_t m) {
  return S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m) || S_ISBLK(m) ? "a device"
         : S_ISDIR(m) ? "a directory"
         : S_ISSOCK(m) ? "a socket"
         : S_ISLNK(m) ? "a symbolic link"
                      : "not a regular file";
}

const char *ips_file_kind(unsigned mode) { return ips__file_kind(mode); }

/* The one check: path (not followed with nofollow) is a regular file
 * before the open, and what was opened is one after it. */
static int open_checked(const char *path, int rw, int nofollow,
                        int *writable, struct stat *st) {
  const int flags = O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
                    (nofollow ? O_NOFOLLOW : 0);
  int fd = -1, e;
  if (writable)
    *writable = 0;
  if ((nofollow ? lstat(path, st) : stat(path, st)) != 0)
    return -1;
  if (!S_ISREG(st->st_mode))
    return -2;
  if (rw && (fd = open(path, O_RDWR | flags)) >= 0 && writable)
    *writable = 1;
  if (fd < 0 && (fd = open(path, O_RDONLY | flags)) < 0) {
    /* Swapped for a link between the lstat and the open. */
    if (errno == ELOOP && nofollow && lstat(path, st) == 0 &&
        !S_ISREG(st->st_mode))
      return -2;
    return -1;
  }
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

int ips__open_regular(const char *path, int rw, int *writable,
                      struct stat *st) {
  return open_checked(path, rw, 0, writable, st);
}

int ips_open_regular(const char *path, unsigned flags, struct stat *st) {
  return open_checked(path, 0, (flags & IPS_OPEN_NOFOLLOW) != 0, NULL, st);
}
