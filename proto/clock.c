/* clock.c — the one place the clocks are read (docs/protocol.md, "Stamps"). */
#include "config.h"

#include <sys/time.h>
#include <time.h>

#include "ipcstamp-proto.h"

int ips_clock_read(ips_stamp_t *s) {
  struct timeval tv;
  struct timespec ts;
  /* Both go through the vDSO on Linux: no system call, tens of ns each.
   * Wall first so that a reader comparing the two sees the wall stamp no
   * later than the mono one. */
  if (gettimeofday(&tv, NULL) != 0)
    return IPS_ECLOCK;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return IPS_ECLOCK;
  s->wall_us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
  s->mono_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
  return 0;
}
