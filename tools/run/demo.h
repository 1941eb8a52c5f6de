/* demo.h — workloads for `ipcstamp run`: from a JSON-lines file, or
 * the built-in demo. */
#ifndef IPCSTAMP_TOOLS_RUN_DEMO_H
#define IPCSTAMP_TOOLS_RUN_DEMO_H

#include "kernel.h"

extern const char ips__demo_vat_js[];

/* Where the kernel's queue is refilled from (kernel_t.refill): a validated
 * workload queued pass after pass, or the demo queued round after round.
 * Only one pass (or round) is in memory at a time, so memory stays flat
 * however many deliveries a run makes. */
typedef struct {
  run_item_t *items;  /* the workload, validated; owned */
  uint64_t passes;    /* how many times to queue it (--repeat) */
  uint64_t queued;    /* passes queued so far */
  int rounds;         /* demo: rounds wanted */
  int round;          /* demo: rounds queued (the set-up counts as -1) */
  /* Commands (deliveries + evaluations) run when the second pass or
   * round was queued: the size of one, sends included, for the progress
   * estimate; 0 until then. */
  uint64_t first_cmds, base_cmds;
} run_feed_t;

/* Feed k the built-in demo: evaluate the demo vat code and init every vat,
 * then rounds of payments, one round each time the queue runs dry. */
void run_demo_workload(kernel_t *k, run_feed_t *f, int rounds);

/* Read and check the whole workload in path ("-" = stdin) into f, then feed
 * it to k passes times.  A bad line is reported as "FILE:LINE: what" on
 * stderr; returns 0, CLI_EXIT_INPUT (bad line, nothing kept) or
 * CLI_EXIT_IO (cannot read). */
int run_load_workload(kernel_t *k, run_feed_t *f, const char *path,
                      uint64_t passes);

/* How far the run is, from 0 to 1, as the passes (--repeat) or rounds
 * (the demo) queued so far and, once one has run, the commands each takes;
 * -1 when there is one pass only (nothing to count in). */
double run_feed_fraction(const run_feed_t *f, const kernel_t *k);

/* Release what f holds (the kernel must no longer refill from it). */
void run_feed_free(run_feed_t *f);

#endif
