/* bench_parent.c — the parent's floor: the round-trip time of an
 * empty delivery through the libuv parent and ipcstamp-worker-c, against a
 * raw two-pipe ping-pong of the same bytes between two processes with
 * blocking read/write.  The two alternate in one run (so both see the same
 * machine load); each prints the median over the runs of the mean round
 * trip of a batch.
 *
 *   bench_parent [WORKER [RUNS [BATCH]]]
 *   default WORKER: $IPCSTAMP_BUILDDIR/worker/ipcstamp-worker-c, else
 *   ./worker/ipcstamp-worker-c (make bench runs in the build directory)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "ipcstamp-parent.h"

static uv_loop_t loop;
static int remaining;
static char *reply_frame;   /* the worker's answer, framed, for the raw side */
static size_t reply_len;

static void on_result(ips_child_t *w, void *arg, const ips_result_t *res) {
  if (res->kind != IPS_RESULT_OK) {
    fprintf(stderr, "bench_parent: delivery failed: %s\n", res->message);
    exit(1);
  }
  if (!reply_frame) {
    /* Rebuild the frame the worker sent: '.' metering 0x01 result. */
    size_t n = 1 + res->metering_len + 1 + res->len, hl;
    char *payload = malloc(n);
    payload[0] = '.';
    memcpy(payload + 1, res->metering_raw, res->metering_len);
    payload[1 + res->metering_len] = 1;
    memcpy(payload + 2 + res->metering_len, res->data, res->len);
    reply_frame = malloc(ips_ns_frame_size(n));
    ips_ns_encode(reply_frame, ips_ns_frame_size(n), payload, n, &hl);
    reply_len = hl;
    free(payload);
  }
  if (--remaining > 0 && ips_child_deliver(w, "", 0, on_result, NULL) != 0)
    exit(1);
}

static double parent_batch(ips_child_t *w, int n) {
  int64_t t0 = bench_now_ns();
  remaining = n;
  if (ips_child_deliver(w, "", 0, on_result, NULL) != 0)
    exit(1);
  while (remaining > 0)
    uv_run(&loop, UV_RUN_ONCE);
  return (double)(bench_now_ns() - t0) / n;
}

static void full_write(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w <= 0)
      exit(1);
    p += w;
    n -= (size_t)w;
  }
}

static void full_read(int fd, char *p, size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r <= 0)
      exit(0);
    p += r;
    n -= (size_t)r;
  }
}

/* The raw side: same request bytes ("1:?,"), same reply bytes. */
static double raw_batch(int to, int from, int n) {
  char *buf = malloc(reply_len);
  int64_t t0 = bench_now_ns();
  int i;
  for (i = 0; i < n; i++) {
    full_write(to, "1:?,", 4);
    full_read(from, buf, reply_len);
  }
  free(buf);
  return (double)(bench_now_ns() - t0) / n;
}

int main(int argc, char **argv) {
  char def[4096];
  const char *worker = argc > 1 ? argv[1] : def;
  int runs = argc > 2 ? atoi(argv[2]) : 7;
  int batch = argc > 3 ? atoi(argv[3]) : 20000;
  ips_child_options_t o;
  ips_child_t *w;
  int p1[2], p2[2], i;
  pid_t pid;
  double *pt, *rt;
  bench_path(def, sizeof def, "worker/ipcstamp-worker-c");
  if (runs < 1 || batch < 1)
    return 2;
  memset(&o, 0, sizeof o);
  o.file = worker;
  uv_loop_init(&loop);
  if (ips_child_spawn(&loop, &o, &w) != 0) {
    fprintf(stderr, "bench_parent: cannot start %s\n", worker);
    return 1;
  }
  parent_batch(w, 1000); /* warm up, and learn the reply bytes */

  if (pipe(p1) || pipe(p2))
    return 1;
  pid = fork();
  if (pid == 0) {
    char req[4];
    close(p1[1]);
    close(p2[0]);
    for (;;) {
      full_read(p1[0], req, 4);
      full_write(p2[1], reply_frame, reply_len);
    }
  }
  close(p1[0]);
  close(p2[1]);
  raw_batch(p1[1], p2[0], 1000);

  pt = calloc((size_t)runs, sizeof *pt);
  rt = calloc((size_t)runs, sizeof *rt);
  for (i = 0; i < runs; i++) {
    pt[i] = parent_batch(w, batch);
    rt[i] = raw_batch(p1[1], p2[0], batch);
  }
  bench_median(pt, runs); /* sorts: pt[runs / 2] is the median */
  bench_median(rt, runs);
  printf("empty delivery round trip, median of %d runs of %d (reply frame "
         "%zu bytes):\n",
         runs, batch, reply_len);
  printf("  libuv parent + %-19s %8.2f us\n",
         strrchr(worker, '/') ? strrchr(worker, '/') + 1 : worker,
         pt[runs / 2] / 1e3);
  printf("  raw two-pipe ping-pong            %8.2f us\n", rt[runs / 2] / 1e3);
  printf("  parent overhead                   %8.2f us (x%.2f)\n",
         (pt[runs / 2] - rt[runs / 2]) / 1e3, pt[runs / 2] / rt[runs / 2]);

  close(p1[1]);
  waitpid(pid, NULL, 0);
  ips_child_close(w, NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  free(pt);
  free(rt);
  free(reply_frame);
  return 0;
}
