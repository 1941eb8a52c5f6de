/* top.h — the model behind `ipcstamp top`: every ring of a directory,
 * followed, and turned into per-process figures (tools/top/model.c); the
 * views that print it are in tools/cmd_top.c. */
#ifndef IPCSTAMP_TOOLS_TOP_H
#define IPCSTAMP_TOOLS_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-ring-read.h"

/* Most processes followed at once (the ring directory's bound), and
 * finished deliveries remembered per process (for the percentiles): both
 * bound the memory of a long watch. */
#define TOP_MAX_PROCS IPS_RING_DIR_MAX
#define TOP_HISTORY 4096

/* One finished delivery.  pipe_ns is -1 when only the worker's stamps are
 * known (a worker's ring): then kernel_ns is its time waiting on upcall
 * replies, which includes the upcalls' pipe transits. */
typedef struct top_done_s {
  int64_t end_mono_ns;
  int64_t total_ns, pipe_ns, worker_ns, kernel_ns;
} top_done_t;

/* One ring's process: the directory's view of its ring (ring: pid, path,
 * header, vat, lost, error; analyze/ring_dir.c) and top's figures. */
typedef struct top_proc_s {
  ips_ring_proc_t *ring;      /* the directory's, not owned */
  /* The delivery in flight (from the stamps): in_delivery is 0 when none. */
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

typedef struct top_s {
  ips_ring_dir_t *dir;               /* owned: the rings, followed */
  top_proc_t *procs[TOP_MAX_PROCS];  /* owned, one per ring, in its order */
  size_t nprocs;
} top_t;

/* Start watching dir (nothing is read yet).  Returns 0 or IPS_ENOMEM. */
int top_init(top_t *t, const char *dir);
void top_free(top_t *t);

/* Find new rings in the directory and poll every ring.  Returns 0, or
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

#endif
