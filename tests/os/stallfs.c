/* stallfs.c — a test-only FUSE file system whose fsync stalls
 * (tests/os/causes.test).
 *
 *   stallfs BACKING MOUNTPOINT HOLD_MS [CONTROL]
 *
 * Mounts BACKING at MOUNTPOINT (in the foreground, until unmounted):
 * every operation passes through to BACKING, except that fsync,
 * fdatasync and a directory's fsync hold the caller HOLD_MS milliseconds
 * before they sync, as a slow or saturated disk would; with CONTROL (a
 * path outside the mount), only while that file exists, so that a test
 * makes one commit stall and leaves the others alone
 * (tests/os/always-swingset.test).  The test asserts
 * only which part of a block's time is largest, never how long anything
 * took.  Built by the test with libfuse3 (Debian libfuse3-dev). */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static const char *backing, *control;
static long hold_ms;

/* The path in BACKING, in buf; -ENAMETOOLONG when it does not fit. */
static int real(char buf[PATH_MAX], const char *path) {
  int n = snprintf(buf, PATH_MAX, "%s%s", backing, path);
  return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

#define REAL(p)                                                     \
  char r_[PATH_MAX];                                                \
  int e_ = real(r_, (p));                                           \
  if (e_)                                                           \
    return e_

static int ret(int rc) { return rc < 0 ? -errno : rc; }

static int fs_getattr(const char *p, struct stat *st,
                      struct fuse_file_info *fi) {
  if (fi)
    return ret(fstat((int)fi->fh, st));
  REAL(p);
  return ret(lstat(r_, st));
}

static int fs_access(const char *p, int mode) {
  REAL(p);
  return ret(access(r_, mode));
}

static int fs_readdir(const char *p, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags fl) {
  DIR *d;
  struct dirent *e;
  REAL(p);
  (void)off, (void)fi, (void)fl;
  if (!(d = opendir(r_)))
    return -errno;
  while ((e = readdir(d)))
    if (fill(buf, e->d_name, NULL, 0, 0))
      break;
  closedir(d);
  return 0;
}

static int fs_mkdir(const char *p, mode_t m) {
  REAL(p);
  return ret(mkdir(r_, m));
}

static int fs_rmdir(const char *p) {
  REAL(p);
  return ret(rmdir(r_));
}

static int fs_unlink(const char *p) {
  REAL(p);
  return ret(unlink(r_));
}

static int fs_rename(const char *from, const char *to, unsigned int flags) {
  char t[PATH_MAX];
  REAL(from);
  if (flags)
    return -EINVAL;
  if ((e_ = real(t, to)))
    return e_;
  return ret(rename(r_, t));
}

static int fs_truncate(const char *p, off_t size, struct fuse_file_info *fi) {
  if (fi)
    return ret(ftruncate((int)fi->fh, size));
  {
    REAL(p);
    return ret(truncate(r_, size));
  }
}

static int fs_chmod(const char *p, mode_t m, struct fuse_file_info *fi) {
  if (fi)
    return ret(fchmod((int)fi->fh, m));
  {
    REAL(p);
    return ret(chmod(r_, m));
  }
}

static int fs_utimens(const char *p, const struct timespec tv[2],
                      struct fuse_file_info *fi) {
  if (fi)
    return ret(futimens((int)fi->fh, tv));
  {
    REAL(p);
    return ret(utimensat(AT_FDCWD, r_, tv, AT_SYMLINK_NOFOLLOW));
  }
}

static int fs_create(const char *p, mode_t m, struct fuse_file_info *fi) {
  int fd;
  REAL(p);
  if ((fd = open(r_, fi->flags, m)) < 0)
    return -errno;
  fi->fh = (uint64_t)fd;
  return 0;
}

static int fs_open(const char *p, struct fuse_file_info *fi) {
  int fd;
  REAL(p);
  if ((fd = open(r_, fi->flags)) < 0)
    return -errno;
  fi->fh = (uint64_t)fd;
  return 0;
}

static int fs_read(const char *p, char *buf, size_t n, off_t off,
                   struct fuse_file_info *fi) {
  (void)p;
  return ret((int)pread((int)fi->fh, buf, n, off));
}

static int fs_write(const char *p, const char *buf, size_t n, off_t off,
                    struct fuse_file_info *fi) {
  (void)p;
  return ret((int)pwrite((int)fi->fh, buf, n, off));
}

static int fs_statfs(const char *p, struct statvfs *st) {
  REAL(p);
  return ret(statvfs(r_, st));
}

static int fs_release(const char *p, struct fuse_file_info *fi) {
  (void)p;
  close((int)fi->fh);
  return 0;
}

/* The stall: the caller's fsync waits here, as on a saturated disk. */
static void hold(void) {
  struct timespec ts = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
  if (control && access(control, F_OK) != 0)
    return;
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

static int fs_fsync(const char *p, int datasync, struct fuse_file_info *fi) {
  (void)p;
  hold();
  return ret(datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh));
}

static int fs_fsyncdir(const char *p, int datasync, struct fuse_file_info *fi) {
  (void)datasync, (void)fi;
  hold();
  {
    int fd, rc;
    REAL(p);
    if ((fd = open(r_, O_RDONLY | O_DIRECTORY)) < 0)
      return -errno;
    rc = ret(fsync(fd));
    close(fd);
    return rc;
  }
}

static const struct fuse_operations ops = {
    .getattr = fs_getattr, .access = fs_access, .readdir = fs_readdir,
    .mkdir = fs_mkdir, .rmdir = fs_rmdir, .unlink = fs_unlink,
    .rename = fs_rename, .truncate = fs_truncate, .chmod = fs_chmod,
    .utimens = fs_utimens, .create = fs_create, .open = fs_open,
    .read = fs_read, .write = fs_write, .statfs = fs_statfs,
    .release = fs_release, .fsync = fs_fsync, .fsyncdir = fs_fsyncdir,
};

int main(int argc, char **argv) {
  char *end;
  char *fargv[] = {argv[0], "-f", "-o", "default_permissions", NULL, NULL};
  if ((argc != 4 && argc != 5) ||
      (hold_ms = strtol(argv[3], &end, 10)) < 0 || *end || hold_ms > 60000) {
    fprintf(stderr, "usage: stallfs BACKING MOUNTPOINT HOLD_MS (0..60000) "
                    "[CONTROL]\n");
    return 2;
  }
  control = argc == 5 ? argv[4] : NULL;
  backing = argv[1];
  fargv[4] = argv[2];
  return fuse_main(5, fargv, &ops, NULL);
}
