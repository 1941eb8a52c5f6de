/* Internal to libipcstamp-worker. */
#ifndef IPCSTAMP_WORKER_INT_H
#define IPCSTAMP_WORKER_INT_H

#define IPS__WORKER_DEFAULT_READ (64u * 1024u)
#define IPS__WORKER_DEFAULT_FIELDS 8u
/* A bound on the stamp table so that a typo in IPCSTAMP_STAMP_CAPACITY
 * cannot ask for gigabytes: 16 Mi stamps is 8 Mi upcalls in one delivery. */
#define IPS__WORKER_MAX_STAMPS (16u * 1024u * 1024u)

#endif
