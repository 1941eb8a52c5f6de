/* The worker side of the pipe: blocking reads and writes on two fds, the
 * command loop's protocol rules, and the stamps taken around each frame.
 * The start-up, which allocates all this needs, is in worker_init.c. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ipcstamp-probes.h"
#include "ipcstamp-ring.h"
#include "ipcstamp-worker.h"
#include "worker-int.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(ips_worker_t *w, int err, const char *fmt, ...);

static int run_delays(const ips_worker_t *w) { return w->runq.fd >= 0; }

/* Read a stamp of this kind into *s: its clocks and, with the run-queue
 * delay, that too, read before the clocks for a stamp taken before a
 * write (u, e) and after them for one taken on arrival (d, r), so that the
 * reading's cost is the worker's own time.  Returns 0, IPS_ECLOCK or
 * IPS_ERUNQ. */
static int read_stamp(ips_worker_t *w, char kind, ips_stamp_t *s) {
  int64_t delay = 0;
  int runq = run_delays(w), before = kind == 'u' || kind == 'e';
  if (runq && before && ips_runq_take(&w->runq, &delay) != 0)
    return IPS_ERUNQ;
  if (ips_clock_read(s) != 0)
    return IPS_ECLOCK;
  if (runq && !before && ips_runq_take(&w->runq, &delay) != 0)
    return IPS_ERUNQ;
  s->kind = kind;
  s->has_run_delay = (char)runq;
  s->run_delay_ns = delay;
  return 0;
}

/* Read a stamp of this kind and record it; returns what ips_stamps_put
 * does, or IPS_ECLOCK / IPS_ERUNQ.  Without the run-queue delay the
 * clocks are read straight into the table (ips_stamps_add: the hot path).
 * A dropped stamp gives its run-queue reading back, so the next recorded
 * one covers the time since the last recorded one, as its clocks do. */
static int take_stamp(ips_worker_t *w, char kind) {
  ips_stamp_t s;
  int64_t last = w->runq.last_ns;
  int rc;
  if (!run_delays(w)) return ips_stamps_add(&w->stamps, kind);
  if ((rc = read_stamp(w, kind, &s)) != 0) return rc;
  rc = ips_stamps_put(&w->stamps, &s);
  if (rc != 0) w->runq.last_ns = last;
  return rc;
}

/* The probe of a recorded stamp s (proto/ipcstamp-probes.h); len is the
 * frame's netstring length, -1 when the VM writes its frames itself. */
#define PROBE_STAMP(probe, w, s, upcall, len)                               \
  IPS_PROBE_STAMP(worker, probe, (w)->delivery, upcall, (s)->mono_ns,      \
                  (s)->wall_us * 1000, ips__probe_vat, ips__probe_pid,     \
                  (w)->pending, len, (s)->kind)

/* Record a stamp, and hand it to the live ring and the probes when it was
 * recorded (not dropped): both then see exactly the metering's stamps.
 * Inlined whole: split, the compiler called the part after the clocks as
 * a function of its own, which cost the stamp more than the probes. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int stamp(ips_worker_t *w, char kind, uint32_t upcall,
                        int64_t len) {
  int rc = take_stamp(w, kind);
  if (rc == 0) {
    const ips_stamp_t *s = &w->stamps.v[w->stamps.n - 1];
    if (w->ring) ips_ring_stamp(w->ring, s, w->delivery, upcall);
    if (kind == 'u')
      PROBE_STAMP(upcall_sent, w, s, upcall, len);
    else
      PROBE_STAMP(reply_received, w, s, upcall, len);
  }
  return rc;
}

/* A clock or the run-queue delay that cannot be read: a stream error. */
static int stamp_failed(ips_worker_t *w, int rc) {
  return fail(w, rc, "%s", ips_strerror(rc));
}

/* A stream error: remembered, so that every later call returns it. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(ips_worker_t *w, int err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->msg, sizeof w->msg, fmt, ap);
  va_end(ap);
  w->failed = err;
  return err;
}

/* "'x'" for a printable tag, "0x07" otherwise: a tag is untrusted input
 * and ends up in a message. */
static const char *show_tag(char buf[8], char tag) {
  unsigned char c = (unsigned char)tag;
  if (c >= 0x20 && c < 0x7f)
    snprintf(buf, 8, "'%c'", c);
  else
    snprintf(buf, 8, "0x%02x", c);
  return buf;
}

static int64_t cpu_now_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Wait until fd is ready; only for fds a parent handed over non-blocking. */
static int wait_fd(int fd, short events) {
  struct pollfd p;
  p.fd = fd;
  p.events = events;
  p.revents = 0;
  while (poll(&p, 1, -1) < 0) {
    if (errno != EINTR) return -errno;
  }
  return 0;
}

/* Write every byte of iov[0..cnt), whatever the pipe accepts per call.
 * iov is consumed. */
static int write_all(ips_worker_t *w, struct iovec *iov, int cnt) {
  while (cnt > 0) {
    ssize_t k = writev(w->fd_out, iov, cnt);
    if (k < 0) {
      int e = errno;
      if (e == EINTR) continue;
      if (e == EAGAIN || e == EWOULDBLOCK) {
        if ((e = wait_fd(w->fd_out, POLLOUT)) == 0) continue;
        e = -e;
      }
      e = (e == EPIPE || e == ECONNRESET) ? IPS_EPIPE : -e;
      return fail(w, e, "cannot write to the parent (fd %d): %s", w->fd_out,
                  ips_strerror(e));
    }
    while (cnt > 0 && (size_t)k >= iov->iov_len) {
      k -= (ssize_t)iov->iov_len;
      iov++;
      cnt--;
    }
    if (cnt > 0) {
      iov->iov_base = (char *)iov->iov_base + k;
      iov->iov_len -= (size_t)k;
    }
  }
  return 0;
}

/* Send tag + payload[0..n) as one frame. */
static int send_frame(ips_worker_t *w, char tag, const void *payload,
                      size_t n) {
  struct iovec iov[3];
  char hdr[IPS_NS_HEADER_MAX];
  if (ips_ns_iov(iov, hdr, tag, payload, n) != 0) return IPS_EINVAL;
  return write_all(w, iov, 3);
}

/* The frame_refused probe: code the error, tag the frame's first byte (-1
 * when it never completed), offset where in the stream, len the frame's
 * length (-1 when unknown), msg why.  The clocks are read only here, on
 * the way to an error, and only when the probes are compiled in. */
static void refused(const ips_worker_t *w, int code, int tag, uint64_t offset,
                    int64_t len, const char *msg) {
#if IPS_PROBES_ENABLED
  ips_stamp_t s;
  if (ips_clock_read(&s) != 0) memset(&s, 0, sizeof s);
  IPS_PROBE_REFUSED(worker, frame_refused, w->delivery, code, s.mono_ns,
                    s.wall_us * 1000, ips__probe_vat, ips__probe_pid, msg,
                    tag, len, offset);
#else
  (void)w, (void)code, (void)tag, (void)offset, (void)len, (void)msg;
#endif
}

static int decoder_failed(ips_worker_t *w, int err) {
  char d[200];
  if (err == IPS_ENOMEM)
    fail(w, err, "out of memory for a frame (reading fd %d)", w->fd_in);
  else {
    ips_ns_describe(&w->dec, d, sizeof d);
    fail(w, err, "%s (reading fd %d)", d, w->fd_in);
  }
  refused(w, err, -1,
          ips_ns_error(&w->dec) ? ips_ns_error_offset(&w->dec)
                                : ips_ns_offset(&w->dec),
          -1, w->msg);
  return err;
}

/* The next complete frame from the parent, from bytes already read or from
 * new reads.  Returns 0, IPS_EEOF when the input ended between frames, or a
 * stream error. */
static int read_frame(ips_worker_t *w, const char **frame, size_t *len) {
  for (;;) {
    if (w->rpos < w->rlen) {
      ssize_t k = ips_ns_feed(&w->dec, w->rbuf + w->rpos, w->rlen - w->rpos,
                              frame, len);
      if (k < 0) return decoder_failed(w, (int)k);
      w->rpos += (size_t)k;
      if (*frame) return 0;
      continue;
    }
    ssize_t r = read(w->fd_in, w->rbuf, w->rsize);
    if (r > 0) {
      w->rpos = 0;
      w->rlen = (size_t)r;
    } else if (r == 0) {
      int e = ips_ns_finish(&w->dec);
      return e ? decoder_failed(w, e) : IPS_EEOF;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      int e = wait_fd(w->fd_in, POLLIN);
      if (e) return fail(w, e, "cannot read fd %d: %s", w->fd_in,
                         ips_strerror(e));
    } else {
      int e = -errno;
      return fail(w, e, "cannot read fd %d: %s", w->fd_in, ips_strerror(e));
    }
  }
}

static const char no_reply[] = "the worker did not reply to this command";

/* A command for the VM has just been read: stamp 'd' and start its
 * stamps, marks and CPU time afresh. */
static int begin_command(ips_worker_t *w, char tag, int64_t len) {
  w->pending = tag;
  if (ips__stamping(w)) {
    ips_stamp_t s;
    int rc;
    /* Read the stamp first: the reset is not part of the transit. */
    if ((rc = read_stamp(w, 'd', &s)) != 0)
      return stamp_failed(w, rc);
    ips_stamps_reset(&w->stamps);
    ips_stamps_put(&w->stamps, &s);
    w->delivery++;
    ips_ring_stamp(w->ring, &s, w->delivery, 0);
    PROBE_STAMP(delivery_received, w, &s, 0, len);
    ips_marks_reset(&w->marks);
    if (w->flags & IPS_WORKER_CPU_TIME) w->cpu_start_ns = cpu_now_ns();
  }
  w->upcalls = 0;
  return 0;
}

/* The command's 'e' into the live ring, its CPU time (when measured)
 * just before it: a metering that leaves them out (ipcstamp-worker-xs's
 * exact mode) still has them there. */
static void ring_end(ips_worker_t *w, const ips_meter_t *mp) {
  if (!w->ring) return;
  if (mp && mp->has_cpu_ns) ips_ring_cpu(w->ring, mp->cpu_ns, w->delivery);
  ips_ring_stamp(w->ring, &w->stamps.v[w->stamps.n - 1], w->delivery, 0);
}

/* The end of the pending command's stamps: cpu_ns into *mm when asked
 * for (*mp then points to it), and the 'e' stamp, not yet in the ring. */
static int end_stamps(ips_worker_t *w, const ips_meter_t *m, ips_meter_t *mm,
                      const ips_meter_t **mp) {
  int rc;
  *mp = m;
  if (!ips__stamping(w)) return 0;
  if ((w->flags & IPS_WORKER_CPU_TIME) && !(m && m->has_cpu_ns)) {
    if (m)
      *mm = *m;
    else
      memset(mm, 0, sizeof *mm);
    mm->has_cpu_ns = 1;
    mm->cpu_ns = cpu_now_ns() - w->cpu_start_ns;
    *mp = mm;
  }
  if ((rc = take_stamp(w, 'e')) < 0)
    return stamp_failed(w, rc);
  return 0;
}

int ips_worker_next(ips_worker_t *w, ips_command_t *cmd) {
  const char *f;
  size_t n;
  int rc;
  char t[8];

  if (w->failed) return w->failed;
  if (!w->ready) return IPS_EINVAL;
  if (w->pending) {
    rc = ips_worker_reply_error(w, no_reply, sizeof no_reply - 1);
    if (rc != 0) return rc;
  }
  /* The first 'd' has no 'e' before it: its reading starts here, not at
   * init, so the VM's own start-up waits are not counted as the pipe's. */
  if (w->delivery == 0 && run_delays(w)) {
    int64_t skip;
    if (ips_runq_take(&w->runq, &skip) != 0)
      return stamp_failed(w, IPS_ERUNQ);
  }
  for (;;) {
    rc = read_frame(w, &f, &n);
    if (rc == IPS_EEOF) return IPS_WORKER_DONE;
    if (rc != 0) return rc;
    if (n > 0 && f[0] != '\0' && strchr(w->tags, f[0])) {
      if ((rc = begin_command(w, f[0], (int64_t)n)) != 0) return rc;
      cmd->tag = f[0];
      cmd->data = f + 1;
      cmd->len = n - 1;
      return 0;
    }
    if (n >= 1 && f[0] == 'R') {
      struct iovec iov = {(void *)"1:.,", 4};
      rc = write_all(w, &iov, 1);
    } else if (n >= 1 && f[0] == 'q') {
      return IPS_WORKER_DONE;
    } else if (n == 0) {
      const char *m = ips_strerror(IPS_EEMPTY_FRAME);
      refused(w, IPS_EEMPTY_FRAME, -1, ips_ns_offset(&w->dec), 0, m);
      rc = send_frame(w, '!', m, strlen(m));
    } else {
      /* A well-framed command we do not know: say so, and go on. */
      char m[96];
      int k = snprintf(m, sizeof m, "%s: unsupported command tag %s",
                       ips__worker_name(w), show_tag(t, f[0]));
      refused(w, IPS_EBAD_TAG, (unsigned char)f[0], ips_ns_offset(&w->dec),
              (int64_t)n, m);
      rc = send_frame(w, '!', m, (size_t)k);
    }
    if (rc != 0) return rc;
  }
}

int ips_worker_upcall(ips_worker_t *w, const void *request, size_t n,
                      const char **reply, size_t *reply_len) {
  struct iovec iov[3];
  char hdr[IPS_NS_HEADER_MAX];
  const char *f;
  size_t len;
  int rc;
  char t[8];

  if (w->failed) return w->failed;
  if (!w->pending || ips_ns_iov(iov, hdr, '?', request, n) != 0)
    return IPS_EINVAL;
  w->upcalls++;
  if (ips__stamping(w) && (rc = stamp(w, 'u', w->upcalls, (int64_t)n + 1)) < 0)
    return stamp_failed(w, rc);
  rc = write_all(w, iov, 3);
  if (rc != 0) return rc;
  rc = read_frame(w, &f, &len);
  if (rc == IPS_EEOF)
    return fail(w, IPS_EEOF,
                "end of input while waiting for the reply to upcall %u: "
                "the parent closed fd %d",
                w->upcalls, w->fd_in);
  if (rc != 0) return rc;
  if (ips__stamping(w) && (rc = stamp(w, 'r', w->upcalls, (int64_t)len)) < 0)
    return stamp_failed(w, rc);
  if (len == 0 || f[0] != '/') {
    fail(w, IPS_EPROTO,
         "protocol error: the parent answered upcall %u with %s, "
         "expected '/'",
         w->upcalls, len ? show_tag(t, f[0]) : "an empty frame");
    refused(w, IPS_EPROTO, len ? (unsigned char)f[0] : -1,
            ips_ns_offset(&w->dec), (int64_t)len, w->msg);
    return IPS_EPROTO;
  }
  *reply = f + 1;
  *reply_len = len - 1;
  return 0;
}

int ips_worker_reply_ok(ips_worker_t *w, const void *result, size_t n,
                        const ips_meter_t *m) {
  struct iovec ns[3], iov[4];
  char hdr[IPS_NS_HEADER_MAX];
  ips_meter_t mm;
  const ips_meter_t *mp;
  uint32_t n0 = w->stamps.n, dropped0 = w->stamps.dropped;
  int64_t runq0 = w->runq.last_ns;
  size_t mlen;
  int rc;

  if (w->failed) return w->failed;
  if (!w->pending || (m && m->nfields > w->max_fields)) return IPS_EINVAL;
  if ((rc = end_stamps(w, m, &mm, &mp)) != 0) return rc;
  /* The 'e' stamp is part of the JSON, so the JSON is written after it. */
  rc = ips_metering_write_marks(w->meter, w->meter_cap - 1,
                                ips__stamping(w) ? &w->stamps : NULL,
                                ips__stamping(w) ? &w->marks : NULL, mp, &mlen);
  if (rc == 0 && (n >= IPS_NS_LEN_MAX || mlen + 1 + n >= IPS_NS_LEN_MAX))
    rc = IPS_EINVAL;
  if (rc != 0) {
    /* Nothing was sent: the command may still be answered, and its
     * stamps must read as if this call had not happened. */
    w->stamps.n = n0;
    w->stamps.dropped = dropped0;
    w->runq.last_ns = runq0;
    return rc == IPS_ENOBUFS ? IPS_EINVAL : rc;
  }
  /* The 'e' reaches the ring only now: before this point it could still
   * be taken back. */
  if (ips__stamping(w)) {
    ring_end(w, mp);
    PROBE_STAMP(result_sent, w, &w->stamps.v[w->stamps.n - 1], 0,
                (int64_t)(mlen + 2 + n));
  }
  w->meter[mlen++] = '\x01';
  ips_ns_iov(ns, hdr, '.', NULL, mlen + n);
  iov[0] = ns[0];
  iov[1].iov_base = w->meter;
  iov[1].iov_len = mlen;
  iov[2].iov_base = (void *)result;
  iov[2].iov_len = n;
  iov[3] = ns[2];
  w->pending = 0;
  return write_all(w, iov, 4);
}

int ips_worker_reply_error(ips_worker_t *w, const void *message, size_t n) {
  if (w->failed) return w->failed;
  if (!w->pending || n >= IPS_NS_LEN_MAX) return IPS_EINVAL;
  w->pending = 0;
  return send_frame(w, '!', message, n);
}

int ips_worker_begin(ips_worker_t *w, char tag) {
  if (w->failed) return w->failed;
  if (!w->ready || !(w->flags & IPS_WORKER_HOST_IO) || tag == '\0')
    return IPS_EINVAL;
  return begin_command(w, tag, -1);
}

int ips_worker_stamp(ips_worker_t *w, char kind) {
  int rc;
  if (w->failed) return w->failed;
  if (!w->pending || !(w->flags & IPS_WORKER_HOST_IO) ||
      (kind != 'u' && kind != 'r'))
    return IPS_EINVAL;
  if (kind == 'u') w->upcalls++;
  if (ips__stamping(w) && (rc = stamp(w, kind, w->upcalls, -1)) < 0)
    return stamp_failed(w, rc);
  return 0;
}

int ips_worker_end(ips_worker_t *w, const ips_meter_t *m, const char **json,
                   size_t *len) {
  ips_meter_t mm;
  const ips_meter_t *mp;
  const ips_stamp_t *s;
  char tag;
  int rc;

  *json = NULL;
  *len = 0;
  if (w->failed) return w->failed;
  if (!w->pending || !(w->flags & IPS_WORKER_HOST_IO)) return IPS_EINVAL;
  tag = w->pending;
  w->pending = 0;
  if (!ips__stamping(w)) return 0;
  if ((rc = end_stamps(w, m, &mm, &mp)) != 0) return rc;
  /* Sized at init for a full table and full marks: cannot run out. */
  rc = ips_metering_write_ipcstamp(w->meter, w->meter_cap, &w->stamps,
                                   &w->marks, mp, len);
  if (rc != 0) return rc == IPS_ENOBUFS ? IPS_EINVAL : rc;
  ring_end(w, mp);
  s = &w->stamps.v[w->stamps.n - 1];
  IPS_PROBE_STAMP(worker, result_sent, w->delivery, 0, s->mono_ns,
                  s->wall_us * 1000, ips__probe_vat, ips__probe_pid, tag, -1,
                  s->kind);
  *json = w->meter;
  return 0;
}

void ips_worker_abandon(ips_worker_t *w) { w->pending = 0; }

/* A recorded mark or span event, to the live ring (which sees it as it
 * happens) and to the probes. */
static void marked(ips_worker_t *w, char kind, const char *name, size_t len,
                   int64_t wall_us, int64_t mono_ns) {
  if (w->ring) {
    ips_stamp_t s;
    s.wall_us = wall_us;
    s.mono_ns = mono_ns;
    s.kind = kind;
    ips_ring_vm_mark(w->ring, kind, name, len, &s, w->delivery);
  }
#define PROBE_MARK(probe)                                                  \
  IPS_PROBE_MARK(worker, probe, w->delivery, len, mono_ns, wall_us * 1000, \
                 ips__probe_vat, name, w->pending, ips__probe_pid, kind)
  if (kind == 'm')
    PROBE_MARK(mark);
  else if (kind == 'b')
    PROBE_MARK(span_begin);
  else
    PROBE_MARK(span_end);
#undef PROBE_MARK
}

int ips_worker_mark_n(ips_worker_t *w, char kind, const char *name,
                      size_t len) {
  int rc;
  if (w->failed) return w->failed;
  if (!w->pending) return IPS_EINVAL;
  if (!ips__stamping(w)) return 1;
  rc = ips_marks_add(&w->marks, kind, name, len);
  if (rc == IPS_ECLOCK)
    return fail(w, IPS_ECLOCK, "%s", ips_strerror(IPS_ECLOCK));
  if (rc == 0) {
    const ips_mark_t *m = &w->marks.v[w->marks.n - 1];
    marked(w, kind, name, len, m->wall_us, m->mono_ns);
  }
  return rc;
}

int ips_worker_mark_at(ips_worker_t *w, char kind, const char *name,
                       size_t len, const ips_stamp_t *s) {
  int rc;
  if (w->failed) return w->failed;
  if (!w->pending) return IPS_EINVAL;
  if (!ips__stamping(w)) return 1;
  rc = ips_marks_put(&w->marks, kind, name, len, s);
  if (rc == 0) marked(w, kind, name, len, s->wall_us, s->mono_ns);
  return rc;
}

int ips_worker_mark(ips_worker_t *w, const char *name) {
  return ips_worker_mark_n(w, 'm', name, name ? strlen(name) : 0);
}

int ips_worker_span_begin(ips_worker_t *w, const char *name) {
  return ips_worker_mark_n(w, 'b', name, name ? strlen(name) : 0);
}

int ips_worker_span_end(ips_worker_t *w, const char *name) {
  return ips_worker_mark_n(w, 'e', name, name ? strlen(name) : 0);
}

int ips_worker_failed(const ips_worker_t *w) { return w->failed; }

/* "<name>: <message>" on stderr, the way docs/worker.md wants a worker to say
 * why it stops. */
static void report(const ips_worker_t *w, int rc) {
  fprintf(stderr, "%s: %s\n", ips__worker_name(w),
          w->msg[0] ? w->msg : ips_strerror(rc));
}

const char *ips_worker_message(const ips_worker_t *w) { return w->msg; }

int ips_worker_exit_status(int rc) {
  return rc < 0 ? IPS_WORKER_EXIT_STREAM : IPS_WORKER_EXIT_OK;
}

void ips_worker_exit(ips_worker_t *w, int rc) {
  int status;
  if (w->failed) rc = w->failed;
  /* A worker that never got ready failed at start-up, not on the stream. */
  status = rc >= 0 ? IPS_WORKER_EXIT_OK
           : w->ready ? IPS_WORKER_EXIT_STREAM
                      : IPS_WORKER_EXIT_USAGE;
  if (rc < 0) report(w, rc);
  ips_worker_close(w);
  exit(status);
}

int ips_worker_run(ips_worker_t *w, ips_worker_handler_t handler, void *arg) {
  ips_command_t cmd;
  int rc;

  while ((rc = ips_worker_next(w, &cmd)) == 0) {
    int hr = handler(w, &cmd, arg);
    if (w->failed) break;
    if (hr < 0 && w->pending) {
      const char *m = ips_strerror(hr);
      if (ips_worker_reply_error(w, m, strlen(m)) != 0) break;
    }
  }
  if (w->failed) rc = w->failed;
  if (rc < 0) report(w, rc);
  return ips_worker_exit_status(rc);
}
