/* xsnap.h — the parts of `ipcstamp xsnap` (tools/cmd_xsnap.c): reading and
 * replacing the files of a node's tree without following what someone
 * planted there (files.c), and what a binary is (binary.c).  Internal to
 * the ipcstamp command. */
#ifndef IPCSTAMP_TOOLS_XSNAP_H
#define IPCSTAMP_TOOLS_XSNAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A worker binary is a few MB: a larger file is refused before it is read
 * whole, so memory stays bounded whatever was planted. */
#define XS_MAX_BIN (256u << 20)

/* ---- files.c ---- */

/* How reading a file of the tree ended. */
enum {
  XS_READ_OK = 0,
  XS_READ_MISSING = 1,  /* no such file */
  XS_READ_NOT_FILE = 2, /* a FIFO, device, directory, socket or link: not
                           opened (or not read); *why says which */
  XS_READ_ERROR = 3     /* cannot be read: *why says why */
};

/* A file read whole: data (NUL-terminated, owned, free()) and len. */
typedef struct {
  char *data;
  size_t len;
} xs_bytes_t;

/* Read path whole into *b.  With nofollow, a symbolic link is not
 * followed (XS_READ_NOT_FILE).  Only a regular file is read, and its open
 * never waits (a FIFO, a device).  At most XS_MAX_BIN bytes.  Returns an
 * XS_READ_* code; on anything but XS_READ_OK, *b is empty and why (size
 * bytes) says what, e.g. "a FIFO, not read" or "Permission denied". */
int xs_read(const char *path, int nofollow, xs_bytes_t *b, char *why,
            size_t size);

/* Replace path with data atomically: written to a new temporary file of a
 * unique name in the same folder (path.ipcstamp-tmp.XXXXXX), synced,
 * read back and compared, made mode, then rename()d over path (which is
 * replaced, never followed, whatever it is) and the folder synced.  A run
 * stopped at any point leaves path whole, old or new; at worst a
 * temporary file.  Returns 0, or an errno with *what the step that failed
 * ("write", "verify": EIO when the copy differs, "rename"). */
int xs_put(const char *path, const char *data, size_t len, mode_t mode,
           const char **what);

/* Take the exclusive lock of a package's swap: flock() on the lock file
 * path (created when missing; a link, FIFO or device there is refused,
 * never opened).  Returns the lock's fd (held until close or exit), or
 * with why (size bytes) saying what: XS_LOCK_UNWRITABLE when the lock
 * file could not be made in a folder that cannot be written (EROFS,
 * EACCES, EPERM, ENOSPC, EDQUOT: a file that cannot be written), else -1
 * (refused, e.g. "held by another run"). */
enum { XS_LOCK_UNWRITABLE = -2 };
int xs_lock(const char *path, char *why, size_t size);

/* ---- binary.c ---- */

/* What a binary is, from its strings. */
typedef struct {
  int elf;          /* starts with ELF's magic */
  int ours;         /* an ipcstamp-worker-xs */
  int dev;          /* its development build: never for a chain node */
  char version[32]; /* its xsnap_version, or "" */
  char metering[16]; /* ours: the metering mode set in it, or "" (older,
                        no slot) */
  int slot_damaged; /* ours: its metering slot holds neither "ipcstamp" nor
                       "xsnap" as the worker reads it (its bytes up to a
                       NUL): the worker then runs as "xsnap"
                       (worker/xs/hooks.c) */
} xs_kind_t;

void xs_kind_of(const char *buf, size_t len, xs_kind_t *k);

/* Set the metering mode slot of an ipcstamp-worker-xs image (buf, len) to
 * mode ("ipcstamp" or "xsnap"): the worker reads it at start when
 * IPCSTAMP_XS_METERING is not set.  Returns 0, or -1 when the image has no
 * slot (or more than one) or mode does not fit. */
int xs_set_metering(char *buf, size_t len, const char *mode);

/* What install records of the original it saved, in the file beside the
 * backup (path of the backup + ".sum"): its size, CRC-32 and xsnap
 * version, so that restore never puts back a file that is not it (emptied,
 * cut, replaced).  It guards against accident and mistake, not against
 * someone who can write the folder (who could rewrite this too). */
typedef struct {
  uint64_t size;
  uint32_t crc;
  char version[32];
} xs_record_t;

/* The record of data (len bytes) as text, into out (size bytes, at least
 * XS_RECORD_MAX): one line.  Returns its length. */
#define XS_RECORD_MAX 160
size_t xs_record_format(const xs_record_t *r, char *out, size_t size);
/* The record of an image. */
void xs_record_of(const char *data, size_t len, const xs_kind_t *k,
                  xs_record_t *r);
/* Parse a record's text (len bytes, not NUL-terminated, untrusted).
 * Returns 0, or -1 when it is not exactly one record line. */
int xs_record_parse(const char *text, size_t len, xs_record_t *r);

#endif
