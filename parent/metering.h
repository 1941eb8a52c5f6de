/* metering.h — the parent's reader of a worker's metering (internal): the
 * one decoder (proto/meter.h) held to the writer's rules, into the public
 * ips_metering_t. */
#ifndef IPCSTAMP_PARENT_METERING_H
#define IPCSTAMP_PARENT_METERING_H

#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-parent.h"
#include "meter.h"

/* The decoder's arrays, kept from one metering to the next, so that a
 * result needs no allocation (each one showed in a delivery's cost).
 * Owned by whoever keeps the store (a child); a metering read into it
 * borrows them until the next read or the store's release.  All zero is
 * an empty store. */
typedef struct {
  ips__meter_t meter; /* its arrays: cap values each, and the marks' */
} ips__mstore_t;

/* Release the store's arrays and empty it. */
void ips__mstore_free(ips__mstore_t *s);

/* Read and check the metering buf[0..n) into *m, whose arrays are then the
 * store's (*m borrows them: never pass it to ips_metering_free).  The
 * store grows to the input's bound on stamps (at most
 * IPS_METERING_MAX_STAMPS) and no further.  Returns 0; IPS_EMETERING or
 * IPS_EVERSION with a message in err (*m empty); or IPS_ENOMEM.
 * s->meter.fast says whether the bytes were the writer's exact form,
 * which is canonical JSON: then they are their own re-serialisation. */
int ips__metering_read(const char *buf, size_t n, ips_metering_t *m,
                       ips__mstore_t *s, char *err, size_t errsize);

#endif
