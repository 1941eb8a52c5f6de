/* attr.h — deliveries from slog records, and where their time went
 * (DESIGN.md §6).  Shared by report, trace and latency.
 *
 * The assembler holds only unfinished deliveries (one per vat: upcalls nest
 * strictly), so memory follows the number of vats, not the file.
 */
#ifndef IPCSTAMP_TOOLS_ATTR_H
#define IPCSTAMP_TOOLS_ATTR_H

#include <stdint.h>
#include <stdio.h>

#include "slog.h"

/* Why a line or a delivery was skipped: name, message. */
#define IPS__SKIP_MAP(XX)                                                     \
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
  XX(CLOCK, "the requested clock is not in the record")

enum {
#define XX(name, msg) IPS__SKIP_##name,
  IPS__SKIP_MAP(XX)
#undef XX
  IPS__SKIP_N
};
const char *ips__skip_msg(int reason);
const char *ips__skip_name(int reason); /* "NOT_JSON", ...: for JSON output */

enum { IPS__CLOCK_AUTO, IPS__CLOCK_MONO, IPS__CLOCK_WALL };

/* One attributed delivery.  Pointers are valid during the callback only.
 * P and W hold 2 + 2*n_up stamps (D,U1,R1,...,E and d,u1,r1,...,e), all in
 * the parent's clock, in ns; W is converted with the offset estimate when
 * clock == 'w'.  pipe + worker + kernel == total exactly. */
typedef struct {
  const char *vat;
  const char *desc;
  long long crank, dnum;
  long line;            /* line of the deliver record */
  int ok;               /* dr[0] was "ok" */
  char clock;           /* 'm': both sides mono; 'w': offset-estimated */
  char pclock;          /* parent clock: 'm' monotime, 'w' time */
  size_t n_up;
  const int64_t *P, *W;
  int64_t pipe, worker, kernel, total;
  int has_cpu;
  int64_t cpu_ns;
  int64_t offcpu_ns; /* worker time not on the CPU, never below 0 */
  int quake;            /* |wall - mono| over the delivery > threshold */
  int64_t quake_ns;
  int has_gap;
  int64_t gap_ns;       /* kernel time since the previous delivery ended */
  int64_t offset_ns, bound_ns; /* clock == 'w': worker - parent, +- bound */
} ips__delivery_t;

/* The delivery's segments in time order: send, worker, then per upcall
 * upcall, kernel, reply, worker; then result.  Segment j's length in ns;
 * *name gets its kind. */
size_t ips__nsegments(const ips__delivery_t *d);
int64_t ips__segment(const ips__delivery_t *d, size_t j, const char **name);

typedef void (*ips__delivery_cb)(void *arg, const ips__delivery_t *d);

/* Per-vat figures, for summaries. */
typedef struct {
  const char *vat;
  uint64_t n, n_mono, n_wall, n_cpu, quakes;
  int64_t pipe, worker, kernel, total, cpu;
  int has_offset;
  int64_t offset_ns, bound_ns;
} ips__vat_stats_t;

typedef struct ips__attr ips__attr_t;

ips__attr_t *ips__attr_new(int clock_mode, int64_t quake_ns,
                           ips__delivery_cb cb, void *arg);
void ips__attr_free(ips__attr_t *a);
size_t ips__attr_nvats(const ips__attr_t *a);
const ips__vat_stats_t *ips__attr_vat(const ips__attr_t *a, size_t i);

/* Used by the driver: one record (of line), and the end of input.  Skips
 * are counted in *st and reported on msgs. */
struct ips__drive_stats;
void ips__attr_bind(ips__attr_t *a, struct ips__drive_stats *st, FILE *msgs,
                    const char *prog, const char *path);
void ips__attr_feed(ips__attr_t *a, const ips__rec_t *r, long line);
void ips__attr_finish(ips__attr_t *a);
void ips__skip(struct ips__drive_stats *st, FILE *msgs, const char *prog,
               const char *path, long line, int reason, const char *detail);

/* ---- driver (slog_drive.c) ------------------------------------------ */

typedef struct {
  const char *prog;     /* "ipcstamp report": message prefix */
  const char *path;     /* "-" = stdin */
  int strict;           /* yajl on every byte */
  size_t max_line;
  int progress;         /* progress bar on stderr when it is a terminal */
  FILE *msgs;           /* where skip messages go (stderr) */
} ips__drive_opts_t;

/* The defaults every subcommand starts from: messages on stderr prefixed
 * prog, lines up to 64 MiB, a progress bar on a terminal. */
void ips__drive_opts_init(ips__drive_opts_t *o, const char *prog);

/* --clock's value: auto, mono or wall into *mode (IPS__CLOCK_*).  Returns
 * 0, or -1 after saying on stderr what is wrong (exit code 2). */
int ips__drive_clock(const char *prog, const char *arg, int *mode);

typedef struct ips__drive_stats {
  uint64_t lines, other, deliveries, n_mono, n_wall, quakes;
  uint64_t skipped[IPS__SKIP_N];
  uint64_t skipped_lines, skipped_deliveries;
  int first_mono_ok, first_time_ok;
  int64_t first_mono, first_time; /* of the first record: trace origin */
} ips__drive_stats_t;


/* Reads the whole input, feeding attributed deliveries to a's callback.
 * Every skip is reported on o->msgs with its line number.  Returns an exit
 * code from commands.h: OK, INPUT (something skipped) or IO. */
int ips__drive(const ips__drive_opts_t *o, ips__attr_t *a,
               ips__drive_stats_t *st);

/* "123.456" µs from ns, exact.  buf must hold 32 bytes. */
const char *ips__fmt_us(char *buf, int64_t ns);
/* The same text without its NUL (buf holds 32 bytes); returns its length. */
size_t ips__put_us(char *buf, int64_t ns);

#endif
