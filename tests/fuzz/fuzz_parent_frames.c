/* fuzz_parent_frames.c — libFuzzer target for the parent's frame handling
 * (parent/worker.c, proto/netstring.c), driven through a real pipe.
 *
 * Each input is exactly what a worker writes to fd 4: a real child process
 * (/bin/sh, exec'ing cat) copies the bytes from a temporary file to fd 4
 * and exits, while the parent delivers commands one after the other (up to
 * MAX_CMDS), answers every upcall, and finally closes the worker.  Besides
 * "no crash, no leak, no UB", every command gets exactly one result, a
 * fault always says what happened, and the loop ends with nothing left
 * open (uv_loop_close succeeds). */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipcstamp-parent.h"
#include "fuzz.h"

#define MAX_CMDS 4

typedef struct {
  int sent, results, faults, closed;
} run_t;

static char path[64];

static void on_result(ips_child_t *w, void *arg, const ips_result_t *res) {
  run_t *r = arg;
  r->results++;
  CHECK(r->results <= r->sent);
  CHECK(res->message != NULL);
  if (res->kind == IPS_RESULT_FAULT)
    CHECK(res->status != 0 && res->message[0] != '\0');
  if (res->kind == IPS_RESULT_OK)
    CHECK(res->data != NULL || res->len == 0);
  /* Stamps: D first, E last, when the command was sent. */
  if (res->nstamps > 0) {
    CHECK(res->stamps[0].kind == 'D');
    CHECK(res->stamps[res->nstamps - 1].kind == 'E');
  }
  if (r->sent < MAX_CMDS && ips_child_alive(w) &&
      ips_child_deliver(w, "[\"x\"]", 5, on_result, r) == 0)
    r->sent++;
}

static void on_upcall(ips_child_t *w, void *arg, const char *p, size_t n,
                      const ips_stamp_t *U) {
  (void)ips_child_reply(w, "null", 4, NULL);
}

static void on_fault(ips_child_t *w, int status, const char *message) {
  run_t *r = ips_child_data(w);
  CHECK(status != 0 && message && message[0]);
  r->faults++;
}

static void on_closed(ips_child_t *w) {
  run_t *r = ips_child_data(w);
  r->closed = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uv_loop_t loop;
  ips_child_options_t o;
  ips_child_t *w;
  run_t r;
  char *args[] = {"sh", "-c", "exec cat \"$0\" >&4", path, NULL};
  int fd;
  if (!path[0])
    snprintf(path, sizeof path, "/tmp/fuzz_parent_frames.%d", (int)getpid());
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
  close(fd);
  memset(&r, 0, sizeof r);
  memset(&o, 0, sizeof o);
  o.file = "/bin/sh";
  o.args = args;
  o.max_frame = 1 << 20;
  o.timeout_ms = 2000; /* only a bug would need it */
  o.max_upcalls = 64;
  o.upcall_cb = on_upcall;
  o.fault_cb = on_fault;
  o.data = &r;
  CHECK(uv_loop_init(&loop) == 0);
  CHECK(ips_child_spawn(&loop, &o, &w) == 0);
  if (ips_child_deliver(w, "[\"x\"]", 5, on_result, &r) == 0)
    r.sent++;
  /* Run until every command has its result or the worker is dead. */
  while (r.results < r.sent && uv_run(&loop, UV_RUN_ONCE))
    ;
  ips_child_close(w, on_closed);
  uv_run(&loop, UV_RUN_DEFAULT);
  CHECK(r.closed);
  CHECK(r.results == r.sent);
  /* At most one fault: the worker is dead after the first. */
  CHECK(r.faults <= 1);
  CHECK(uv_loop_close(&loop) == 0);
  return 0;
}
