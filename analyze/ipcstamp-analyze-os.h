/* ipcstamp-analyze-os.h — what the operating system saw, joined with the
 * deliveries (docs/os.md): a file that `ipcstamp record` wrote is read
 * whole, its frames paired and its waits indexed; each attributed
 * delivery is then split into the parts of its pipe, worker and kernel
 * time, exactly (the parts add up to the delivery's own totals to the
 * nanosecond).  What was not recorded is "not measured", never guessed.
 *
 * Ownership: the caller owns the ips_os_t until ips_os_free(); a split is
 * the caller's (plain values).  Conventions are ipcstamp-analyze.h's. */
#ifndef IPCSTAMP_ANALYZE_OS_H
#define IPCSTAMP_ANALYZE_OS_H

#include "ipcstamp-analyze.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ips_os_s ips_os_t;

/* The most records read from one file (frames and waits each); a longer
 * file is refused rather than allowed to take all memory. */
#define IPS_OS_MAX_RECORDS ((size_t)1 << 25)
/* The longest line of the file. */
#define IPS_OS_MAX_LINE 4096

/* Reads the recorded file at path, version 2 (binary records) or 1 (JSON
 * lines) (untrusted: every record is checked and a bad one counted, never
 * trusted).  Returns 0 with *out, or a negative code with a message (path
 * and line or byte offset) in err: not such a file, a format version this
 * library does not know, a bad header, too many records, out of memory,
 * or a file that cannot be read. */
IPS_EXTERN int ips_os_open(ips_os_t **out, const char *path, char *err,
                           size_t errlen);
/* Frees what ips_os_open() made.  NULL is ignored. */
IPS_EXTERN void ips_os_free(ips_os_t *os);

/* What the file holds. */
typedef struct ips_os_info_s {
  uint64_t frames;      /* frames with both sides seen (paired) */
  uint64_t unpaired;    /* frame sides whose other side was not seen */
  uint64_t waits, procs;
  uint64_t lost;        /* events the kernel dropped (said by the file) */
  uint64_t bad_lines;   /* lines (or records) skipped: not JSON, missing
                           fields, times out of order */
  long first_bad_line;  /* 1-based, 0 when none */
  int ended;            /* the file has its end line (not cut short) */
  /* Frames of a delivery, an upcall or a reply (?, e, /) that no
   * delivery split so far took: a delivery the slogfile lacks, or one left out by a filter
   * (--vat, --method...), or a frame matched to none. */
  uint64_t unmatched_frames;
  int64_t first_bad_offset; /* a version 2 file (records, not lines): the
                               byte offset of the first bad record, 0 when
                               none */
  uint64_t launches_over; /* exec and exit records past the most kept
                            (ips_os_launches): counted, not listed */
  uint64_t contradicting; /* of bad_lines: records that contradict another
                             (a thread's waits overlapping, a stream's
                             frames overlapping): dropped, never
                             subtracted twice */
} ips_os_info_t;
IPS_EXTERN void ips_os_info(const ips_os_t *os, ips_os_info_t *info);

/* The system calls a thread's disk and sleep parts are split by, each
 * with its time, in the order first seen.  Bounded: a thread sleeps in
 * far fewer distinct calls than the system call table has (a Node
 * kernel's main thread: some ten), so every call keeps its own slot up to
 * IPS_OS_BY - 1 names, and only a part of more (none seen) puts the rest
 * in its last slot, "other".  The text shows the largest few and says the
 * rest ("and 7 more: 12.3"); JSON and CSV have them all. */
#define IPS_OS_BY 32
typedef struct ips_os_by_s {
  char sc[24];          /* "fsync", "read", "#123", or "" */
  int64_t ns;
} ips_os_by_t;

/* Where a thread's time went over stretches of a delivery: on_cpu +
 * cpu_wait + disk + fault + sleep + not_measured == the stretches' sum
 * (major_faults is a count beside them). */
typedef struct ips_os_time_s {
  int64_t on_cpu;       /* running: what the scheduler charged the thread
                           (its CPU clock), or with a recording of
                           version 2 or 1 all the time it ran */
  int64_t steal;        /* running: stolen by the hypervisor */
  int64_t uncharged;    /* running, the rest: not charged, not stolen
                           (may be negative: charged beyond the run) */
  int64_t cpu_wait;     /* runnable, waiting for a CPU */
  int64_t disk;         /* uninterruptible sleep in a system call */
  int64_t fault;        /* uninterruptible sleep outside any (paging) */
  int64_t sleep;        /* other sleeps (a pipe, futex, epoll, ...) */
  int64_t not_measured; /* no recording of the thread there */
  ips_os_by_t disk_by[IPS_OS_BY], sleep_by[IPS_OS_BY];
  /* cpu_wait by the thread that held the CPU ("comm:pid"; "(idle)" for
   * none): the one that took it when the thread was preempted, or that
   * left it when the thread came back after a wake-up.  Empty with a
   * recording of version 2 or 1. */
  ips_os_by_t cpu_wait_by[IPS_OS_BY];
  /* Not a time: the major page faults the thread slept in, in the waits
   * that began in the stretches (0 when the recording does not count
   * them: made before its waits carried the count). */
  int64_t major_faults;
} ips_os_time_t;

/* One delivery's split.  pipe_before_write + pipe_write + pipe_in_pipe +
 * pipe_sleep + pipe_page_fault + pipe_cpu_wait + pipe_reader +
 * pipe_not_measured == d->pipe; worker's
 * parts sum to d->worker, kernel's to d->kernel. */
typedef struct ips_os_split_s {
  size_t frames;        /* of the delivery's frames, those found */
  size_t frames_expected; /* 2 + 2 * its upcalls */
  int64_t pipe_before_write; /* the writer's own time after its stamp */
  int64_t pipe_write;        /* the write call(s) */
  int64_t pipe_in_pipe;      /* written, the reader asleep since before
                                it, not yet woken */
  int64_t pipe_cpu_wait;     /* the reader runnable, waiting for a CPU */
  int64_t pipe_reader;       /* the reader on a CPU until its stamp: the
                                rest of its read and its own code (on
                                Node: the event loop and JavaScript); and
                                its own code while the bytes waited */
  int64_t pipe_not_measured;
  /* The reader, the bytes waiting: asleep on something else (a sleep it
   * began after them), and asleep uninterruptibly (page faults, disk). */
  int64_t pipe_sleep, pipe_page_fault;
  ips_os_time_t worker, kernel;
  long long worker_pid, kernel_pid; /* as the frames say; 0 unknown */
  long long kernel_tid; /* the parent's thread the kernel parts are of */
  /* The time before the delivery (d->has_gap: from the previous
   * delivery's result to its start, d->gap_ns + d->snap_save_ns +
   * d->snap_load_ns) on the kernel's thread: its parts add up to that
   * exactly (to 0 when it is not positive); all zero when has_before
   * is 0. */
  int has_before;
  ips_os_time_t before;
} ips_os_split_t;

/* Splits d (an attributed delivery, as on_delivery gets it) with what os
 * recorded, the time before it too (out->before, as ips_os_between).
 * Returns 0; out is always filled (all of it "not measured"
 * when no frame of d was found).  Frames are found by time (the
 * slogfile's monotime and the recording share CLOCK_MONOTONIC when the
 * parent is ipcstamp's own), direction, tag, process (the worker's pid
 * from the slogfile, else the worker whose first argument names d's vat,
 * else the first frame's), and order (each after the one before was
 * read); a frame one delivery took is not found for another. */
IPS_EXTERN int ips_os_split(ips_os_t *os, const ips_delivery_t *d,
                            ips_os_split_t *out);

/* Joins the recording os with the deliveries of a: from then on every
 * delivery a counts (after its filters) is split (ips_os_split) and
 * handed to on_delivery with d->os its split, and the splits are summed.
 * a owns os from this call on, also when it fails (ips_analysis_free frees
 * it).  Returns 0, IPS_EINVAL (a or os NULL, a recording given already,
 * or lines read already) or IPS_ENOMEM. */
IPS_EXTERN int ips_analysis_os(ips_analysis_t *a, ips_os_t *os);
/* The recording given to ips_analysis_os(), or NULL. */
IPS_EXTERN const ips_os_t *ips_analysis_os_recording(const ips_analysis_t *a);
/* The splits of the deliveries counted so far, summed part by part (a sum
 * past 64 bits held at the bound; disk_by and sleep_by keep every name
 * up to IPS_OS_BY - 1 of them, the rest as "other"; worker_pid and
 * kernel_pid 0; before the sum of those that have it, has_before how many
 * do), and in *n how many: NULL without a recording. */
IPS_EXTERN const ips_os_split_t *ips_analysis_os_sum(const ips_analysis_t *a,
                                                     uint64_t *n);
/* ------------------------------------------------------------------------
 * Between deliveries (os_between.c; docs/os.md, "Between deliveries"): the
 * kernel's own thread from one delivery's end to the next one's start, and
 * a block's time outside its deliveries, split like a kernel segment.
 */

/* Where a parent's time is seen in a recording: the offset from its
 * clock (a delivery's pclock) to the recording's, and its thread that
 * writes the frames (the one whose waits the splits count). */
typedef struct ips_os_kernel_s {
  int known;            /* 0: no frame of the delivery was found */
  int64_t offset;       /* parent clock + offset = CLOCK_MONOTONIC */
  long long pid, tid;
} ips_os_kernel_t;

/* The kernel (parent) of delivery d as os recorded it: its thread, found
 * from d's frames, and d's clock offset.  Returns 1 with *k filled, or 0
 * (k->known 0) when none of d's frames was found. */
IPS_EXTERN int ips_os_kernel(ips_os_t *os, const ips_delivery_t *d,
                             ips_os_kernel_t *k);

/* Adds into *t the time of k's thread over [from, to] on the recording's
 * clock (CLOCK_MONOTONIC ns), split by its waits: the parts grow by
 * exactly to - from (all "not measured" when k is not known or the
 * recording does not cover it; nothing when to <= from). */
IPS_EXTERN void ips_os_kernel_time(const ips_os_t *os,
                                   const ips_os_kernel_t *k, int64_t from,
                                   int64_t to, ips_os_time_t *t);

/* The time between the delivery before d and d (d->gap_ns +
 * d->snap_save_ns + d->snap_load_ns: from the previous delivery's result
 * to d's start) split on d's kernel thread into *t (zeroed first).
 * Returns 1, or 0 when d has no delivery before it (d->has_gap 0: *t all
 * zero). */
IPS_EXTERN int ips_os_between(ips_os_t *os, const ips_delivery_t *d,
                              ips_os_time_t *t);

/* A wall-clock time (CLOCK_REALTIME ns, a record's `time`) on the
 * recording's clock, through the wall clock the recording's first line
 * says it began at.  Returns 1, or 0 when the file does not say. */
IPS_EXTERN int ips_os_from_wall(const ips_os_t *os, int64_t wall_ns,
                                int64_t *mono_ns);

/* *sum += *t, part by part; the system calls keep their names (beyond
 * IPS_OS_BY of them, the last slot becomes "other"). */
IPS_EXTERN void ips_os_time_add(ips_os_time_t *sum, const ips_os_time_t *t);

/* The largest part of *t: its name ("on_cpu", "cpu_wait", "disk",
 * "page_fault", "sleep", "not_measured"), its time in *ns, and for disk
 * and sleep the system call that took most of it in sc ("" otherwise).
 * Returns NULL when *t is all zero. */
IPS_EXTERN const char *ips_os_time_cause(const ips_os_time_t *t,
                                         int64_t *ns, char sc[24]);

/* ------------------------------------------------------------------------
 * Work of no delivery (os_other.c; docs/os.md, "Work of no delivery"):
 * the recorded frames no delivery took, joined into the exchanges they
 * belong to and counted by kind, so that every recorded frame is a
 * delivery's or a named kind of other work's.
 *
 * IPS_OS_WORK_KINDS(X) calls X(name, tag, meaning) once per kind, in the
 * order every output writes them: name the key in JSON (and the text's
 * word), tag the command's tag (xsnap's protocol: docs/protocol.md), 0
 * for the kinds that are not a command. */
#define IPS_OS_WORK_KINDS(X)                                                    X(command, '?', "an issueCommand of no delivery the report has: "              "SwingSet's setBundle (a vat's bundle, before its first delivery), or "       "a delivery the slogfile lacks or a filter left out")                      X(evaluate, 'e', "evaluate source text (setup code)")                        X(script, 's', "run a script file")                                           X(module, 'm', "run a module file")                                           X(is_ready, 'R', "isReady: a liveness check, answered with an empty `.`")    X(snapshot_write, 'w', "write a heap snapshot")                               X(quit, 'q', "quit: no answer, the worker exits")                             X(other_command, 0, "a command of a tag xsnap does not have (answered `!`)")   X(no_command, 0, "upcalls, replies and answers whose command the "             "recording does not have (it began inside it)")
#define IPS_OS_WORK_ENUM(name, tag, meaning) IPS_OS_WORK_##name,
enum { IPS_OS_WORK_KINDS(IPS_OS_WORK_ENUM) IPS_OS_WORK_N };
#undef IPS_OS_WORK_ENUM

/* One kind's exchanges, summed.  An exchange is a command the parent
 * wrote to a worker, the upcalls and replies in it, and its answer (`.`
 * or `!`) from the worker: ns from the command's write call entered to
 * the parent's read of the answer returned, cut at the frames' instants
 * into write + pipe + worker + reply == ns exactly (each instant clamped
 * after the one before). */
typedef struct ips_os_work_s {
  uint64_t exchanges;   /* commands (no_command: 0) */
  uint64_t frames;      /* all its frames: commands, upcalls, replies,
                           answers */
  uint64_t answered;    /* answered `.` */
  uint64_t errors;      /* answered `!` */
  int64_t ns;           /* the exchanges' time */
  int64_t write;        /* the command's write call(s) */
  int64_t pipe;         /* written -> the worker's read returned with it */
  int64_t worker_ns;    /* the worker's read returned -> its answer's
                           write entered (upcalls in it included) */
  int64_t reply;        /* the answer's write entered -> the parent's
                           read returned with it (0 unanswered) */
  ips_os_time_t worker; /* worker_ns split on the worker's thread */
} ips_os_work_t;

typedef struct ips_os_other_s {
  uint64_t frames;            /* the recording's paired frames */
  uint64_t delivery_frames;   /* those a delivery took */
  ips_os_work_t kind[IPS_OS_WORK_N]; /* the others, by kind */
} ips_os_other_t;

/* The frames of os that no delivery split so far took, by kind of work
 * (IPS_OS_WORK_KINDS), into *out: out->delivery_frames plus every kind's
 * frames is out->frames.  Call it after the deliveries were split (an
 * analysis's: at its summary).  Returns 0, or IPS_ENOMEM. */
IPS_EXTERN int ips_os_other(const ips_os_t *os, ips_os_other_t *out);

/* The worker processes launched (docs/os.md, "Workers launched and how
 * they ended"): from the recording's exec records, those whose first
 * argument names a vat (SwingSet's xsnap workers) or that answered
 * commands on a pipe; with their exit's wait status when recorded. */
typedef struct ips_os_launch_s {
  int64_t ns;           /* exec'd (the recording's clock) */
  long long pid, ppid;
  char vat[24];         /* "v12" of "v12:bank", or "" */
  char args[257];       /* the arguments, each NUL-terminated: len bytes */
  size_t len;
  int ended;            /* 1: its exit was recorded */
  int64_t end_ns;
  int status;           /* the wait status (ended) */
  int exit_code;        /* exited: its code, else -1 */
  int signal;           /* killed by a signal: its number, else 0 */
} ips_os_launch_t;

/* The workers launched, in the order exec'd, into a new array *out (the
 * caller frees it) of *n.  Returns 0, or IPS_ENOMEM. */
IPS_EXTERN int ips_os_launches(const ips_os_t *os, ips_os_launch_t **out,
                               size_t *n);

/* The run's longest gaps between deliveries (docs/os.md, "Between
 * deliveries"): kept by ips_analysis_os for the deliveries it splits. */
#define IPS_OS_GAPS 5
typedef struct ips_os_gap_s {
  long line;            /* the deliver record of the delivery after it */
  long long crank;      /* its crankNum, -1 replayed */
  char vat[32];         /* its vat */
  int64_t ns;           /* the gap: kernel_before_ns + snapshot_save_ns +
                           snapshot_load_ns */
  ips_os_time_t t;      /* its split on the kernel's thread (os_before_*) */
} ips_os_gap_t;

/* The longest gaps of the deliveries counted so far (at most IPS_OS_GAPS,
 * longest first; ties: the first kept), *n how many; NULL without a
 * recording. */
IPS_EXTERN const ips_os_gap_t *ips_analysis_os_gaps(const ips_analysis_t *a,
                                                    size_t *n);

#ifdef __cplusplus
}
#endif

#endif
