/* worker_driver.h — a small blocking parent for tests and benchmarks: it
 * starts a worker program with real pipes on fds 3 and 4, sends commands,
 * answers upcalls, and reads its own clocks around every frame so that the
 * worker's stamps can be checked against them.  (The libuv parent library
 * will drive the same workers; this one needs nothing but proto.) */
#ifndef IPCSTAMP_TESTS_WORKER_DRIVER_H
#define IPCSTAMP_TESTS_WORKER_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipcstamp-proto.h"

/* How long the driver waits for a frame or an exit before it gives up:
 * a hung worker fails its test instead of hanging it. */
#define WD_TIMEOUT_MS 20000

/* Spawn flags. */
#define WD_NO_FD3 (1 << 0) /* start the worker without fd 3 */
#define WD_NO_FD4 (1 << 1) /* start the worker without fd 4 */

typedef struct wd_s {
  pid_t pid;
  int to;       /* our end of the worker's fd 3, or -1 */
  int from;     /* our end of the worker's fd 4, or -1 */
  int out_fd;   /* the worker's stdout (a temporary file) */
  int err_fd;   /* the worker's stderr (a temporary file) */
  int status;   /* wait status once reaped, else -1 */
  ips_ns_decoder_t dec;
  char buf[65536];
  size_t pos, len;
} wd_t;

/* The path of a built program: $IPCSTAMP_BUILDDIR/rel (make check sets it),
 * or rel from the current directory.  Static storage. */
const char *wd_path(const char *rel);

/* Start path with argv (argv[0] first; NULL-terminated) and env, a
 * NULL-terminated list of "NAME=value" to set or "NAME" to unset on top of
 * this process's environment (may be NULL).  Returns 0 or -errno. */
int wd_spawn(wd_t *d, const char *path, const char *const *argv,
             const char *const *env, int flags);

/* Drive a worker that is not a child process (the library in-process):
 * to and from are our ends of its pipes, owned by d from now on. */
void wd_attach(wd_t *d, int to, int from);

/* Send one frame: tag + payload. */
int wd_send(wd_t *d, char tag, const void *p, size_t n);
/* Send bytes as they are (to break the framing on purpose). */
int wd_send_raw(wd_t *d, const void *p, size_t n);
/* Close our end of fd 3: the worker sees end of input. */
void wd_close_input(wd_t *d);
/* Close our end of fd 4: the worker's next write fails with EPIPE. */
void wd_close_output(wd_t *d);

/* The next frame from the worker, valid until the next call.  Returns 0,
 * IPS_EEOF (the worker closed fd 4 between frames), IPS_ETIMEOUT or a
 * framing error. */
int wd_recv(wd_t *d, const char **frame, size_t *len);

/* One delivery as the benchmarks make it: cmd sent as '?', every upcall
 * answered "null", the answer read.  Returns 0 when it is '.', 1 when it is
 * another frame (*frame, *len: that frame), or wd_send's or wd_recv's
 * error. */
int wd_deliver_null(wd_t *d, const char *cmd, size_t n, const char **frame,
                    size_t *len);

/* Wait for the worker to exit; returns its exit status, 128 + the signal
 * that killed it, or -1 on timeout (the worker is then killed). */
int wd_wait(wd_t *d);

/* What the worker wrote to stdout / stderr so far, NUL-terminated; the
 * caller frees it. */
char *wd_stdout(wd_t *d);
char *wd_stderr(wd_t *d);

/* Kill the worker if it still runs, reap it, close everything. */
void wd_free(wd_t *d);

/* The reply the driver sends to an upcall.  Returns 0, or nonzero to stop
 * answering (the delivery then fails with IPS_EPROTO). */
typedef int (*wd_upcall_fn)(void *arg, uint32_t i, const char *req, size_t n,
                            const char **reply, size_t *reply_len);

/* One delivery, with the driver's own clock reads: `sent` just before the
 * command's first byte is written, `received` just after the result's last
 * byte is read, and per upcall `up_in` just after it arrived and `up_out`
 * just before its reply was written. */
typedef struct wd_result_s {
  char tag;               /* '.' or '!' */
  char *meter;            /* '.': the metering JSON, NUL-terminated */
  size_t meter_len;
  char *body;             /* the result bytes or the '!' message */
  size_t body_len;
  ips_stamp_t sent, received;
  uint32_t nupcalls;
  ips_stamp_t *up_in, *up_out;  /* nupcalls each */
  char *last_upcall;      /* the last upcall's payload, NUL-terminated */
  size_t last_upcall_len;
} wd_result_t;

/* Send tag + payload and serve upcalls (with fn, or the reply "null" when
 * fn is NULL) until the result.  Returns 0, or the error that ended it. */
int wd_command(wd_t *d, char tag, const void *p, size_t n, wd_upcall_fn fn,
               void *arg, wd_result_t *r);
void wd_result_free(wd_result_t *r);

/* The metering JSON, parsed. */
typedef struct wd_meter_s {
  int has_ipcstamp;
  int version;
  uint32_t n;            /* stamps */
  char *kinds;           /* n letters, NUL-terminated */
  int64_t *wall_us;      /* n, from "timestamps" (exact, no double) */
  int64_t *mono_ns;      /* n */
  uint32_t ntimestamps;  /* entries of "timestamps" */
  int64_t dropped;
  int has_cpu_ns;
  int64_t cpu_ns;
  int64_t *run_delay_ns; /* n, from "run_delay_ns", or NULL without it */
  int64_t fields[8];     /* other top-level integers, by fields_names */
  int has_field[8];
} wd_meter_t;

/* Parse json into m; names (up to 8, NULL-terminated, may be NULL) are the
 * VM counters to pick up.  Returns 0, or -1 with a message in err. */
int wd_meter_parse(const char *json, const char *const *names, wd_meter_t *m,
                   char *err, size_t errlen);
void wd_meter_free(wd_meter_t *m);

/* Microseconds from a JSON number with up to six decimals, exactly. */
int wd_parse_wall(const char *s, int64_t *us);

#endif
