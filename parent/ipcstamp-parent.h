/* ipcstamp-parent.h — the parent side: workers on a libuv loop, the metering
 * reader and the slogfile writer.
 *
 * Conventions are those of ipcstamp-proto.h: 0 or a negative code (-errno or
 * IPS_E*).  When a function that takes a callback returns an error, the
 * callback is never called.  No callback is ever called from inside an
 * ips_child_* call: they all run from the loop (uv_run), as libuv's own
 * callbacks do, so a host may call any of them while its state is in
 * flux.  Nothing is thread-safe; everything about one worker runs on the
 * loop it was spawned on.
 */
#ifndef IPCSTAMP_PARENT_H
#define IPCSTAMP_PARENT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "ipcstamp-proto.h"
#include "ipcstamp-slog.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Metering reader (docs/protocol.md).  The worker's metering is untrusted:
 * this parses it with a streaming parser (no tree), validates it and keeps
 * what the attribution needs.  Accepts xsnap's plain {"timestamps":[...]}
 * and our {"ipcstamp":{...}} object; unknown fields are ignored.
 */

/* Most stamps one metering may carry (a bound on what a worker can make the
 * parent allocate). */
#define IPS_METERING_MAX_STAMPS IPS_MAX_STAMPS
/* Deepest nesting accepted inside unknown fields, and in any payload the
 * slogfile embeds (one limit, the schema's). */
#define IPS_JSON_MAX_DEPTH IPS_SLOG_MAX_DEPTH

typedef struct ips_metering_s {
  uint32_t n;          /* stamps in "timestamps" */
  int64_t *wall_us;    /* n wall stamps in microseconds; owned */
  int has_ipcstamp;    /* the "ipcstamp" object was present */
  int version;         /* ipcstamp.v */
  char *kinds;         /* n letters + NUL ("dure"); owned; inferred
                          d(ur)*e for xsnap's plain list when n is even */
  int64_t *mono_ns;    /* n mono stamps, or NULL without "ipcstamp"; owned */
  int64_t dropped;     /* ipcstamp.dropped (0 when absent) */
  int has_cpu_ns;
  int64_t cpu_ns;
  int has_compute, has_allocate;
  int64_t compute, allocate;  /* xsnap's VM counters, when integers */
} ips_metering_t;

/* Parse and validate the metering JSON buf[0..n).  On success fills *m
 * (which then owns its arrays: release them with ips_metering_free) and
 * returns 0.  On failure *m is left empty (safe to free), a message saying
 * what was wrong and where is written to err (NUL-terminated when errsize >
 * 0), and IPS_EMETERING or IPS_EVERSION (unknown ipcstamp.v) is returned.
 * Never reads past buf[n); allocation is bounded by n. */
IPS_EXTERN int ips_metering_parse(const char *buf, size_t n,
                                  ips_metering_t *m, char *err,
                                  size_t errsize);

/* Release what ips_metering_parse() allocated and empty *m. */
IPS_EXTERN void ips_metering_free(ips_metering_t *m);

/* ------------------------------------------------------------------------
 * Workers, as the parent sees them: child processes (ips_child_*).  The
 * worker's own end of the pipe is libipcstamp-worker's ips_worker_*; the two
 * headers and libraries can be used in one program.
 */
typedef struct ips_child_s ips_child_t;

typedef enum {
  IPS_RESULT_OK = 0,     /* '.': result bytes and metering */
  IPS_RESULT_ERROR = 1,  /* '!': the worker reported an error (not a fault) */
  IPS_RESULT_FAULT = 2   /* no answer: the worker died, broke the framing,
                            timed out, or was closed; see status/message */
} ips_result_kind_t;

/* What a delivery or evaluation came back with.  Everything it points to is
 * owned by the worker and valid only during the result callback. */
typedef struct ips_result_s {
  ips_result_kind_t kind;
  int status;               /* 0, or the fault's code (IPS_E*, -errno) */
  const char *message;      /* NUL-terminated: the '!' text (raw worker
                               bytes, untrusted) or the fault description;
                               "" for OK */
  const char *data;         /* OK: the result bytes; ERROR: the message */
  size_t len;
  const char *metering_raw; /* the metering bytes as received (untrusted), */
  size_t metering_len;      /* or NULL/0 when none was sent */
  const ips_metering_t *metering; /* parsed, or NULL when absent/invalid */
  const char *metering_error;     /* why it was invalid, or NULL */
  const ips_stamp_t *stamps;      /* the parent's stamps: D, U, R, ..., E;
                                     for a fault E is when it was seen */
  size_t nstamps;                 /* 0 when the command was never sent */
  /* The metering as the slogfile embeds it, made by the same parse that
   * filled metering: re-serialised JSON (for our workers' canonical
   * metering, the received bytes themselves: metering_raw), or
   * {"base64":"..."} when the bytes were not one valid JSON value; NULL/0
   * when none was sent (or when a host builds the result itself:
   * ips_slog_deliver_result then parses metering_raw).  Never parse it
   * again to get what metering holds. */
  const char *metering_json;
  size_t metering_json_len;
} ips_result_t;

/* arg is the pointer given to ips_child_deliver()/ips_child_evaluate(). */
typedef void (*ips_result_cb)(ips_child_t *w, void *arg,
                              const ips_result_t *res);

/* An upcall from the worker during the delivery whose arg is given.  U is
 * the stamp taken when it arrived.  payload is valid only during the call.
 * Answer with ips_child_reply(), now or later (the worker waits). */
typedef void (*ips_upcall_cb)(ips_child_t *w, void *arg, const char *payload,
                              size_t n, const ips_stamp_t *U);

/* The delivery whose arg is given was written to the pipe; D is its stamp. */
typedef void (*ips_start_cb)(ips_child_t *w, void *arg, const ips_stamp_t *D);

/* One line of the worker's stdout (fd 1) or stderr (fd 2), without its
 * newline (a line longer than IPS_CONSOLE_LINE_MAX comes in pieces).
 * Untrusted bytes, valid only during the call. */
typedef void (*ips_console_cb)(ips_child_t *w, int fd, const char *line,
                               size_t n);
#define IPS_CONSOLE_LINE_MAX 65536

/* The worker process ended.  exit_status is its exit code, term_signal the
 * signal that killed it (0 if none).  Called once, before ips_child_close's
 * callback; the worker accepts no more deliveries. */
typedef void (*ips_exit_cb)(ips_child_t *w, int64_t exit_status,
                            int term_signal);

/* A fault that no command can carry: the worker died, was killed, exited or
 * closed fd 4 between two commands, or sent a frame while no command was in
 * flight.  status is the fault's code (IPS_EPIPE, IPS_EPROTO, a framing
 * IPS_ENS_*), message says what happened (NUL-terminated, valid only during
 * the call).  The worker is then dead (killed if it was still running) and
 * accepts no more commands.  Faults during a command come with its result
 * instead (IPS_RESULT_FAULT), and so do faults while commands are queued
 * (each fails "not sent: the worker had failed (...)"): never here. */
typedef void (*ips_fault_cb)(ips_child_t *w, int status, const char *message);

/* Self-monitoring without a ring: each command answered '.' whose stamps
 * pair up (the worker sent ipcstamp.mono), split into pipe, worker and
 * kernel, just before its result callback (arg is the command's).  a and
 * what it points to are valid during the call; crank is 0 and vat the
 * ring_vat option (or NULL). */
struct ips_ring_attribution_s;
typedef void (*ips_attribution_cb)(ips_child_t *w, void *arg,
                                   const struct ips_ring_attribution_s *a);

typedef struct ips_child_options_s {
  const char *file;       /* program to run (PATH is searched) */
  char **args;            /* argv, NULL-terminated; args[0] is the worker's
                             name; NULL means { file, NULL } */
  char **env;             /* environment; NULL inherits the parent's */
  const char *cwd;        /* NULL: the parent's */
  size_t max_frame;       /* largest frame accepted; 0: IPS_DEFAULT_MAX_FRAME */
  uint64_t timeout_ms;    /* per command, from D; 0: none.  On expiry the
                             worker is killed and the command fails */
  uint64_t max_upcalls;   /* most upcalls one command may make; 0: none.
                             One more is a fault (IPS_EPROTO): the worker is
                             killed, so a worker looping on upcalls cannot
                             run forever nor grow the parent's stamps */
  ips_upcall_cb upcall_cb;   /* required when the worker makes upcalls; with
                                NULL every upcall is answered with an empty
                                reply */
  ips_start_cb start_cb;     /* optional */
  ips_console_cb console_cb; /* NULL: stdout/stderr are inherited */
  ips_exit_cb exit_cb;       /* optional */
  void *data;                /* for the host: ips_child_data() */
  ips_fault_cb fault_cb;     /* optional; last, so that hosts built before
                                it (zeroed options) keep working */
  struct ips_ring_s *ring;   /* the host's live ring (ipcstamp-ring.h), or
                                NULL: the parent's stamps and each OK
                                command's attribution go there.  Not owned:
                                it must outlive the worker; one ring may be
                                shared by the workers of one thread */
  const char *ring_vat;      /* the vat named in the ring's events (15
                                bytes kept), or NULL */
  ips_attribution_cb attribution_cb; /* optional: each command's split, in
                                        process (ipcstamp-ring.h's struct) */
  int run_delay;             /* 1: read the calling thread's run-queue
                                delay (/proc/thread-self/schedstat) with
                                every stamp (ips_stamp_t.run_delay_ns: its
                                wait for a CPU since this worker's previous
                                stamp), which the slogfile writes on syscall
                                and deliver-result records as runDelayNs.
                                Spawn from the loop's thread. */
} ips_child_options_t;

/* Fill *o with the defaults: every field zero/NULL, which means no file
 * (the caller must set it), argv { file }, the parent's environment and
 * directory, IPS_DEFAULT_MAX_FRAME, no timeout, no upcall limit, no
 * callbacks (upcalls answered empty, output inherited).  Call it first, then
 * set what you need: fields added in later versions get their defaults. */
IPS_EXTERN void ips_child_options_init(ips_child_options_t *o);

/* Start a worker on loop with fd 3 = parent->worker and fd 4 =
 * worker->parent (pipes), stdin /dev/null.  Sets SIGPIPE to SIG_IGN in the
 * process: a worker dying while we write must not kill the parent.  The options are copied; the
 * strings they point to need not outlive the call.  On success *out is the
 * worker, owned by the library until ips_child_close()'s callback.
 * IPS_ERUNQ: run_delay was asked for and schedstat cannot be read. */
IPS_EXTERN int ips_child_spawn(uv_loop_t *loop,
                                const ips_child_options_t *opts,
                                ips_child_t **out);

/* Queue a delivery ('?' + payload).  payload is copied.  Deliveries run one at
 * a time per worker, in order; cb is called exactly once (unless this returns
 * an error), from the loop and never from inside this call, also when the
 * delivery fails at once.  The frame is written from the loop too (at once
 * when a result callback queues it, else on the loop's next turn), and
 * start_cb is called then.  Returns 0, IPS_EPIPE when the worker is gone or
 * closing, IPS_EINVAL when the frame would exceed the maximum, or
 * IPS_ENOMEM. */
IPS_EXTERN int ips_child_deliver(ips_child_t *w, const void *payload,
                                  size_t n, ips_result_cb cb, void *arg);

/* Queue xsnap's readiness ping ('R', what its parent sends first): the
 * worker answers '.' once it runs, so a command queued after it does not
 * count the worker's start-up as time in the pipe.  Same rules as
 * ips_child_deliver (start_cb is called for it too, with arg); its result
 * has no metering, and its stamps say when the worker was ready. */
IPS_EXTERN int ips_child_ready(ips_child_t *w, ips_result_cb cb, void *arg);

/* Queue an evaluation ('e' + source).  Same rules as ips_child_deliver. */
IPS_EXTERN int ips_child_evaluate(ips_child_t *w, const char *source,
                                   size_t n, ips_result_cb cb, void *arg);

/* Answer the pending upcall with reply[0..n) (copied).  R, when not NULL,
 * gets the stamp taken just before the reply is written.  Returns 0, or
 * IPS_EPROTO when no upcall is pending, IPS_EPIPE when the worker is gone. */
IPS_EXTERN int ips_child_reply(ips_child_t *w, const void *reply, size_t n,
                                ips_stamp_t *R);

/* Stop the worker: queued commands fail with -ECANCELED, the one in flight
 * too (its E stamp is the time of this call); their callbacks run from the
 * loop after this returns, in queue order, before cb (and before exit_cb
 * when the process had not ended yet).  An idle
 * live worker is sent 'q' and killed if it has not exited after a grace
 * period.  cb (optional) is called once every handle is closed; w is freed
 * right after it returns.  Call once. */
typedef void (*ips_close_cb)(ips_child_t *w);
IPS_EXTERN void ips_child_close(ips_child_t *w, ips_close_cb cb);

/* Send SIGKILL now (a fault for the command in flight). */
IPS_EXTERN int ips_child_kill(ips_child_t *w);

IPS_EXTERN void *ips_child_data(const ips_child_t *w);
IPS_EXTERN int ips_child_pid(const ips_child_t *w);
/* True while the worker can take commands. */
IPS_EXTERN int ips_child_alive(const ips_child_t *w);
/* Commands queued or in flight. */
IPS_EXTERN size_t ips_child_pending(const ips_child_t *w);

/* ------------------------------------------------------------------------
 * Slogfile writer (docs/slogfile.md).  Writes only record
 * types SwingSet writes, with the fields listed in ipcstamp-slog.h (the
 * schema), so Agoric's slog readers take the file.
 */
typedef struct ips_slog_s ips_slog_t;

/* Replace an existing regular file (--force). */
#define IPS_SLOG_FORCE (1 << 0)

/* Open path for writing without following a symlink.  A new file is created
 * (mode 0644 before umask); an existing regular file is refused with -EEXIST
 * unless IPS_SLOG_FORCE is given (then it is truncated); an existing
 * non-regular file (a FIFO, /dev/null, /dev/full) is written to as it is.
 * Writes kernel-init-start (with ipcstamp's header: versions, pid and argv,
 * if not NULL) and kernel-init-finish, and flushes them.
 * *out is owned by the caller until ips_slog_close(). */
IPS_EXTERN int ips_slog_open(ips_slog_t **out, const char *path, int flags,
                             int argc, char **argv);

/* Records.  Each returns 0 or the writer's first error (-errno), which
 * then stays: a failed writer keeps refusing, so nothing is lost silently.
 * Payloads that are valid JSON are embedded re-serialised; anything else as
 * {"base64":"..."}.  crank is the crank number, vat the vat's ID (a string
 * chosen by the host, at most IPS_SLOG_VAT_MAX bytes: a longer one is
 * refused with IPS_EINVAL, which does not stick), dnum the delivery number
 * within the vat.
 *
 * ips_slog_deliver writes crank-start (its message derived from the start
 * of vd) then deliver, both at D: one delivery per crank. */
IPS_EXTERN int ips_slog_deliver(ips_slog_t *s, uint64_t crank, const char *vat,
                                uint64_t dnum, const void *vd, size_t n,
                                const ips_stamp_t *D);
IPS_EXTERN int ips_slog_syscall(ips_slog_t *s, uint64_t crank, const char *vat,
                                uint64_t dnum, uint64_t snum, const void *vsc,
                                size_t n, const ips_stamp_t *U);
IPS_EXTERN int ips_slog_syscall_result(ips_slog_t *s, uint64_t crank,
                                       const char *vat, uint64_t dnum,
                                       uint64_t snum, const void *vsr,
                                       size_t n, const ips_stamp_t *R);
/* Writes the deliver-result line from res (E is res's last stamp; for a
 * fault, the time the fault was seen), then crank-finish at E, and
 * flushes.  The metering is res->metering_json when set (the child's one
 * parse), else res->metering_raw parsed here. */
IPS_EXTERN int ips_slog_deliver_result(ips_slog_t *s, uint64_t crank,
                                       const char *vat, uint64_t dnum,
                                       const ips_result_t *res);
/* A line of worker output: {"type":"console","vatID":..,"source":"worker",
 * "level":"log" (fd 1) or "error" (fd 2),"args":[line],"fd":..}. */
IPS_EXTERN int ips_slog_console(ips_slog_t *s, const char *vat, int fd,
                                const char *line, size_t n);
/* A fault outside any command (ips_fault_cb): SwingSet's "terminate" with
 * shouldReject true, info the message as capdata, and "fault" (the error's
 * name) and "message"; written and flushed at once. */
IPS_EXTERN int ips_slog_worker_fault(ips_slog_t *s, const char *vat,
                                     int status, const char *message);
/* A worker that started or ended: SwingSet's "create-vat" (with the pid)
 * and "terminate" (with exitStatus and signal; flushed). */
IPS_EXTERN int ips_slog_worker_start(ips_slog_t *s, const char *vat, int pid);
IPS_EXTERN int ips_slog_worker_exit(ips_slog_t *s, const char *vat,
                                    int64_t exit_status, int term_signal);

/* Write buffered lines.  Returns 0 or the first error. */
IPS_EXTERN int ips_slog_flush(ips_slog_t *s);
/* The first error, or 0. */
IPS_EXTERN int ips_slog_error(const ips_slog_t *s);
/* Flush, close and free.  Returns 0 or the first error. */
IPS_EXTERN int ips_slog_close(ips_slog_t *s);

/* Lines written (or buffered) so far, kernel-init-start included. */
IPS_EXTERN uint64_t ips_slog_lines(const ips_slog_t *s);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_PARENT_H */
