/* outfile.c — where the commands' output goes (`-o FILE` or stdout), and
 * the check, at the end, that all of it was written.
 *
 * A regular file named by -o is written under a temporary name beside it
 * and renamed over it at the end: a run whose input cannot even be opened
 * leaves the user's previous FILE as it was, and nobody reads half a
 * report under FILE's name.  Following (--follow), the rename comes as
 * soon as the input is open, so that FILE can be watched as it grows. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The outputs under a temporary name: a command has one, a few spare. */
#define PENDING_MAX 4
typedef struct {
  FILE *f;
  char *tmp;  /* the temporary name, NULL once renamed */
  char *path; /* the name the user gave */
  char prog[32];
} pending_t;
static pending_t pending[PENDING_MAX];
static int stdout_said; /* stdout's write error already said */

static pending_t *pending_of(FILE *f) {
  size_t i;
  for (i = 0; i < PENDING_MAX; i++) /* f NULL: a free one */
    if (pending[i].f == f && (f || !pending[i].path))
      return &pending[i];
  return NULL;
}

static void pending_drop(pending_t *p) {
  free(p->tmp);
  free(p->path);
  memset(p, 0, sizeof *p);
}

static void cannot_write(const char *prog, const char *path, const char *why) {
  fprintf(stderr, "ipcstamp %s: cannot write %s: %s\n", prog, path, why);
}

/* The temporary beside path, with mode (the replaced file's, or 0644
 * less the umask for a new one).  NULL with errno set. */
static FILE *open_temp(const char *path, mode_t mode, char **tmp) {
  static const char suffix[] = ".ipcstamp-XXXXXX";
  size_t n = strlen(path);
  FILE *f;
  int fd;
  if (!(*tmp = malloc(n + sizeof suffix)))
    return NULL;
  memcpy(*tmp, path, n);
  memcpy(*tmp + n, suffix, sizeof suffix);
  fd = mkostemp(*tmp, O_CLOEXEC);
  if (fd < 0) {
    free(*tmp);
    *tmp = NULL;
    return NULL;
  }
  if (fchmod(fd, mode) != 0 || !(f = fdopen(fd, "w"))) {
    int e = errno;
    close(fd);
    unlink(*tmp);
    free(*tmp);
    *tmp = NULL;
    errno = e;
    return NULL;
  }
  return f;
}

static mode_t new_file_mode(void) {
  mode_t mask = umask(022);
  umask(mask);
  return 0644 & ~mask;
}

FILE *cli_create(const char *path, const char *prog) {
  struct stat st;
  pending_t *p = pending_of(NULL);
  mode_t mode;
  FILE *f;
  /* Opened for writing without O_CREAT or O_TRUNC: a link is refused, a
   * file that cannot be written said now, and nothing is emptied. */
  int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
                          O_NONBLOCK);
  if (fd < 0 && errno != ENOENT) {
    cannot_write(prog, path,
                 errno == ELOOP ? "it is a symbolic link, not followed (name "
                                  "the file it points to)"
                                : strerror(errno));
    return NULL;
  }
  if (fd >= 0 && fstat(fd, &st) != 0) {
    cannot_write(prog, path, strerror(errno));
    close(fd);
    return NULL;
  }
  if (!p || !(p->path = strdup(path))) {
    cannot_write(prog, path, p ? strerror(ENOMEM) : "too many outputs at once");
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  if (fd >= 0 && !S_ISREG(st.st_mode)) { /* a FIFO or device: as it is */
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
        !(f = fdopen(fd, "w"))) {
      cannot_write(prog, path, strerror(errno));
      close(fd);
      pending_drop(p);
      return NULL;
    }
  } else {
    mode = fd >= 0 ? st.st_mode & 07777 : new_file_mode();
    if (fd >= 0)
      close(fd);
    if (!(f = open_temp(path, mode, &p->tmp))) {
      cannot_write(prog, path, strerror(errno));
      pending_drop(p);
      return NULL;
    }
  }
  p->f = f;
  snprintf(p->prog, sizeof p->prog, "%s", prog);
  return f;
}

FILE *cli_output(const char *path, const char *prog) {
  return path && strcmp(path, "-") ? cli_create(path, prog) : stdout;
}

void cli_output_publish(void) {
  size_t i;
  for (i = 0; i < PENDING_MAX; i++) {
    pending_t *p = &pending[i];
    if (!p->f || !p->tmp)
      continue;
    if (rename(p->tmp, p->path) == 0) {
      free(p->tmp);
      p->tmp = NULL;
    }
    /* else: said by cli_output_close, which tries again */
  }
}

/* Flushes f: 0, or -1 with why it failed (a write that failed earlier
 * left its error flag, and perhaps no errno). */
static int flush_check(FILE *f, const char **why) {
  errno = 0;
  if (fflush(f) != 0) {
    *why = strerror(errno ? errno : EIO);
    return -1;
  }
  if (ferror(f)) {
    *why = "a write failed";
    return -1;
  }
  return 0;
}

int cli_stdout_close(const char *prog) {
  const char *why;
  if (flush_check(stdout, &why) == 0)
    return 0;
  if (!stdout_said)
    fprintf(stderr, "ipcstamp%s%s: cannot write the standard output: %s\n",
            *prog ? " " : "", prog, why);
  stdout_said = 1;
  return -1;
}

int cli_output_close(FILE *f, const char *prog, int keep) {
  pending_t *p;
  const char *why = NULL;
  int failed;
  if (f == stdout)
    return cli_stdout_close(prog);
  p = pending_of(f);
  failed = flush_check(f, &why) != 0;
  if (fclose(f) != 0 && !failed) {
    failed = 1;
    why = strerror(errno);
  }
  if (!p) /* not ours: nothing else to say */
    return failed ? -1 : 0;
  if (!failed && keep && p->tmp && rename(p->tmp, p->path) != 0) {
    failed = 1;
    why = strerror(errno);
  }
  if (failed)
    cannot_write(prog, p->path, why);
  if (p->tmp && (failed || !keep)) /* what FILE held stays */
    unlink(p->tmp);
  pending_drop(p);
  return failed ? -1 : 0;
}
