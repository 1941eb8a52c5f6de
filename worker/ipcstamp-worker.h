/* ipcstamp-worker.h — the worker side of an ipcstamp pipe, for any VM.
 *
 * A worker process is started with fd 3 = parent→worker and fd 4 =
 * worker→parent (docs/protocol.md, "The protocol").  This library reads
 * the parent's commands, answers the ones that need no VM itself ('R'
 * liveness, 'q' quit, unknown tags), hands deliveries ('?') and evaluations
 * ('e') to the VM, carries the VM's upcalls, stamps every frame ("What a
 * stamp is") and sends the metering with each result ("The metering").
 *
 * The order of calls a VM makes:
 *
 *     ips_worker_options_init(&o);            defaults: fds 3/4, 1024 stamps
 *     ips_worker_options_env(&o, msg, size);  optional: IPCSTAMP_* variables
 *     ips_worker_init(&w, &o);                the only allocations
 *     for (;;) {
 *       rc = ips_worker_next(&w, &cmd);       blocks; stamps 'd'
 *       if (rc != 0) break;                   IPS_WORKER_DONE or an error
 *       ... run cmd in the VM, which may call
 *       ips_worker_upcall(&w, req, n, &reply, &reply_len);   'u' ... 'r'
 *       ... as often as it likes, then exactly one of
 *       ips_worker_reply_ok(&w, result, n, &meter);           stamps 'e'
 *       ips_worker_reply_error(&w, msg, n);
 *     }
 *     ips_worker_exit(&w, rc);                message, clean-up, exit status
 *
 * or, when a callback suits the VM, ips_worker_run() is that loop.
 *
 * Memory: everything is allocated once by ips_worker_init() — the read
 * buffer, the stamp table and the metering buffer — and freed by
 * ips_worker_close().  The one buffer that can grow is the netstring
 * decoder's frame buffer: it grows to the largest frame seen (bounded by
 * max_frame) and is then reused, so the steady state makes no malloc at all,
 * whatever the number of deliveries and upcalls.
 *
 * Errors: functions return 0 or a negative code (an IPS_E* code of
 * ipcstamp-proto.h or -errno; ips_strerror() describes it).  There are two
 * kinds:
 *   - usage errors (IPS_EINVAL: a reply without a pending command, a bad
 *     metering key, a result too large): nothing was sent, the stream is
 *     intact, the call can be made again correctly;
 *   - stream errors (a framing error, end of input inside an upcall, a reply
 *     with the wrong tag, a failed write): the stream is unusable.  They are
 *     sticky: every later call returns the same code, and
 *     ips_worker_message() says what broke and where.  The process should
 *     stop with exit status 2 (ips_worker_exit() does that).
 * No error belongs to a command: after a command is answered with '!', the
 * next one starts clean.
 *
 * Threads: a worker is used by one thread at a time.
 */
#ifndef IPCSTAMP_WORKER_H
#define IPCSTAMP_WORKER_H

#include "ipcstamp-proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ips_worker_next() and ips_worker_run(): the parent said 'q', or closed
 * its end between two commands.  The worker should exit with status 0. */
#define IPS_WORKER_DONE 1

/* Exit statuses of the worker programs (and of ips_worker_exit()). */
#define IPS_WORKER_EXIT_OK 0      /* 'q' or end of input between commands */
#define IPS_WORKER_EXIT_USAGE 1   /* bad flag, bad IPCSTAMP_* value, start-up */
#define IPS_WORKER_EXIT_STREAM 2  /* framing, protocol or I/O error */

/* Option flags. */
#define IPS_WORKER_NO_STAMPS (1u << 0)   /* no stamps at all: "timestamps" is
                                            empty, no "ipcstamp" object */
#define IPS_WORKER_CPU_TIME (1u << 1)    /* add the command's CPU time
                                            ("cpu_ns", CLOCK_PROCESS_CPUTIME_ID)
                                            to the metering */
#define IPS_WORKER_KEEP_SIGPIPE (1u << 2) /* leave SIGPIPE alone (see init) */
#define IPS_WORKER_HOST_IO (1u << 3)     /* the VM reads and writes the frames
                                            itself (see ips_worker_begin) */
#define IPS_WORKER_RUN_DELAY (1u << 4)   /* add each stamp's run-queue delay
                                            ("run_delay_ns", the thread's
                                            wait for a CPU since its previous
                                            stamp) to the metering */

typedef struct ips_worker_options_s {
  int fd_in;                /* the parent's commands; default 3 */
  int fd_out;               /* results and upcalls; default 4 */
  size_t max_frame;         /* largest frame accepted; 0 = 64 MiB */
  uint32_t stamp_capacity;  /* stamps per command (>= 2); 0 = 1024 */
  size_t max_meter_fields;  /* VM counters per reply_ok; 0 = 8 */
  size_t read_size;         /* bytes asked of each read(); 0 = 64 KiB */
  unsigned flags;           /* IPS_WORKER_* flags */
  const char *name;         /* prefixes messages; default "ipcstamp-worker";
                               not copied: must outlive the worker */
  const char *tags;         /* the command tags handed to the VM; default
                               "?e".  Any other tag is answered with '!'.
                               'R' and 'q' are always handled here.  Not
                               copied. */
  const char *ring_dir;     /* when set (and stamps are on), write every
                               stamp as it is taken into the live ring
                               <ring_dir>/<pid>.ring (docs/ring.md); not
                               copied.  Default NULL: no ring. */
  size_t ring_size;         /* the ring's data bytes; 0 = 1 MiB */
  const char *ring_vat;     /* the vat named in the ring, or NULL; not
                               copied */
  uint32_t max_marks;       /* mark and span events per command
                               (1..65536); 0 = 256 */
  size_t max_mark_bytes;    /* bytes of distinct mark names per command
                               (1..1 MiB); 0 = 4096 */
} ips_worker_options_t;

/* A command for the VM.  data points into the worker's frame buffer: it is
 * valid until the next call that reads from the parent, that is the next
 * ips_worker_next() *or ips_worker_upcall()* — copy what you need before
 * the first upcall.  It is not NUL-terminated. */
typedef struct ips_command_s {
  char tag;          /* '?' delivery, 'e' evaluate, or another of opts.tags */
  const char *data;  /* the payload after the tag; owned by the worker */
  size_t len;
} ips_command_t;

/* All fields are private: only the library reads or writes them.  Their
 * layout is part of the ABI until 1.0, when this struct becomes opaque
 * (docs/embedding.md, "ABI"). */
typedef struct ips_worker_s {
  int fd_in;
  int fd_out;
  unsigned flags;
  const char *name;
  const char *tags;
  ips_ns_decoder_t dec;
  ips_stamps_t stamps;
  char *rbuf;             /* read buffer: bytes read, not yet decoded */
  size_t rsize;
  size_t rpos;
  size_t rlen;
  char *meter;            /* metering JSON + 0x01, sized once */
  size_t meter_cap;
  size_t max_fields;
  int64_t cpu_start_ns;
  ips_marks_t marks;      /* the VM's marks and spans of this command */
  char pending;           /* tag of the command awaiting its reply, or 0 */
  uint32_t upcalls;       /* upcalls made by the pending command */
  int failed;             /* sticky stream error, or 0 */
  int ready;              /* init succeeded and close has not run */
  char msg[320];
  struct ips_ring_s *ring; /* the live ring (owned), or NULL */
  uint64_t delivery;      /* commands handed to the VM so far */
  ips_runq_t runq;        /* the init thread's schedstat (fd owned), or
                             fd -1 without IPS_WORKER_RUN_DELAY */
} ips_worker_t;

/* Fill o with the defaults. */
IPS_EXTERN void ips_worker_options_init(ips_worker_options_t *o);

/* Read the environment into o:
 *   IPCSTAMP_MAX_FRAME       largest frame accepted, in bytes (1–999999999)
 *   IPCSTAMP_STAMP_CAPACITY  stamps per command (2–1048576)
 *   IPCSTAMP_DISABLE         1: no stamps at all (and no cpu_ns); 0: stamps
 *   IPCSTAMP_CPU_TIME        1: set IPS_WORKER_CPU_TIME (cpu_ns); 0: clear it
 *   IPCSTAMP_RUN_DELAY       1: set IPS_WORKER_RUN_DELAY (run_delay_ns); 0:
 *                            clear it
 *   IPCSTAMP_RING_DIR        the live ring's directory (ring_dir)
 *   IPCSTAMP_RING_SIZE       its data bytes (4096–1073741824)
 *   IPCSTAMP_VAT             the vat this worker serves, for the ring
 *   IPCSTAMP_MAX_MARKS       mark and span events per command (1–65536)
 *   IPCSTAMP_MAX_MARK_BYTES  bytes of mark names per command (1–1048576)
 * An unset or empty variable leaves o alone.  Returns 0, or IPS_EINVAL with
 * a one-line message naming the variable and the value in msg (size bytes,
 * NUL-terminated), and o unchanged. */
IPS_EXTERN int ips_worker_options_env(ips_worker_options_t *o, char *msg,
                                      size_t size);

/* Set w up (o NULL: the defaults): check that both fds are open, mark them close-on-exec (a
 * process the VM starts must not hold the parent's pipe open), allocate the
 * buffers, and — unless IPS_WORKER_KEEP_SIGPIPE — ignore SIGPIPE for the
 * whole process, so that a parent gone away is an error return naming the
 * pipe (IPS_EPIPE) instead of a silent death.  With IPS_WORKER_RUN_DELAY
 * (and stamps), open the calling thread's /proc/thread-self/schedstat: the
 * thread whose wait for a CPU the stamps then carry, so call the worker
 * from this thread.  Returns 0, IPS_EINVAL (bad option;
 * ips_worker_message() says which), -EBADF (an fd is not open), IPS_ERUNQ
 * (the run-queue delay cannot be read) or IPS_ENOMEM.  On failure nothing is left to free, but the message is kept
 * for ips_worker_exit(). */
IPS_EXTERN int ips_worker_init(ips_worker_t *w, const ips_worker_options_t *o);

/* Free what init allocated.  The fds are not closed: they belong to the
 * process.  Safe on a worker whose init failed, and twice. */
IPS_EXTERN void ips_worker_close(ips_worker_t *w);

/* Block until the parent sends a command for the VM; answer on the way the
 * ones that need no VM ('R' → "1:.,", unknown tags → '!').  When the
 * previous command got no reply, it is answered with '!' first, so the
 * parent is never left waiting.  On a command: the stamp table is reset,
 * 'd' is stamped just after its last byte, and 0 is returned with *cmd
 * filled.  Returns IPS_WORKER_DONE on 'q' or on end of input between
 * commands, or a stream error. */
IPS_EXTERN int ips_worker_next(ips_worker_t *w, ips_command_t *cmd);

/* Send request[0..n) as an upcall ('?') and block for the parent's reply
 * ('/').  Stamps 'u' just before the first byte is written and 'r' just
 * after the reply's last byte.  On success *reply / *reply_len are the reply
 * without its tag, owned by the worker and valid until the next call that
 * reads (as for ips_command_t).  Returns 0, IPS_EINVAL
 * (no command is pending, or n is too large) or a stream error: IPS_EPROTO
 * when the parent answered with another tag, IPS_ENS_EOF when it closed the
 * pipe first, a framing error, a write error. */
IPS_EXTERN int ips_worker_upcall(ips_worker_t *w, const void *request,
                                 size_t n, const char **reply,
                                 size_t *reply_len);

/* Answer the pending command with '.': stamps 'e' just before writing, then
 * sends the metering JSON (the VM's counters from m, the stamps, cpu_ns when
 * IPS_WORKER_CPU_TIME, run_delay_ns when IPS_WORKER_RUN_DELAY), byte 0x01 and result[0..n).  m may be NULL; its
 * fields are copied into the frame, nothing is kept.  Returns 0, IPS_EINVAL
 * (no pending command, more than max_meter_fields fields, a bad key, a
 * frame over 999999999 bytes — nothing sent, the command is still pending)
 * or a stream error. */
IPS_EXTERN int ips_worker_reply_ok(ips_worker_t *w, const void *result,
                                   size_t n, const ips_meter_t *m);

/* Answer the pending command with '!' + message[0..n) (UTF-8; no metering,
 * no stamp).  Returns 0, IPS_EINVAL or a stream error. */
IPS_EXTERN int ips_worker_reply_error(ips_worker_t *w, const void *message,
                                      size_t n);

/* Marks and spans from the VM's own code, inside the pending
 * command: each reads both clocks into the worker's mark table, and the
 * reply's metering carries them (format v2, docs/protocol.md).
 *
 *   ips_worker_mark(w, "decoded");          a moment
 *   ips_worker_span_begin(w, "deserialize");
 *   ...                                     spans nest; an end closes the
 *   ips_worker_span_end(w, "deserialize");  innermost open span of its name
 *
 * name is 1..255 bytes of UTF-8, NUL-terminated (ips_worker_mark_n() takes a
 * length, and the kind 'm', 'b' or 'e'); it is copied into the table the
 * first time it is used in a command.  Nothing allocates: the table is
 * bounded by max_marks events and max_mark_bytes bytes of names, and what
 * does not fit is counted as dropped in the metering.  An end without an
 * open begin, and a begin still open at the reply, are counted as
 * unbalanced.  None of this is fatal, and none of it can cost the reply its
 * 'e' stamp (marks have their own table).
 *
 * Returns 0 when recorded; 1 when not recorded (dropped or unbalanced, and
 * counted; or stamps are disabled); IPS_EINVAL when no command is pending or
 * the name is empty, too long or not UTF-8 (nothing counted); or the sticky
 * stream error.  A clock that cannot be read is a stream error, as for the
 * stamps. */
IPS_EXTERN int ips_worker_mark(ips_worker_t *w, const char *name);
IPS_EXTERN int ips_worker_span_begin(ips_worker_t *w, const char *name);
IPS_EXTERN int ips_worker_span_end(ips_worker_t *w, const char *name);
IPS_EXTERN int ips_worker_mark_n(ips_worker_t *w, char kind, const char *name,
                                 size_t len);

/* ips_worker_mark_n() at a stamp the caller read earlier with
 * ips_clock_read(), for a span measured after the fact (the JavaScript
 * worker's performance.measure()).  s must lie inside the pending command
 * (not before its 'd' stamp), or the analysis will refuse the span. */
IPS_EXTERN int ips_worker_mark_at(ips_worker_t *w, char kind,
                                  const char *name, size_t len,
                                  const ips_stamp_t *s);

/* A VM that keeps its own frame reader and writer (Agoric's xsnap-worker,
 * whose error paths must stay exactly its own: docs/xsnap.md) sets
 * IPS_WORKER_HOST_IO.  Then ips_worker_init() leaves the fds, their flags
 * and SIGPIPE alone and allocates no read buffer, and the VM calls, instead
 * of next/upcall/reply_ok:
 *
 *   ips_worker_begin(w, tag)       just after a command's last byte: 'd'
 *   ips_worker_stamp(w, 'u')       just before an upcall's first byte
 *   ips_worker_stamp(w, 'r')       just after its reply's last byte
 *   ips_worker_end(w, m, &j, &n)   just before the '.' result's first byte:
 *                                  stamps 'e' and gives the "ipcstamp":{...}
 *                                  member for the VM to put in its metering
 *   ips_worker_abandon(w)          the command was answered some other way
 *
 * Marks and spans, the ring, cpu_ns and the stamp capacity work as with the
 * library's own I/O.  ips_worker_end's *json (NULL and 0 when stamps are
 * off) is owned by w and valid until the next call.  Each returns 0,
 * IPS_EINVAL (out of order, or IPS_WORKER_HOST_IO not set) or the sticky
 * error of a clock that could not be read; none of them does any I/O
 * except the ring's stores. */
IPS_EXTERN int ips_worker_begin(ips_worker_t *w, char tag);
IPS_EXTERN int ips_worker_stamp(ips_worker_t *w, char kind);
IPS_EXTERN int ips_worker_end(ips_worker_t *w, const ips_meter_t *m,
                              const char **json, size_t *len);
IPS_EXTERN void ips_worker_abandon(ips_worker_t *w);

/* The sticky stream error, or 0. */
IPS_EXTERN int ips_worker_failed(const ips_worker_t *w);

/* A one-line description of the last error, e.g. "netstring: missing comma
 * after the payload at byte 17 (reading fd 3)"; "" when there was none.
 * Owned by w. */
IPS_EXTERN const char *ips_worker_message(const ips_worker_t *w);

/* The exit status for a return code of ips_worker_next()/run():
 * IPS_WORKER_DONE and 0 → 0; a stream error → 2. */
IPS_EXTERN int ips_worker_exit_status(int rc);

/* End the process the way the protocol wants (docs/protocol.md): when rc
 * is an error, write "<name>: <message>" to stderr; close w; exit with
 * ips_worker_exit_status(rc) (or 1 when init failed). */
IPS_EXTERN void ips_worker_exit(ips_worker_t *w, int rc)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* The VM's part of ips_worker_run(): handle one command, replying to it
 * with ips_worker_reply_ok() or _error().  Return 0, or the error of a
 * library call; a handler that returns without replying gets a '!' reply
 * sent for it. */
typedef int (*ips_worker_handler_t)(ips_worker_t *w, const ips_command_t *cmd,
                                    void *arg);

/* The loop of the header comment: calls handler for every command until 'q',
 * end of input or a stream error.  Writes the error to stderr and returns the
 * exit status (0 or 2). */
IPS_EXTERN int ips_worker_run(ips_worker_t *w, ips_worker_handler_t handler,
                              void *arg);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_WORKER_H */
