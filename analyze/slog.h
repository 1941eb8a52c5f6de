/* slog.h — the streaming slogfile reader of the analysis (internal).
 *
 * A slogfile (docs/slogfile.md) is JSON lines.  The reader hands out one line at
 * a time from a plain file, a gzip file or stdin, holding at most one line
 * (bounded by max_line) in memory.  ips__slog_parse() turns one line into an
 * ips__rec_t with only what attribution needs: records exactly as our
 * parent writes them are matched byte for byte (slog_fast.c), others go to
 * yajl; either way the payloads (vd arguments, vsc, vsr, the result) are
 * stepped over instead of being tokenised, which is where most of the
 * bytes are (see docs/report.md).
 */
#ifndef IPCSTAMP_ANALYZE_SLOG_H
#define IPCSTAMP_ANALYZE_SLOG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ipcstamp-proto.h"
#include "meter.h"

/* ---- input ---------------------------------------------------------- */

typedef struct ips__slog_in ips__slog_in_t;

/* Opens PATH ("-" = stdin); gzip is detected from the content.  Returns NULL
 * with a message in err (errlen bytes) when it cannot.  max_line bounds the
 * longest line held in memory; longer lines are reported and skipped. */
ips__slog_in_t *ips__slog_open(const char *path, size_t max_line, char *err,
                               size_t errlen);

/* Next line, without its '\n'.  Returns 1 with *line and *len set (valid until the
 * next call), 0 at end of input, -1 on a read error (message in err).
 * *flags gets IPS__LINE_TOOLONG (the line was dropped; *len is its length)
 * or IPS__LINE_NOEOL (last line had no newline: possibly truncated).
 * Holding (below), it may also return IPS__SLOG_FULL. */
#define IPS__LINE_TOOLONG 1
#define IPS__LINE_NOEOL 2
int ips__slog_next(ips__slog_in_t *in, const char **line, size_t *len,
                   int *flags, char *err, size_t errlen);

/* Holding (slog_ahead.c): the lines ips__slog_next() returns stay where
 * they are, so that a buffer of them can be handed over whole instead of
 * copied.  When the buffer has no more room, ips__slog_next() returns
 * IPS__SLOG_FULL; ips__slog_detach() then gives the caller the buffer with
 * every line returned since the last detach (*cap: in, the size of fresh;
 * out, the size of the buffer returned) and goes on in fresh, which it
 * may grow.  Returns NULL when out of memory (nothing changed). */
#define IPS__SLOG_FULL 2
#define IPS__SLOG_BUF (512u << 10) /* a buffer's size to start with */
void ips__slog_hold(ips__slog_in_t *in);
char *ips__slog_detach(ips__slog_in_t *in, char *fresh, size_t *cap);

/* Following (tail -F): at the end of a regular file, ips__slog_next()
 * returns IPS__SLOG_AGAIN instead of 0 and keeps an unfinished last line
 * until its newline arrives; a later call reads what was appended.  When
 * the file at path is replaced (rotated: another inode) or truncated, the
 * rest of the old one is read, then path is opened again from its start:
 * *reopened counts those times.  Not for a pipe (its end is the end) or a
 * flight recorder file (returns -1). */
#define IPS__SLOG_AGAIN 3
int ips__slog_follow(ips__slog_in_t *in, const char *path);
unsigned long ips__slog_reopened(const ips__slog_in_t *in);

/* Mapping: a regular, uncompressed file named by path (not stdin, not
 * followed, not a flight recorder) is read through a read-only mapping of
 * it instead of into a buffer, so its bytes are never copied: returns 1
 * when it is, 0 when it is read as before (also when mapping fails).  Call
 * it before the first ips__slog_next and not with ips__slog_follow (which
 * then returns -1).  The file read is the file as it was then; appended
 * bytes are not read.
 *
 * Mapped, ips__slog_next hands out lines in the mapping (a too-long line
 * too, with IPS__LINE_TOOLONG), valid until ips__slog_close, and detaching
 * returns fresh itself: no buffer changes hands.  If the file is truncated
 * meanwhile, reading a line past its new end raises SIGBUS: so the caller
 * reads the lines only inside a guard (bus_guard.h) over
 * ips__slog_mapping()'s range, and on a fault says so with
 * ips__slog_shrank() (err gets the path, the byte and the new size).
 * ips__slog_next guards its own reads and returns -1 with that message,
 * unless ips__slog_guarded() said that the caller calls it only inside a
 * guard of its own (one for many lines, since entering one costs about as
 * much as finding a short line's end). */
int ips__slog_map(ips__slog_in_t *in, const char *path);
void ips__slog_guarded(ips__slog_in_t *in);

/* Mapped, instead of ips__slog_next: the next range [*from, *to) of whole
 * lines (the last one may lack its newline at the end of the file), about
 * IPS__SLOG_BUF bytes, found by reading only the line across the cut.
 * Returns 1, or 0 at the end (*from == *to).  Whoever parses a range then
 * cuts it into lines with ips__slog_line_at (from pos < to; returns where
 * the next line starts), as ips__slog_next would have: the same lengths
 * and flags.  So the bytes are read once, by the thread that parses them,
 * while they are in its cache.  Both read the mapping: under a guard. */
int ips__slog_range(ips__slog_in_t *in, size_t *from, size_t *to);
size_t ips__slog_line_at(const ips__slog_in_t *in, size_t pos, size_t to,
                         const char **line, size_t *len, int *flags);
void ips__slog_mapping(const ips__slog_in_t *in, const char **base,
                       size_t *len);
/* Mapped: no byte before upto will be read again, so the whole pages
 * there may be unmapped now (in pieces of a few MiB; the rest at close).
 * Unmapping 90 MB at close took 2 ms on the caller's thread after the
 * work was done: released along the way, that is done by the reader
 * while the caller still works.  Not with ips__slog_next's own lines
 * still held (the reader hands out no more than a block of them). */
void ips__slog_release(ips__slog_in_t *in, size_t upto);
void ips__slog_shrank(const ips__slog_in_t *in, const char *at, char *err,
                      size_t errlen);

/* ---- Agoric's flight recorder (flight.c) ---------------------------- */

typedef struct ips__flight ips__flight_t;

/* fd is a flight recorder file (recognised by its magic): returns 1 with
 * *out set (owned by the caller; fd stays the caller's), 0 when it is not
 * one (nothing read is consumed: reads use pread), or -1 when its header is
 * damaged (message in err). */
int ips__flight_open(int fd, ips__flight_t **out, char *err, size_t errlen);
/* Up to cap bytes of its records, oldest first, as JSON lines.  Returns
 * the bytes written, 0 after the last record, or -1 on a damaged record or
 * a read error (message in err, naming the record's number). */
long ips__flight_read(ips__flight_t *f, char *buf, size_t cap, char *err,
                      size_t errlen);
/* Bytes of records read so far, and in all. */
void ips__flight_progress(const ips__flight_t *f, uint64_t *done,
                          uint64_t *total);
void ips__flight_close(ips__flight_t *f);


/* 1-based number of the line returned last. */
long ips__slog_lineno(const ips__slog_in_t *in);
/* Bytes of input consumed so far and total size (0 if unknown), for the
 * progress bar. */
void ips__slog_progress(const ips__slog_in_t *in, uint64_t *done,
                        uint64_t *total);
void ips__slog_close(ips__slog_in_t *in);

/* ---- records -------------------------------------------------------- */

enum {
  IPS__REC_OTHER = 0, /* any other SwingSet type: skipped quietly */
  IPS__REC_START,     /* slog-start */
  IPS__REC_DELIVER,
  IPS__REC_SYSCALL,
  IPS__REC_SYSCALL_RESULT,
  IPS__REC_RESULT,    /* deliver-result */
  IPS__REC_CONSOLE,   /* console: a worker's console line, an upcall */
  IPS__REC_WORKER,    /* create-vat (or format 1's worker-start): a vat's
                         worker begins; its pid when ipcstamp wrote it */
  IPS__REC_BLOCK      /* a chain node's block record or a heap snapshot:
                         sub says which (IPS__BLK_*, blocks.h) */
};

/* Field-presence bits in ips__rec_t.have. */
enum {
  IPS__F_CRANK = 1 << 0,
  IPS__F_VAT = 1 << 1,
  IPS__F_DNUM = 1 << 2,
  IPS__F_SNUM = 1 << 3,
  IPS__F_TIME = 1 << 4,
  IPS__F_MONO = 1 << 5,
  IPS__F_DR = 1 << 6,       /* dr present with a status */
  IPS__F_METER = 1 << 7,    /* dr[2] is a metering object */
  IPS__F_WALLS = 1 << 8,    /* metering.timestamps */
  IPS__F_WMONO = 1 << 9,    /* metering.ipcstamp.mono */
  IPS__F_KINDS = 1 << 10,
  IPS__F_CPU = 1 << 11,
  IPS__F_IPSV = 1 << 12,    /* an ipcstamp.v was seen (slog-start or metering) */
  IPS__F_REPLAY = 1 << 13,  /* "replay": true (SwingSet replaying a transcript) */
  IPS__F_DRNULL = 1 << 14,  /* dr[2] is null: no metering (a local vat) */
  IPS__F_MARKS = 1 << 15,   /* ipcstamp.marks (metering v2) */
  IPS__F_PID = 1 << 16,     /* pid (create-vat, worker-start: the worker's) */
  IPS__F_PRUNQ = 1 << 17,   /* runDelayNs: the parent's wait for a CPU at
                               this record's stamp (U or E) */
  IPS__F_WRUNQ = 1 << 18,   /* metering.ipcstamp.run_delay_ns */
  IPS__F_METERKILL = 1 << 19, /* dr[0] "error", dr[1] a string ending in
                                 " meter exceeded": xsnap's meter killed it */
  IPS__F_XSMETER = 1 << 20,   /* the metering has xsnap's meterType: its
                                 timestamps are xsnap's own stamps */
  IPS__F_HEIGHT = 1 << 21,  /* blockHeight (a block record) */
  IPS__F_BTIME = 1 << 22,   /* blockTime: the chain's, integer seconds */
  IPS__F_COMPRESS = 1 << 23, /* compressSeconds (heap-snapshot-save) */
  IPS__F_DBSAVE = 1 << 24,  /* dbSaveSeconds (heap-snapshot-save) */
  IPS__F_COMPUTE = 1 << 25,  /* the metering's compute: computrons */
  IPS__F_NOTIFY = 1 << 26   /* deliver: a notify (desc: "notify" and its ids) */
};


#define IPS__MAX_STAMPS IPS_MAX_STAMPS /* per delivery; more is refused */
/* Agoric's xsnap-worker keeps this many stamps a delivery (MAX_TIMESTAMPS
 * in xsnap-worker.c, "250 syscalls") and drops the rest, e included. */
#define IPS__XSNAP_MAX_STAMPS 502
#define IPS__VAT_MAX 64
#define IPS__DESC_MAX 96

/* One parsed line.  Times are integer nanoseconds (exact decimal
 * conversion, so segment sums are exact).  The stamp arrays are owned by
 * the record and reused from line to line.
 *
 * The plain fields come first: the hot ones, which every record the
 * analysis reads has, then the cold ones, which are all zero but in a
 * result's metering, a start or a worker.  A record parsed ahead is kept
 * in its block as its hot bytes, its cold ones only when they are not all
 * zero, and vat and desc as strings of their own (slog_ahead.c): a line
 * parsed ahead is written on one core and read on the other, and the
 * whole record was more bytes than most lines it came from. */
typedef struct {
  /* hot: IPS__REC_HOT bytes */
  int type;
  unsigned have;
  long long crank, dnum, snum;
  int64_t time_ns, mono_ns;
  int ok;                         /* dr[0] == "ok" */
  unsigned vat_len;               /* strlen(vat) */
  /* cold: up to IPS__REC_PLAIN */
  long long pid;                  /* IPS__F_PID: a process id, > 0 */
  long ipsv;                      /* ipcstamp.v */
  int64_t cpu_ns;
  long long dropped;
  size_t n_walls, n_wmono, n_kinds;
  size_t n_marks, n_mnames, mnames_len; /* ipcstamp.marks, below */
  long long mdropped, munbalanced;
  int64_t prunq;                  /* IPS__F_PRUNQ: runDelayNs, ns */
  size_t n_wrunq;                 /* IPS__F_WRUNQ: run_delay_ns entries */
  /* A block record (IPS__REC_BLOCK) and the metering's computrons. */
  int sub;                        /* IPS__BLK_* */
  long long height, btime, compute;
  int64_t compress_ns, dbsave_ns;
  /* not kept */
  ips__meter_t meter;             /* the decoder's state: its arrays are
                                     the ones below (slog_meter.c) */
  /* NUL-terminated, vat_len bytes and at most IPS__DESC_MAX - 1: the
   * parser's point to its buffers below, a record handed out by
   * slog_ahead.c into its block. */
  const char *vat;
  const char *desc;               /* deliver: the description */
  int64_t *walls;                 /* worker wall stamps, ns */
  int64_t *wmono;                 /* worker mono stamps, ns */
  int64_t *wrunq;                 /* the worker's wait for a CPU at each
                                     stamp (run_delay_ns), ns */
  char *kinds;                    /* NUL-terminated */
  /* ipcstamp.marks (v2): the decoder's arrays (meter), allocated on the
   * first line with marks. */
  ips__mark_t *marks;             /* IPS_MAX_MARKS */
  uint32_t *mname_off;            /* name i at mnames + mname_off[i], NUL-
                                     terminated; IPS_MAX_MARKS */
  char *mnames;                   /* IPS__MNAMES_BYTES */
  /* Where the parser writes vat and desc (the fast path: here; the
   * record's vat and desc point here when the parser made it). */
  char vatbuf[IPS__VAT_MAX];
  char descbuf[IPS__DESC_MAX];
} ips__rec_t;
#define IPS__REC_HOT offsetof(ips__rec_t, pid)

/* Whether an error result's message (n bytes at s, as decoded) is
 * xsnap's meter kill: "Compute meter exceeded", "Stack meter exceeded",
 * "Allocate meter exceeded" (SwingSet's manager-subprocess-xsnap.js). */
static inline int ips__meter_killed(const char *s, size_t n) {
  static const char tail[] = " meter exceeded";
  size_t t = sizeof tail - 1;
  return n >= t && memcmp(s + n - t, tail, t) == 0;
}
#define IPS__REC_PLAIN offsetof(ips__rec_t, meter)

/* Room for the names of one metering: the worker's bound on name bytes,
 * plus a NUL each. */
#define IPS__MNAMES_BYTES IPS__METER_NAMES

/* slog_meter.c: a deliver-result's metering, s[0..n) from its opening
 * brace (bytes may follow it), through the one decoder (proto/meter.h)
 * into r: returns 0 with *used set to its length; -1 when it is not JSON,
 * -2 when a field has the wrong form, with the decoder's message in err.
 * r's arrays are the decoder's; without marks' arrays, r gets the
 * decoder's (r->meter's: ips__meter_release frees them). */
int ips__slog_meter(ips__rec_t *r, const char *s, size_t n, size_t *used,
                    char *err, size_t errlen);

typedef struct ips__parser ips__parser_t;

/* mode: 0, or IPS__PARSE_STRICT to tokenise every byte with yajl (no
 * payload skipping, no fast path), or IPS__PARSE_NOFAST to skip payloads
 * with yajl only (the tests compare it with the fast path). */
#define IPS__PARSE_STRICT 1
#define IPS__PARSE_NOFAST 2
ips__parser_t *ips__parser_new(int mode);
void ips__parser_free(ips__parser_t *p);

/* Parses one line into *rec (owned by the parser; valid until the next
 * call).  Returns 0; -1 when the line is not JSON, -2 when a field has the
 * wrong form (a vatID too long, a stamp that is not a number, ...); either
 * with a one-line reason in err. */
int ips__slog_parse(ips__parser_t *p, const char *line, size_t len,
                    const ips__rec_t **rec, char *err, size_t errlen);

/* ---- reading and parsing ahead (slog_ahead.c) ----------------------- */

/* One line as the reader and the parser left it. */
typedef struct {
  size_t len;
  int flags;              /* IPS__LINE_*; a TOOLONG line is not parsed */
  int parsed;             /* ips__slog_parse()'s result, 1 if not parsed */
  const ips__rec_t *rec;  /* when parsed == 0 */
  const char *err;        /* its reason when parsed < 0 */
} ips__slog_item_t;

/* The reader above on a thread of its own, with ips__slog_parse() (in
 * mode) run by that thread or the caller's, whichever has time: the lines
 * of PATH in order, each with what parsing it gave.  The same contract as
 * ips__slog_open/next/lineno/progress, line for line; an item is valid
 * until the next call. */
typedef struct ips__slog_ahead ips__slog_ahead_t;
ips__slog_ahead_t *ips__slog_ahead_open(const char *path, size_t max_line,
                                        int mode, int follow, char *err,
                                        size_t errlen);
int ips__slog_ahead_next(ips__slog_ahead_t *a, ips__slog_item_t *it,
                         char *err, size_t errlen);
/* fn(arg, bytes, len) on the line ips__slog_ahead_next handed out last
 * (not a TOOLONG one), under the guard of a mapped file (fn only reads
 * the bytes, which are valid during the call).  Returns fn's result, or
 * 0 when there is no such line or the file shrank (then the next call of
 * ips__slog_ahead_next says so). */
int ips__slog_ahead_take(ips__slog_ahead_t *a,
                         int (*fn)(void *arg, const char *p, size_t len),
                         void *arg);
long ips__slog_ahead_lineno(const ips__slog_ahead_t *a);
/* Following (follow != 0 at open; ips__slog_follow): next returns
 * IPS__SLOG_AGAIN at once when no line is ready yet, and this counts the
 * times the file was replaced or truncated and read again from its
 * start. */
unsigned long ips__slog_ahead_reopened(ips__slog_ahead_t *a);
void ips__slog_ahead_progress(const ips__slog_ahead_t *a, uint64_t *done,
                              uint64_t *total);
/* How many blocks of lines each thread has parsed so far. */
void ips__slog_ahead_parsed(ips__slog_ahead_t *a, long *by_reader,
                            long *by_caller);
void ips__slog_ahead_close(ips__slog_ahead_t *a);

/* ---- the fast path (slog_fast.c) ----------------------------------- */

/* Matches a record exactly as parent/slog.c writes it and fills *r (reset
 * by the caller; the stamp arrays must hold IPS__MAX_STAMPS; vat and desc
 * are written into vatbuf and descbuf, vat_len set).  Returns 1,
 * or 0 when the line is not in that exact form: then *r is garbage and the
 * caller parses the line with yajl. */
int ips__slog_fast(ips__rec_t *r, const char *line, size_t len);

/* Copy s[0..n) into d (room for n bytes; d may be s: it writes no
 * further than it has read) with each control character as one '?': C0,
 * DEL and C1 (U+0080..U+009F), which a terminal would obey.  Every text
 * from the slogfile that an output shows (description, vatID, mark names)
 * goes through it.  Returns the length written, at most n; no NUL. */
size_t ips__text_clean(char *d, const void *s, size_t n);
/* The description of a delivery (desc.c): desc (IPS__DESC_MAX bytes) gets the text
 * with control bytes as '?', or the method named first in a methargs body
 * (raw JSON text, quotes escaped; desc unchanged if there is none). */
void ips__desc_set(char *desc, const char *text, size_t n);
void ips__desc_method(char *desc, const char *body, size_t n);
/* A notify's promise id appended to desc; *nvp counts them (0 at first):
 * four are shown, then " ..." from the sixth. */
void ips__desc_vpid(char *desc, int *nvp, const char *vpid, size_t n);

/* ---- helpers (json_skip.c) ------------------------------------------ */

/* Scans JSON structure from p[pos].  With depth 0 it skips one value
 * (leading whitespace allowed); with depth > 0 it goes on until that many
 * enclosing containers are closed.  Strings are scanned for their closing
 * quote only.  Returns the index just past what was skipped, or -1 if the
 * input ends first or brackets do not match. */
long ips__json_skip(const char *p, size_t len, size_t pos, int depth);

#endif
