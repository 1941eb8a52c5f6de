/* examples/worker.c — the smallest useful worker on libipcstamp-worker.
 *
 * A worker is a process that its parent starts with two pipes: it reads
 * commands on fd 3 and answers on fd 4.  This one answers every delivery
 * ('?' command) the same way: it asks the kernel for one value with an
 * upcall, then replies with a short text that quotes both.  The library
 * stamps every frame on the way, so the parent learns how long the worker
 * spent before, during and after the upcall.
 *
 *   cc -o worker worker.c $(pkg-config --cflags --libs ipcstamp-worker)
 *   ./host ./worker run.slog        (examples/host.c drives it)
 */
#include <stdio.h>
#include <string.h>

#include <ipcstamp-worker.h>

/* Called by ips_worker_run() once per command.  cmd->data points into the
 * library's buffer and is overwritten by the next read — including the
 * upcall's reply — so anything we still need after the upcall is copied
 * first. */
static int handle(ips_worker_t *w, const ips_command_t *cmd, void *arg) {
  char request[256], result[512];
  const char *reply;
  size_t reply_len;
  int n, rc;
  (void)arg;

  /* The upcall is a kernel syscall in SwingSet's shape: a JSON array. The
   * delivery's payload is quoted as the key (%.*s: it is not
   * NUL-terminated); a payload too long for the buffer is refused politely
   * with '!' instead of being cut. */
  n = snprintf(request, sizeof request, "[\"vatstoreGet\",\"%.*s\"]",
               (int)cmd->len, cmd->data);
  if (n < 0 || (size_t)n >= sizeof request)
    return ips_worker_reply_error(w, "payload too long", 16);

  /* Blocks until the parent answers; stamps 'u' before the request and 'r'
   * after the reply, which is how the report tells kernel time apart. */
  rc = ips_worker_upcall(w, request, (size_t)n, &reply, &reply_len);
  if (rc != 0) return rc; /* the stream is broken: the loop stops */

  /* The result and the metering (stamps 'd', 'u', 'r', 'e') go back in one
   * frame.  NULL: this VM has no counters of its own to add. */
  n = snprintf(result, sizeof result, "\"got %.*s\"", (int)reply_len, reply);
  if (n < 0 || (size_t)n >= sizeof result)
    return ips_worker_reply_error(w, "reply too long", 14);
  return ips_worker_reply_ok(w, result, (size_t)n, NULL);
}

int main(int argc, char **argv) {
  ips_worker_options_t o;
  ips_worker_t w;
  char msg[200];
  int rc;
  (void)argc;
  (void)argv;

  /* Defaults (fds 3 and 4, 1024 stamps per delivery), then what the user
   * set in IPCSTAMP_* variables; a bad value is a usage error (exit 1). */
  ips_worker_options_init(&o);
  o.name = "example-worker"; /* prefixes every error message */
  if (ips_worker_options_env(&o, msg, sizeof msg) != 0) {
    fprintf(stderr, "example-worker: %s\n", msg);
    return IPS_WORKER_EXIT_USAGE;
  }
  /* All allocation happens here, once; a failure is explained by
   * ips_worker_exit(), which also picks the exit status. */
  rc = ips_worker_init(&w, &o);
  if (rc != 0) ips_worker_exit(&w, rc);

  /* The loop: 'R' and 'q' are answered by the library, deliveries come to
   * handle().  It returns 0 when the parent says 'q' (or closes the pipe
   * between commands), 2 after a broken stream (the message is printed). */
  rc = ips_worker_run(&w, handle, NULL);
  ips_worker_close(&w);
  return rc;
}
