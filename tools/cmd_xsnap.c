/* cmd_xsnap.c — `ipcstamp xsnap install|restore|status [DIR]`: make
 * Agoric's kernel run ipcstamp-worker-xs by swapping the xsnap-worker
 * binary of an @agoric/xsnap package in a node_modules tree, with a
 * verified backup beside it, and put the original back (docs/xsnap.md).
 *
 * Every replacement is a copy to a temporary file in the same folder, a
 * byte-for-byte comparison with its source, then rename(): a worker
 * already running keeps its binary, and a crash leaves either the old file
 * or the new one, never half of one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#ifndef IPS_XS_WORKER
#define IPS_XS_WORKER "ipcstamp-worker-xs"
#endif

/* The string hooks.c puts in every ipcstamp-worker-xs, and xsnap's own. */
static const char marker[] = "ipcstamp-worker-xs: xsnap-worker with ipcstamp";
static const char dev_marker[] = "ipcstamp-worker-xs-dev: a development build";
static const char xsnap_version[] = "xsnap_version: ";
static const char bin_rel[] = "xsnap-native/xsnap/build/bin/lin/release/xsnap-worker";
static const char backup_suffix[] = ".ipcstamp-orig";

#define MAX_BIN (256u << 20) /* a worker binary is a few MB */

static void usage(FILE *f) {
  fprintf(f,
          "usage: ipcstamp xsnap install|restore|status [--worker FILE] [DIR]\n"
          "\n"
          "Make Agoric's kernel run ipcstamp-worker-xs: swap the xsnap-worker\n"
          "binary of the @agoric/xsnap package under DIR (a project folder, its\n"
          "node_modules, or the package itself; default .), keeping the\n"
          "original beside it as xsnap-worker%s.\n"
          "\n"
          "  install    save the original (verified), then put the worker in\n"
          "             its place; again after an upgrade of ipcstamp: updates it\n"
          "  restore    put the original back and remove the backup\n"
          "  status     say which binary is in place\n"
          "  --worker FILE  the ipcstamp-worker-xs to install (default %s)\n"
          "\n"
          "The worker must have been built from the same @agoric/xsnap version\n"
          "as the package's, or install refuses.  Stop the node first: a\n"
          "running kernel keeps the workers it started.\n"
          "exit codes: 0 done, 1 refused (the message says why), 2 bad usage,\n"
          "            4 cannot read or write a file\n",
          backup_suffix, IPS_XS_WORKER);
}

/* The whole of a file, NUL-terminated (*len without it); NULL with errno. */
static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t n = 0, cap = 0;
  if (!f) return NULL;
  for (;;) {
    size_t k;
    if (cap - n < 65536) {
      char *p;
      if (cap >= MAX_BIN) {
        errno = EFBIG;
        break;
      }
      cap = cap ? cap * 2 : 1u << 20;
      if (!(p = realloc(buf, cap + 1))) break;
      buf = p;
    }
    k = fread(buf + n, 1, cap - n, f);
    n += k;
    if (k == 0) {
      if (ferror(f)) break;
      fclose(f);
      buf[n] = '\0';
      *len = n;
      return buf;
    }
  }
  {
    int e = errno ? errno : EIO;
    free(buf);
    fclose(f);
    errno = e;
    return NULL;
  }
}

/* What a binary is, from its strings. */
typedef struct {
  int ours;          /* an ipcstamp-worker-xs */
  int dev;           /* its development build: never for a chain node */
  char version[32];  /* its xsnap_version, or "" */
} kind_t;

static void kind_of(const char *buf, size_t len, kind_t *k) {
  const char *p;
  size_t n;
  memset(k, 0, sizeof *k);
  k->ours = memmem(buf, len, marker, sizeof marker - 1) != NULL;
  k->dev = memmem(buf, len, dev_marker, sizeof dev_marker - 1) != NULL;
  p = memmem(buf, len, xsnap_version, sizeof xsnap_version - 1);
  if (!p) return;
  p += sizeof xsnap_version - 1;
  for (n = 0; p + n < buf + len && n + 1 < sizeof k->version && p[n] > ' ' &&
              p[n] < 0x7f;
       n++)
    k->version[n] = p[n];
}

/* Write data to path through path.tmp: written, flushed, read back and
 * compared, then renamed.  Returns 0 or an errno, with *what set. */
static int put_file(const char *path, const char *data, size_t len,
                    mode_t mode, const char **what) {
  char tmp[4096];
  char *back;
  size_t blen;
  int fd;
  ssize_t k;
  size_t off = 0;
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  *what = "write";
  unlink(tmp);
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return errno;
  while (off < len) {
    k = write(fd, data + off, len - off);
    if (k < 0) {
      int e = errno;
      if (e == EINTR) continue;
      close(fd);
      unlink(tmp);
      return e;
    }
    off += (size_t)k;
  }
  if (fsync(fd) != 0 || fchmod(fd, mode) != 0 || close(fd) != 0) {
    int e = errno;
    unlink(tmp);
    return e;
  }
  *what = "verify";
  back = slurp(tmp, &blen);
  if (!back || blen != len || memcmp(back, data, len) != 0) {
    free(back);
    unlink(tmp);
    return EIO;
  }
  free(back);
  *what = "rename";
  if (rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return e;
  }
  return 0;
}

/* The package folder under dir: the package itself, dir/node_modules/...,
 * or dir/@agoric/xsnap (dir is a node_modules). */
static int find_package(const char *dir, char *out, size_t size) {
  static const char *const rel[] = {"", "/node_modules/@agoric/xsnap",
                                    "/@agoric/xsnap"};
  size_t i;
  for (i = 0; i < sizeof rel / sizeof rel[0]; i++) {
    char p[4096];
    struct stat st;
    snprintf(out, size, "%s%s", dir, rel[i]);
    snprintf(p, sizeof p, "%s/%s", out, bin_rel);
    if (stat(p, &st) == 0) return 0;
  }
  return -1;
}

int cmd_xsnap(int argc, char **argv) {
  static const struct option opts[] = {{"worker", required_argument, NULL, 'w'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *worker = IPS_XS_WORKER, *dir = ".", *action, *what;
  char pkg[3000], bin[4096], backup[4200];
  char *cur = NULL, *orig = NULL, *w = NULL;
  size_t cur_len = 0, orig_len = 0, w_len = 0;
  kind_t kc, ko, kw;
  struct stat st;
  int c, rc = CLI_EXIT_OK, e;

  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (c == 'w') {
      worker = optarg;
    } else if (c == 'h') {
      usage(stdout);
      return CLI_EXIT_OK;
    } else {
      usage(stderr);
      return CLI_EXIT_USAGE;
    }
  }
  if (optind >= argc || optind + 2 < argc) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  action = argv[optind];
  if (optind + 1 < argc) dir = argv[optind + 1];
  if (strcmp(action, "install") && strcmp(action, "restore") &&
      strcmp(action, "status")) {
    fprintf(stderr, "ipcstamp xsnap: unknown action '%s': install, restore or status\n",
            action);
    return CLI_EXIT_USAGE;
  }
  if (strlen(dir) > 2000 || find_package(dir, pkg, sizeof pkg) != 0) {
    fprintf(stderr,
            "ipcstamp xsnap: no @agoric/xsnap with a built xsnap-worker under %s "
            "(looked for %s/%s, %s/node_modules/@agoric/xsnap/... and "
            "%s/@agoric/xsnap/...)\n",
            dir, dir, bin_rel, dir, dir);
    return CLI_EXIT_FAIL;
  }
  snprintf(bin, sizeof bin, "%s/%s", pkg, bin_rel);
  snprintf(backup, sizeof backup, "%s%s", bin, backup_suffix);

  if (!(cur = slurp(bin, &cur_len))) {
    fprintf(stderr, "ipcstamp xsnap: cannot read %s: %s\n", bin, strerror(errno));
    return CLI_EXIT_IO;
  }
  kind_of(cur, cur_len, &kc);
  if (stat(backup, &st) == 0) {
    if (!(orig = slurp(backup, &orig_len))) {
      fprintf(stderr, "ipcstamp xsnap: cannot read %s: %s\n", backup, strerror(errno));
      rc = CLI_EXIT_IO;
      goto done;
    }
    kind_of(orig, orig_len, &ko);
  } else if (errno != ENOENT) {
    fprintf(stderr, "ipcstamp xsnap: %s: %s\n", backup, strerror(errno));
    rc = CLI_EXIT_IO;
    goto done;
  }

  if (!strcmp(action, "status")) {
    printf("%s: %s (xsnap %s)\n", bin,
           kc.ours ? "ipcstamp-worker-xs" : "xsnap-worker, not ipcstamp's",
           kc.version[0] ? kc.version : "version unknown");
    if (orig)
      printf("%s: the original, xsnap-worker (xsnap %s): 'ipcstamp xsnap restore' puts it back\n",
             backup, ko.version[0] ? ko.version : "version unknown");
    else
      printf("no backup (%s): nothing was installed here\n", backup);
    if (orig && !kc.ours)
      printf("warning: a backup exists but the binary in place is not ipcstamp's "
             "(rebuilt by npm?): 'ipcstamp xsnap restore' refuses; remove the "
             "backup when the binary in place is the one you want\n");
    goto done;
  }

  if (!strcmp(action, "restore")) {
    if (!orig) {
      fprintf(stderr, "ipcstamp xsnap restore: no backup %s: nothing to restore\n", backup);
      rc = CLI_EXIT_FAIL;
    } else if (ko.ours) {
      fprintf(stderr, "ipcstamp xsnap restore: the backup %s is itself an "
              "ipcstamp-worker-xs: not restoring it\n", backup);
      rc = CLI_EXIT_FAIL;
    } else if (!kc.ours &&
               !(cur_len == orig_len && !memcmp(cur, orig, cur_len))) {
      fprintf(stderr, "ipcstamp xsnap restore: %s is neither ipcstamp-worker-xs "
              "nor the backup (rebuilt by npm?): not overwriting it; remove %s "
              "if the binary in place is the one you want\n", bin, backup);
      rc = CLI_EXIT_FAIL;
    } else if ((e = put_file(bin, orig, orig_len, 0755, &what)) != 0) {
      fprintf(stderr, "ipcstamp xsnap restore: cannot %s %s: %s\n", what, bin,
              e == EIO && !strcmp(what, "verify") ? "the copy differs" : strerror(e));
      rc = CLI_EXIT_IO;
    } else if (unlink(backup) != 0) {
      fprintf(stderr, "ipcstamp xsnap restore: restored %s, but cannot remove %s: %s\n",
              bin, backup, strerror(errno));
      rc = CLI_EXIT_IO;
    } else {
      printf("restored %s (xsnap %s)\n", bin, ko.version[0] ? ko.version : "version unknown");
    }
    goto done;
  }

  /* install */
  if (!(w = slurp(worker, &w_len))) {
    fprintf(stderr, "ipcstamp xsnap install: cannot read the worker %s: %s\n",
            worker, strerror(errno));
    rc = CLI_EXIT_IO;
    goto done;
  }
  kind_of(w, w_len, &kw);
  if (!kw.ours) {
    fprintf(stderr, "ipcstamp xsnap install: %s is not an ipcstamp-worker-xs\n", worker);
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  if (kw.dev) {
    fprintf(stderr, "ipcstamp xsnap install: %s is ipcstamp-worker-xs-dev, the "
            "development build: its heap snapshots differ from xsnap-worker's, "
            "so a node running it leaves consensus; install ipcstamp-worker-xs\n",
            worker);
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  {
    /* The worker's XS must be the package's, or consensus would break. */
    const char *want = orig ? ko.version : kc.version;
    if (!kw.version[0] || strcmp(kw.version, want) != 0) {
      fprintf(stderr, "ipcstamp xsnap install: %s was built from xsnap %s, but "
              "%s is xsnap %s: build ipcstamp-worker-xs from this package "
              "(configure --with-xsnap=%s)\n",
              worker, kw.version[0] ? kw.version : "(unknown)", pkg,
              want[0] ? want : "(unknown)", pkg);
      rc = CLI_EXIT_FAIL;
      goto done;
    }
  }
  if (orig && !kc.ours) {
    fprintf(stderr, "ipcstamp xsnap install: a backup %s exists but %s is not "
            "ipcstamp's (rebuilt by npm?): remove the backup if the binary in "
            "place is the original, then install again\n", backup, bin);
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  if (!orig && kc.ours) {
    fprintf(stderr, "ipcstamp xsnap install: %s is already an ipcstamp-worker-xs "
            "and there is no backup of the original: reinstall @agoric/xsnap\n", bin);
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  if (!orig && (e = put_file(backup, cur, cur_len, 0755, &what)) != 0) {
    fprintf(stderr, "ipcstamp xsnap install: cannot %s the backup %s: %s\n", what,
            backup, e == EIO && !strcmp(what, "verify") ? "the copy differs" : strerror(e));
    rc = CLI_EXIT_IO;
    goto done;
  }
  if ((e = put_file(bin, w, w_len, 0755, &what)) != 0) {
    fprintf(stderr, "ipcstamp xsnap install: cannot %s %s: %s (the original is "
            "unchanged and saved as %s)\n", what, bin,
            e == EIO && !strcmp(what, "verify") ? "the copy differs" : strerror(e),
            backup);
    rc = CLI_EXIT_IO;
    goto done;
  }
  printf("%s %s: ipcstamp-worker-xs (xsnap %s); the original is %s\n",
         orig ? "updated" : "installed", bin, kw.version, backup);
done:
  free(cur);
  free(orig);
  free(w);
  return rc;
}
