/* always.h — `ipcstamp record --always-on DIR` (docs/always-on.md): the
 * flight recorder of the OS view.  The records of the last window are
 * kept in memory (window.c), stalls are found in the frames as they come
 * (triggers.c), and a stall's window is written to DIR with a summary
 * that names it (dumps.c, summary.c).  Nothing is written while all is
 * well.  Records are opaque here but for their common 24-byte head and
 * the exec, exit and frame fields os_event.h names. */
#ifndef IPCSTAMP_RECORD_ALWAYS_H
#define IPCSTAMP_RECORD_ALWAYS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "os_event.h"

/* What a stall is, in the dump's name ("delivery") and its summary. */
enum {
  AO_MANUAL,   /* SIGUSR1 or `record --dump`: no stall, asked for */
  AO_DELIVERY, /* a delivery longer than --stall-delivery */
  AO_UPCALL,   /* an upcall (syscall) longer than --stall-upcall */
  AO_EXIT,     /* a worker or a followed process ended by a signal or
                  a non-zero status */
  AO_BLOCK,    /* --slog: a block longer than --stall-block */
  AO_PHASE,    /* --slog: a block's phase longer than --stall-phase */
  AO_GAP,      /* --slog: a gap between cranks longer than --stall-gap */
  AO_KINDS
};
extern const char *const ao_kind_name[AO_KINDS];

/* The recorder's counters, in one place so that they can be exported
 * (--metrics). */
typedef struct {
  uint64_t stalls[AO_KINDS];   /* stalls detected, by kind */
  uint64_t overlapping;        /* stalls over one a dump was for: no dump */
  uint64_t rate_limited;       /* stalls within --min-interval: no dump */
  uint64_t dumps, dump_failures;
  uint64_t events, lost;       /* records taken from the kernel; lost */
  uint64_t window_bytes, window_records; /* held now */
  uint64_t evicted;            /* records that left the window */
} ao_counters_t;

/* One stall as the triggers found it: enough for its summary. */
typedef struct {
  int kind;                    /* AO_* */
  uint64_t start, trigger, end; /* CLOCK_MONOTONIC ns; end 0: on */
  uint64_t pipe;               /* the delivery's pipe (0: none) */
  unsigned worker, worker_tid; /* the process it is about (0: none) */
  unsigned parent, parent_tid; /* the writer of the delivery (0: none) */
  unsigned char tag, head_len;
  unsigned char head[OS_HEAD];
  uint64_t delivery;           /* the worker's deliveries seen, this one's
                                  number */
  int code;                    /* AO_EXIT: the wait status */
  int in_delivery;             /* AO_EXIT: a delivery was in flight */
  char args[OS_ARGS + 1];      /* the worker's arguments, NUL-separated */
  unsigned args_len;
  char what[96];               /* --slog's: "block 12 commit", ... */
} ao_stall_t;

/* ---- window.c: the last --window seconds (and --window-bytes) of
 * records, and the exec record of every live process (kept while it
 * lives, so that a dump names the workers that started long before). */
typedef struct ao_window_s ao_window_t;
/* A window of at most bytes bytes of records and span_ns of time;
 * NULL when out of memory. */
ao_window_t *ao_window_new(size_t bytes, uint64_t span_ns,
                           ao_counters_t *c);
void ao_window_free(ao_window_t *w);
/* Adds one record (size bytes at data, as the kernel or the recorder
 * made it; a type rec_bin_size does not know is dropped), evicting the
 * oldest records as needed; now is CLOCK_MONOTONIC ns. */
void ao_window_add(ao_window_t *w, const void *data, size_t size,
                   uint64_t now);
/* The time the window spans at now, from its oldest record (0 when
 * empty), in seconds. */
double ao_window_seconds(const ao_window_t *w, uint64_t now);
/* Drops what is older than the span at now. */
void ao_window_expire(ao_window_t *w, uint64_t now);
/* Writes the window as a recording (the OS file's header, an exec record
 * for each live process whose own has left the window, the records, an
 * end record) to f.  pid: the header's followed pid (0: a command).
 * 0, or -1 when a write failed. */
int ao_window_write(const ao_window_t *w, FILE *f, long pid,
                    const ao_counters_t *c);
/* The arguments a live process was started with (NUL-separated; *len
 * bytes), or NULL when not known. */
const char *ao_window_args(const ao_window_t *w, unsigned pid,
                           unsigned *len);

/* ---- triggers.c: stalls found in the frames and exits. */
typedef struct ao_triggers_s ao_triggers_t;
typedef struct {
  uint64_t delivery_ns, upcall_ns; /* thresholds; 0: off */
} ao_limits_t;
ao_triggers_t *ao_triggers_new(const ao_limits_t *l, const ao_window_t *w);
void ao_triggers_free(ao_triggers_t *t);
/* Feeds one record; an exit that is a stall is put in *out (returns 1). */
int ao_triggers_feed(ao_triggers_t *t, const void *data, size_t size,
                     ao_stall_t *out);
/* At now: the next delivery or upcall in flight past its threshold (each
 * said once) into *out, returning 1; 0 when none. */
int ao_triggers_check(ao_triggers_t *t, uint64_t now, ao_stall_t *out);
/* Whether the delivery or upcall of *s has ended since, and when (its
 * end set); for the summary of a dump written after it. */
void ao_triggers_update(const ao_triggers_t *t, ao_stall_t *s);
/* The kernel's thread: the writer of the latest delivery (0s: none). */
void ao_triggers_kernel(const ao_triggers_t *t, unsigned *pid,
                        unsigned *tid);

struct ips_metrics_s; /* tools/metrics/metrics.h */

/* ---- slogwatch.c: stalls found in the node's slogfile (--slog). */
typedef struct ao_slog_s ao_slog_t;
typedef struct {
  uint64_t block_ns, phase_ns, gap_ns; /* thresholds; 0: off */
  uint64_t max_age_ns; /* a stall that ended longer ago is not said */
} ao_slog_limits_t;
/* Follows the slogfile at path (opened at the first poll, and again
 * after a fault); each delivery attributed in it goes into the
 * histograms of m (--metrics; NULL: none, and m must outlive w).  NULL
 * when out of memory. */
ao_slog_t *ao_slog_new(const char *path, const ao_slog_limits_t *l,
                       struct ips_metrics_s *m);
void ao_slog_free(ao_slog_t *w);
/* Reads what the file has now (a bounded number of lines); a stall found
 * is put in *out (returns 1; call again for the next). */
int ao_slog_poll(ao_slog_t *w, uint64_t now, ao_stall_t *out);

/* ---- summary.c: what a dump's summary says, from the dump itself
 * through the analysis library (the split `report --os` makes). */
#define AO_MAX_STALLS 8
/* Writes the summary of the recording at path (named name in it; the
 * stalls s[0..n), the first the trigger; wall_off: CLOCK_REALTIME less
 * CLOCK_MONOTONIC) to f.  0, or -1 (said in f) when the recording cannot
 * be read back. */
int ao_summary(FILE *f, const char *path, const char *name,
               const ao_stall_t *s, size_t n, long long wall_off);

/* ---- dumps.c: DIR, its dumps, recorder.pid. */
typedef struct {
  const char *dir;
  unsigned max_dumps;
  uint64_t max_bytes;
} ao_dir_t;
/* Writes the window w to a new dump in d (a temporary name, renamed when
 * whole, with its summary beside it) named for the first stall, then
 * removes the oldest dumps beyond d's bounds.  Run in a child of the
 * recorder (it reads the window as it was at the fork).  0, or 1 when the
 * dump could not be written (said on stderr; nothing left behind). */
int ao_dump_write(const ao_dir_t *d, const ao_window_t *w, long pid,
                  const ao_counters_t *c, const ao_stall_t *s, size_t n);
/* Writes d->dir/recorder.pid; 0, or an exit code said. */
int ao_pid_file(const ao_dir_t *d);
/* `ipcstamp record --dump DIR`: signals the recorder of dir and prints
 * the path of the dump it writes.  Returns an exit code. */
int ao_dump_request(const char *dir);

/* ---- metrics.c: --metrics ADDR, the recorder's Prometheus endpoint
 * (tools/metrics/).  Called from the recorder's loop only, never from a
 * dump's child. */
typedef struct ao_metrics_s ao_metrics_t;
/* Exit code: the endpoint cannot listen on ADDR (in use, not permitted). */
#define AO_EXIT_LISTEN 11
/* A registry with the recorder's families declared, served on listen
 * (ipcstamp metrics --listen's syntax; said on stderr once listening).
 * 0 and *out, or an exit code, said: CLI_EXIT_USAGE for an address that
 * is not one, AO_EXIT_LISTEN for one that cannot be listened on. */
int ao_metrics_start(const char *listen, ao_metrics_t **out);
/* Its registry, for --slog's deliveries (NULL for x NULL). */
struct ips_metrics_s *ao_metrics_registry(ao_metrics_t *x);
/* Publishes what changed in c since the last call, and the window's span
 * (seconds).  x NULL: nothing. */
void ao_metrics_publish(ao_metrics_t *x, const ao_counters_t *c,
                        double window_seconds);
/* Stops the server and frees x (NULL allowed). */
void ao_metrics_stop(ao_metrics_t *x);

/* always.c: `ipcstamp record --always-on DIR ...` (argv as rec_main's). */
int ao_main(int argc, char **argv);

#endif
