/* top.h — the model behind `ipcstamp top`: the rings of a directory (as
 * libipcstamp-analyze's ips_ring_dir_t reads them) handed, ring by ring,
 * to the analysis's live figures (ips_worker_live_stamp, ips_live_add,
 * ips_live_stats: ipcstamp-analyze-rings.h) by tools/top/model.c; the
 * views that print them are in tools/cmd_top.c. */
#ifndef IPCSTAMP_TOOLS_TOP_H
#define IPCSTAMP_TOOLS_TOP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipcstamp-analyze.h"

/* One ring's figures, as the analysis keeps them: the delivery in flight
 * (from a worker's stamps: ips_worker_live_t) and the latest finished
 * ones (ips_live_history_t; their figures: ips_live_stats).  ring is the
 * directory's view of it (the library's: pid, role, program, vat, why it
 * cannot be read). */
typedef struct top_proc_s {
  const ips_ring_proc_t *ring;
  ips_worker_live_t live;
  ips_live_history_t hist;
} top_proc_t;

#define TOP_MAX_PROCS IPS_RING_DIR_MAX_PROCS

/* The rings of a directory (libipcstamp-analyze's ips_ring_dir_t reads
 * them) and each one's figures, procs[i] for the directory's ring i. */
typedef struct top_s {
  char path[4096];
  ips_ring_dir_t *dir;               /* owned */
  top_proc_t *procs[TOP_MAX_PROCS];  /* owned; NULL past nprocs */
  size_t nprocs;
} top_t;

/* a - b, and a + b, held at the int64 bounds instead of overflowing: a
 * ring's values are whatever its writer put there. */
static inline int64_t top_sub(int64_t a, int64_t b) {
  return ips_sub_held(a, b);
}
static inline int64_t top_add(int64_t a, int64_t b) {
  ips_sum_add(&a, b); /* the one policy: held at the bound */
  return a;
}

/* Start watching dir (nothing is read yet), only the rings of pids and
 * their children (n 0: all).  Returns 0, or IPS_EINVAL / IPS_ENOMEM. */
int top_init(top_t *t, const char *dir, const long *pids, size_t n);
void top_free(top_t *t);

/* Find new rings in the directory and read every ring.  Returns 0, or
 * -errno when the directory cannot be read (a message in msg). */
int top_refresh(top_t *t, char *msg, size_t size);

/* The processes in the order the view shows them: grouped by run, the
 * busiest run first (the most time in deliveries that finished in the
 * last window_ns), within a run its parent, then the busiest first; ties
 * by pid.  Rings that cannot be followed come last.  out gets t->nprocs
 * pointers.  Returns out's count. */
size_t top_order(const top_t *t, int64_t now_ns, int64_t window_ns,
                 const top_proc_t **out);

#endif
