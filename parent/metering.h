/* metering.h — the parent's metering readers (internal): the general one
 * (metering.c, yajl) and the matcher for our worker's exact form
 * (metering_fast.c), which hands everything else to the general one. */
#ifndef IPCSTAMP_PARENT_METERING_H
#define IPCSTAMP_PARENT_METERING_H

#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_gen.h>

#include "ipcstamp-parent.h"

/* The general reader, yajl on every byte (what ips__metering_parse does
 * when the matcher declines; the tests compare the two). */
int ips__metering_parse_general(const char *buf, size_t n, ips_metering_t *m,
                                char *err, size_t errsize, yajl_gen copy,
                                int *copied);

/* Arrays kept from one metering to the next, so that the matcher needs
 * no allocation per result (each one showed in a delivery's cost): v
 * holds the walls then the monos, kinds the letters.  Owned by whoever keeps the store (a child); a
 * metering read into it borrows them until the next read or the store's
 * release.  All zero is an empty store. */
typedef struct {
  int64_t *v;
  size_t cap;   /* values v holds */
  char *kinds;
  size_t kcap;  /* bytes kinds holds */
} ips__mstore_t;

/* Release the store's arrays and empty it. */
void ips__mstore_free(ips__mstore_t *s);

/* A metering the general reader filled (*m owns its arrays) moved into the
 * store: its arrays copied there and released, *m borrowing the store's
 * from then on, as after the matcher.  So whichever reader ran, the store
 * owns the arrays and *m never does.  Returns 0, or IPS_ENOMEM with *m
 * unchanged (still owning). */
int ips__mstore_take(ips__mstore_t *s, ips_metering_t *m);

/* buf[0..n) in exactly the form proto/metering.c writes (v1): fills *m as
 * the general reader would, writes the bytes into copy (when not NULL,
 * *copied = 1) and returns 1; else 0 with *m empty, and the general reader
 * must decide (every error is its).  With store NULL *m owns its arrays
 * (ips_metering_free); else they are the store's (*m borrows them: never
 * pass it to ips_metering_free), grown as needed, at most by what the
 * input's length allows. */
int ips__metering_fast(const char *buf, size_t n, ips_metering_t *m,
                       yajl_gen copy, int *copied, ips__mstore_t *store);

#endif
