/* examples/host.c — a small host on libipcstamp-parent.
 *
 * Starts one worker (any program that speaks the xsnap worker protocol on
 * fd 3/4, e.g. examples/worker.c), sends it a few deliveries, answers its
 * upcalls, and records everything in a slogfile that `ipcstamp report`
 * reads.  The library runs on a libuv loop: nothing here blocks, every
 * event arrives in a callback.
 *
 *   cc -o host host.c $(pkg-config --cflags --libs ipcstamp-parent)
 *   ./host ./worker run.slog && ipcstamp report run.slog
 */
#include <stdio.h>
#include <string.h>

#include <ipcstamp-parent.h>

static const char *const keys[] = {"apple", "pear", "plum"};
#define NKEYS (sizeof keys / sizeof keys[0])

/* What the callbacks share.  One worker, so one vat, "v1". */
typedef struct host_s {
  ips_slog_t *slog;
  uint64_t crank, snum; /* crank = delivery number here: one vat only */
  unsigned done, failed;
  int closing; /* ips_child_close() is called once */
} host_t;

/* The delivery was written to the pipe; D is the parent's stamp for it.
 * Deliveries to one worker run one at a time, in order, so the crank
 * number can simply advance here. */
static void on_start(ips_child_t *w, void *arg, const ips_stamp_t *D) {
  host_t *h = arg;
  char vd[64];
  int n;
  (void)w;
  h->crank++;
  h->snum = 0;
  n = snprintf(vd, sizeof vd, "[\"message\",\"%s\"]", keys[h->crank - 1]);
  ips_slog_deliver(h->slog, h->crank, "v1", h->crank, vd, (size_t)n, D);
}

/* The worker asks the kernel something and waits.  A real kernel would
 * look at the request; this one answers with its length.  Every record
 * returns the slogfile's first error, which ips_slog_close() reports
 * again, so the per-record codes can be ignored. */
static void on_upcall(ips_child_t *w, void *arg, const char *req, size_t n,
                      const ips_stamp_t *U) {
  host_t *h = arg;
  char reply[32];
  ips_stamp_t R;
  int len = snprintf(reply, sizeof reply, "%zu", n);
  ips_slog_syscall(h->slog, h->crank, "v1", h->crank, h->snum, req, n, U);
  if (ips_child_reply(w, reply, (size_t)len, &R) == 0)
    ips_slog_syscall_result(h->slog, h->crank, "v1", h->crank, h->snum,
                            reply, (size_t)len, &R);
  h->snum++;
}

/* The delivery is over: a result ('.'), an error ('!') or a fault (the
 * worker died, broke the protocol, timed out).  res->stamps and the
 * worker's metering go into the slogfile as they are. */
static void on_result(ips_child_t *w, void *arg, const ips_result_t *res) {
  host_t *h = arg;
  if (res->nstamps > 0)
    ips_slog_deliver_result(h->slog, h->crank, "v1", h->crank, res);
  if (res->kind != IPS_RESULT_OK) {
    fprintf(stderr, "host: delivery %u: %s\n", h->done + 1, res->message);
    h->failed++;
  }
  /* The last one: ask the worker to quit.  Once its handles are closed
   * the loop has nothing left and uv_run() returns. */
  if (++h->done == NKEYS && !h->closing) {
    h->closing = 1;
    ips_child_close(w, NULL);
  }
}

int main(int argc, char **argv) {
  ips_child_options_t o;
  ips_child_t *w;
  host_t h;
  size_t i;
  int rc;

  if (argc != 3) {
    fprintf(stderr, "usage: host WORKER SLOGFILE\n");
    return 2;
  }
  memset(&h, 0, sizeof h);
  /* Refuses to overwrite an existing file (IPS_SLOG_FORCE would). */
  rc = ips_slog_open(&h.slog, argv[2], 0, argc, argv);
  if (rc != 0) {
    fprintf(stderr, "host: %s: %s\n", argv[2], ips_strerror(rc));
    return 4;
  }

  /* The options are copied by ips_child_spawn(); callbacks get arg, the
   * pointer given with each delivery. */
  memset(&o, 0, sizeof o);
  o.file = argv[1];
  o.upcall_cb = on_upcall;
  o.start_cb = on_start;
  o.timeout_ms = 10000; /* a worker that hangs fails its delivery */
  rc = ips_child_spawn(uv_default_loop(), &o, &w);
  if (rc != 0) {
    fprintf(stderr, "host: cannot start %s: %s\n", argv[1], ips_strerror(rc));
    ips_slog_close(h.slog);
    return 1;
  }
  ips_slog_worker_start(h.slog, "v1", ips_child_pid(w));

  /* Queue every delivery now: the payload is copied, and the library sends
   * the next one when the previous result is in. */
  for (i = 0; i < NKEYS; i++) {
    rc = ips_child_deliver(w, keys[i], strlen(keys[i]), on_result, &h);
    if (rc != 0) {
      fprintf(stderr, "host: cannot queue a delivery: %s\n", ips_strerror(rc));
      h.failed++;
      h.closing = 1;
      ips_child_close(w, NULL); /* the ones queued fail with ECANCELED */
      break;
    }
  }
  uv_run(uv_default_loop(), UV_RUN_DEFAULT);
  uv_loop_close(uv_default_loop());

  rc = ips_slog_close(h.slog);
  if (rc != 0) {
    fprintf(stderr, "host: writing %s: %s\n", argv[2], ips_strerror(rc));
    return 4;
  }
  printf("host: %u deliveries, %u failed, slogfile %s\n", h.done, h.failed,
         argv[2]);
  return h.failed ? 1 : 0;
}
