/* flight_spool.h — a flight recorder copied where it can be read by
 * offset (flight_spool.c); internal to the analysis. */
#ifndef IPCSTAMP_ANALYZE_FLIGHT_SPOOL_H
#define IPCSTAMP_ANALYZE_FLIGHT_SPOOL_H

#include <stddef.h>
#include <zlib.h>

/* A flight recorder (its first nhead >= 32 bytes at head,
 * the rest from g) copied into an unlinked temporary file, with buf (cap
 * bytes) as scratch: returns the file, or -1 with a message about name. */
int ips__flight_spool(gzFile g, const char *head, size_t nhead, char *buf,
                      size_t cap, const char *name, char *err,
                      size_t errlen);
/* *fd, when a gzipped flight recorder, replaced by such a copy: returns 1;
 * 0 when it is not one (*fd untouched, at its start); -1 with a message. */
int ips__flight_unpack(int *fd, char *buf, size_t cap, const char *path,
                       char *err, size_t errlen);

#endif
