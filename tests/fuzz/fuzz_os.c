/* fuzz_os.c — libFuzzer target for the reader of `ipcstamp record`'s
 * file (analyze/os_read.c) and the join (analyze/os_split.c).
 *
 * Each input is the file after its first line, which is put in front so
 * that every execution reaches the records.  The recording is then joined
 * with one delivery of a single upcall over its span of time: besides "no
 * crash, no leak, no read out of bounds", the parts must add up exactly to
 * the delivery's pipe, worker and kernel time, whatever the file says. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "ipcstamp-analyze-os.h"

static const char head[] = "{\"ipcstamp_os\":1,\"start\":0}\n";
static char path[64];

static int64_t time_sum(const ips_os_time_t *t) {
  return t->on_cpu + t->cpu_wait + t->disk + t->fault + t->sleep +
         t->not_measured;
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
  CHECK(write(fd, head, sizeof head - 1) == (ssize_t)(sizeof head - 1));
  CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
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
  CHECK(s.pipe_before_write + s.pipe_write + s.pipe_in_pipe + s.pipe_cpu_wait +
            s.pipe_reader + s.pipe_not_measured == d.pipe);
  CHECK(time_sum(&s.worker) == d.worker);
  CHECK(time_sum(&s.kernel) == d.kernel);
  CHECK(s.frames <= s.frames_expected);
  ips_os_info(os, &info);
  CHECK(info.unmatched_frames <= info.frames);
  ips_os_free(os);
  return 0;
}
