/* examples/host.c — a small host on libipcstamp-parent.
 *
 * Starts one worker (any program speaking the xsnap worker protocol on fd
 * 3/4, e.g. examples/worker.c), waits until it answers the readiness ping
 * (as xsnap's parent does), sends it a few deliveries, answers its
 * upcalls and records it all in a slogfile that `ipcstamp report` reads.
 * The library runs on a libuv loop: nothing blocks, every event arrives in
 * a callback.
 *
 *   cc -o host host.c $(pkg-config --cflags --libs ipcstamp-parent)
 *   ./host ./worker run.slog && ipcstamp report run.slog
 */
#include <stdio.h>
#include <string.h>

#include <ipcstamp-parent.h>

static const char *const keys[] = {"apple", "pear", "plum"};
#define NKEYS (sizeof keys / sizeof keys[0])

/* What the callbacks share.  One worker, so one vat ("v1"), and one
 * delivery at a time, so the crank and delivery numbers are both `sent`.
 * `ready` is set once the worker answered the readiness ping. */
typedef struct host_s {
  ips_slog_t *slog;
  unsigned sent, snum, failed;
  int ready;
} host_t;

static void on_result(ips_child_t *w, void *arg, const ips_result_t *res);

/* Send the next delivery (the payload is copied), or when there is none,
 * or the worker is gone, ask it to quit: once its handles are closed the
 * loop has nothing left and uv_run() returns.  `sent` counts the delivery
 * first: on_start() may run inside ips_child_deliver() when the pipe takes
 * the frame at once. */
static void send_next(ips_child_t *w, host_t *h) {
  const char *key = h->sent < NKEYS ? keys[h->sent++] : NULL;
  int rc = 0;
  if (key && (rc = ips_child_deliver(w, key, strlen(key), on_result, h))) {
    fprintf(stderr, "host: cannot send a delivery: %s\n", ips_strerror(rc));
    h->failed++;
  }
  if (!key || rc != 0) ips_child_close(w, NULL);
}

/* The delivery was written to the pipe; D is the parent's stamp for it.
 * Every slogfile call returns the file's first error, which
 * ips_slog_close() returns again: checking that once is enough. */
static void on_start(ips_child_t *w, void *arg, const ips_stamp_t *D) {
  host_t *h = arg;
  char vd[64];
  int n;
  (void)w;
  if (!h->ready) /* the readiness ping: not a delivery */
    return;
  n = snprintf(vd, sizeof vd, "[\"message\",\"%s\"]", keys[h->sent - 1]);
  h->snum = 0;
  ips_slog_deliver(h->slog, h->sent, "v1", h->sent, vd, (size_t)n, D);
}

/* The worker asks the kernel something and waits.  A real kernel would
 * look at the request; this one answers with its length. */
static void on_upcall(ips_child_t *w, void *arg, const char *req, size_t n,
                      const ips_stamp_t *U) {
  host_t *h = arg;
  char reply[32];
  ips_stamp_t R;
  int len = snprintf(reply, sizeof reply, "%zu", n);
  if (!h->ready) { /* no delivery to charge it to: a broken worker */
    ips_child_kill(w);
    return;
  }
  ips_slog_syscall(h->slog, h->sent, "v1", h->sent, h->snum, req, n, U);
  if (ips_child_reply(w, reply, (size_t)len, &R) == 0)
    ips_slog_syscall_result(h->slog, h->sent, "v1", h->sent, h->snum, reply,
                            (size_t)len, &R);
  h->snum++;
}

/* A result ('.'), an error ('!') or a fault (the worker died, broke the
 * protocol, timed out): its stamps and metering go to the slogfile. */
static void on_result(ips_child_t *w, void *arg, const ips_result_t *res) {
  host_t *h = arg;
  if (res->nstamps > 0)
    ips_slog_deliver_result(h->slog, h->sent, "v1", h->sent, res);
  if (res->kind != IPS_RESULT_OK) {
    fprintf(stderr, "host: delivery %u: %s\n", h->sent, res->message);
    h->failed++;
  }
  send_next(w, h);
}

/* The worker answered the readiness ping: its start-up is over, so the
 * first delivery's pipe time is the pipe's, not the worker's exec and
 * initialisation.  Only now do the deliveries start. */
static void on_ready(ips_child_t *w, void *arg, const ips_result_t *res) {
  host_t *h = arg;
  if (res->kind != IPS_RESULT_OK) {
    fprintf(stderr, "host: the worker did not start: %s\n", res->message);
    h->failed++;
    ips_child_close(w, NULL);
    return;
  }
  h->ready = 1;
  send_next(w, h);
}

int main(int argc, char **argv) {
  ips_child_options_t o;
  ips_child_t *w;
  host_t h = {NULL, 0, 0, 0, 0};
  int rc;

  if (argc != 3) {
    fprintf(stderr, "usage: host WORKER SLOGFILE\n");
    return 2;
  }
  /* An existing file is refused (IPS_SLOG_FORCE would replace it). */
  if ((rc = ips_slog_open(&h.slog, argv[2], 0, argc, argv)) != 0) {
    fprintf(stderr, "host: %s: %s\n", argv[2], ips_strerror(rc));
    return 4;
  }
  memset(&o, 0, sizeof o); /* copied by ips_child_spawn() */
  o.file = argv[1];
  o.upcall_cb = on_upcall;
  o.start_cb = on_start;
  o.timeout_ms = 10000; /* a worker that hangs fails its delivery */
  if ((rc = ips_child_spawn(uv_default_loop(), &o, &w)) != 0) {
    fprintf(stderr, "host: cannot start %s: %s\n", argv[1], ips_strerror(rc));
    ips_slog_close(h.slog);
    return 1;
  }
  ips_slog_worker_start(h.slog, "v1", ips_child_pid(w));
  if ((rc = ips_child_ready(w, on_ready, &h)) != 0) {
    fprintf(stderr, "host: cannot send the readiness ping: %s\n",
            ips_strerror(rc));
    h.failed++;
    ips_child_close(w, NULL);
  }
  uv_run(uv_default_loop(), UV_RUN_DEFAULT);
  uv_loop_close(uv_default_loop());

  if ((rc = ips_slog_close(h.slog)) != 0) {
    fprintf(stderr, "host: writing %s: %s\n", argv[2], ips_strerror(rc));
    return 4;
  }
  printf("host: %u deliveries, %u failed, slogfile %s\n", h.sent, h.failed,
         argv[2]);
  return h.failed ? 1 : 0;
}
