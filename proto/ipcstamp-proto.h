/* ipcstamp-proto.h — the wire layer shared by workers, parents and tools.
 *
 * netstring framing (encode + incremental decode), the clock that reads both
 * stamps, the per-delivery stamp table and the metering JSON writer.  libc
 * only; nothing here allocates except ips_stamps_init() and the decoder's
 * frame buffer, which grows to the largest frame seen and is then reused.
 *
 * Conventions (as in libuv): functions that can fail return 0 or a negative
 * code; a code is either -errno or one of the IPS_E* codes below, and
 * ips_strerror()/ips_err_name() describe both.  Public names start with ips_,
 * internal non-static ones with ips__.  Nothing is thread-safe unless said.
 */
#ifndef IPCSTAMP_PROTO_H
#define IPCSTAMP_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(IPS_HAVE_VISIBILITY) && defined(__GNUC__)
#define IPS_EXTERN __attribute__((visibility("default")))
#else
#define IPS_EXTERN
#endif

/* ------------------------------------------------------------------------
 * Errors: one list makes the enum, the message and the name, so they never
 * drift.  Codes live in a range no errno reaches.
 */
#define IPS_ERRNO_MAP(XX)                                                      \
  XX(NS_DIGIT, "netstring: non-digit in the length")                           \
  XX(NS_EMPTY_LEN, "netstring: the length has no digits")                      \
  XX(NS_LEADING_ZERO, "netstring: leading zero in the length")                 \
  XX(NS_TOO_MANY_DIGITS, "netstring: more than 9 digits in the length")        \
  XX(NS_TOO_LONG, "netstring: declared length over the maximum frame size")    \
  XX(NS_NO_COLON, "netstring: missing colon after the length")                 \
  XX(NS_NO_COMMA, "netstring: missing comma after the payload")                \
  XX(NS_EOF, "netstring: end of input inside a frame")                         \
  XX(NOBUFS, "buffer too small")                                               \
  XX(CLOCK, "cannot read a clock")                                             \
  XX(INVAL, "invalid argument")                                                \
  XX(NOMEM, "out of memory")                                                   \
  XX(PROTO, "protocol error")                                                  \
  XX(EMPTY_FRAME, "protocol: empty frame has no tag")                          \
  XX(BAD_TAG, "protocol: unknown tag")                                         \
  XX(EOF, "end of input")                                                      \
  XX(PIPE, "the peer closed the pipe")                                         \
  XX(TIMEOUT, "timeout")                                                       \
  XX(METERING, "invalid metering")                                             \
  XX(VERSION, "unknown format version")                                        \
  XX(IO, "cannot read the input")                                             \
  XX(RING, "corrupt ring file")                                                \
  XX(RUNQ, "cannot read the run-queue delay (/proc/thread-self/schedstat)")

/* IPS_ENS_DIGIT is -19999, the next -19998, and so on: every code is
 * negative and far below any -errno. */
typedef enum {
  IPS__ERR_BASE = -20000,
#define XX(name, msg) IPS_E##name,
  IPS_ERRNO_MAP(XX)
#undef XX
  IPS__ERR_END
} ips_errno_t;

/* 1 when s[0..n) is strict UTF-8 (no overlong forms, no surrogates, no
 * code point past U+10FFFF), else 0. */
IPS_EXTERN int ips_utf8_valid(const void *s, size_t n);
/* The length of the longest prefix of s[0..n) that is strict UTF-8: n
 * when all of it is; else where the first bad byte or cut character
 * starts. */
IPS_EXTERN size_t ips_utf8_prefix(const void *s, size_t n);
/* Where to cut UTF-8 text s to at most n bytes without splitting a
 * character: n, or less when n falls inside a multi-byte character (only
 * the bytes around n are read: s holds at least n bytes). */
IPS_EXTERN size_t ips_utf8_cut(const void *s, size_t n);

/* FNV-1a (64 bits) of the n bytes at p, going on from h (IPS_FNV1A_BASIS
 * to start): the project's one hash, of its tables' keys (vats, methods,
 * promise ids) and of the OTel ids, which must stay the same from one
 * release to the next, so it never changes.  Inline: the tables look up
 * a key per record. */
#define IPS_FNV1A_BASIS 0xcbf29ce484222325ULL
static inline uint64_t ips_fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  while (n--)
    h = (h ^ *b++) * 0x100000001b3ULL;
  return h;
}
/* The same of a NUL-terminated string, from IPS_FNV1A_BASIS. */
static inline uint64_t ips_fnv1a_str(const char *s) {
  uint64_t h = IPS_FNV1A_BASIS;
  while (*s)
    h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
  return h;
}

/* A description of err: an IPS_E* message, strerror(-err) for an errno, or
 * "unknown error".  The string is static; never NULL. */
IPS_EXTERN const char *ips_strerror(int err);

/* The symbolic name of err ("IPS_ENS_DIGIT", "EPIPE", ...) or "UNKNOWN".
 * Static string; never NULL. */
IPS_EXTERN const char *ips_err_name(int err);

/* ------------------------------------------------------------------------
 * Sums.  The one overflow policy for every sum of times or counts that
 * untrusted input feeds (a block's parts, the summary's totals, a group's,
 * a span's, a diff's, a metric's): the sum saturates at INT64_MAX or
 * INT64_MIN, and the caller counts that it did and says so, because the
 * figure is then a bound, not a measure.  Why saturate: wrapping turns a
 * large sum into a negative one that reads as a measure (and is undefined
 * for signed integers); skipping the delivery whose add would pass
 * changes every other count and sum it belongs to, to keep one figure in
 * range.  Held at the bound, every row stays and the one figure that
 * cannot be measured says so.  On a real file no sum comes near: 2^63 ns
 * is 292 years.
 */

/* *sum += v, held at INT64_MAX (or INT64_MIN) when the true sum is past
 * it.  Returns 1 when it saturated (or *sum already was at that bound
 * from an earlier saturation and v pushes further), else 0. */
static inline int ips_sum_add(int64_t *sum, int64_t v) {
  if (!__builtin_add_overflow(*sum, v, sum))
    return 0;
  *sum = v > 0 ? INT64_MAX : INT64_MIN;
  return 1;
}

/* a - b under the same policy: held at INT64_MAX (or INT64_MIN) when the
 * true difference is past it (an untrusted ring's or file's stamps). */
static inline int64_t ips_sub_held(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_sub_overflow(a, b, &r))
    return r;
  return b < 0 ? INT64_MAX : INT64_MIN;
}

/* ------------------------------------------------------------------------
 * Netstring encoding.
 */

/* Room for "<9 digits>:" plus a tag byte. */
#define IPS_NS_HEADER_MAX 12
/* The largest length a netstring may declare: 9 digits. */
#define IPS_NS_LEN_MAX 999999999u
/* Default maximum frame size on both sides: 64 MiB. */
#define IPS_DEFAULT_MAX_FRAME (64u * 1024u * 1024u)

/* Write the netstring of payload[0..n) into dst (capacity cap).  On success
 * *written (if not NULL) gets the frame's size.  Returns 0, IPS_ENOBUFS when
 * cap is too small (nothing useful is written), or IPS_EINVAL when n exceeds
 * IPS_NS_LEN_MAX. */
IPS_EXTERN int ips_ns_encode(char *dst, size_t cap, const void *payload,
                             size_t n, size_t *written);

/* Frame tag + payload[0..n) without copying the payload: fills iov[0] with the
 * header "<n+1>:<tag>" (kept in the caller's hdr buffer), iov[1] with the
 * payload and iov[2] with the trailing comma, ready for writev().  hdr must
 * outlive the write.  Returns 0, or IPS_EINVAL when n + 1 exceeds
 * IPS_NS_LEN_MAX. */
IPS_EXTERN int ips_ns_iov(struct iovec iov[3], char hdr[IPS_NS_HEADER_MAX],
                          char tag, const void *payload, size_t n);

/* The size of the frame for a payload of n bytes: digits + ':' + n + ','. */
IPS_EXTERN size_t ips_ns_frame_size(size_t n);

/* ------------------------------------------------------------------------
 * Incremental netstring decoding.
 *
 * Feed bytes in chunks of any size; the decoder yields each complete frame.
 * Rules (docs/protocol.md): 1–9 decimal digits, no leading zero unless the
 * length is exactly 0, ':', the payload, ','.  An empty length (":,") is
 * refused with IPS_ENS_EMPTY_LEN.  The declared length is checked against
 * max_frame as soon as its digits end, before any allocation.  After an
 * error the decoder stays failed: every later call returns the same error.
 */
typedef struct ips_ns_decoder_s {
  /* all private: read them through the functions below */
  uint64_t offset;    /* bytes consumed since init */
  size_t max_frame;
  size_t len;         /* declared length of the frame being read */
  size_t got;         /* payload bytes copied so far */
  size_t digits;      /* digits of the length read so far */
  char *buf;          /* owned; grows to the largest frame, then reused */
  size_t cap;
  uint64_t err_offset;
  int state;
  int err;
} ips_ns_decoder_t;

/* Initialise d with a maximum frame size (0 means IPS_DEFAULT_MAX_FRAME; it is
 * clamped to IPS_NS_LEN_MAX).  Allocates nothing. */
IPS_EXTERN void ips_ns_decoder_init(ips_ns_decoder_t *d, size_t max_frame);

/* Release the frame buffer.  d may be initialised again afterwards. */
IPS_EXTERN void ips_ns_decoder_free(ips_ns_decoder_t *d);

/* Consume bytes from data[0..n) until one frame is complete or the input is
 * used up.  Returns the number of bytes consumed (>= 0) and sets *frame /
 * *frame_len when a frame completed: the frame's payload, owned by the
 * decoder and valid until the next call on d.  When no frame completed,
 * *frame is NULL.  Returns a negative IPS_ENS_* code on a framing error (and
 * on every call after it), or IPS_ENOMEM.  Call it again with the rest of
 * the input to get further frames. */
IPS_EXTERN ssize_t ips_ns_feed(ips_ns_decoder_t *d, const char *data, size_t n,
                               const char **frame, size_t *frame_len);

/* Tell the decoder the input has ended.  Returns 0 when it ended between two
 * frames, or IPS_ENS_EOF (the decoder is then failed, with the offset of the
 * end of input).  A decoder already failed returns its error. */
IPS_EXTERN int ips_ns_finish(ips_ns_decoder_t *d);

/* The decoder's error code, or 0. */
IPS_EXTERN int ips_ns_error(const ips_ns_decoder_t *d);

/* Which byte breaks which rule: a non-digit where the length may go on is
 * IPS_ENS_DIGIT; once the length is complete (a lone "0", or nine digits) a
 * digit is IPS_ENS_LEADING_ZERO (at the '0') or IPS_ENS_TOO_MANY_DIGITS, and
 * anything but ':' is IPS_ENS_NO_COLON.  IPS_ENS_TOO_LONG is raised at the
 * digit that takes the length over the maximum.
 *
 * The stream offset of the byte that broke a rule (for IPS_ENS_EOF, the
 * number of bytes received).  Meaningful only when ips_ns_error() != 0. */
IPS_EXTERN uint64_t ips_ns_error_offset(const ips_ns_decoder_t *d);

/* Total bytes consumed since init. */
IPS_EXTERN uint64_t ips_ns_offset(const ips_ns_decoder_t *d);

/* True when the decoder is between frames (nothing partial is buffered). */
IPS_EXTERN int ips_ns_idle(const ips_ns_decoder_t *d);

/* Write a one-line description of the decoder's error into buf, e.g.
 * "netstring: leading zero in the length at byte 17".  Always NUL-terminates
 * (when size > 0); returns what snprintf returns. */
IPS_EXTERN int ips_ns_describe(const ips_ns_decoder_t *d, char *buf,
                               size_t size);

/* ------------------------------------------------------------------------
 * Clock and stamps (docs/protocol.md, "What a stamp is").
 */
typedef struct ips_stamp_s {
  int64_t wall_us;  /* gettimeofday(): microseconds since the epoch */
  int64_t mono_ns;  /* CLOCK_MONOTONIC: nanoseconds, absolute */
  char kind;        /* 'd','u','r','e' (worker) or 'D','U','R','E' (parent) */
  char has_run_delay; /* 1 when run_delay_ns was measured */
  int64_t run_delay_ns; /* the stamping thread's time runnable but not on a
                           CPU since the previous stamp of its table (or
                           since the run-queue reader was opened), ns */
} ips_stamp_t;

/* Read both clocks into s (kind is left alone; has_run_delay and
 * run_delay_ns are cleared).  The one place either clock is read.  Returns
 * 0, or IPS_ECLOCK when a clock cannot be read. */
IPS_EXTERN int ips_clock_read(ips_stamp_t *s);

/* The run-queue delay of one thread (docs/protocol.md, "Waiting for a
 * CPU"): Linux's /proc/thread-self/schedstat, whose second number is the
 * time the thread has spent runnable on a run queue, waiting for a CPU,
 * in ns since it started.  The file stays open and is read with pread(),
 * so a reading makes no allocation and opens nothing.  It is the thread's
 * that called ips_runq_open(): read it from that thread. */
typedef struct ips_runq_s {
  int fd;           /* the open schedstat file, or -1 */
  int64_t last_ns;  /* the reading of the previous stamp (private) */
} ips_runq_t;

/* Open the calling thread's schedstat and take a first reading.  Returns 0,
 * or IPS_ERUNQ (the file cannot be opened or read, or does not hold three
 * numbers: a kernel built without CONFIG_SCHED_INFO, or no /proc); then
 * q->fd is -1 and errno says why the open or the read failed. */
IPS_EXTERN int ips_runq_open(ips_runq_t *q);

/* Close the file (safe on a reader that failed to open, and twice). */
IPS_EXTERN void ips_runq_close(ips_runq_t *q);

/* The thread's cumulative run-queue delay now, in ns: the one place it is
 * read.  Returns 0 or IPS_ERUNQ. */
IPS_EXTERN int ips_runq_read(const ips_runq_t *q, int64_t *run_delay_ns);

/* The delay since the previous call on q (or since ips_runq_open), in ns,
 * into *delay, for a stamp's run_delay_ns.  Take it just after the clocks
 * for a stamp taken on arrival (d, r, U, E) and just before them for one
 * taken before a write (u, e, D, R), so that the reading's own cost is the
 * stamping side's work, never the pipe's.  Returns 0 or IPS_ERUNQ (q
 * unchanged). */
IPS_EXTERN int ips_runq_take(ips_runq_t *q, int64_t *delay);

/* The stamps of one delivery.  The table is allocated once; adding never
 * allocates.  One slot is always kept for the final 'e' stamp.  When the
 * table is full, an upcall stamp is not recorded but counted in dropped; the
 * 'r' of an upcall whose 'u' was dropped is dropped too, so the recorded
 * upcall stamps always come in u/r pairs. */
typedef struct ips_stamps_s {
  ips_stamp_t *v;     /* owned by the table */
  uint32_t cap;
  uint32_t n;         /* recorded stamps */
  uint32_t dropped;   /* stamps not recorded since the last reset */
  int drop_next_r;    /* private */
} ips_stamps_t;

/* Default capacity of a worker's table. */
#define IPS_DEFAULT_STAMP_CAPACITY 1024u

/* The most stamps one delivery may carry, on every side: the worker's table,
 * the metering the parent accepts and the records the analysis reads.  One
 * limit, so that a slogfile the parent wrote is never refused by the report.
 * 1 Mi stamps is half a million upcalls in one delivery. */
#define IPS_MAX_STAMPS (1u << 20)

/* Allocate room for cap stamps (cap >= 2: a 'd' and an 'e').  Returns 0,
 * IPS_EINVAL or IPS_ENOMEM. */
IPS_EXTERN int ips_stamps_init(ips_stamps_t *t, uint32_t cap);

/* Release the table's storage. */
IPS_EXTERN void ips_stamps_free(ips_stamps_t *t);

/* Forget every stamp and the dropped count (a new command arrived). */
IPS_EXTERN void ips_stamps_reset(ips_stamps_t *t);

/* Read the clocks and record a stamp of the given kind (a letter).  'e' and
 * 'E' always find a slot: the last one is kept for them.  Returns 0
 * when recorded, 1 when dropped (counted), or IPS_ECLOCK. */
IPS_EXTERN int ips_stamps_add(ips_stamps_t *t, char kind);

/* Record a stamp read earlier (same rules as ips_stamps_add). */
IPS_EXTERN int ips_stamps_put(ips_stamps_t *t, const ips_stamp_t *s);

/* ------------------------------------------------------------------------
 * Marks and spans: moments the VM's own code names, stamped with
 * both clocks, inside one command.  Like the stamp table, the mark table is
 * allocated once and adding never allocates.
 *
 * Bounds: at most cap events and name_cap bytes of distinct names per
 * command; what does not fit is counted in dropped.  A begin is recorded only
 * when a slot is left for its end, so a recorded begin always gets its end.
 * An end that matches no open begin, and a begin still open when the
 * metering is written, are counted in unbalanced (never fatal).
 */
typedef struct ips_mark_s {
  int64_t wall_us;  /* as in ips_stamp_t */
  int64_t mono_ns;
  uint32_t name;    /* index into the table's names */
  char kind;        /* 'm' mark, 'b' span begin, 'e' span end */
} ips_mark_t;

typedef struct ips_marks_s {
  ips_mark_t *v;       /* cap events; owned */
  uint32_t cap;
  uint32_t n;          /* recorded events */
  char *names;         /* the interned names back to back; owned */
  size_t name_cap;     /* bytes of names per command */
  uint32_t *name_off;  /* name i is names[name_off[i] .. name_off[i+1]) */
  uint32_t nnames;
  uint32_t *open;      /* stack of open spans (private): name index, top
                          bit set when the begin was recorded */
  uint32_t nopen;      /* open spans on the stack */
  uint32_t nreserved;  /* recorded begins whose end is still to come */
  uint32_t nopen_anon; /* begins dropped before their name was interned */
  uint32_t dropped;    /* events not recorded since the last reset */
  uint32_t unbalanced; /* ends without a begin since the last reset */
  int used;            /* a mark call was made since the last reset */
} ips_marks_t;

/* Default bounds of a worker's mark table, and the largest accepted. */
#define IPS_DEFAULT_MAX_MARKS 256u
#define IPS_DEFAULT_MAX_MARK_BYTES 4096u
#define IPS_MAX_MARKS 65536u
#define IPS_MAX_MARK_BYTES (1u << 20)

/* Allocate room for cap events (1..IPS_MAX_MARKS) and name_cap bytes of
 * names (1..IPS_MAX_MARK_BYTES).  Returns 0, IPS_EINVAL or IPS_ENOMEM; on
 * failure nothing is left to free. */
IPS_EXTERN int ips_marks_init(ips_marks_t *t, uint32_t cap, size_t name_cap);

/* Release the table's storage.  Safe twice. */
IPS_EXTERN void ips_marks_free(ips_marks_t *t);

/* Forget every event, name, open span and count (a new command arrived). */
IPS_EXTERN void ips_marks_reset(ips_marks_t *t);

/* Read the clocks and record an event of kind 'm', 'b' or 'e' named
 * name[0..len) (1..255 bytes of valid UTF-8, not copied).  'e' closes the
 * innermost open span of that name, wherever it is on the stack.  Returns 0
 * when recorded, 1 when not recorded but counted (dropped, or an unbalanced
 * end), IPS_EINVAL (bad kind or name: nothing counted) or IPS_ECLOCK. */
IPS_EXTERN int ips_marks_add(ips_marks_t *t, char kind, const char *name,
                             size_t len);

/* Record an event with a stamp read earlier (the same rules as
 * ips_marks_add()): for spans measured after the fact, as the Web
 * Performance API's measure() does.  The table keeps the order of the
 * calls, so events are then not in time order. */
IPS_EXTERN int ips_marks_put(ips_marks_t *t, char kind, const char *name,
                             size_t len, const ips_stamp_t *s);

/* Spans still open: they are reported as unbalanced in the metering. */
IPS_EXTERN uint32_t ips_marks_open(const ips_marks_t *t);

/* ------------------------------------------------------------------------
 * Metering JSON (docs/protocol.md, "The metering").
 */

/* A VM's own counter, written as "key":value before "timestamps".  key must
 * be 1..64 characters of [A-Za-z0-9_] and must not be "timestamps" or
 * "ipcstamp". */
typedef struct ips_meter_field_s {
  const char *key;
  int64_t value;
} ips_meter_field_t;

typedef struct ips_meter_s {
  const ips_meter_field_t *fields;  /* may be NULL when nfields is 0 */
  size_t nfields;
  int has_cpu_ns;                   /* write "cpu_ns" when set */
  int64_t cpu_ns;
} ips_meter_t;

/* Format version written in "ipcstamp":{"v":...} when a command used no
 * marks (and the slogfile's own version). */
#define IPS_METERING_VERSION 1
/* The version written when a command used marks: v1's members unchanged,
 * plus "marks".  Readers accept 1..IPS_METERING_VERSION_MAX and refuse any
 * other version. */
#define IPS_METERING_VERSION_MARKS 2
#define IPS_METERING_VERSION_MAX 2

/* Write the metering JSON for table t (NULL: no stamps, an empty
 * "timestamps" list and no "ipcstamp" object) and m (NULL: no extra fields)
 * into dst (capacity cap), not NUL-terminated.  *written gets the length.
 * Returns 0, IPS_ENOBUFS when cap is too small (dst holds no usable JSON), or
 * IPS_EINVAL for a bad field key or a stamp kind that is not a letter. */
IPS_EXTERN int ips_metering_write(char *dst, size_t cap,
                                  const ips_stamps_t *t, const ips_meter_t *m,
                                  size_t *written);

/* An upper bound of ips_metering_write()'s output for a table of nstamps
 * stamps and nfields extra fields: allocate this once and the writer never
 * runs out of room. */
IPS_EXTERN size_t ips_metering_max_size(uint32_t nstamps, size_t nfields);

/* ips_metering_write() with a mark table: when marks is not NULL and was
 * used in this command (and t is not NULL), the "ipcstamp" object is written
 * as version 2 with a "marks" member (docs/protocol.md); otherwise the output
 * is exactly ips_metering_write()'s.  Nothing in marks is changed. */
IPS_EXTERN int ips_metering_write_marks(char *dst, size_t cap,
                                        const ips_stamps_t *t,
                                        const ips_marks_t *marks,
                                        const ips_meter_t *m,
                                        size_t *written);

/* Only the "ipcstamp":{...} member of ips_metering_write_marks()'s output
 * (t not NULL), byte for byte, for a VM that writes the rest of its metering
 * itself (Agoric's xsnap-worker: docs/xsnap.md).  ips_metering_max_size_marks()
 * bounds it too.  Same returns as ips_metering_write_marks(). */
IPS_EXTERN int ips_metering_write_ipcstamp(char *dst, size_t cap,
                                           const ips_stamps_t *t,
                                           const ips_marks_t *marks,
                                           const ips_meter_t *m,
                                           size_t *written);

/* An upper bound of ips_metering_write_marks()'s output for nstamps stamps,
 * nfields fields and a mark table of max_marks events and max_mark_bytes
 * bytes of names (both 0: no marks, the same as ips_metering_max_size()). */
IPS_EXTERN size_t ips_metering_max_size_marks(uint32_t nstamps,
                                              size_t nfields,
                                              uint32_t max_marks,
                                              size_t max_mark_bytes);

/* Format a wall stamp as seconds with exactly six decimals
 * ("1795300856.504227") from integers: no floating-point rounding.  buf needs
 * 24 bytes; it is NUL-terminated.  Returns the length. */
IPS_EXTERN size_t ips_fmt_wall(char buf[24], int64_t wall_us);

/* Format a mono stamp as seconds with exactly nine decimals.  buf needs 24
 * bytes; NUL-terminated.  Returns the length. */
IPS_EXTERN size_t ips_fmt_mono(char buf[24], int64_t mono_ns);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_PROTO_H */
