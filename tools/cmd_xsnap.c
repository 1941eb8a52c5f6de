/* cmd_xsnap.c — `ipcstamp xsnap install|restore|status [DIR]`: make
 * Agoric's kernel run ipcstamp-worker-xs by swapping the xsnap-worker
 * binary of an @agoric/xsnap package in a node_modules tree, with a
 * verified backup beside it, and put the original back (docs/xsnap.md).
 *
 * The tree is a chain node's: whatever is found there, and whatever runs
 * at the same time, every run ends with a working worker in place and the
 * original recoverable.  So install and restore hold the package's lock
 * (tools/xsnap/files.c), never follow a link or open a FIFO planted under
 * the names they use, replace a file only by renaming a new, verified
 * one over it, and put back only a backup that is the original install
 * recorded (its size, CRC-32 and xsnap version: tools/xsnap/binary.c). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "xsnap/xsnap.h"

#ifndef IPS_XS_WORKER
#define IPS_XS_WORKER "ipcstamp-worker-xs"
#endif

static const char bin_rel[] = "xsnap-native/xsnap/build/bin/lin/release/xsnap-worker";
static const char backup_suffix[] = ".ipcstamp-orig";

/* One run: its options, the package's paths, and the files as read. */
typedef struct {
  const char *action, *worker, *metering; /* metering NULL: keep */
  char pkg[3000], bin[4096], backup[4200], sum[4300], lock[4300];
  xs_bytes_t cur, orig, w;  /* the binary in place, the backup, --worker */
  int cur_rc, orig_rc;      /* XS_READ_* of cur and orig */
  char cur_why[160], orig_why[160];
  xs_kind_t kc, ko, kw;
  int has_record;           /* the backup's record was read */
  xs_record_t rec;
} xs_run_t;

static void usage(FILE *f) {
  fprintf(f,
          "usage: ipcstamp xsnap install|restore|status [--worker FILE]\n"
          "                     [--metering ipcstamp|xsnap] [DIR]\n"
          "\n"
          "Make Agoric's kernel run ipcstamp-worker-xs: swap the xsnap-worker\n"
          "binary of the @agoric/xsnap package under DIR (a project folder, its\n"
          "node_modules, or the package itself; default .), keeping the\n"
          "original beside it as xsnap-worker%s.\n"
          "\n"
          "  install    save the original (verified, recorded), then put the\n"
          "             worker in its place; again after an upgrade: updates it\n"
          "  restore    put the original back and remove the backup\n"
          "  status     say which binary is in place, and its metering mode\n"
          "  --worker FILE  the ipcstamp-worker-xs to install (default %s)\n"
          "  --metering ipcstamp|xsnap  install: the metering the worker sends\n"
          "             (xsnap: exactly xsnap's, stamps in the live ring only;\n"
          "             default: keep the installed worker's, else ipcstamp)\n"
          "\n"
          "The worker must have been built from the same @agoric/xsnap version\n"
          "as the package's, or install refuses.  Stop the node first: a\n"
          "running kernel keeps the workers it started.\n"
          "exit codes: 0 done, 1 refused (the message says what and why),\n"
          "            2 bad usage, 4 cannot read or write a file\n",
          backup_suffix, IPS_XS_WORKER);
}

/* Options into x; returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, xs_run_t *x, const char **dir) {
  static const struct option opts[] = {{"worker", required_argument, NULL, 'w'},
                                       {"metering", required_argument, NULL, 'm'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  int c;
  x->worker = IPS_XS_WORKER;
  *dir = ".";
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (c == 'w') {
      x->worker = optarg;
    } else if (c == 'm' && (!strcmp(optarg, "ipcstamp") || !strcmp(optarg, "xsnap"))) {
      x->metering = optarg;
    } else if (c == 'm') {
      fprintf(stderr, "ipcstamp xsnap: --metering '%s': ipcstamp or xsnap\n", optarg);
      return CLI_EXIT_USAGE;
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
  x->action = argv[optind];
  if (optind + 1 < argc) *dir = argv[optind + 1];
  if (strcmp(x->action, "install") && strcmp(x->action, "restore") &&
      strcmp(x->action, "status")) {
    fprintf(stderr, "ipcstamp xsnap: unknown action '%s': install, restore or status\n",
            x->action);
    return CLI_EXIT_USAGE;
  }
  if (x->metering && strcmp(x->action, "install")) {
    fprintf(stderr, "ipcstamp xsnap: --metering is install's option\n");
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* The package folder under dir: the package itself, dir/node_modules/...,
 * or dir/@agoric/xsnap (dir is a node_modules).  The binary is looked at,
 * not followed: what it is, is said later. */
static int find_package(const char *dir, char *out, size_t size) {
  static const char *const rel[] = {"", "/node_modules/@agoric/xsnap",
                                    "/@agoric/xsnap"};
  size_t i;
  for (i = 0; i < sizeof rel / sizeof rel[0]; i++) {
    char p[4096];
    struct stat st;
    snprintf(out, size, "%s%s", dir, rel[i]);
    snprintf(p, sizeof p, "%s/%s", out, bin_rel);
    if (lstat(p, &st) == 0) return 0;
  }
  return -1;
}

/* Read the binary in place, the backup and its record.  Returns -1 to go
 * on, else the exit code (a record that is there but not one). */
static int load_tree(xs_run_t *x) {
  xs_bytes_t r;
  char why[160];
  int rc;
  x->cur_rc = xs_read(x->bin, 1, &x->cur, x->cur_why, sizeof x->cur_why);
  if (x->cur_rc == XS_READ_OK) xs_kind_of(x->cur.data, x->cur.len, &x->kc);
  x->orig_rc = xs_read(x->backup, 1, &x->orig, x->orig_why, sizeof x->orig_why);
  if (x->orig_rc == XS_READ_OK) xs_kind_of(x->orig.data, x->orig.len, &x->ko);
  if (x->orig_rc != XS_READ_OK) return -1; /* a record without a backup: stale */
  rc = xs_read(x->sum, 1, &r, why, sizeof why);
  if (rc == XS_READ_MISSING) return -1;
  if (rc == XS_READ_OK && xs_record_parse(r.data, r.len, &x->rec) == 0) {
    x->has_record = 1;
    free(r.data);
    return -1;
  }
  free(r.data);
  fprintf(stderr, "ipcstamp xsnap %s: the record of the backup, %s, is %s: "
          "nothing done (remove it to go by the backup's own strings)\n",
          x->action, x->sum, rc == XS_READ_OK ? "not one ipcstamp wrote" : why);
  return rc == XS_READ_ERROR ? CLI_EXIT_IO : CLI_EXIT_FAIL;
}

/* The backup is the original xsnap-worker install saved: 0, or -1 with
 * why (size bytes). */
static int check_backup(const xs_run_t *x, char *why, size_t size) {
  const char *want = x->has_record ? x->rec.version : x->kc.ours ? x->kc.version : "";
  xs_record_t now;
  if (!x->ko.elf)
    snprintf(why, size, "it is not an executable (%zu bytes, no ELF header)", x->orig.len);
  else if (x->ko.ours)
    snprintf(why, size, "it is itself an ipcstamp-worker-xs");
  else if (!x->ko.version[0])
    snprintf(why, size, "it has no xsnap_version: not an xsnap-worker");
  else if (want[0] && strcmp(want, x->ko.version) != 0)
    snprintf(why, size, "it is xsnap %s, but the original was xsnap %s", x->ko.version, want);
  else if (x->has_record &&
           (xs_record_of(x->orig.data, x->orig.len, &x->ko, &now),
            now.size != x->rec.size || now.crc != x->rec.crc))
    snprintf(why, size, "it is not the file install saved (%zu bytes, CRC-32 %08x; "
             "saved: %llu bytes, CRC-32 %08x)", x->orig.len, (unsigned)now.crc,
             (unsigned long long)x->rec.size, (unsigned)x->rec.crc);
  else
    return 0;
  return -1;
}

static int same_bytes(const xs_bytes_t *a, const xs_bytes_t *b) {
  return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

static const char *version(const xs_kind_t *k) {
  return k->version[0] ? k->version : "version unknown";
}

/* `status`: 0, or 1 when a file of the swap is not what it must be. */
static int do_status(const xs_run_t *x) {
  char why[256];
  int bad = 0;
  if (x->cur_rc != XS_READ_OK) {
    printf("%s: %s\n", x->bin, x->cur_why);
    bad = 1;
  } else if (x->kc.ours && x->kc.slot_damaged) {
    /* Said as what the worker does with it (worker/xs/hooks.c), not as
     * the default mode. */
    printf("%s: ipcstamp-worker-xs (xsnap %s), metering slot damaged (it holds "
           "\"%s\", neither ipcstamp nor xsnap): the worker runs it as xsnap "
           "(exactly xsnap's; stamps in the live ring only) and says so at each "
           "start; 'ipcstamp xsnap install --metering MODE' rewrites it\n",
           x->bin, version(&x->kc), x->kc.metering);
    bad = 1;
  } else if (x->kc.ours) {
    printf("%s: ipcstamp-worker-xs (xsnap %s), metering %s\n", x->bin, version(&x->kc),
           !strcmp(x->kc.metering, "xsnap") ? "xsnap (exactly xsnap's; stamps in the live ring only)"
           : x->kc.metering[0] ? "ipcstamp (xsnap's plus the ipcstamp member)"
                               : "ipcstamp (an older build: no other mode)");
    if (getenv("IPCSTAMP_XS_METERING"))
      printf("note: IPCSTAMP_XS_METERING is set here; where the node's environment "
             "sets it, it overrides the installed mode\n");
  } else {
    printf("%s: xsnap-worker, not ipcstamp's (xsnap %s)\n", x->bin, version(&x->kc));
  }
  if (x->orig_rc == XS_READ_MISSING) {
    printf("no backup (%s): nothing was installed here\n", x->backup);
  } else if (x->orig_rc != XS_READ_OK) {
    printf("%s: %s: 'ipcstamp xsnap restore' refuses it\n", x->backup, x->orig_why);
    bad = 1;
  } else if (check_backup(x, why, sizeof why) != 0) {
    printf("%s: not the original: %s: 'ipcstamp xsnap restore' refuses it\n", x->backup, why);
    bad = 1;
  } else {
    printf("%s: the original, xsnap-worker (xsnap %s%s): 'ipcstamp xsnap restore' puts it back\n",
           x->backup, version(&x->ko), x->has_record ? ", as recorded" : "");
    if (x->cur_rc == XS_READ_OK && !x->kc.ours && !same_bytes(&x->cur, &x->orig))
      printf("warning: a backup exists but the binary in place is not ipcstamp's "
             "(rebuilt by npm?): 'ipcstamp xsnap restore' refuses; remove the "
             "backup when the binary in place is the one you want\n");
  }
  return bad ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* The files of the swap are regular files: -1 to go on, else the exit
 * code after saying which is not. */
static int check_files(const xs_run_t *x) {
  const char *p = x->action;
  if (x->cur_rc == XS_READ_NOT_FILE || x->cur_rc == XS_READ_MISSING) {
    fprintf(stderr, "ipcstamp xsnap %s: %s is %s: nothing done (a regular "
            "xsnap-worker file must be there)\n", p, x->bin,
            x->cur_rc == XS_READ_MISSING ? "gone" : x->cur_why);
    return CLI_EXIT_FAIL;
  }
  if (x->cur_rc == XS_READ_ERROR) {
    fprintf(stderr, "ipcstamp xsnap %s: cannot read %s: %s\n", p, x->bin, x->cur_why);
    return CLI_EXIT_IO;
  }
  if (x->orig_rc == XS_READ_NOT_FILE) {
    fprintf(stderr, "ipcstamp xsnap %s: the backup %s is %s: nothing done (move "
            "it away; if it pointed to the original, put that file there)\n",
            p, x->backup, x->orig_why);
    return CLI_EXIT_FAIL;
  }
  if (x->orig_rc == XS_READ_ERROR) {
    fprintf(stderr, "ipcstamp xsnap %s: cannot read %s: %s\n", p, x->backup, x->orig_why);
    return CLI_EXIT_IO;
  }
  return -1;
}

/* Say why a put failed; returns CLI_EXIT_IO. */
static int put_failed(const xs_run_t *x, const char *path, const char *what, int e,
                      const char *after) {
  fprintf(stderr, "ipcstamp xsnap %s: cannot %s %s: %s%s\n", x->action, what, path,
          e == EIO && !strcmp(what, "verify") ? "the copy differs" : strerror(e), after);
  return CLI_EXIT_IO;
}

/* `restore`: the original back, then the backup and its record removed. */
static int do_restore(const xs_run_t *x) {
  char why[256];
  const char *what;
  int e;
  if (x->orig_rc == XS_READ_MISSING) {
    fprintf(stderr, "ipcstamp xsnap restore: no backup %s: nothing to restore\n", x->backup);
    return CLI_EXIT_FAIL;
  }
  if (check_backup(x, why, sizeof why) != 0) {
    fprintf(stderr, "ipcstamp xsnap restore: the backup %s is not the original: %s: "
            "not restoring it; %s is left as it is\n", x->backup, why, x->bin);
    return CLI_EXIT_FAIL;
  }
  if (!x->kc.ours && !same_bytes(&x->cur, &x->orig)) {
    fprintf(stderr, "ipcstamp xsnap restore: %s is neither ipcstamp-worker-xs "
            "nor the backup (rebuilt by npm?): not overwriting it; remove %s "
            "if the binary in place is the one you want\n", x->bin, x->backup);
    return CLI_EXIT_FAIL;
  }
  /* Already in place (a restore stopped before removing the backup). */
  if (x->kc.ours && (e = xs_put(x->bin, x->orig.data, x->orig.len, 0755, &what)) != 0)
    return put_failed(x, x->bin, what, e, "");
  if (unlink(x->backup) != 0) {
    fprintf(stderr, "ipcstamp xsnap restore: restored %s, but cannot remove %s: %s\n",
            x->bin, x->backup, strerror(errno));
    return CLI_EXIT_IO;
  }
  if (unlink(x->sum) != 0 && errno != ENOENT)
    fprintf(stderr, "ipcstamp xsnap restore: warning: cannot remove %s: %s\n", x->sum,
            strerror(errno));
  printf("restored %s (xsnap %s)\n", x->bin, version(&x->ko));
  return CLI_EXIT_OK;
}

/* install: the worker to install is ipcstamp-worker-xs for this package,
 * in the metering mode asked for.  -1 to go on, else the exit code. */
static int check_worker(xs_run_t *x) {
  const char *want = x->orig_rc == XS_READ_OK ? x->ko.version : x->kc.version;
  const char *mode = x->metering;
  char why[160];
  int rc = xs_read(x->worker, 0, &x->w, why, sizeof why);
  if (rc != XS_READ_OK) {
    fprintf(stderr, "ipcstamp xsnap install: cannot read the worker %s: %s\n", x->worker, why);
    return rc == XS_READ_NOT_FILE ? CLI_EXIT_FAIL : CLI_EXIT_IO;
  }
  xs_kind_of(x->w.data, x->w.len, &x->kw);
  if (!x->kw.ours) {
    fprintf(stderr, "ipcstamp xsnap install: %s is not an ipcstamp-worker-xs\n", x->worker);
    return CLI_EXIT_FAIL;
  }
  if (x->kw.dev) {
    fprintf(stderr, "ipcstamp xsnap install: %s is ipcstamp-worker-xs-dev, the "
            "development build: its heap snapshots differ from xsnap-worker's, "
            "so a node running it leaves consensus; install ipcstamp-worker-xs\n",
            x->worker);
    return CLI_EXIT_FAIL;
  }
  /* The worker's XS must be the package's, or consensus would break. */
  if (!x->kw.version[0] || strcmp(x->kw.version, want) != 0) {
    fprintf(stderr, "ipcstamp xsnap install: %s was built from xsnap %s, but "
            "%s is xsnap %s: build ipcstamp-worker-xs from this package "
            "(configure --with-xsnap=%s)\n", x->worker,
            x->kw.version[0] ? x->kw.version : "(unknown)", x->pkg,
            want[0] ? want : "(unknown)", x->pkg);
    return CLI_EXIT_FAIL;
  }
  /* An update keeps the mode installed before, unless told otherwise. */
  if (!mode && x->kc.ours && x->kc.metering[0]) mode = x->kc.metering;
  if (mode && strcmp(mode, x->kw.metering) != 0 &&
      xs_set_metering(x->w.data, x->w.len, mode) != 0) {
    fprintf(stderr, "ipcstamp xsnap install: %s has no metering mode to set "
            "(built by an older ipcstamp): rebuild it to use --metering %s\n",
            x->worker, mode);
    return CLI_EXIT_FAIL;
  }
  if (mode) snprintf(x->kw.metering, sizeof x->kw.metering, "%s", mode);
  return -1;
}

/* install: what is in place and the backup allow it.  -1 to go on. */
static int check_tree(const xs_run_t *x) {
  char why[256];
  if (x->orig_rc == XS_READ_OK && check_backup(x, why, sizeof why) != 0) {
    fprintf(stderr, "ipcstamp xsnap install: the backup %s is not the original: %s: "
            "nothing done%s\n", x->backup, why,
            x->kc.ours ? "; the original is lost: reinstall @agoric/xsnap, then "
                         "remove the backup and install again"
                       : "; remove it if the binary in place is the original");
    return CLI_EXIT_FAIL;
  }
  if (x->orig_rc == XS_READ_OK && !x->kc.ours && !same_bytes(&x->cur, &x->orig)) {
    fprintf(stderr, "ipcstamp xsnap install: a backup %s exists but %s is not "
            "ipcstamp's (rebuilt by npm?): remove the backup if the binary in "
            "place is the original, then install again\n", x->backup, x->bin);
    return CLI_EXIT_FAIL;
  }
  if (x->orig_rc != XS_READ_OK && x->kc.ours) {
    fprintf(stderr, "ipcstamp xsnap install: %s is already an ipcstamp-worker-xs "
            "and there is no backup of the original: reinstall @agoric/xsnap\n", x->bin);
    return CLI_EXIT_FAIL;
  }
  if (x->orig_rc != XS_READ_OK && (!x->kc.elf || !x->kc.version[0])) {
    fprintf(stderr, "ipcstamp xsnap install: %s is not an xsnap-worker (%s): "
            "nothing done\n", x->bin, x->kc.elf ? "no xsnap_version" : "no ELF header");
    return CLI_EXIT_FAIL;
  }
  return -1;
}

/* install: the record and the backup (first install), then the worker. */
static int do_install(xs_run_t *x) {
  const char *what;
  char line[XS_RECORD_MAX];
  xs_record_t r;
  int rc, e, first = x->orig_rc != XS_READ_OK;
  if ((rc = check_worker(x)) >= 0 || (rc = check_tree(x)) >= 0) return rc;
  /* The record first: a run stopped before the backup leaves a record of
   * nothing, which the next install rewrites. */
  if (first || !x->has_record) {
    const xs_bytes_t *o = first ? &x->cur : &x->orig;
    xs_record_of(o->data, o->len, first ? &x->kc : &x->ko, &r);
    if ((e = xs_put(x->sum, line, xs_record_format(&r, line, sizeof line), 0644, &what)))
      return put_failed(x, x->sum, what, e, " (nothing changed)");
  }
  if (first && (e = xs_put(x->backup, x->cur.data, x->cur.len, 0755, &what)) != 0)
    return put_failed(x, x->backup, what, e, " (the original is unchanged in place)");
  if ((e = xs_put(x->bin, x->w.data, x->w.len, 0755, &what)) != 0) {
    char after[4400];
    snprintf(after, sizeof after, " (the original is unchanged and saved as %s)", x->backup);
    return put_failed(x, x->bin, what, e, after);
  }
  printf("%s %s: ipcstamp-worker-xs (xsnap %s), metering %s; the original is %s\n",
         first ? "installed" : "updated", x->bin, x->kw.version,
         x->kw.metering[0] ? x->kw.metering : "ipcstamp", x->backup);
  return CLI_EXIT_OK;
}

int cmd_xsnap(int argc, char **argv) {
  xs_run_t x;
  const char *dir;
  char why[256];
  int rc, lock = -1;

  memset(&x, 0, sizeof x);
  if ((rc = parse_args(argc, argv, &x, &dir)) >= 0) return rc;
  if (strlen(dir) > 2000 || find_package(dir, x.pkg, sizeof x.pkg) != 0) {
    fprintf(stderr,
            "ipcstamp xsnap: no @agoric/xsnap with a built xsnap-worker under %s "
            "(looked for %s/%s, %s/node_modules/@agoric/xsnap/... and "
            "%s/@agoric/xsnap/...)\n", dir, dir, bin_rel, dir, dir);
    return CLI_EXIT_FAIL;
  }
  snprintf(x.bin, sizeof x.bin, "%s/%s", x.pkg, bin_rel);
  snprintf(x.backup, sizeof x.backup, "%s%s", x.bin, backup_suffix);
  snprintf(x.sum, sizeof x.sum, "%s.sum", x.backup);
  snprintf(x.lock, sizeof x.lock, "%s.ipcstamp-lock", x.bin);
  /* Status only reads; the others change the tree one at a time. */
  if (strcmp(x.action, "status") != 0 && (lock = xs_lock(x.lock, why, sizeof why)) < 0) {
    fprintf(stderr, "ipcstamp xsnap %s: cannot lock %s: %s: nothing done\n", x.action,
            x.lock, why);
    return lock == XS_LOCK_UNWRITABLE ? CLI_EXIT_IO : CLI_EXIT_FAIL;
  }
  if ((rc = load_tree(&x)) < 0) {
    if (!strcmp(x.action, "status"))
      rc = do_status(&x);
    else if ((rc = check_files(&x)) < 0)
      rc = !strcmp(x.action, "restore") ? do_restore(&x) : do_install(&x);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "ipcstamp xsnap %s: cannot write the output: %s\n", x.action,
            strerror(errno));
    if (rc == CLI_EXIT_OK) rc = CLI_EXIT_IO;
  }
  free(x.cur.data);
  free(x.orig.data);
  free(x.w.data);
  if (lock >= 0) close(lock);
  return rc;
}
