/* regular.h — opening a path only when it names a regular file (internal
 * to libipcstamp-analyze; regular.c).  The guard of every reader of a
 * path that someone else may have replaced: a followed slogfile, a ring
 * in a directory anyone can write.  A FIFO's open waits for a writer,
 * forever; a device's may do anything. */
#ifndef IPCSTAMP_ANALYZE_REGULAR_H
#define IPCSTAMP_ANALYZE_REGULAR_H

#include <sys/stat.h>

/* What a file that is not a regular one is, for a message: "a FIFO",
 * "a device", "a directory", "a socket", "a symbolic link". */
const char *ips__file_kind(mode_t m);

/* Open path, read-write when rw and allowed (then *writable is 1), else
 * read-only, only when it is a regular file: stat()ed before the open, and
 * what was opened fstat()ed after it (the name may be swapped in between;
 * O_NONBLOCK keeps such an open from waiting).  Returns the fd, *st the
 * opened file's; -1 with errno when the stat or the open fails; -2 when it
 * is not a regular file (*st says what it is).  writable may be NULL. */
int ips__open_regular(const char *path, int rw, int *writable,
                      struct stat *st);

#endif
