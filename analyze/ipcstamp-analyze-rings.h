/* ipcstamp-analyze-rings.h — the live rings as a source of the analysis:
 * the events of a parent's and its workers' rings joined into the same
 * ips_delivery_t a slogfile gives (ring_join.c), and a directory of rings
 * read as a whole (ring_dir.c, ring_files.c), for a caller or into an
 * analysis (ring_source.c).  Included by ipcstamp-analyze.h, whose types
 * and conventions it uses; include that one.  docs/analyze.md,
 * docs/ring.md.
 */
#ifndef IPCSTAMP_ANALYZE_RINGS_H
#define IPCSTAMP_ANALYZE_RINGS_H

#ifndef IPCSTAMP_ANALYZE_H
#error "include <ipcstamp-analyze.h>, which includes this header"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * The live rings as a source (analyze/ring_join.c; docs/ring.md): the
 * events of a directory's rings, as a reader of ipcstamp-ring-read.h
 * hands them over, joined into deliveries like a slogfile's: the parent's
 * D (U R)* E and its attribution, the worker's d (u r)* e and its VM
 * marks.  Bounded: a few thousand stamps per ring, a thousand halves
 * waiting for their other half, which wait a hundred ticks at most.
 */

typedef struct ips_ring_join_s ips_ring_join_t;

/* Each joined delivery, with the anchor of its times in st (first_time and
 * first_mono: the parent ring's start, wall and mono; each parent ring is
 * a run of its own).  Everything is valid only during the call. */
typedef void (*ips_ring_join_cb)(void *arg, const ips_delivery_t *d,
                                 const ips_stats_t *st);

typedef struct ips_ring_join_counts_s {
  uint64_t joined;   /* deliveries handed to the callback */
  uint64_t unjoined; /* attributed by the parent, but not joined: their
                        stamps were not found or not whole, the worker's
                        half never came, or they waited too long */
  uint64_t marks_dropped; /* VM marks of the joined deliveries left out
                             (malformed, out of d..e, past the bounds) */
} ips_ring_join_counts_t;

/* NULL when out of memory.  The caller owns it until ips_ring_join_free. */
IPS_EXTERN ips_ring_join_t *ips_ring_join_new(ips_ring_join_cb cb, void *arg);
/* One event of the ring of process pid (info: its header as last read;
 * vat: the ring's vat as known so far); the callback runs from here. */
IPS_EXTERN void ips_ring_join_event(ips_ring_join_t *r, long pid,
                                    const ips_ring_info_t *info,
                                    const char *vat,
                                    const ips_ring_event_t *ev);
/* The monotonic time of the latest event read from pid's ring (INT64_MIN
 * before one): a reader of several rings keeps them level with it, so
 * that a backlog does not leave many halves waiting. */
IPS_EXTERN int64_t ips_ring_join_last_mono(const ips_ring_join_t *r,
                                           long pid);
/* pid's reader was lapped: what was in flight is forgotten. */
IPS_EXTERN void ips_ring_join_lost(ips_ring_join_t *r, long pid);
/* Once per poll: halves that waited too long are dropped (counted); final:
 * all of them (the input ends). */
IPS_EXTERN void ips_ring_join_tick(ips_ring_join_t *r, int final);
IPS_EXTERN void ips_ring_join_get_counts(const ips_ring_join_t *r,
                                         ips_ring_join_counts_t *c);
IPS_EXTERN void ips_ring_join_free(ips_ring_join_t *r);

/* ------------------------------------------------------------------------
 * A directory of rings (analyze/ring_dir.c, ring_files.c; docs/ring.md):
 * every "<pid>.ring" in it, found again at each poll, each followed by a
 * reader of its own, its events handed to the callbacks; when asked, also
 * joined into deliveries (ips_ring_join_*) as a slogfile's, for the
 * caller or for an analysis (ring_source.c).  The source of `ipcstamp
 * top`, `watch`, `otel --ring` and `report --ring`.  A ring that cannot
 * be read (not a regular file, corrupt, another format version, truncated
 * under the reader) is said once to on_error and then left alone; the
 * directory itself is untrusted: its files may be anyone's.  Bounded:
 * IPS_RING_DIR_MAX_PROCS rings (the others counted as skipped), at most
 * poll_max events of each per poll.
 */
#define IPS_RING_DIR_MAX_PROCS 256
#define IPS_RING_DIR_MAX_PIDS 64

typedef struct ips_ring_dir_s ips_ring_dir_t;

/* One ring of the directory, as of the last poll.  Owned by the
 * directory, at a fixed place (index) until ips_ring_dir_close. */
typedef struct ips_ring_proc_s {
  size_t index;           /* its place: ips_ring_dir_proc(d, index) */
  long pid;
  long ppid;              /* its parent when it opened the ring; 0 */
  int gone;               /* its pid is another process's now */
  const char *path;
  ips_ring_info_t info;   /* the header; program and vat printable ASCII */
  char vat[16];           /* from its events, else the header's; a
                             parent's ring is "*" (all of its workers) */
  uint64_t lost;          /* events lapped before this reader saw them */
  char error[256];        /* why it cannot be read (printable ASCII); ""
                             while it can */
  int more;               /* the last poll left events in it */
} ips_ring_proc_t;

typedef struct ips_ring_dir_callbacks_s {
  /* Each optional; all get arg.  on_event: every event, as read; on_lost:
   * events lapped; on_error: a ring found unreadable (p->error says why),
   * once per ring. */
  void (*on_event)(void *arg, const ips_ring_proc_t *p,
                   const ips_ring_event_t *ev);
  void (*on_lost)(void *arg, const ips_ring_proc_t *p, uint64_t lost);
  void (*on_error)(void *arg, const ips_ring_proc_t *p);
  /* Set: the events are joined into deliveries too, and a backlog is read
   * with the rings kept level in time (so that few halves wait).  To
   * on_delivery (with arg), and to analysis: there each is filtered,
   * counted and handed to the analysis's own on_delivery exactly as a
   * slogfile's attributed delivery (ips_analysis_stats() and the rest
   * then describe the rings; its first_time and first_mono are the first
   * run's parent ring's start).  Either, both, or neither. */
  ips_ring_join_cb on_delivery;
  ips_analysis_t *analysis;
  void *arg;
  /* Events read from one ring per poll, at most (0: 1000000). */
  size_t poll_max;
  /* Set: when IPS_RING_DIR_MAX_PROCS rings are followed and another is
   * found, a ring read to its end whose writer is dead is closed to make
   * room (it has nothing more to give; that file is not read again).  For
   * a reader that keeps what it read (the worker rings' join); a view of
   * the processes (top) keeps the dead ones to show.  Then
   * ips_ring_dir_skipped() counts only the rings that wait while every
   * ring followed has been read and none is done: the bound reached. */
  int retire_done;
} ips_ring_dir_callbacks_t;

/* Follow the rings of dir (nothing is read yet).  *out is the caller's
 * until ips_ring_dir_close.  Returns 0, IPS_EINVAL (dir longer than 4095
 * bytes) or IPS_ENOMEM. */
IPS_EXTERN int ips_ring_dir_open(ips_ring_dir_t **out, const char *dir,
                                 const ips_ring_dir_callbacks_t *cb);
/* Follow only the rings of these processes and of their children (a
 * run's parent names the run); n 0: every ring; at most
 * IPS_RING_DIR_MAX_PIDS.  Before the first poll. */
IPS_EXTERN void ips_ring_dir_follow_pids(ips_ring_dir_t *d, const long *pids,
                                         size_t n);
/* Find new rings, then read every ring (callbacks run from here).
 * Returns 1 when a ring had more than poll_max events (call again at once
 * to read on), 0 when all was read (with on_delivery: the joiner's tick
 * ran), or -errno when the directory cannot be read (msg says so). */
IPS_EXTERN int ips_ring_dir_poll(ips_ring_dir_t *d, char *msg, size_t size);
/* The rings so far, and how many were not followed (beyond the bound). */
IPS_EXTERN size_t ips_ring_dir_count(const ips_ring_dir_t *d);
IPS_EXTERN const ips_ring_proc_t *ips_ring_dir_proc(const ips_ring_dir_t *d,
                                                    size_t i);
IPS_EXTERN size_t ips_ring_dir_skipped(const ips_ring_dir_t *d);
/* The input is over: the joiner's halves still waiting are dropped
 * (counted in unjoined).  Then c gets the joiner's counts (zeros without
 * on_delivery). */
IPS_EXTERN void ips_ring_dir_finish(ips_ring_dir_t *d,
                                    ips_ring_join_counts_t *c);
IPS_EXTERN void ips_ring_dir_close(ips_ring_dir_t *d);

/* Join the deliveries of a slogfile whose metering is xsnap's alone
 * (ipcstamp-worker-xs with IPCSTAMP_XS_METERING=xsnap: docs/xsnap.md)
 * with the worker rings in dir: each such delivery gets its worker's
 * mono stamps and cpu_ns from them, as if its metering had carried them
 * (ips_delivery_t.ring says which did, and which its ring had lost).
 * The rings are read as far as each delivery needs, so a followed
 * slogfile joins live.  Before the first read.  Returns 0, -errno when
 * dir cannot be read as a folder (missing, a file, a FIFO), IPS_EINVAL or
 * IPS_ENOMEM. */
IPS_EXTERN int ips_analysis_worker_rings(ips_analysis_t *a, const char *dir);
/* Rings that could not be read so far (the first one's path and reason
 * in *first, owned by the analysis). */
IPS_EXTERN size_t ips_analysis_worker_rings_errors(const ips_analysis_t *a,
                                                   const char **first);
/* The most rings the folder held at once past the IPS_RING_DIR_MAX_PROCS
 * read (a dead worker's ring read to its end makes room for the next: only
 * more rings than that of live workers, or of rings that cannot be read,
 * leave some unread); 0 when none were left. */
IPS_EXTERN size_t ips_analysis_worker_rings_skipped(const ips_analysis_t *a);

/* The run a ring belongs to: a parent's own pid, a worker's parent's (its
 * kernel), or its own when that is unknown; 0 for a ring that cannot be
 * read. */
IPS_EXTERN long ips_ring_proc_run(const ips_ring_proc_t *p);
/* The pid a ring file's name gives, "<digits>.ring" only (temporary files
 * and anything else are not rings); -1 otherwise. */
IPS_EXTERN long ips_ring_name_pid(const char *name);
/* Whether a ring's writer is dead: no process has its pid, or the one
 * that has it now does not map the ring (the pid was used again).  When
 * that cannot be told (/proc unreadable), the writer counts as alive. */
IPS_EXTERN int ips_ring_writer_dead(const char *path, long pid);
/* Text from a ring, in place, as printable ASCII: every other byte '?'
 * (a producer's escape sequences never reach a terminal). */
IPS_EXTERN void ips_ring_printable(char *s);
/* Remove from dir each "<pid>.ring" that opens as a ring of that pid and
 * whose writer is dead, saying each removed or kept (and why) on out;
 * *removed and *kept count them.  Returns 0, or -errno when the directory
 * cannot be read or a ring not removed (msg says which). */
IPS_EXTERN int ips_ring_dir_clean(const char *dir, FILE *out, size_t *removed,
                                  size_t *kept, char *msg, size_t size);

/* ------------------------------------------------------------------------
 * A delivery as it runs, from its worker's own stamps (a worker's ring,
 * without the parent's: `ipcstamp top`), and the latest finished ones
 * (live.c).  The stamps alone cannot tell an upcall's pipe from the
 * kernel's handling of it: their sum is the wait, Σ(rᵢ − uᵢ), and the
 * worker is the formula's (docs/report.md, Formulas), (e − d) − the wait.
 */

/* What the worker's stamps say so far of its delivery in flight. */
typedef struct ips_worker_live_s {
  uint64_t delivery;    /* the delivery in flight (1 when its number is
                           unknown); 0: none */
  int64_t d_mono_ns;    /* its d */
  int64_t seg_mono_ns;  /* the stamp that began the current segment */
  char seg_kind;        /* 'd' or 'r': the worker computing; 'u': waiting
                           for the reply to upcall */
  uint32_t upcall;
  int64_t wait_ns;      /* the upcalls' waits so far, Σ(rᵢ − uᵢ) */
} ips_worker_live_t;

/* One finished delivery.  pipe_ns is -1 when only the worker's stamps
 * are known: then kernel_ns is its wait on upcall replies, which holds
 * their pipe too. */
typedef struct ips_live_done_s {
  int64_t end_mono_ns;
  int64_t total_ns, pipe_ns, worker_ns, kernel_ns;
} ips_live_done_t;

/* Feed one of the worker's stamps, in the order it took them: kind 'd'
 * (its delivery number: delivery), 'u' (upcall), 'r', 'e'; others are
 * ignored, and so are 'u', 'r' and 'e' with no delivery in flight.
 * Differences and sums are held at the int64 bounds (a ring holds
 * whatever its writer put there).  Returns 1 when kind 'e' ended a
 * delivery, its split in *done (pipe_ns -1), else 0.  w starts zeroed. */
IPS_EXTERN int ips_worker_live_stamp(ips_worker_live_t *w, char kind,
                                     int64_t mono_ns, uint64_t delivery,
                                     uint32_t upcall, ips_live_done_t *done);

/* The latest finished deliveries of one process, a circle. */
#define IPS_LIVE_HISTORY 4096
typedef struct ips_live_history_s {
  ips_live_done_t done[IPS_LIVE_HISTORY];
  size_t ndone, next;
  uint64_t finished;    /* deliveries finished, in all */
} ips_live_history_t;

/* Keep d, forgetting the oldest when the circle is full.  h starts
 * zeroed. */
IPS_EXTERN void ips_live_add(ips_live_history_t *h, const ips_live_done_t *d);

/* The figures of the deliveries kept that ended in [now - window_ns,
 * now] (window_ns > 0). */
typedef struct ips_live_stats_s {
  size_t n;
  double per_s;                  /* n over the window */
  int64_t p50_ns, p99_ns;        /* of their totals, nearest rank; -1 when
                                    n is 0 */
  int64_t pipe_ns, worker_ns, kernel_ns, total_ns; /* sums, held at the
                                                      bound */
  int have_pipe;                 /* pipe_ns is known for all of them */
} ips_live_stats_t;
IPS_EXTERN void ips_live_stats(const ips_live_history_t *h, int64_t now_ns,
                               int64_t window_ns, ips_live_stats_t *s);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_ANALYZE_RINGS_H */
