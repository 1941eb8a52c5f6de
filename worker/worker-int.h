/* Internal to libipcstamp-worker. */
#ifndef IPCSTAMP_WORKER_INT_H
#define IPCSTAMP_WORKER_INT_H

#define IPS__WORKER_DEFAULT_READ (64u * 1024u)
#define IPS__WORKER_DEFAULT_FIELDS 8u
/* A bound on the stamp table so that a typo in IPCSTAMP_STAMP_CAPACITY
 * cannot ask for gigabytes, and no worker records more than the parent
 * accepts. */
#define IPS__WORKER_MAX_STAMPS IPS_MAX_STAMPS

#endif
