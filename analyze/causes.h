/* causes.h — the analysis's scan of deliver and syscall records for their
 * kinds and causes (causes.c; the public side: ipcstamp-analyze-causes.h). */
#ifndef IPCSTAMP_ANALYZE_CAUSES_INTERNAL_H
#define IPCSTAMP_ANALYZE_CAUSES_INTERNAL_H

#include "ipcstamp-analyze.h"

typedef struct ips__causes_s ips__causes_t;

/* NULL when out of memory. */
ips__causes_t *ips__causes_new(void);
void ips__causes_free(ips__causes_t *x);
/* One record (rec[len] must be '\0') of line number line, in file order. */
void ips__causes_record(ips__causes_t *x, long line, const char *rec,
                        size_t len);
/* A line's bytes, taken when it is a deliver or syscall record (arg: x):
 * 1, then ips__causes_line scans it as line; 0 when it says nothing.
 * Reads p only (the reader calls it under its guard). */
int ips__causes_take(void *arg, const char *p, size_t len);
void ips__causes_line(ips__causes_t *x, long line);
/* The facts of the deliver record of line: 1, or 0 (not kept). */
int ips__causes_get(const ips__causes_t *x, long line,
                    ips_delivery_causes_t *out);
uint64_t ips__causes_forgotten(const ips__causes_t *x);

#endif
