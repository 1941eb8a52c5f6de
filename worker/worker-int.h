/* Internal to libipcstamp-worker. */
#ifndef IPCSTAMP_WORKER_INT_H
#define IPCSTAMP_WORKER_INT_H

#define IPS__WORKER_DEFAULT_READ (64u * 1024u)
#define IPS__WORKER_DEFAULT_FIELDS 8u
/* A bound on the stamp table so that a typo in IPCSTAMP_STAMP_CAPACITY
 * cannot ask for gigabytes, and no worker records more than the parent
 * accepts. */
#define IPS__WORKER_MAX_STAMPS IPS_MAX_STAMPS

#include "ipcstamp-worker.h"

/* Whether the worker stamps: not with IPS_WORKER_NO_STAMPS
 * (IPCSTAMP_DISABLE), when it only frames the protocol. */
static inline int ips__stamping(const ips_worker_t *w) {
  return !(w->flags & IPS_WORKER_NO_STAMPS);
}

/* The worker's name for messages and the ring's header. */
static inline const char *ips__worker_name(const ips_worker_t *w) {
  return w->name ? w->name : "ipcstamp-worker";
}

/* What the probes (proto/ipcstamp-probes.h) say of the process: its pid
 * and its vat (IPCSTAMP_VAT, or the vat in a SwingSet worker's name; ""
 * when unknown), set by ips_worker_init().  Process-wide, as they are: a
 * process serves one vat.  Read without a system call at every probe. */
extern int ips__probe_pid;
extern char ips__probe_vat[16];

#endif
