/* ring.h — the parent library's hooks into the live ring (internal; see
 * parent/ring.c).  Each does nothing when the worker has no ring. */
#ifndef IPCSTAMP_PARENT_RING_H
#define IPCSTAMP_PARENT_RING_H

#include "ipcstamp-parent.h"

/* Take the ring and the vat name from the options (at spawn). */
void ips__child_ring_init(ips_child_t *w, const ips_child_options_t *o);
/* One of the parent's stamps, just taken. */
void ips__child_ring_stamp(ips_child_t *w, const ips_stamp_t *s);
/* A command's result, before the host's callback sees it. */
void ips__child_ring_result(ips_child_t *w, const ips_result_t *res,
                            void *arg);

#endif
