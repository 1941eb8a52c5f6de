/* ipcstamp-analyze-files.h — opening a path that someone else may have
 * replaced (a slogfile, a ring, a chain node's xsnap-worker): the one
 * guard that every reader of untrusted paths goes through.  Included by
 * ipcstamp-analyze.h, whose conventions it uses; include that one.
 */
#ifndef IPCSTAMP_ANALYZE_FILES_H
#define IPCSTAMP_ANALYZE_FILES_H

#ifndef IPCSTAMP_ANALYZE_H
#error "include <ipcstamp-analyze.h>, which includes this header"
#endif

#include <sys/stat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opening a path someone else may have replaced.  Flag: */
#define IPS_OPEN_NOFOLLOW (1u << 0) /* a symbolic link is refused, not followed */

/* Open path read-only, only when it names a regular file: stat()ed (with
 * IPS_OPEN_NOFOLLOW, lstat()ed and opened O_NOFOLLOW) before the open, and
 * what was opened fstat()ed after it, the open itself O_NONBLOCK so that a
 * FIFO or a device swapped in between never makes it wait.  Returns the fd
 * (close-on-exec; the caller closes it) with *st the opened file's; -1 with
 * errno when the stat or the open fails; -2 when it is not a regular file
 * (*st says what it is: ips_file_kind()).  Never writes anything. */
IPS_EXTERN int ips_open_regular(const char *path, unsigned flags,
                                struct stat *st);
/* What a file that is not a regular one is, for a message: "a FIFO",
 * "a device", "a directory", "a socket", "a symbolic link". */
IPS_EXTERN const char *ips_file_kind(unsigned mode);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_ANALYZE_FILES_H */
