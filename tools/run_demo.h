/* run_demo.h — workloads for `ipcstamp run`: from a JSON-lines file, or
 * the built-in demo. */
#ifndef IPCSTAMP_TOOLS_RUN_DEMO_H
#define IPCSTAMP_TOOLS_RUN_DEMO_H

#include "kernel.h"

extern const char ips__demo_vat_js[];

/* Queue the built-in demo for every vat of k: evaluate the demo vat code,
 * init, then rounds of payments.  Returns 0 or -1 (out of memory). */
int run_demo_workload(kernel_t *k, int rounds);

/* Queue the workload in path ("-" = stdin).  A bad line is reported as
 * "FILE:LINE: what" on stderr; returns 0, IPS_EXIT_INPUT (bad line, nothing
 * queued) or IPS_EXIT_IO (cannot read). */
int run_load_workload(kernel_t *k, const char *path);

#endif
