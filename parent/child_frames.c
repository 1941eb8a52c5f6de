/* child_frames.c — what a worker says (child.h): its answers ('.' with
 * the metering, '!'), its upcalls, and the parent's replies to them, each
 * stamped.  Called from the read callback only, so from the loop, never
 * from inside an API call (child.c keeps that rule). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipcstamp-parent.h"
#include "ipcstamp-probes.h"
#include "child.h"
#include "json.h"
#include "ring.h"

int ips_child_reply(ips_child_t *w, const void *reply, size_t n,
                     ips_stamp_t *R) {
  struct iovec iov[3];
  char hdr[IPS_NS_HEADER_MAX];
  uv_buf_t b[3];
  int rc;
  if (w->state != IPS__ALIVE)
    return IPS_EPIPE;
  if (!w->upcall_pending)
    return IPS_EPROTO;
  if (ips_ns_iov(iov, hdr, '/', reply, n) != 0)
    return IPS_EINVAL;
  /* header, reply and comma in one writev: no copy of the reply unless
   * the pipe is full (ips__child_write_bufs) */
  b[0] = uv_buf_init(iov[0].iov_base, (unsigned)iov[0].iov_len);
  b[1] = uv_buf_init((char *)reply, (unsigned)n);
  b[2] = uv_buf_init(",", 1);
  rc = ips__child_push_stamp(w, 'R', (int64_t)n + 1, R);
  if (rc == 0)
    rc = ips__child_write_bufs(w, b, 3);
  if (rc)
    return rc;
  w->upcall_pending = 0;
  return 0;
}

/* A '.' answer: metering, 0x01, result. */
static void on_result(ips_child_t *w, const char *p, size_t n) {
  ips_result_t res;
  ips_metering_t m;
  const char *sep = memchr(p, 1, n);
  size_t mlen = sep ? (size_t)(sep - p) : n;
  memset(&res, 0, sizeof res);
  memset(&m, 0, sizeof m);
  res.kind = IPS_RESULT_OK;
  res.message = "";
  res.data = sep ? sep + 1 : p + n;
  res.len = sep ? n - mlen - 1 : 0;
  if (mlen > 0) {
    const unsigned char *json;
    size_t jlen;
    int copied, rc;
    res.metering_raw = p;
    res.metering_len = mlen;
    /* One decode into the child's store (no allocation per result).  Our
     * worker's exact form is canonical JSON: its bytes are the slogfile's
     * copy.  Anything else is re-serialised (base64 when it is not JSON),
     * valid metering or not. */
    rc = ips__metering_read(p, mlen, &m, &w->mstore, w->merr, sizeof w->merr);
    if (rc == IPS_ENOMEM) {
      ips__child_fault(w, IPS_ENOMEM, "out of memory");
      return;
    }
    if (rc == 0)
      res.metering = &m;
    else
      res.metering_error = w->merr; /* m is empty */
    if (rc == 0 && w->mstore.meter.fast) {
      res.metering_json = p;
      res.metering_json_len = mlen;
      ips__child_complete(w, ips__child_dequeue(w), &res);
      return;
    }
    yajl_gen_clear(w->mgen);
    yajl_gen_reset(w->mgen, NULL);
    copied = ips__json_copy(w->mgen, p, mlen);
    if (copied < 0) {
      ips__child_fault(w, IPS_ENOMEM, "out of memory");
      return;
    }
    if (!copied) {
      yajl_gen_clear(w->mgen);
      yajl_gen_reset(w->mgen, NULL);
      if (ips__json_base64(w->mgen, p, mlen) != 0) {
        ips__child_fault(w, IPS_ENOMEM, "out of memory");
        return;
      }
    }
    if (yajl_gen_get_buf(w->mgen, &json, &jlen) == yajl_gen_status_ok) {
      res.metering_json = (const char *)json;
      res.metering_json_len = jlen;
    }
  }
  ips__child_complete(w, ips__child_dequeue(w), &res);
}

/* A frame the worker should not have sent (or bytes that are no frame:
 * tag -1, len -1): the frame_refused probe, then the fault. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void refuse(ips_child_t *w, int code, int tag, int64_t len,
                   const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
#if IPS_PROBES_ENABLED
  {
    ips_stamp_t s;
    if (ips_clock_read(&s) != 0) memset(&s, 0, sizeof s);
    IPS_PROBE_REFUSED(parent, frame_refused, w->ring_delivery, code,
                      s.mono_ns, s.wall_us * 1000, w->ring_vat, w->pid, msg,
                      tag, len,
                      ips_ns_error(&w->dec) ? ips_ns_error_offset(&w->dec)
                                            : ips_ns_offset(&w->dec));
  }
#endif
  ips__child_fault(w, code, "%s", msg);
}

static void on_frame(ips_child_t *w, const char *p, size_t n) {
  ips_stamp_t s;
  ips__cmd_t *c = w->head;
  char tag;
  int rc;
  if (n == 0) {
    refuse(w, IPS_EEMPTY_FRAME, -1, 0, "protocol: empty frame from the worker");
    return;
  }
  tag = p[0];
  if (!c || !c->sent) {
    refuse(w, IPS_EPROTO, (unsigned char)tag, (int64_t)n,
          "protocol: frame with tag 0x%02x from the worker while no command "
          "was in flight",
          (unsigned char)tag);
    return;
  }
  switch (tag) {
  case '?':
    if (w->upcall_pending) {
      refuse(w, IPS_EPROTO, '?', (int64_t)n,
            "protocol: a second upcall before the first was answered");
      return;
    }
    if (w->o.max_upcalls && w->nupcalls >= w->o.max_upcalls) {
      refuse(w, IPS_EPROTO, '?', (int64_t)n,
            "too many upcalls: more than %llu in one command; worker killed",
            (unsigned long long)w->o.max_upcalls);
      return;
    }
    w->nupcalls++;
    if ((rc = ips__child_push_stamp(w, 'U', (int64_t)n, &s)) != 0) {
      ips__child_fault(w, rc, "%s", ips_strerror(rc));
      return;
    }
    w->upcall_pending = 1;
    if (w->o.upcall_cb)
      w->o.upcall_cb(w, c->arg, p + 1, n - 1, &s);
    else
      (void)ips_child_reply(w, "", 0, NULL);
    return;
  case '.':
  case '!':
    if (w->upcall_pending) {
      refuse(w, IPS_EPROTO, (unsigned char)tag, (int64_t)n,
            "protocol: the worker answered while its upcall was pending");
      return;
    }
    uv_timer_stop(&w->timeout);
    if ((rc = ips__child_push_stamp(w, 'E', (int64_t)n, NULL)) != 0) {
      ips__child_fault(w, rc, "%s", ips_strerror(rc));
      return;
    }
    if (tag == '.') {
      on_result(w, p + 1, n - 1);
    } else {
      ips_result_t res;
      memset(&res, 0, sizeof res);
      res.kind = IPS_RESULT_ERROR;
      if (ips__child_set_msg(w, p + 1, n - 1) != 0) {
        ips__child_fault(w, IPS_ENOMEM, "out of memory");
        return;
      }
      res.message = w->msg;
      res.data = p + 1;
      res.len = n - 1;
      ips__child_complete(w, ips__child_dequeue(w), &res);
    }
    ips__child_start_next(w);
    return;
  default:
    refuse(w, IPS_EBAD_TAG, (unsigned char)tag, (int64_t)n, "protocol: unknown tag 0x%02x from the worker",
          (unsigned char)tag);
  }
}

/* The read callback of fd 4: bytes into frames, each handled above; the
 * end of the pipe handed to the close path (child.c). */
void ips__child_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  ips_child_t *w = h->data;
  *buf = uv_buf_init(w->rbuf, sizeof w->rbuf);
}

void ips__child_on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  ips_child_t *w = s->data;
  size_t off = 0;
  if (nread < 0) {
    w->eof = 1;
    ips__child_stop_reading(w);
    if (w->state == IPS__ALIVE && w->exited && w->head && w->head->sent)
      ips__child_exit_fault(w);
    else if (w->state == IPS__ALIVE && !w->exited)
      /* A dying worker's fd 4 often ends just before its exit is seen:
       * wait briefly, so that the exit (the better cause) is reported. */
      uv_timer_start(&w->grace, ips__child_on_grace, EXIT_GRACE_MS, 0);
    ips__child_maybe_finish_close(w);
    return;
  }
  while (off < (size_t)nread && w->state == IPS__ALIVE) {
    const char *frame;
    size_t flen;
    ssize_t r = ips_ns_feed(&w->dec, buf->base + off, (size_t)nread - off,
                            &frame, &flen);
    if (r < 0) {
      char d[256];
      ips_ns_describe(&w->dec, d, sizeof d);
      refuse(w, (int)r, -1, -1, "%s (from the worker)", d);
      return;
    }
    off += (size_t)r;
    if (frame)
      on_frame(w, frame, flen);
  }
}
