/* top.h — the model behind `ipcstamp top`: the rings of a directory (as
 * libipcstamp-analyze's ips_ring_dir_t reads them) turned into
 * per-process figures (tools/top/model.c); the views that print it are in
 * tools/cmd_top.c. */
#ifndef IPCSTAMP_TOOLS_TOP_H
#define IPCSTAMP_TOOLS_TOP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipcstamp-analyze.h"

/* Finished deliveries remembered per process (for the percentiles): with
 * the directory's bound on rings, the memory of a long watch. */
#define TOP_HISTORY 4096

/* One finished delivery.  pipe_ns is -1 when only the worker's stamps are
 * known (a worker's ring): then kernel_ns is its time waiting on upcall
 * replies, which includes the upcalls' pipe transits. */
typedef struct top_done_s {
  int64_t end_mono_ns;
  int64_t total_ns, pipe_ns, worker_ns, kernel_ns;
} top_done_t;

/* One ring's figures: the delivery in flight (from a worker's stamps) and
 * the latest finished ones.  ring is the directory's view of it (the
 * library's: pid, role, program, vat, why it cannot be read). */
typedef struct top_proc_s {
  const ips_ring_proc_t *ring;
  /* The delivery in flight: in_delivery is 0 when none. */
  uint64_t in_delivery;
  int64_t d_mono_ns;          /* its 'd' */
  int64_t seg_mono_ns;        /* the stamp that began the current segment */
  char seg_kind;              /* 'd', 'u' or 'r': computing or waiting */
  uint32_t upcall;
  int64_t wait_ns;            /* upcall waits so far */
  uint64_t finished;          /* deliveries finished, in all */
  top_done_t done[TOP_HISTORY];  /* a circle of the latest */
  size_t ndone, next;
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
  int64_t r;
  return __builtin_sub_overflow(a, b, &r) ? (b < 0 ? INT64_MAX : INT64_MIN) : r;
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

/* Figures of one process over the deliveries that finished in
 * [now - window_ns, now]. */
typedef struct top_stats_s {
  size_t n;
  double per_s;
  int64_t p50_ns, p99_ns;        /* -1 when n is 0 */
  int64_t pipe_ns, worker_ns, kernel_ns, total_ns;  /* sums */
  int have_pipe;                 /* pipe_ns is known for all of them */
} top_stats_t;
void top_stats(const top_proc_t *p, int64_t now_ns, int64_t window_ns,
               top_stats_t *s);

/* The processes in the order the view shows them: grouped by run, the
 * busiest run first (the most time in deliveries that finished in the
 * last window_ns), within a run its parent, then the busiest first; ties
 * by pid.  Rings that cannot be followed come last.  out gets t->nprocs
 * pointers.  Returns out's count. */
size_t top_order(const top_t *t, int64_t now_ns, int64_t window_ns,
                 const top_proc_t **out);

#endif
