/* ipcstamp-analyze.h — the analysis library: records from a source, each
 * delivery attributed to pipe, worker and kernel, and the statistics.
 *
 * Data flows one way: a *source* (a slogfile: plain, gzip or stdin) yields
 * records; the *analysis* assembles each delivery from its records, computes
 * where its time went (docs/analyze.md, docs/report.md) and keeps every
 * statistic; results leave through two callbacks, one per attributed
 * delivery and one per skipped line or delivery (with its reason and line).
 * Nothing here prints, parses options or exits.
 *
 * Conventions are those of ipcstamp-proto.h: functions return 0 or a
 * negative code (IPS_E*, or -errno), with a one-line message in the
 * caller's buffer where they take one.  Nothing is shared between two
 * analyses; one analysis is used by one thread at a time (a source may read
 * ahead on a thread of its own: that is invisible to the caller).
 *
 * Ownership: the caller owns what it opens (a source, an analysis) until it
 * closes or frees it.  Everything a callback receives (the delivery, its
 * stamp arrays and strings, a skip's detail) is owned by the analysis and
 * valid only during the call: copy what you keep.
 *
 * Each function below has its contract above it (what it returns, who owns
 * what, what it never does): keep them true when the code changes, as the
 * other installed headers (ipcstamp-proto.h, -worker.h, -parent.h) do.
 */
#ifndef IPCSTAMP_ANALYZE_H
#define IPCSTAMP_ANALYZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "ipcstamp-proto.h"
#include "ipcstamp-ring-read.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Sources.
 */
typedef struct ips_source_s ips_source_t;

/* The longest line a source holds by default (64 MiB); longer lines are
 * skipped as IPS_SKIP_TOO_LONG without being kept in memory. */
#define IPS_DEFAULT_MAX_LINE (64u << 20)
/* The shortest --max-line accepted. */
#define IPS_MIN_MAX_LINE 1024u

typedef struct ips_source_options_s {
  size_t max_line;  /* longest line kept; 0: IPS_DEFAULT_MAX_LINE */
  int strict;       /* 1: tokenise every byte as JSON (slower; the default
                       steps over payloads the analysis does not need) */
  int follow;       /* 1: follow a file being written, as tail -F does:
                       the end of what it holds is not the end of input
                       (ips_analysis_read returns -EAGAIN there), and when
                       the path is rotated or truncated, the new file is
                       read from its start.  A pipe's end stays the end;
                       a flight recorder file cannot be followed. */
} ips_source_options_t;

/* Fill *o with the defaults. */
IPS_EXTERN void ips_source_options_init(ips_source_options_t *o);

/* Open the slogfile at path ("-" is standard input); gzip is recognised by
 * its content.  o may be NULL for the defaults.  On success *out is the
 * source, owned by the caller until ips_source_close().  Returns 0, or a
 * negative code with a message (path included) in err (errlen bytes). */
IPS_EXTERN int ips_source_open(ips_source_t **out, const char *path,
                               const ips_source_options_t *o, char *err,
                               size_t errlen);

/* Bytes read so far and the input's size (0 when unknown: a pipe, gzip). */
IPS_EXTERN void ips_source_progress(const ips_source_t *s, uint64_t *done,
                                    uint64_t *total);

/* Following: how many times the file was replaced or truncated and read
 * again from its start (0 otherwise). */
IPS_EXTERN unsigned long ips_source_reopened(ips_source_t *s);

/* Close the source and free it.  NULL is ignored. */
IPS_EXTERN void ips_source_close(ips_source_t *s);

/* ------------------------------------------------------------------------
 * What is skipped, and why: one list makes the enum, the name and the
 * message.  The first three are lines; the others are deliveries.
 */
#define IPS_SKIP_MAP(XX)                                                      \
  XX(NOT_JSON, "line is not JSON")                                            \
  XX(TRUNCATED, "truncated last line")                                        \
  XX(TOO_LONG, "line longer than --max-line")                                 \
  XX(MISSING, "missing or wrong fields")                                      \
  XX(VERSION, "unknown ipcstamp format version")                              \
  XX(ORPHAN, "syscall or result without its delivery")                        \
  XX(UNFINISHED, "delivery without its result")                               \
  XX(STAMPS, "worker stamps do not match the syscall count")                  \
  XX(DROPPED, "worker dropped stamps (its table was full)")                   \
  XX(NOSTAMPS, "no worker stamps in the metering")                            \
  XX(CLOCK, "the requested clock is not in the record")                     \
  XX(RANGE, "a stamp or a sum of them is out of range")

typedef enum {
#define XX(name, msg) IPS_SKIP_##name,
  IPS_SKIP_MAP(XX)
#undef XX
  IPS_SKIP_N
} ips_skip_reason_t;

/* "line is not JSON", ...; "?" for a reason out of range.  Static. */
IPS_EXTERN const char *ips_skip_message(int reason);
/* "NOT_JSON", ...: for machine-readable output.  Static. */
IPS_EXTERN const char *ips_skip_name(int reason);

/* Every stamp the analysis computes with is in [0, IPS_STAMP_LIMIT) ns
 * (until the year 2116 on the wall clock): then no difference of two
 * stamps can overflow, and sums are checked.  A delivery with a stamp
 * outside is skipped as IPS_SKIP_RANGE, never computed with wrapped
 * values. */
#define IPS_STAMP_LIMIT ((int64_t)1 << 62)

/* One skipped line or delivery.  line is the 1-based line of the source
 * where it is (for a delivery, its deliver record); detail says what was
 * wrong ("" when nothing more is known). */
typedef struct ips_skip_s {
  int reason;          /* IPS_SKIP_* */
  long line;
  const char *detail;
} ips_skip_t;

/* ------------------------------------------------------------------------
 * One attributed delivery (see docs/report.md for every field).
 */
typedef struct ips_delivery_s {
  const char *vat;
  const char *desc;     /* what was delivered: a method name, "notify", ... */
  long long crank, dnum; /* crank is -1 for a replayed delivery (SwingSet
                            writes none: it replays a transcript) */
  int replay;           /* replayed from a transcript after a restart */
  long line;            /* line of the deliver record */
  int ok;               /* dr[0] was "ok" */
  char clock;           /* 'm': both sides mono (with mono_offset, the
                           worker's moved by the kernel run's constant);
                           'w': offset-estimated */
  char pclock;          /* parent clock: 'm' monotime, 'w' time */
  size_t n_up;          /* upcalls (syscalls and console lines) */
  /* P and W hold 2 + 2*n_up stamps (D,U1,R1,...,E and d,u1,r1,...,e), all
   * in the parent's clock, in ns; W is converted with the offset estimate
   * when clock == 'w'. */
  const int64_t *P, *W;
  /* pipe + worker + kernel + unmatched == total, exactly. */
  int64_t pipe, worker, kernel, total;
  /* A replayed delivery's worker made upcalls the kernel kept no record of
   * (console lines are not logged in replay): then none of its upcalls can
   * be paired with the kernel's records, P holds the worker's u and r for
   * them, kernel is the recorded syscalls' handling time, and unmatched is
   * the rest of the time the worker waited on upcalls (their transit both
   * ways and the kernel's handling of the unrecorded ones). */
  size_t n_unmatched;   /* 0, or n_up; or, truncated, the upcalls after the
                           worker's stamps ran out */
  int64_t unmatched;
  /* Agoric's xsnap keeps 502 stamps a delivery and drops the rest, its
   * final e included: then only the first (n_up - n_unmatched) upcalls
   * are stamped, W mirrors P after them, kernel is every syscall's (exact),
   * pipe and worker are those up to the last stamped reply (exact), and
   * unmatched is the rest of the delivery.  A replay (replay 1) with 502
   * stamps may have been cut so (the kernel records no console line in
   * replay): then n_unmatched is n_up, the worker's own upcalls up to its
   * last reply, W[1 + 2n] mirrors E, and unmatched also holds the time
   * from its last reply to E. */
  int truncated;
  int has_cpu;
  int64_t cpu_ns;
  int64_t offcpu_ns;    /* worker time not on the CPU, never below 0 */
  int quake;            /* |wall - mono| over the delivery > threshold */
  int64_t quake_ns;
  int has_gap;
  int64_t gap_ns;       /* kernel time since the previous delivery ended */
  int64_t offset_ns, bound_ns; /* clock == 'w': worker - parent, +- bound */
  /* The VM's own marks and spans (metering v2), in time order of
   * their start (a span before what it encloses); n_marks is 0 without. */
  size_t n_marks;
  const struct ips_delivery_mark_s *marks;
  long long marks_dropped, marks_unbalanced; /* as the worker counted them */
  /* The worker process that ran it, from the vat's latest create-vat (or
   * format 1's worker-start) before the delivery: its pid as ipcstamp's
   * parent writes it, 0 when unknown (SwingSet's own slogfiles have none,
   * nor does a delivery before any create-vat or after a kernel restart
   * without one), and that record's line (0: none).  Added after the
   * fields above, so a program built against the older header, which only
   * reads what the library hands it, still works. */
  long long worker_pid;
  long worker_line;
  /* clock == 'm' with mono_offset 1: the worker's CLOCK_MONOTONIC stamps
   * against a SwingSet kernel's monotime (which counts from the kernel's
   * start), moved by the kernel run's constant: offset_ns +- bound_ns. */
  int mono_offset;
  /* A transit (send, upcall, reply, result) is below -bound_ns: the
   * offset does not fit this delivery (docs/report.md, Clocks). */
  int offset_mismatch;
  /* What was delivered, without a notify's promise ids: the method of a
   * message, "notify", or the delivery type ("bringOutYourDead", ...).
   * The key `report --by method` and `--method` go by. */
  const char *method;
  /* Added after the fields above, as they were.  The metering's compute
   * (xsnap's computrons), when it has one. */
  int has_compute;
  long long compute;
  /* The time since the previous delivery ended that went to heap
   * snapshots (docs/blocks.md): SwingSet saving a vat's heap (and loading
   * it into a new worker).  gap_ns is the kernel's own time, without it:
   * gap_ns + snap_save_ns + snap_load_ns is D - E(previous). */
  int64_t snap_save_ns, snap_load_ns;
  /* Waiting for a CPU (docs/report.md, "Waiting for a CPU"),
   * from the run-queue delays the stamps carry (IPCSTAMP_RUN_DELAY): each
   * pipe segment whose receiver measured its wait at its receive stamp is
   * split into that wait (at most the segment) and the rest, transit.
   * pipe == pipe_wait + pipe_transit + pipe_unsplit, exactly; unsplit is
   * the segments whose receiver measured nothing (all of pipe without
   * run-queue delays; the kernel's side on SwingSet's own slogfiles). */
  int has_wait;          /* at least one segment was split */
  int64_t pipe_wait, pipe_transit, pipe_unsplit;
  int64_t wait_worker;   /* of pipe_wait: the worker's (send and replies) */
  /* The worker's own time it was runnable but not on a CPU (its delays at
   * u and e, each over exactly one of its stretches).  With cpu_ns,
   * offcpu_ns == runnable_ns + blocked_ns exactly (runnable_ns then at
   * most offcpu_ns: cpu_ns also counts a few us of the worker's system
   * calls, in the pipe). */
  int has_runnable;
  int64_t runnable_ns, blocked_ns;
  /* Per stamp beside P and W: the run-queue delay in ns, -1 where not
   * measured; NULL when not at all.  For ips_delivery_segment_wait(). */
  const int64_t *PQ, *WQ;
  /* ips_analysis_worker_rings(), a metering of xsnap's alone: its worker
   * stamps, cpu_ns and spans joined from its worker's ring (JOINED), or
   * not, split on xsnap's wall timestamps: its ring was overwritten past
   * it before it was read (LAPPED), or no ring has it (MISSING). */
  int ring;
  /* ips_analysis_os(): its split by what the OS saw (ipcstamp-analyze-os.h),
   * valid during the callback; NULL without a recording. */
  const struct ips_os_split_s *os;
} ips_delivery_t;
#define IPS_RING_JOINED 1
#define IPS_RING_LAPPED 2
#define IPS_RING_MISSING 3

/* One mark or span of a delivery, on the same clock as W.  name is owned
 * by the analysis (valid during the callback), UTF-8 with control bytes
 * as '?'. */
typedef struct ips_delivery_mark_s {
  const char *name;
  char kind;       /* 'm' a mark, 's' a span */
  int depth;       /* spans open around it (0: directly in the segment) */
  size_t wseg;     /* the worker stretch its start lies in: 0 from d to
                      the first u, i from r_i to the next u (or e) */
  int64_t at;      /* start, ns (W's clock) */
  int64_t dur;     /* a span's length; 0 for a mark */
} ips_delivery_mark_t;

/* The delivery's segments in time order: send, worker, then per upcall
 * upcall, kernel, reply, worker; then result.  With unmatched upcalls, per
 * upcall one "unmatched" segment (r - u) stands for the three.  Truncated:
 * after the stamped upcalls, per other upcall "unmatched" (up to its
 * arrival) and "kernel", then a last "unmatched" (up to E); a replay at
 * the cap: send, per upcall "worker" and "unmatched", then "unmatched" up
 * to E. */
IPS_EXTERN size_t ips_delivery_nsegments(const ips_delivery_t *d);
/* Segment j's length in ns (j < ips_delivery_nsegments(d)); *name gets its
 * kind ("send", "worker", "upcall", "kernel", "reply", "result"). */
IPS_EXTERN int64_t ips_delivery_segment(const ips_delivery_t *d, size_t j,
                                        const char **name);

/* The segments' kinds, as ips_delivery_segments() gives them; a kind's
 * name is the one ips_delivery_segment() gives ("?" for none). */
enum {
  IPS_SEG_SEND, IPS_SEG_WORKER, IPS_SEG_UPCALL, IPS_SEG_KERNEL,
  IPS_SEG_REPLY, IPS_SEG_RESULT, IPS_SEG_UNMATCHED, IPS_SEG_N
};
IPS_EXTERN const char *ips_segment_name(int kind);
/* Segments from, from + 1, ... (at most cap, up to the last) into the
 * caller's len[] and kind[]: returns how many (0 when from is past the
 * last).  One call for a run of segments: what an output that writes
 * them all calls, rather than ips_delivery_segment() for each. */
IPS_EXTERN size_t ips_delivery_segments(const ips_delivery_t *d, size_t from,
                                        size_t cap, int64_t *len,
                                        unsigned char *kind);

/* The upcalls the worker stamped: all of them, but for a live truncated
 * delivery's (xsnap's cap) the first n_up - n_unmatched. */
IPS_EXTERN size_t ips_delivery_stamped_upcalls(const ips_delivery_t *d);
/* Upcall i's time as the worker waited for it, r - u (upcall + kernel +
 * reply), for i < ips_delivery_stamped_upcalls(d). */
/* Segment j's waiting for a CPU: for a pipe segment (send, upcall,
 * reply, result) whose receiver measured its run-queue delay, that wait
 * in ns (at most the segment; its transit is the rest); -1 for any other
 * segment, or when not measured. */
IPS_EXTERN int64_t ips_delivery_segment_wait(const ips_delivery_t *d,
                                             size_t j);

IPS_EXTERN int64_t ips_delivery_upcall_wait(const ips_delivery_t *d,
                                            size_t i);

/* ------------------------------------------------------------------------
 * Statistics.
 */

/* Sums over a set of deliveries, in ns. */
typedef struct ips_totals_s {
  uint64_t n, n_mono, n_wall, n_cpu, n_gap, n_quake;
  uint64_t n_replay;    /* attributed deliveries that were replayed */
  uint64_t n_unmatched; /* ... with an unmatched share: upcalls the kernel
                           did not record (replayed), or truncated */
  uint64_t n_truncated; /* ... past xsnap's 502 stamps (truncated) */
  uint64_t n_error;     /* results that were errors (dr[0] "error") */
  uint64_t n_local;     /* ok results without metering (dr[2] null): local
                           vats, whose deliveries have no worker stamps */
  int64_t pipe, worker, kernel, total, unmatched;
  int64_t cpu, offcpu, cpu_worker; /* over the deliveries with cpu_ns */
  int64_t gap;                     /* kernel time between deliveries */
} ips_totals_t;

/* Waiting for a CPU over a set of deliveries: over those with
 * has_wait, their pipe (wait_pipe) split as theirs is, wait_pipe =
 * pipe_transit + pipe_wait + pipe_unsplit exactly; over those with
 * has_runnable, the worker's runnable time; over those of them with cpu_ns
 * too, their off-CPU time, split_offcpu = split_runnable + blocked
 * exactly. */
typedef struct ips_wait_totals_s {
  uint64_t n_wait, n_runnable, n_blocked;
  int64_t wait_pipe, pipe_wait, pipe_transit, pipe_unsplit, wait_worker;
  int64_t runnable;
  int64_t split_offcpu, split_runnable, blocked;
} ips_wait_totals_t;

/* One vat's figures.  The offset is the latest estimate (clock 'w'). */
typedef struct ips_vat_stats_s {
  const char *vat;
  ips_totals_t t;
  int has_offset;
  int64_t offset_ns, bound_ns;
} ips_vat_stats_t;

/* The whole input (the deliveries and skips counted are those that pass
 * the analysis's vat filter; lines are all lines). */
typedef struct ips_stats_s {
  uint64_t lines, other;        /* lines read; records of other types */
  uint64_t restarts;            /* the kernel restarted (monotime went back)
                                   while appending to the same file */
  uint64_t skipped[IPS_SKIP_N];
  uint64_t skipped_lines, skipped_deliveries;
  ips_totals_t all;             /* every attributed delivery */
  int first_mono_ok, first_time_ok;
  int64_t first_mono, first_time; /* of the first record: a trace's origin */
  /* The anchor of the kernel run being read, once it restarted (restarts
   * > 0): the time and monotime of the first record with both since the
   * latest restart; run_ok is 0 until there is one.  Monotime counts from
   * each kernel's start, so a run's monotimes are placed on the wall clock
   * from its own anchor, not the file's first record's.  (Added at the end:
   * the library hands out this struct, programs do not allocate it.) */
  int run_ok;
  int64_t run_time, run_mono;
  /* Records of a delivery that started before the input does (a wrapped
   * flight recorder's oldest records): syscalls and results read before
   * the first deliver record.  Expected, so not skipped. */
  uint64_t cut;
  /* Deliveries not attributed that nothing is wrong with, by reason (the
   * skips are above): results without metering that xsnap's meter
   * killed (dr ["error", "... meter exceeded", null]) or other errors
   * without metering, and deliveries a kernel restart cut before their
   * result.  Local vats are all.n_local.  Then the attributed deliveries
   * flagged offset_mismatch.  (Added at the end, as run_ok.) */
  uint64_t n_meter_kill, n_error_unstamped, n_restart_cut;
  uint64_t n_offset_mismatch;
  /* Heap snapshots between the deliveries that count (docs/blocks.md):
   * their time is not in all.gap.  (Added at the end, as above.) */
  uint64_t n_snap_save, n_snap_load;
  int64_t snap_save, snap_load;
  /* Whose stamps the parent's are, on which what "pipe" holds depends: 1
   * when the file's start record carries ipcstamp's header
   * (kernel-init-start or slog-start with "ipcstamp"), so that they were
   * taken at the pipe; 0 for SwingSet's own
   * slogfiles, whose times are when the kernel wrote its records, in
   * JavaScript, around its own marshalling (docs/report.md). */
  int ipcstamp_parent;
  ips_wait_totals_t wait;       /* every attributed delivery's */
  /* ips_delivery_t.ring's counts (ips_analysis_worker_rings()). */
  uint64_t n_ring_joined, n_ring_lapped, n_ring_missing;
  /* Adds to these sums held at the bound (ips_sum_add): those sums are
   * bounds then, not measures; 0 on a real file. */
  uint64_t saturated;
} ips_stats_t;

/* The origin of a timeline's times on d's parent clock (d->pclock): the
 * input's first record's monotime or time, or d's own D when that record
 * lacked it.  A trace's and a page's times are d->P[j] minus it. */
IPS_EXTERN int64_t ips_stats_origin(const ips_stats_t *st,
                                    const ips_delivery_t *d);
/* A parent stamp of d as ns since the Unix epoch.  A stamp on the wall
 * clock (pclock 'w') is that already; a monotime stamp is placed at the
 * first record's time plus its monotime since the first record (the
 * file's own anchor: stable when the file is read again, and exact as long
 * as the wall clock was not stepped since), or, after a kernel restart, at
 * the anchor of the run it belongs to (run_time, run_mono: each run's
 * monotime starts again); with no time in the file at all, as is. */
IPS_EXTERN int64_t ips_stats_wall_ns(const ips_stats_t *st,
                                     const ips_delivery_t *d, int64_t stamp);

/* One kernel run's mono offset (docs/report.md, Clocks 3): a SwingSet
 * kernel's monotime is CLOCK_MONOTONIC less a constant, estimated from
 * the run's round trips; as the run's last delivery on it had it. */
typedef struct ips_mono_run_s {
  uint64_t run;          /* 0 for the input's first kernel run, then 1, ... */
  int64_t offset_ns, bound_ns;
  uint64_t deliveries;   /* attributed with it */
} ips_mono_run_t;

/* One of the slowest deliveries (by total). */
typedef struct ips_slow_s {
  char vat[64];
  char desc[96];
  long long crank, dnum;
  long line;
  int64_t pipe, worker, kernel, total;
} ips_slow_t;

/* ------------------------------------------------------------------------
 * The analysis.
 */
typedef struct ips_analysis_s ips_analysis_t;

enum { IPS_CLOCK_AUTO, IPS_CLOCK_MONO, IPS_CLOCK_WALL };

typedef void (*ips_delivery_cb)(void *arg, const ips_delivery_t *d);
typedef void (*ips_skip_cb)(void *arg, const ips_skip_t *s);

typedef struct ips_analysis_options_s {
  int clock;            /* IPS_CLOCK_*: which stamps to attribute with */
  int64_t quake_ns;     /* timequake threshold (default 1 ms) */
  const char *vat;      /* only this vat's deliveries and skips; NULL: all
                           (copied) */
  size_t top;           /* how many slowest deliveries to keep (default 10) */
  /* Which deliveries count, besides vat: those whose deliver record is in
   * [since_ns, until_ns) after the input's first record (until_ns 0: no
   * end), whose crank is in [crank_min, crank_max] (crank_max 0: no end;
   * a replayed delivery, which has no crank, counts only when both are 0),
   * and of those the first limit (0: all; the reading stops after them).
   * The others are neither reported nor counted, nor are their skips. */
  int64_t since_ns, until_ns;
  long long crank_min, crank_max;
  uint64_t limit;
  /* Optional, a filter of the caller's own (a method, a duration): called
   * for each attributed delivery that passes the filters above, before it
   * is counted; returning 0 leaves it out as they do (not counted, not
   * reported, not in limit).  Called with arg. */
  int (*select)(void *arg, const ips_delivery_t *d);
  ips_delivery_cb on_delivery; /* optional */
  ips_skip_cb on_skip;         /* optional */
  void *arg;                   /* passed to both */
} ips_analysis_options_t;

/* Fill *o with the defaults. */
IPS_EXTERN void ips_analysis_options_init(ips_analysis_options_t *o);

/* Create an analysis.  *out is owned by the caller until
 * ips_analysis_free().  Returns 0, IPS_EINVAL or IPS_ENOMEM. */
IPS_EXTERN int ips_analysis_new(ips_analysis_t **out,
                                const ips_analysis_options_t *o);

/* Read up to max_lines lines of s (0: no limit) and feed them to the
 * analysis; callbacks run from inside this call.  Returns the number of
 * lines read (> 0), 0 at the end of input, -EAGAIN when following (see
 * ips_source_options_t.follow) and no new line is there yet (never
 * waits: call again later; a delivery in progress stays open), or IPS_EIO
 * when the source
 * cannot be read any further (a read error, a damaged gzip stream): the
 * message is in err, and the line that could not be read is
 * ips_analysis_stats(a)->lines + 1.  Every line before the fault has been
 * analysed; the error stays (later calls return it again).  Call it again
 * to go on: a caller can show progress between calls. */
IPS_EXTERN long ips_analysis_read(ips_analysis_t *a, ips_source_t *s,
                                  size_t max_lines, char *err, size_t errlen);

/* The input is over: each delivery still waiting for its result is skipped
 * (IPS_SKIP_UNFINISHED).  Call once, after the last read. */
IPS_EXTERN void ips_analysis_finish(ips_analysis_t *a);

/* The statistics so far.  Valid until the next call on a. */
IPS_EXTERN const ips_stats_t *ips_analysis_stats(const ips_analysis_t *a);

/* Vats seen so far, in order of first appearance (every vat, whatever the
 * filter). */
IPS_EXTERN size_t ips_analysis_nvats(const ips_analysis_t *a);
IPS_EXTERN const ips_vat_stats_t *ips_analysis_vat(const ips_analysis_t *a,
                                                   size_t i);

/* The slowest deliveries so far, slowest first (ties in file order);
 * *n gets how many (at most the option top). */
IPS_EXTERN const ips_slow_t *ips_analysis_slowest(const ips_analysis_t *a,
                                                  size_t *n);

/* The marks and spans of the i-th slowest delivery, as the latest
 * ips_analysis_slowest() listed them: its first IPS_SLOW_MARKS in time
 * order, at relative to the worker's d, names cut to 63 bytes (at a
 * character's start).  *n gets how many, *more how many were left out.
 * NULL (and 0s) when it had none.  Owned by the analysis, valid until
 * the next call on a. */
#define IPS_SLOW_MARKS 32u
IPS_EXTERN const ips_delivery_mark_t *ips_analysis_slow_marks(
    const ips_analysis_t *a, size_t i, size_t *n, size_t *more);

/* The kernel runs whose deliveries were attributed on the mono clock
 * with the run's offset (ips_delivery_t.mono_offset), in input order: *n
 * gets how many (at most IPS_MAX_MONO_RUNS; later runs are counted in
 * ips_analysis_mono_runs_over()). */
#define IPS_MAX_MONO_RUNS 64u
IPS_EXTERN const ips_mono_run_t *ips_analysis_mono_runs(
    const ips_analysis_t *a, size_t *n);
IPS_EXTERN uint64_t ips_analysis_mono_runs_over(const ips_analysis_t *a);

/* Per-name totals of the VM's marks and spans over the deliveries that
 * count, in order of first appearance.  At most IPS_MAX_MARK_NAMES names
 * are kept; the others are counted in ips_analysis_marks_over(). */
#define IPS_MAX_MARK_NAMES 1024u
typedef struct ips_mark_stats_s {
  const char *name;       /* owned by the analysis */
  uint64_t n_marks;       /* marks of this name */
  uint64_t n_spans;       /* spans of this name */
  int64_t span_ns;        /* their total length */
  int64_t span_max_ns;
  uint64_t saturated;     /* adds that held span_ns at INT64_MAX
                             (ips_sum_add): then it is a bound */
} ips_mark_stats_t;
IPS_EXTERN size_t ips_analysis_nmarks(const ips_analysis_t *a);
IPS_EXTERN const ips_mark_stats_t *ips_analysis_mark(const ips_analysis_t *a,
                                                     size_t i);
/* Marks and spans whose name did not fit in the table. */
IPS_EXTERN uint64_t ips_analysis_marks_over(const ips_analysis_t *a);

/* Free the analysis.  NULL is ignored. */
IPS_EXTERN void ips_analysis_free(ips_analysis_t *a);

/* ------------------------------------------------------------------------
 * Figures as text.
 */

/* "123.456": ns as microseconds with three decimals, exact, NUL-terminated
 * in buf (at least IPS_US_BUF bytes).  Returns buf. */
#define IPS_US_BUF 32
IPS_EXTERN const char *ips_format_us(char *buf, int64_t ns);
/* The same text without its NUL; returns its length. */
IPS_EXTERN size_t ips_put_us(char *buf, int64_t ns);
/* A copy of s into dst (n > 0 bytes, NUL-terminated), cut to fit before a
 * UTF-8 continuation byte, so that a kept name or description never ends
 * inside a character. */
IPS_EXTERN void ips_copy_cut(char *dst, size_t n, const char *s);

/* Parts of their own, which need the types above: the blocks of a chain
 * node's slogfile, the live rings as a source of deliveries, the list of a
 * delivery's fields that every output writes from, the keepers an output
 * uses over the deliveries (the N slowest, sums by key, histograms), and the opening
 * of paths that someone else may have replaced. */
#include "ipcstamp-analyze-blocks.h"
#include "ipcstamp-analyze-causes.h"
#include "ipcstamp-analyze-rings.h"
#include "ipcstamp-analyze-fields.h"
#include "ipcstamp-analyze-keepers.h"
#include "ipcstamp-analyze-files.h"

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_ANALYZE_H */
