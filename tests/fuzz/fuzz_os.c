/* fuzz_os.c — libFuzzer target for the reader of `ipcstamp record`'s
 * file (analyze/os_read.c, analyze/os_bin.c) and the join
 * (analyze/os_split.c, analyze/os_between.c), the work of no delivery
 * (analyze/os_other.c) and the workers launched (analyze/os_launch.c).
 *
 * The input's first byte says what it is:
 *  - 0x89 (the binary versions' first byte): version 3's records, after
 *    a valid header (each type's size, two system call names) that is
 *    put in front;
 *  - 'H': a whole file, header included (the header's own checks);
 *  - anything else: version 1's JSON lines after its first line, which is
 *    put in front;
 * so that every execution reaches the records.  The recording is then
 * joined with one delivery of a single upcall over its span of time:
 * besides "no crash, no leak, no read out of bounds", the parts must add
 * up exactly to the delivery's pipe, worker and kernel time, whatever the
 * file says. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "ipcstamp-analyze-os.h"
#include "os-format.h"

static const char head[] = "{\"ipcstamp_os\":1,\"start\":0}\n";
static char path[64];

static void put32(unsigned char *p, uint32_t v) {
  int i;
  for (i = 0; i < 4; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

/* Version 3's header (docs/os.md, "The file", proto/os-format.h) into h:
 * 248 bytes. */
static size_t bin_head(unsigned char *h) {
  static const uint32_t size[OS_EV_TYPES] = {OS_PARTS(OS_FILE_SIZE_INIT)};
  struct os_file_header fh;
  int i;
  memset(h, 0, 248);
  memset(&fh, 0, sizeof fh);
  memcpy(fh.magic, OS_FILE_MAGIC, 8);
  fh.version = OS_FILE_VERSION;
  fh.header_size = 248;   /* 200 and two names */
  fh.clock = 1;           /* CLOCK_MONOTONIC */
  fh.ntypes = OS_FILE_TYPES;
  for (i = 0; i < OS_EV_TYPES; i++)
    fh.size[i] = size[i];
  fh.nnames = 2;
  fh.name_size = sizeof(struct os_file_name);
  memcpy(h, &fh, sizeof fh); /* little-endian: the fuzzers' machines */
  put32(h + 200, 0);
  memcpy(h + 204, "read", 4);
  put32(h + 224, 202);
  memcpy(h + 228, "futex", 5);
  return 248;
}

static int64_t time_sum(const ips_os_time_t *t) {
  return t->on_cpu + t->steal + t->uncharged + t->cpu_wait + t->disk +
         t->fault + t->sleep +
         t->not_measured;
}

/* The time between deliveries (os_between.c): the gap before d, and a
 * stretch of d's kernel thread, each split exactly whatever the file. */
static void between(ips_os_t *os, ips_delivery_t *d) {
  ips_os_time_t t, sum;
  ips_os_kernel_t k;
  int64_t m, ns;
  char sc[24];
  d->has_gap = 1;
  d->gap_ns = 400;
  d->snap_save_ns = 100;
  CHECK(ips_os_between(os, d, &t) == 1);
  CHECK(time_sum(&t) == 500);
  memset(&sum, 0, sizeof sum);
  ips_os_kernel(os, d, &k);
  ips_os_kernel_time(os, &k, k.offset, k.offset + 9000, &sum);
  CHECK(time_sum(&sum) == 9000);
  ips_os_time_add(&sum, &t);
  CHECK(time_sum(&sum) == 9500);
  CHECK(ips_os_time_cause(&sum, &ns, sc) != NULL && ns > 0);
  if (ips_os_from_wall(os, 1000, &m))
    CHECK(m >= -((int64_t)1 << 62) && m <= ((int64_t)1 << 62));
}

/* Every frame a delivery's or a kind of work's; each kind's parts add up
 * to its time exactly. */
static void others(const ips_os_t *os) {
  ips_os_other_t o;
  uint64_t all = 0;
  size_t k;
  if (ips_os_other(os, &o) != 0)
    return;
  for (k = 0; k < IPS_OS_WORK_N; k++) {
    const ips_os_work_t *w = &o.kind[k];
    all += w->frames;
    if (w->ns < INT64_MAX / 2) /* no sum held at the bound */
      CHECK(w->write + w->pipe + w->worker_ns + w->reply == w->ns);
    CHECK(w->answered + w->errors <= w->exchanges);
  }
  CHECK(all + o.delivery_frames == o.frames);
}

/* The workers launched: each argument list within its bytes and ended. */
static void launches(const ips_os_t *os) {
  ips_os_launch_t *l;
  size_t n, i;
  if (ips_os_launches(os, &l, &n) != 0)
    return;
  for (i = 0; i < n; i++) {
    CHECK(l[i].len <= 256);
    CHECK(!l[i].len || l[i].args[l[i].len - 1] == '\0');
    CHECK(!l[i].signal || l[i].exit_code == -1);
  }
  free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* D, U, R, E and d, u, r, e: 1000 ns of each segment from t = 1000. */
  static const int64_t P[4] = {1000, 4000, 5000, 7000};
  static const int64_t W[4] = {2000, 3000, 6000, 6500};
  ips_delivery_t d;
  ips_os_split_t s;
  ips_os_info_t info;
  ips_os_t *os;
  char err[512];
  int fd;
  if (!path[0])
    snprintf(path, sizeof path, "/tmp/fuzz_os.%d", (int)getpid());
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  if (size > 0 && (data[0] == 0x89 || data[0] == 'H')) {
    unsigned char h[248];
    size_t n = data[0] == 0x89 ? bin_head(h) : 0;
    CHECK(n == 0 || write(fd, h, n) == (ssize_t)n);
    CHECK(size == 1 || write(fd, data + 1, size - 1) == (ssize_t)(size - 1));
  } else {
    CHECK(write(fd, head, sizeof head - 1) == (ssize_t)(sizeof head - 1));
    CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
  }
  close(fd);
  if (ips_os_open(&os, path, err, sizeof err) != 0)
    return 0;
  memset(&d, 0, sizeof d);
  d.n_up = 1;
  /* No pid: the worker is looked up by the vat its exec names. */
  d.vat = "v1";
  /* Both ways to the recording's clock: the parent's own monotonic
   * stamps, or through the worker's wall clock and the file's start. */
  d.clock = size & 1 ? 'w' : 'm';
  d.offset_ns = (int64_t)size * 1000;
  d.bound_ns = 500;
  d.P = P;
  d.W = W;
  d.pipe = (W[0] - P[0]) + (P[1] - W[1]) + (W[2] - P[2]) + (P[3] - W[3]);
  d.worker = (W[1] - W[0]) + (W[3] - W[2]);
  d.kernel = P[2] - P[1];
  d.total = P[3] - P[0];
  CHECK(ips_os_split(os, &d, &s) == 0);
  CHECK(s.pipe_before_write + s.pipe_write + s.pipe_in_pipe + s.pipe_sleep +
            s.pipe_page_fault + s.pipe_cpu_wait +
            s.pipe_reader + s.pipe_not_measured == d.pipe);
  CHECK(time_sum(&s.worker) == d.worker);
  CHECK(time_sum(&s.kernel) == d.kernel);
  CHECK(s.frames <= s.frames_expected);
  between(os, &d);
  ips_os_info(os, &info);
  CHECK(info.unmatched_frames <= info.frames);
  others(os);
  launches(os);
  ips_os_free(os);
  return 0;
}
