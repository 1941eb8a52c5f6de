/* child.c — spawn a worker, frame commands onto fd 3, read frames from
 * fd 4, stamp D/U/R/E, and turn every way a worker can misbehave into one
 * clean fault for the command in flight.
 *
 * Life cycle: ALIVE until the first fault (or exit); then DEAD: the process
 * is killed if still running, the command in flight and every queued one
 * fail, and nothing more is accepted.  Memory is released only after every
 * libuv handle is closed (ips_child_close), as libuv requires. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipcstamp-parent.h"
#include "child.h"
#include "json.h"
#include "ring.h"

/* How long a worker that exited may still deliver frames already in the
 * pipe, and how long a closed worker gets to obey 'q'. */
#define EXIT_GRACE_MS 200
#define QUIT_GRACE_MS 2000

#define container_of(ptr, type, member)                                      \
  ((type *)((char *)(ptr) - offsetof(type, member)))

static void start_next(ips_child_t *w);
static void maybe_finish_close(ips_child_t *w);
static void run_deferred(ips_child_t *w);

/* A callback is never called from inside the API call that started its
 * operation (a host holding a lock, or in the middle of updating its own
 * state, must not be re-entered): what ips_child_deliver/_evaluate and
 * ips_child_close would otherwise do at once (write the frame and call
 * start_cb, fail a command, cancel the queue) runs from the loop, as libuv
 * runs uv_write's and uv_close's callbacks.  An idle handle, not a
 * zero timer: it also keeps the loop from blocking in poll meanwhile. */
static void on_defer(uv_idle_t *h) {
  run_deferred(h->data);
}

static void defer(ips_child_t *w) {
  if (w->defer.data == w && !uv_is_closing((uv_handle_t *)&w->defer))
    uv_idle_start(&w->defer, on_defer);
}
static void on_grace(uv_timer_t *t);

static int set_msg(ips_child_t *w, const char *p, size_t n) {
  if (n + 1 > w->msgcap) {
    char *nm = realloc(w->msg, n + 1);
    if (!nm)
      return IPS_ENOMEM;
    w->msg = nm;
    w->msgcap = n + 1;
  }
  memcpy(w->msg, p, n);
  w->msg[n] = 0;
  return 0;
}

/* With the run-queue delay (options.run_delay), it is read before the
 * clocks for a stamp taken before a write (D, R) and after them for one
 * taken on arrival (U, E): the reading's cost is the parent's own time. */
static int push_stamp(ips_child_t *w, char kind, ips_stamp_t *out) {
  ips_stamp_t s;
  int64_t delay = 0;
  int before = kind == 'D' || kind == 'R', rc;
  if (w->runq.fd >= 0 && before && ips_runq_take(&w->runq, &delay) != 0)
    return IPS_ERUNQ;
  rc = ips_clock_read(&s);
  if (rc)
    return rc;
  if (w->runq.fd >= 0) {
    if (!before && ips_runq_take(&w->runq, &delay) != 0)
      return IPS_ERUNQ;
    s.has_run_delay = 1;
    s.run_delay_ns = delay;
  }
  s.kind = kind;
  if (w->nst == w->stcap) {
    size_t nc = w->stcap ? w->stcap * 2 : 16;
    ips_stamp_t *ns = realloc(w->st, nc * sizeof *ns);
    if (!ns)
      return IPS_ENOMEM;
    w->st = ns;
    w->stcap = nc;
  }
  w->st[w->nst++] = s;
  /* The readiness ping is no command of the host's: not in the ring. */
  if (!w->head || w->head->tag != 'R')
    ips__child_ring_stamp(w, &s);
  if (out)
    *out = s;
  return 0;
}

static ips__cmd_t *dequeue(ips_child_t *w) {
  ips__cmd_t *c = w->head;
  if (c) {
    w->head = c->next;
    if (!w->head)
      w->tail = NULL;
    w->pending--;
  }
  return c;
}

/* Hand a result to the host.  The command is unlinked first, so the
 * callback may queue, close or kill freely. */
static void complete(ips_child_t *w, ips__cmd_t *c, ips_result_t *res) {
  res->stamps = c->sent ? w->st : NULL;
  res->nstamps = c->sent ? w->nst : 0;
  ips__child_ring_result(w, res, c->arg);
  /* A command queued from the callback starts after it returns: starting
   * it now would overwrite the stamps res points to. */
  w->in_callback++;
  if (c->cb)
    c->cb(w, c->arg, res);
  w->in_callback--;
  free(c);
}

static void fail_cmd(ips_child_t *w, ips__cmd_t *c, int status,
                     const char *msg) {
  ips_result_t res;
  memset(&res, 0, sizeof res);
  res.kind = IPS_RESULT_FAULT;
  res.status = status;
  if (set_msg(w, msg, strlen(msg)) == 0)
    res.message = w->msg;
  else
    res.message = "out of memory";
  if (c->sent && !w->cancelled)
    (void)push_stamp(w, 'E', NULL);
  complete(w, c, &res);
}

/* The queue of a closed worker: every command fails, in order. */
static void cancel_queue(ips_child_t *w) {
  ips__cmd_t *c;
  while ((c = dequeue(w)) != NULL)
    fail_cmd(w, c, -ECANCELED, "cancelled: the worker was closed");
  w->cancelled = 0;
}

static void run_deferred(ips_child_t *w) {
  uv_idle_stop(&w->defer);
  if (w->cancelled) {
    cancel_queue(w);
    maybe_finish_close(w);
    return;
  }
  start_next(w);
}

static void stop_reading(ips_child_t *w) {
  if (!uv_is_closing((uv_handle_t *)&w->from))
    uv_read_stop((uv_stream_t *)&w->from);
}

/* The one way into DEAD: kill what runs, fail what waits. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void fault(ips_child_t *w, int status, const char *fmt, ...) {
  char msg[512];
  char qmsg[600];
  va_list ap;
  ips__cmd_t *c;
  if (w->state == IPS__DEAD)
    return;
  w->state = IPS__DEAD;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  uv_timer_stop(&w->timeout);
  stop_reading(w);
  /* SIGKILL at once, never SIGTERM first: the worker is untrusted and a
   * handler could keep it running (and holding its memory) forever. */
  if (!w->exited)
    uv_process_kill(&w->proc, SIGKILL);
  w->upcall_pending = 0;
  if (w->head && w->head->sent)
    fail_cmd(w, dequeue(w), status, msg);
  else if (!w->head && w->o.fault_cb)
    /* No command to carry it: the host hears of it all the same, or a
     * worker could die (or be killed for cause) unnoticed.  (A queued
     * command carries it below, in its "not sent" message.) */
    w->o.fault_cb(w, status, msg);
  snprintf(qmsg, sizeof qmsg, "not sent: the worker had failed (%s)", msg);
  while ((c = dequeue(w)) != NULL)
    fail_cmd(w, c, IPS_EPIPE, qmsg);
}

static void on_write(uv_write_t *req, int status) {
  ips__wreq_t *r = container_of(req, ips__wreq_t, req);
  ips_child_t *w = req->data;
  free(r);
  /* A broken pipe means the worker is gone: its exit names the cause, so
   * only a different error is a fault of its own. */
  if (status < 0 && status != UV_EPIPE && status != UV_ECANCELED)
    fault(w, status, "cannot write to the worker: %s", uv_strerror(status));
}

/* Write now when the pipe takes it all (the usual case: no allocation, no
 * copy); queue a copy of whatever is left.  uv_try_write refuses while
 * earlier bytes are queued, so the order of frames is kept. */
/* Write bufs[0..nb) to the worker: at once when the pipe takes them
 * (one writev, no copy), else what is left is copied into a write request
 * that libuv finishes.  Nothing is kept pointing at the caller's bytes. */
static int write_bufs(ips_child_t *w, uv_buf_t *bufs, unsigned nb) {
  ips__wreq_t *r;
  uv_buf_t b;
  size_t n = 0, done, k;
  unsigned i;
  int rc;
  for (i = 0; i < nb; i++)
    n += bufs[i].len;
  rc = uv_try_write((uv_stream_t *)&w->to, bufs, nb);
  if (rc == (int)n)
    return 0;
  /* The worker is gone: its exit (seen next) names the cause better. */
  if (rc == UV_EPIPE)
    return 0;
  if (rc < 0 && rc != UV_EAGAIN)
    return rc;
  done = rc > 0 ? (size_t)rc : 0;
  r = malloc(sizeof *r + (n - done));
  if (!r)
    return IPS_ENOMEM;
  for (i = 0, k = 0; i < nb; i++) {
    size_t skip = done < bufs[i].len ? done : bufs[i].len;
    memcpy(r->bytes + k, bufs[i].base + skip, bufs[i].len - skip);
    k += bufs[i].len - skip;
    done -= skip;
  }
  r->req.data = w;
  b = uv_buf_init(r->bytes, (unsigned)k);
  rc = uv_write(&r->req, (uv_stream_t *)&w->to, &b, 1, on_write);
  if (rc) {
    free(r);
    return rc;
  }
  return 0;
}

static int write_bytes(ips_child_t *w, const char *p, size_t n) {
  uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
  return write_bufs(w, &b, 1);
}

static void on_timeout(uv_timer_t *t) {
  ips_child_t *w = container_of(t, ips_child_t, timeout);
  fault(w, IPS_ETIMEOUT, "timeout: no answer within %llu ms; worker killed",
        (unsigned long long)w->o.timeout_ms);
}

static void start_next(ips_child_t *w) {
  ips__cmd_t *c = w->head;
  ips_stamp_t D;
  int rc;
  if (!c || c->sent || w->state != IPS__ALIVE || w->closing ||
      w->in_callback)
    return;
  w->nst = 0;
  w->nupcalls = 0;
  rc = push_stamp(w, 'D', &D);
  if (rc == 0)
    rc = write_bytes(w, c->frame, c->len);
  if (rc) {
    fault(w, rc, "cannot write to the worker: %s", ips_strerror(rc));
    return;
  }
  c->sent = 1;
  /* What the idle handle was started for (enqueue's defer) is done: left
   * active, it would make the loop poll once more without blocking, one
   * epoll_wait more per delivery queued from a result callback (issue
   * 16).  A close's cancellation still needs it. */
  if (!w->cancelled && w->defer.data == w &&
      !uv_is_closing((uv_handle_t *)&w->defer))
    uv_idle_stop(&w->defer);
  if (w->o.timeout_ms)
    uv_timer_start(&w->timeout, on_timeout, w->o.timeout_ms, 0);
  if (w->o.start_cb)
    w->o.start_cb(w, c->arg, &D);
}

static int enqueue(ips_child_t *w, char tag, const void *payload, size_t n,
                   ips_result_cb cb, void *arg) {
  struct iovec iov[3];
  char hdr[IPS_NS_HEADER_MAX];
  ips__cmd_t *c;
  size_t max = w->o.max_frame;
  if (w->state != IPS__ALIVE || w->closing)
    return IPS_EPIPE;
  if (n >= max || ips_ns_iov(iov, hdr, tag, payload, n) != 0)
    return IPS_EINVAL;
  c = malloc(sizeof *c + iov[0].iov_len + n + 1);
  if (!c)
    return IPS_ENOMEM;
  c->next = NULL;
  c->cb = cb;
  c->arg = arg;
  c->sent = 0;
  c->tag = tag;
  memcpy(c->frame, iov[0].iov_base, iov[0].iov_len);
  if (n)
    memcpy(c->frame + iov[0].iov_len, payload, n);
  c->frame[iov[0].iov_len + n] = ',';
  c->len = iov[0].iov_len + n + 1;
  if (w->tail)
    w->tail->next = c;
  else
    w->head = c;
  w->tail = c;
  w->pending++;
  defer(w);
  return 0;
}

int ips_child_deliver(ips_child_t *w, const void *payload, size_t n,
                       ips_result_cb cb, void *arg) {
  return enqueue(w, '?', payload, n, cb, arg);
}

int ips_child_evaluate(ips_child_t *w, const char *source, size_t n,
                        ips_result_cb cb, void *arg) {
  return enqueue(w, 'e', source, n, cb, arg);
}

int ips_child_ready(ips_child_t *w, ips_result_cb cb, void *arg) {
  return enqueue(w, 'R', NULL, 0, cb, arg);
}

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
   * the pipe is full (write_bufs) */
  b[0] = uv_buf_init(iov[0].iov_base, (unsigned)iov[0].iov_len);
  b[1] = uv_buf_init((char *)reply, (unsigned)n);
  b[2] = uv_buf_init(",", 1);
  rc = push_stamp(w, 'R', R);
  if (rc == 0)
    rc = write_bufs(w, b, 3);
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
    int copied = 0, rc;
    res.metering_raw = p;
    res.metering_len = mlen;
    /* One parse: the metering and the slogfile's copy of it.  Our worker's
     * exact form is matched into the child's store (m borrows it), and
     * being canonical JSON its bytes are the copy: no re-serialising.
     * The general reader allocates (m owns) and re-serialises. */
    if (ips__metering_fast(p, mlen, &m, NULL, NULL, &w->mstore)) {
      res.metering = &m;
      res.metering_json = p;
      res.metering_json_len = mlen;
      complete(w, dequeue(w), &res);
      return; /* nothing to free: m borrowed the store */
    }
    yajl_gen_clear(w->mgen);
    yajl_gen_reset(w->mgen, NULL);
    rc = ips__metering_parse(p, mlen, &m, w->merr, sizeof w->merr, w->mgen,
                             &copied);
    if (rc == 0)
      res.metering = &m;
    else
      res.metering_error = w->merr;
    if (!copied) {
      yajl_gen_clear(w->mgen);
      yajl_gen_reset(w->mgen, NULL);
      if (ips__json_base64(w->mgen, p, mlen) != 0) {
        ips_metering_free(&m);
        fault(w, IPS_ENOMEM, "out of memory");
        return;
      }
    }
    if (yajl_gen_get_buf(w->mgen, &json, &jlen) == yajl_gen_status_ok) {
      res.metering_json = (const char *)json;
      res.metering_json_len = jlen;
    }
  }
  complete(w, dequeue(w), &res);
  ips_metering_free(&m);
}

static void on_frame(ips_child_t *w, const char *p, size_t n) {
  ips_stamp_t s;
  ips__cmd_t *c = w->head;
  char tag;
  int rc;
  if (n == 0) {
    fault(w, IPS_EEMPTY_FRAME, "protocol: empty frame from the worker");
    return;
  }
  tag = p[0];
  if (!c || !c->sent) {
    fault(w, IPS_EPROTO,
          "protocol: frame with tag 0x%02x from the worker while no command "
          "was in flight",
          (unsigned char)tag);
    return;
  }
  switch (tag) {
  case '?':
    if (w->upcall_pending) {
      fault(w, IPS_EPROTO,
            "protocol: a second upcall before the first was answered");
      return;
    }
    if (w->o.max_upcalls && w->nupcalls >= w->o.max_upcalls) {
      fault(w, IPS_EPROTO,
            "too many upcalls: more than %llu in one command; worker killed",
            (unsigned long long)w->o.max_upcalls);
      return;
    }
    w->nupcalls++;
    if ((rc = push_stamp(w, 'U', &s)) != 0) {
      fault(w, rc, "%s", ips_strerror(rc));
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
      fault(w, IPS_EPROTO,
            "protocol: the worker answered while its upcall was pending");
      return;
    }
    uv_timer_stop(&w->timeout);
    if ((rc = push_stamp(w, 'E', NULL)) != 0) {
      fault(w, rc, "%s", ips_strerror(rc));
      return;
    }
    if (tag == '.') {
      on_result(w, p + 1, n - 1);
    } else {
      ips_result_t res;
      memset(&res, 0, sizeof res);
      res.kind = IPS_RESULT_ERROR;
      if (set_msg(w, p + 1, n - 1) != 0) {
        fault(w, IPS_ENOMEM, "out of memory");
        return;
      }
      res.message = w->msg;
      res.data = p + 1;
      res.len = n - 1;
      complete(w, dequeue(w), &res);
    }
    start_next(w);
    return;
  default:
    fault(w, IPS_EBAD_TAG, "protocol: unknown tag 0x%02x from the worker",
          (unsigned char)tag);
  }
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  ips_child_t *w = h->data;
  *buf = uv_buf_init(w->rbuf, sizeof w->rbuf);
}

static void exit_fault(ips_child_t *w) {
  const char *when = w->head && w->head->sent ? "during a command"
                                              : "between commands";
  if (w->term_signal)
    fault(w, IPS_EPIPE, "worker killed by signal %d (%s) %s",
          w->term_signal, strsignal(w->term_signal), when);
  else
    fault(w, IPS_EPIPE, "worker exited with code %lld %s",
          (long long)w->exit_status, when);
}

/* fd 4 ended and the process did not exit within the grace period: it can
 * never answer again, so waiting for it would only hold the run. */
static void eof_fault(ips_child_t *w) {
  const char *when = w->head && w->head->sent ? "during a command"
                                              : "between commands";
  int rc = ips_ns_finish(&w->dec);
  if (rc) {
    char d[256];
    ips_ns_describe(&w->dec, d, sizeof d);
    fault(w, rc, "%s (the worker closed fd 4 inside a frame %s; worker "
          "killed)", d, when);
  } else {
    fault(w, IPS_EPIPE, "the worker closed fd 4 %s; worker killed", when);
  }
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  ips_child_t *w = s->data;
  size_t off = 0;
  if (nread < 0) {
    w->eof = 1;
    stop_reading(w);
    if (w->state == IPS__ALIVE && w->exited && w->head && w->head->sent)
      exit_fault(w);
    else if (w->state == IPS__ALIVE && !w->exited)
      /* A dying worker's fd 4 often ends just before its exit is seen:
       * wait briefly, so that the exit (the better cause) is reported. */
      uv_timer_start(&w->grace, on_grace, EXIT_GRACE_MS, 0);
    maybe_finish_close(w);
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
      fault(w, (int)r, "%s (from the worker)", d);
      return;
    }
    off += (size_t)r;
    if (frame)
      on_frame(w, frame, flen);
  }
}

static void on_grace(uv_timer_t *t) {
  ips_child_t *w = container_of(t, ips_child_t, grace);
  if (!w->exited) {
    if (w->state == IPS__ALIVE && w->eof) {
      eof_fault(w);
      return;
    }
    /* 'q' was not obeyed in time. */
    uv_process_kill(&w->proc, SIGKILL);
    return;
  }
  w->grace_expired = 1;
  if (w->state == IPS__ALIVE && w->head && w->head->sent)
    exit_fault(w);
  maybe_finish_close(w);
}

static void on_exit_cb(uv_process_t *p, int64_t status, int sig) {
  ips_child_t *w = p->data;
  w->exited = 1;
  w->exit_status = status;
  w->term_signal = sig;
  if (w->state == IPS__ALIVE && w->head && w->head->sent) {
    /* Frames may still be in the pipe: wait for EOF, briefly. */
    if (w->eof)
      exit_fault(w);
    else
      uv_timer_start(&w->grace, on_grace, EXIT_GRACE_MS, 0);
  } else if (w->state == IPS__ALIVE) {
    /* Not asked to quit (ips_child_close makes the state DEAD first), no
     * command to fail: a fault of its own. */
    exit_fault(w);
  }
  /* Results owed from a close come first: the host sees a command end
   * before the process that ran it. */
  if (w->cancelled)
    cancel_queue(w);
  if (w->o.exit_cb)
    w->o.exit_cb(w, status, sig);
  if (w->closing && !uv_is_active((uv_handle_t *)&w->grace))
    uv_timer_start(&w->grace, on_grace, EXIT_GRACE_MS, 0);
  maybe_finish_close(w);
}

static void console_emit(ips_child_t *w, ips__console_t *c) {
  if (w->o.console_cb)
    w->o.console_cb(w, c->fd, c->line, c->len);
  c->len = 0;
}

static void console_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  ips__console_t *c = container_of(h, ips__console_t, pipe);
  ips_child_t *w = h->data;
  (void)c;
  *buf = uv_buf_init(w->rbuf, sizeof w->rbuf);
}

static void console_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  ips__console_t *c = container_of(s, ips__console_t, pipe);
  ips_child_t *w = s->data;
  ssize_t i;
  if (nread < 0) {
    if (c->len)
      console_emit(w, c);
    c->eof = 1;
    uv_read_stop(s);
    maybe_finish_close(w);
    return;
  }
  for (i = 0; i < nread; i++) {
    if (buf->base[i] == '\n') {
      console_emit(w, c);
      continue;
    }
    if (c->len == IPS_CONSOLE_LINE_MAX)
      console_emit(w, c);
    c->line[c->len++] = buf->base[i];
  }
}

static void free_worker(ips_child_t *w) {
  int i;
  if (w->o.args) {
    for (i = 0; w->o.args[i]; i++)
      free(w->o.args[i]);
    free(w->o.args);
  }
  if (w->o.env) {
    for (i = 0; w->o.env[i]; i++)
      free(w->o.env[i]);
    free(w->o.env);
  }
  free((char *)w->o.file);
  free((char *)w->o.cwd);
  free(w->con[0].line);
  free(w->con[1].line);
  ips_ns_decoder_free(&w->dec);
  if (w->mgen)
    yajl_gen_free(w->mgen);
  ips__mstore_free(&w->mstore);
  free(w->st);
  free(w->msg);
  ips_runq_close(&w->runq);
  free(w);
}

static void on_handle_closed(uv_handle_t *h) {
  ips_child_t *w = h->data;
  if (--w->handles == 0) {
    if (w->close_cb)
      w->close_cb(w);
    free_worker(w);
  }
}

static void close_handle(ips_child_t *w, uv_handle_t *h) {
  if (h->data == w && !uv_is_closing(h)) {
    w->handles++;
    uv_close(h, on_handle_closed);
  }
}

/* Free only once the process is reaped and the output drained (or the
 * grace period ran out), so no console line and no exit status is lost. */
static void maybe_finish_close(ips_child_t *w) {
  int i, drained = 1;
  if (!w->closing || !w->exited || w->handles > 0 || w->head)
    return;
  for (i = 0; i < 2; i++)
    if (w->con[i].open && !w->con[i].eof)
      drained = 0;
  if (!drained && !w->grace_expired)
    return;
  w->handles = 1; /* keep the count above 0 while closing them all */
  close_handle(w, (uv_handle_t *)&w->proc);
  close_handle(w, (uv_handle_t *)&w->to);
  close_handle(w, (uv_handle_t *)&w->from);
  for (i = 0; i < 2; i++)
    if (w->con[i].open)
      close_handle(w, (uv_handle_t *)&w->con[i].pipe);
  close_handle(w, (uv_handle_t *)&w->timeout);
  close_handle(w, (uv_handle_t *)&w->grace);
  close_handle(w, (uv_handle_t *)&w->defer);
  w->handles--;
}

void ips_child_close(ips_child_t *w, ips_close_cb cb) {
  if (w->closing)
    return;
  w->closing = 1;
  w->close_cb = cb;
  uv_timer_stop(&w->timeout);
  if (w->state == IPS__ALIVE && w->head && w->head->sent) {
    w->state = IPS__DEAD;
    uv_process_kill(&w->proc, SIGKILL);
    /* E is now, when the command was cancelled, not when it is told. */
    (void)push_stamp(w, 'E', NULL);
  }
  /* The commands fail from the loop (run_deferred), in order, before the
   * close callback. */
  if (w->head) {
    w->cancelled = 1;
    defer(w);
  }
  if (!w->exited) {
    if (w->state == IPS__ALIVE)
      (void)write_bytes(w, "1:q,", 4);
    w->state = IPS__DEAD;
    uv_timer_start(&w->grace, on_grace, QUIT_GRACE_MS, 0);
  } else {
    uv_timer_start(&w->grace, on_grace, EXIT_GRACE_MS, 0);
  }
  stop_reading(w);
  maybe_finish_close(w);
}

int ips_child_kill(ips_child_t *w) {
  if (w->exited)
    return IPS_EPIPE;
  return uv_process_kill(&w->proc, SIGKILL);
}

void *ips_child_data(const ips_child_t *w) { return w->o.data; }
int ips_child_pid(const ips_child_t *w) { return w->pid; }
int ips_child_alive(const ips_child_t *w) {
  return w->state == IPS__ALIVE && !w->closing;
}
size_t ips_child_pending(const ips_child_t *w) { return w->pending; }

void ips_child_options_init(ips_child_options_t *o) {
  memset(o, 0, sizeof *o);
  o->max_frame = IPS_DEFAULT_MAX_FRAME;
}

static char **copy_strv(char **v, int *ok) {
  size_t n = 0, i;
  char **c;
  if (!v)
    return NULL;
  while (v[n])
    n++;
  c = calloc(n + 1, sizeof *c);
  if (!c) {
    *ok = 0;
    return NULL;
  }
  for (i = 0; i < n; i++)
    if (!(c[i] = strdup(v[i])))
      *ok = 0;
  return c;
}

int ips_child_spawn(uv_loop_t *loop, const ips_child_options_t *opts,
                     ips_child_t **out) {
  ips_child_t *w;
  uv_process_options_t po;
  uv_stdio_container_t io[5];
  uv_file p3[2] = {-1, -1}, p4[2] = {-1, -1};
  int rc, ok = 1, i;
  *out = NULL;
  if (!opts || !opts->file)
    return IPS_EINVAL;
  /* A worker that dies while we write must not kill the parent. */
  signal(SIGPIPE, SIG_IGN);
  w = calloc(1, sizeof *w);
  if (!w)
    return IPS_ENOMEM;
  w->runq.fd = -1;
  w->loop = loop;
  w->o = *opts;
  ips__child_ring_init(w, opts);
  w->o.ring_vat = NULL; /* copied into ring_vat: the caller's may go */
  w->o.file = strdup(opts->file);
  w->o.cwd = opts->cwd ? strdup(opts->cwd) : NULL;
  if (!w->o.file || (opts->cwd && !w->o.cwd))
    ok = 0;
  w->o.args = copy_strv(opts->args, &ok);
  w->o.env = copy_strv(opts->env, &ok);
  if (!w->o.args && ok) {
    char *def[2] = {(char *)opts->file, NULL};
    w->o.args = copy_strv(def, &ok);
  }
  if (!w->o.max_frame)
    w->o.max_frame = IPS_DEFAULT_MAX_FRAME;
  /* Configured as the slog writer's generators, so the bytes it embeds
   * are the ones it would have made itself. */
  if (!(w->mgen = yajl_gen_alloc(NULL)))
    ok = 0;
  else
    yajl_gen_config(w->mgen, yajl_gen_validate_utf8, 1);
  for (i = 0; i < 2; i++) {
    w->con[i].fd = i + 1;
    if (opts->console_cb && !(w->con[i].line = malloc(IPS_CONSOLE_LINE_MAX)))
      ok = 0;
  }
  if (!ok) {
    free_worker(w);
    return IPS_ENOMEM;
  }
  /* Each worker its own reader of the loop thread's schedstat: its
   * readings pair with that worker's previous stamp. */
  if (opts->run_delay && ips_runq_open(&w->runq) != 0) {
    free_worker(w);
    return IPS_ERUNQ;
  }
  ips_ns_decoder_init(&w->dec, w->o.max_frame);

  /* Real pipes (libuv's UV_CREATE_PIPE makes socketpairs), close-on-exec
   * on our ends so that other workers do not inherit them. */
  rc = uv_pipe(p3, 0, UV_NONBLOCK_PIPE);
  if (rc == 0)
    rc = uv_pipe(p4, UV_NONBLOCK_PIPE, 0);
  if (rc)
    goto error;

  memset(io, 0, sizeof io);
  io[0].flags = UV_IGNORE;
  for (i = 1; i <= 2; i++) {
    if (opts->console_cb) {
      uv_pipe_init(loop, &w->con[i - 1].pipe, 0);
      w->con[i - 1].pipe.data = w;
      w->con[i - 1].open = 1;
      io[i].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
      io[i].data.stream = (uv_stream_t *)&w->con[i - 1].pipe;
    } else {
      io[i].flags = UV_INHERIT_FD;
      io[i].data.fd = i;
    }
  }
  io[3].flags = UV_INHERIT_FD;
  io[3].data.fd = p3[0];
  io[4].flags = UV_INHERIT_FD;
  io[4].data.fd = p4[1];

  memset(&po, 0, sizeof po);
  po.file = w->o.file;
  po.args = w->o.args;
  po.env = w->o.env;
  po.cwd = w->o.cwd;
  po.stdio = io;
  po.stdio_count = 5;
  po.exit_cb = on_exit_cb;
  w->proc.data = w;
  rc = uv_spawn(loop, &w->proc, &po);
  close(p3[0]);
  close(p4[1]);
  p3[0] = p4[1] = -1;
  if (rc)
    goto error;
  w->pid = w->proc.pid;

  uv_pipe_init(loop, &w->to, 0);
  uv_pipe_init(loop, &w->from, 0);
  w->to.data = w->from.data = w;
  uv_pipe_open(&w->to, p3[1]);
  uv_pipe_open(&w->from, p4[0]);
  uv_timer_init(loop, &w->timeout);
  uv_timer_init(loop, &w->grace);
  uv_idle_init(loop, &w->defer);
  w->timeout.data = w->grace.data = w->defer.data = w;
  uv_read_start((uv_stream_t *)&w->from, alloc_cb, on_read);
  for (i = 0; i < 2; i++)
    if (w->con[i].open)
      uv_read_start((uv_stream_t *)&w->con[i].pipe, console_alloc,
                    console_read);
  w->state = IPS__ALIVE;
  *out = w;
  return 0;

error:
  for (i = 0; i < 2; i++) {
    if (p3[i] >= 0)
      close(p3[i]);
    if (p4[i] >= 0)
      close(p4[i]);
  }
  /* A failed uv_spawn leaves the process handle to be closed, and the
   * console pipes were initialised: close them before freeing. */
  if (w->con[0].open || w->proc.data) {
    w->closing = 1;
    w->exited = 1;
    w->grace_expired = 1;
    w->handles = 1;
    if (uv_is_active((uv_handle_t *)&w->proc) || w->proc.type == UV_PROCESS)
      close_handle(w, (uv_handle_t *)&w->proc);
    for (i = 0; i < 2; i++)
      if (w->con[i].open)
        close_handle(w, (uv_handle_t *)&w->con[i].pipe);
    if (--w->handles == 0)
      free_worker(w);
    return rc;
  }
  free_worker(w);
  return rc;
}
