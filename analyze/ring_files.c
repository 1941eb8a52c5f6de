/* ring_files.c — a ring directory's files: which names are rings, whose
 * writers are dead, a ring's text made printable, and the removal of dead
 * writers' rings (`ipcstamp top --clean`, docs/cli.md); ring_dir.c reads
 * the directory with these.  A ring stays after its process ends so
 * that a reader can see how it ended; a busy machine gathers 1 MiB files
 * that nobody will read again, hence the cleaning. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ipcstamp-analyze.h"

void ips_ring_printable(char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
      *s = '?';
}

long ips_ring_name_pid(const char *name) {
  long pid = 0;
  const char *s = name;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (pid > 100000000L) return -1;
    pid = pid * 10 + (*s - '0');
  }
  if (s == name || strcmp(s, ".ring") != 0 || pid <= 0) return -1;
  return pid;
}

/* Whether process pid maps the file (dev, ino): 1 yes, 0 no, -1 when its
 * mappings cannot be read. */
static int maps_file(long pid, dev_t dev, ino_t ino) {
  char path[64], line[4608];
  FILE *f;
  int found = 0;
  snprintf(path, sizeof path, "/proc/%ld/maps", pid);
  if (!(f = fopen(path, "r")))
    return -1;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned maj, min;
    unsigned long long inode;
    /* "start-end perms offset maj:min inode path"; a line longer than
     * the buffer goes on in the next read, which does not parse. */
    if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu", &maj, &min, &inode) == 3)
      found = inode == (unsigned long long)ino && makedev(maj, min) == dev;
  }
  fclose(f);
  return found;
}

int ips_ring_writer_dead(const char *path, long pid) {
  struct stat st;
  if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
    return 1;
  /* Someone has the pid: the writer only if it maps the ring (a producer
   * keeps it mapped until it closes it, at its end). */
  if (stat(path, &st) != 0)
    return 0;
  return maps_file(pid, st.st_dev, st.st_ino) == 0;
}

int ips_ring_dir_clean(const char *dir, FILE *out, size_t *removed, size_t *kept,
              char *msg, size_t size) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int rc = 0;
  *removed = *kept = 0;
  if (!d) {
    rc = -errno;
    snprintf(msg, size, "cannot read the directory %s: %s", dir,
             strerror(errno));
    return rc;
  }
  while ((e = readdir(d)) != NULL) {
    long pid = ips_ring_name_pid(e->d_name);
    char path[4400], why[256];
    struct stat before, now;
    ips_ring_reader_t *r;
    ips_ring_info_t info;
    int dead;
    if (pid <= 0)
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    /* Only a regular file at the name (not what a link points to) that
     * opens as a ring of the pid it is named for. */
    if (fstatat(dirfd(d), e->d_name, &before, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(before.st_mode)) {
      fprintf(out, "kept %s: not a regular file\n", path);
      (*kept)++;
      continue;
    }
    if (ips_ring_reader_open(&r, path, why, sizeof why) != 0) {
      fprintf(out, "kept %s: not a ring this reader can check (%s)\n", path,
              why);
      (*kept)++;
      continue;
    }
    if (ips_ring_reader_info(r, &info) != 0 || info.pid != pid) {
      fprintf(out, "kept %s: its header names another process\n", path);
      ips_ring_reader_close(r);
      (*kept)++;
      continue;
    }
    ips_ring_reader_close(r);
    ips_ring_printable(info.program);
    ips_ring_printable(info.vat);
    dead = ips_ring_writer_dead(path, pid);
    if (!dead) {
      fprintf(out, "kept %s: %s (pid %ld) is running\n", path,
              info.program[0] ? info.program : "its writer", pid);
      (*kept)++;
      continue;
    }
    /* The file checked is the one removed: not another put there since. */
    if (fstatat(dirfd(d), e->d_name, &now, AT_SYMLINK_NOFOLLOW) != 0 ||
        now.st_dev != before.st_dev || now.st_ino != before.st_ino ||
        unlinkat(dirfd(d), e->d_name, 0) != 0) {
      int err = errno ? errno : EAGAIN;
      if (rc == 0) {
        rc = -err;
        snprintf(msg, size, "cannot remove %s: %s", path, strerror(err));
      }
      fprintf(out, "kept %s: cannot remove it: %s\n", path, strerror(err));
      (*kept)++;
      continue;
    }
    fprintf(out, "removed %s (%s%s%s, pid %ld, exited)\n", path,
            info.program[0] ? info.program : "?", info.vat[0] ? " " : "",
            info.vat, pid);
    (*removed)++;
  }
  closedir(d);
  return rc;
}
