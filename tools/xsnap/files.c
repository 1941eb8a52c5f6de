/* files.c — the files of a node's tree that `ipcstamp xsnap` reads and
 * replaces (xsnap.h).  Anyone who can write the package's folder may have
 * planted a link, a FIFO or a device under the names it uses, or may run
 * a second `ipcstamp xsnap` at the same time: nothing here follows a link
 * in the tree, waits on an open, or reuses a temporary name, and every
 * change of the tree is a rename of a new, verified file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipcstamp-analyze.h"
#include "xsnap.h"

/* The rest of fd (at most XS_MAX_BIN bytes, its size known), NUL-ended. */
static int read_fd(int fd, size_t size, xs_bytes_t *b) {
  size_t n = 0;
  char *buf = malloc(size + 1);
  if (!buf) return ENOMEM;
  while (n < size) {
    ssize_t k = read(fd, buf + n, size - n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      int e = k < 0 ? errno : EIO; /* cut while being read */
      free(buf);
      return e;
    }
    n += (size_t)k;
  }
  buf[n] = '\0';
  b->data = buf;
  b->len = n;
  return 0;
}

int xs_read(const char *path, int nofollow, xs_bytes_t *b, char *why,
            size_t size) {
  struct stat st;
  int fd, e;
  b->data = NULL;
  b->len = 0;
  fd = ips_open_regular(path, nofollow ? IPS_OPEN_NOFOLLOW : 0, &st);
  if (fd == -2) {
    snprintf(why, size, "%s, not %s", ips_file_kind(st.st_mode),
             S_ISLNK(st.st_mode) ? "followed" : "read");
    return XS_READ_NOT_FILE;
  }
  if (fd < 0) {
    e = errno;
    snprintf(why, size, "%s", strerror(e));
    return e == ENOENT ? XS_READ_MISSING : XS_READ_ERROR;
  }
  if ((uint64_t)st.st_size > XS_MAX_BIN) {
    snprintf(why, size, "%lld bytes: more than a worker binary can be (%u)",
             (long long)st.st_size, XS_MAX_BIN);
    close(fd);
    return XS_READ_ERROR;
  }
  e = read_fd(fd, (size_t)st.st_size, b);
  close(fd);
  if (e) {
    snprintf(why, size, "%s", e == EIO ? "cut short while being read" : strerror(e));
    return XS_READ_ERROR;
  }
  return XS_READ_OK;
}

/* Write all of data to fd. */
static int write_all(int fd, const char *data, size_t len) {
  size_t off = 0;
  while (off < len) {
    ssize_t k = write(fd, data + off, len - off);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno;
    off += (size_t)k;
  }
  return 0;
}

/* fd's content from its start equals data (len bytes). */
static int same_content(int fd, const char *data, size_t len) {
  xs_bytes_t b;
  struct stat st;
  int same;
  if (fstat(fd, &st) != 0 || st.st_size != (off_t)len) return 0;
  if (lseek(fd, 0, SEEK_SET) != 0 || read_fd(fd, len, &b) != 0) return 0;
  same = memcmp(b.data, data, len) == 0;
  free(b.data);
  return same;
}

/* Sync the folder of path, so that a rename in it survives a crash. */
static void sync_dir(const char *path) {
  char *copy = strdup(path);
  int fd;
  if (!copy) return;
  fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    (void)fsync(fd);
    close(fd);
  }
  free(copy);
}

int xs_put(const char *path, const char *data, size_t len, mode_t mode,
           const char **what) {
  char *tmp;
  int fd, e = 0;
  *what = "write";
  if (!(tmp = malloc(strlen(path) + 32))) return ENOMEM;
  sprintf(tmp, "%s.ipcstamp-tmp.XXXXXX", path);
  if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
    e = errno;
    free(tmp);
    return e;
  }
  if ((e = write_all(fd, data, len)) == 0 && (fsync(fd) != 0 || fchmod(fd, mode) != 0))
    e = errno;
  if (e == 0 && !same_content(fd, data, len)) {
    *what = "verify";
    e = EIO;
  }
  if (close(fd) != 0 && e == 0) e = errno;
  if (e == 0 && rename(tmp, path) != 0) {
    *what = "rename";
    e = errno;
  }
  if (e != 0)
    unlink(tmp);
  else
    sync_dir(path);
  free(tmp);
  return e;
}

int xs_lock(const char *path, char *why, size_t size) {
  struct stat st;
  int fd;
  /* What is there is looked at before it is opened: opening a device may
   * do anything, and a FIFO's open may wait. */
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    snprintf(why, size, "it is %s, not a lock file of ours", ips_file_kind(st.st_mode));
    return -1;
  }
  fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    snprintf(why, size, "%s", e == ELOOP ? "it is a symbolic link, not followed"
                                         : strerror(e));
    return e == EROFS || e == EACCES || e == EPERM || e == ENOSPC || e == EDQUOT
               ? XS_LOCK_UNWRITABLE : -1;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(why, size, "it is not a regular file");
    close(fd);
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    snprintf(why, size, "%s", errno == EWOULDBLOCK
                                  ? "another 'ipcstamp xsnap' is changing this package now"
                                  : strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}
