/* top.h — the model behind `ipcstamp top`: every ring of a directory,
 * followed, and turned into per-process figures (tools/top/model.c); the
 * views that print it are in tools/cmd_top.c. */
#ifndef IPCSTAMP_TOOLS_TOP_H
#define IPCSTAMP_TOOLS_TOP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipcstamp-ring-read.h"

/* Most processes followed at once, and finished deliveries remembered per
 * process (for the percentiles): both bound the memory of a long watch. */
#define TOP_MAX_PROCS 256
#define TOP_HISTORY 4096

/* One finished delivery.  pipe_ns is -1 when only the worker's stamps are
 * known (a worker's ring): then kernel_ns is its time waiting on upcall
 * replies, which includes the upcalls' pipe transits. */
typedef struct top_done_s {
  int64_t end_mono_ns;
  int64_t total_ns, pipe_ns, worker_ns, kernel_ns;
} top_done_t;

struct top_s;

typedef struct top_proc_s {
  struct top_s *top;          /* the watch it belongs to */
  char path[4400];
  long pid;
  long ppid;                  /* its parent when it opened the ring; 0 */
  int gone;                   /* its pid is another process's now */
  ips_ring_reader_t *reader;  /* owned; NULL after a failure */
  char error[256];            /* why the ring cannot be followed */
  ips_ring_info_t info;       /* as of the last poll */
  char vat[16];               /* from the events, else the header */
  uint64_t lost;
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
  /* With top_t.poll_max: more is set when the last refresh left events
   * in this ring; a caller sets hold to skip it at the next refresh (a
   * reader of several rings keeping them level in time). */
  int more, hold;
} top_proc_t;

/* Processes a watch may be limited to, and rings left out by it. */
#define TOP_MAX_PIDS 64
#define TOP_MAX_IGNORED 4096

typedef struct top_s {
  char dir[4096];
  long pids[TOP_MAX_PIDS];           /* only these runs; npids 0: all */
  size_t npids;
  long ignored[TOP_MAX_IGNORED];     /* rings not of those runs */
  size_t nignored;
  top_proc_t *procs[TOP_MAX_PROCS];  /* owned */
  size_t nprocs;
  size_t skipped;                    /* rings beyond TOP_MAX_PROCS */
  /* Optional: every event and every gap, as read (ipcstamp watch), after
   * the model has taken it.  NULL for top. */
  void (*event_cb)(void *arg, const top_proc_t *p, const ips_ring_event_t *ev);
  void (*lost_cb)(void *arg, const top_proc_t *p, uint64_t lost);
  void *cb_arg;
  /* Events read from one ring per refresh, at most (0: 1000000).  A
   * reader that joins rings (otel --ring) reads a backlog in small steps,
   * ring after ring, so that what it holds waiting for another ring stays
   * small; more is set when a ring had more than that. */
  size_t poll_max;
  int more;
} top_t;

/* Start watching dir (nothing is read yet).  Returns 0. */
void top_init(top_t *t, const char *dir);
void top_free(top_t *t);

/* Follow only the rings of these processes and of their children (a
 * run's parent names the run); n 0: every ring. */
void top_follow_pids(top_t *t, const long *pids, size_t n);

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

/* The run a process belongs to: a parent's own pid, a worker's parent's
 * (its kernel), or its own when that is unknown; 0 for a ring that cannot
 * be followed. */
long top_run(const top_proc_t *p);

/* The processes in the order the view shows them: grouped by run, the
 * busiest run first (the most time in deliveries that finished in the
 * last window_ns), within a run its parent, then the busiest first; ties
 * by pid.  Rings that cannot be followed come last.  out gets t->nprocs pointers.  Returns out's count. */
size_t top_order(const top_t *t, int64_t now_ns, int64_t window_ns,
                 const top_proc_t **out);

/* The pid of a ring's file name, "<digits>.ring" only (temporary files
 * and anything else are not rings); -1 otherwise. */
long top_ring_pid(const char *name);

/* Whether the ring's writer is dead: no process has its pid, or the one
 * that has it now does not map the ring (the pid was used again).  When
 * that cannot be told (/proc unreadable), the writer counts as alive. */
int top_writer_dead(const char *path, long pid);

/* `top --clean`: removes from dir each file "<pid>.ring" that opens as a
 * ring of that pid and whose writer is dead, and says each on out.
 * *removed and *kept count them.  Returns 0, or -errno when the directory
 * cannot be read or a ring not removed (msg says which). */
int top_clean(const char *dir, FILE *out, size_t *removed, size_t *kept,
              char *msg, size_t size);

#endif
