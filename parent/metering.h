/* metering.h — the parent's metering readers (internal): the general one
 * (metering.c, yajl) and the matcher for our worker's exact form
 * (metering_fast.c), which hands everything else to the general one. */
#ifndef IPCSTAMP_PARENT_METERING_H
#define IPCSTAMP_PARENT_METERING_H

#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_gen.h>

#include "ipcstamp-parent.h"

/* A count as the worker writes it: 1 to 18 digits. */
int ips__parse_uint(const char *s, size_t n, int64_t *out);

/* The general reader, yajl on every byte (what ips__metering_parse does
 * when the matcher declines; the tests compare the two). */
int ips__metering_parse_general(const char *buf, size_t n, ips_metering_t *m,
                                char *err, size_t errsize, yajl_gen copy,
                                int *copied);

/* buf[0..n) in exactly the form proto/metering.c writes (v1): fills *m as
 * the general reader would, writes the bytes into copy (when not NULL,
 * *copied = 1) and returns 1; else 0 with *m empty, and the general reader
 * must decide (every error is its). */
int ips__metering_fast(const char *buf, size_t n, ips_metering_t *m,
                       yajl_gen copy, int *copied);

#endif
