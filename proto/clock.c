/* clock.c — the one place the clocks are read (docs/protocol.md, "Stamps"),
 * and the one place a thread's run-queue delay is ("Waiting for a CPU"). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

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
  s->has_run_delay = 0;
  s->run_delay_ns = 0;
  return 0;
}

/* schedstat is "<on-cpu ns> <run_delay ns> <timeslices>\n".  The first
 * number is not used: for the thread reading it, it is only brought up to
 * date at a scheduler tick, so it lags by up to a tick; run_delay only
 * grows when the thread gets a CPU, so for a running reader it is exact. */
int ips_runq_read(const ips_runq_t *q, int64_t *run_delay_ns) {
  char buf[96];
  ssize_t n;
  int i = 0, field = 0;
  uint64_t v = 0;
  if (q->fd < 0)
    return IPS_ERUNQ;
  do
    n = pread(q->fd, buf, sizeof buf, 0);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    return IPS_ERUNQ;
  /* Skip the first number and its space; read the second. */
  for (; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
    field = 1;
  if (!field || i >= n || buf[i] != ' ')
    return IPS_ERUNQ;
  for (i++, field = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) {
    if (v > (UINT64_MAX >> 1) / 10) /* never in 292 years of waiting */
      return IPS_ERUNQ;
    v = v * 10 + (uint64_t)(buf[i] - '0');
    field = 1;
  }
  if (!field || i >= n || buf[i] != ' ')
    return IPS_ERUNQ;
  *run_delay_ns = (int64_t)v;
  return 0;
}

/* Opens path only if it is a regular file, as procfs's are: a FIFO or a
 * device put in its place (a mount over /proc) would make the open wait
 * forever, or read anything.  -1 with errno (ENODEV for another kind). */
static int open_regular(const char *path) {
  struct stat st;
  int e, fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return -1;
  if (fstat(fd, &st) != 0)
    e = errno;
  else if (!S_ISREG(st.st_mode))
    e = ENODEV;
  else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
    e = errno;
  else
    return fd;
  close(fd);
  errno = e;
  return -1;
}

int ips_runq_open(ips_runq_t *q) {
  int e;
  q->last_ns = 0;
  q->fd = open_regular("/proc/thread-self/schedstat");
  if (q->fd < 0 && errno == ENOENT) {
    /* Kernels before 3.17 have no thread-self. */
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat",
             (long)syscall(SYS_gettid));
    q->fd = open_regular(path);
  }
  if (q->fd < 0)
    return IPS_ERUNQ;
  errno = 0;
  if (ips_runq_read(q, &q->last_ns) != 0) {
    e = errno ? errno : EINVAL; /* EINVAL: not three numbers */
    ips_runq_close(q);
    errno = e;
    return IPS_ERUNQ;
  }
  return 0;
}

void ips_runq_close(ips_runq_t *q) {
  if (q->fd >= 0)
    close(q->fd);
  q->fd = -1;
}

int ips_runq_take(ips_runq_t *q, int64_t *delay) {
  int64_t now;
  if (ips_runq_read(q, &now) != 0)
    return IPS_ERUNQ;
  /* Cumulative, so never smaller; kept at 0 should a file say otherwise. */
  *delay = now > q->last_ns ? now - q->last_ns : 0;
  q->last_ns = now;
  return 0;
}
