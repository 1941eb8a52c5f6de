/* ring_meter.h — the worker half of a delivery whose metering is xsnap's
 * alone (ipcstamp-worker-xs with IPCSTAMP_XS_METERING=xsnap), taken from
 * the worker's live ring (ring_meter.c; ips_analysis_worker_rings()).
 * Internal to libipcstamp-analyze. */
#ifndef IPCSTAMP_ANALYZE_RING_METER_H
#define IPCSTAMP_ANALYZE_RING_METER_H

#include "ipcstamp-analyze.h"
#include "slog.h"

typedef struct ips__ringm ips__ringm_t;

/* Read the worker rings of dir as the analysis needs them.  Returns 0,
 * -errno when dir cannot be read as a folder (it does not exist, it is a
 * file or a FIFO: checked now, so that a wrong name is said, not taken as
 * rings that have nothing), IPS_EINVAL or IPS_ENOMEM. */
int ips__ringm_open(ips__ringm_t **out, const char *dir);
void ips__ringm_free(ips__ringm_t *m);

/* For a deliver-result r of vat whose metering has xsnap's timestamps but
 * no ipcstamp stamps: the worker's delivery in the rings that those
 * timestamps bracket (its d between xsnap's first two, the same number of
 * stamps), read from the rings as far as needed.  When joined, *copy is r
 * with the ring's mono stamps, kinds and cpu_ns (owned by m, valid until
 * the next call).  Returns IPS_RING_JOINED; IPS_RING_LAPPED when its
 * worker's ring was overwritten past it before it was read;
 * IPS_RING_MISSING when no ring has it (a worker that wrote none, or whose
 * ring a process of the same pid replaced); 0 for a record of no xsnap
 * metering.  Not joined, r stays as it is. */
int ips__ringm_fill(ips__ringm_t *m, const ips__rec_t *r, ips__rec_t *copy);

/* Rings that could not be read so far, with the first one's reason. */
size_t ips__ringm_errors(const ips__ringm_t *m, const char **first);
/* The most rings the folder had past those read at once
 * (IPS_RING_DIR_MAX_PROCS), 0 when none were left. */
size_t ips__ringm_skipped(const ips__ringm_t *m);

#endif
