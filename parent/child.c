/* child.c — spawn a worker, frame commands onto fd 3, read frames from
 * fd 4, stamp D/U/R/E, and turn every way a worker can misbehave into one
 * clean fault for the command in flight.
 *
 * Life cycle: ALIVE until the first fault (or exit); then DEAD: the process
 * is killed if still running, the command in flight and every queued one
 * fail, and nothing more is accepted.  Memory is released only after every
 * libuv handle is closed (ips_child_close), as libuv requires.
 *
 * Keep these manners, which the whole parent relies on: a host's callback
 * is called only from the loop, never from inside the API call that caused
 * it (defer()); there is one way into DEAD (ips__child_fault), so every
 * misbehaviour ends the same way; handles are embedded and found back with
 * container_of; nothing is freed before its handle's close callback.  The
 * worker's frames are read in child_frames.c, the process is started in
 * child_spawn.c (child.h). */
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

int ips__child_set_msg(ips_child_t *w, const char *p, size_t n) {
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

/* The probe of one of the parent's stamps (proto/ipcstamp-probes.h). */
static void probe_stamp(const ips_child_t *w, const ips_stamp_t *s,
                        int64_t len) {
#define PROBE(probe)                                                        \
  IPS_PROBE_STAMP(parent, probe, w->ring_delivery,                          \
                  s->kind == 'U' || s->kind == 'R' ? w->nupcalls : 0,       \
                  s->mono_ns, s->wall_us * 1000, w->ring_vat, w->pid,       \
                  w->head ? w->head->tag : 0, len, s->kind)
  switch (s->kind) {
  case 'D': PROBE(delivery_sent); break;
  case 'U': PROBE(upcall_received); break;
  case 'R': PROBE(reply_sent); break;
  default: PROBE(result_received); break;
  }
#undef PROBE
}

/* With the run-queue delay (options.run_delay), it is read before the
 * clocks for a stamp taken before a write (D, R) and after them for one
 * taken on arrival (U, E): the reading's cost is the parent's own time.
 * len is the frame's netstring length, for the probe (-1: no frame, a
 * command that failed). */
int ips__child_push_stamp(ips_child_t *w, char kind, int64_t len,
                          ips_stamp_t *out) {
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
  /* The readiness ping is no command of the host's: not in the ring, nor
   * seen by the probes. */
  if (!w->head || w->head->tag != 'R') {
    ips__child_ring_stamp(w, &s);
    probe_stamp(w, &s, len);
  }
  if (out)
    *out = s;
  return 0;
}

ips__cmd_t *ips__child_dequeue(ips_child_t *w) {
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
void ips__child_complete(ips_child_t *w, ips__cmd_t *c, ips_result_t *res) {
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
  if (ips__child_set_msg(w, msg, strlen(msg)) == 0)
    res.message = w->msg;
  else
    res.message = "out of memory";
  if (c->sent && !w->cancelled)
    (void)ips__child_push_stamp(w, 'E', -1, NULL);
  ips__child_complete(w, c, &res);
}

/* The queue of a closed worker: every command fails, in order. */
static void cancel_queue(ips_child_t *w) {
  ips__cmd_t *c;
  while ((c = ips__child_dequeue(w)) != NULL)
    fail_cmd(w, c, -ECANCELED, "cancelled: the worker was closed");
  w->cancelled = 0;
}

static void run_deferred(ips_child_t *w) {
  uv_idle_stop(&w->defer);
  if (w->cancelled) {
    cancel_queue(w);
    ips__child_maybe_finish_close(w);
    return;
  }
  ips__child_start_next(w);
}

void ips__child_stop_reading(ips_child_t *w) {
  if (!uv_is_closing((uv_handle_t *)&w->from))
    uv_read_stop((uv_stream_t *)&w->from);
}

/* The one way into DEAD: kill what runs, fail what waits. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void ips__child_fault(ips_child_t *w, int status, const char *fmt, ...) {
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
  ips__child_stop_reading(w);
  /* SIGKILL at once, never SIGTERM first: the worker is untrusted and a
   * handler could keep it running (and holding its memory) forever. */
  if (!w->exited)
    uv_process_kill(&w->proc, SIGKILL);
  w->upcall_pending = 0;
  if (w->head && w->head->sent)
    fail_cmd(w, ips__child_dequeue(w), status, msg);
  else if (!w->head && w->o.fault_cb)
    /* No command to carry it: the host hears of it all the same, or a
     * worker could die (or be killed for cause) unnoticed.  (A queued
     * command carries it below, in its "not sent" message.) */
    w->o.fault_cb(w, status, msg);
  snprintf(qmsg, sizeof qmsg, "not sent: the worker had failed (%s)", msg);
  while ((c = ips__child_dequeue(w)) != NULL)
    fail_cmd(w, c, IPS_EPIPE, qmsg);
}

static void on_write(uv_write_t *req, int status) {
  ips__wreq_t *r = container_of(req, ips__wreq_t, req);
  ips_child_t *w = req->data;
  free(r);
  /* A broken pipe means the worker is gone: its exit names the cause, so
   * only a different error is a fault of its own. */
  if (status < 0 && status != UV_EPIPE && status != UV_ECANCELED)
    ips__child_fault(w, status, "cannot write to the worker: %s", uv_strerror(status));
}

/* Write now when the pipe takes it all (the usual case: no allocation, no
 * copy); queue a copy of whatever is left.  uv_try_write refuses while
 * earlier bytes are queued, so the order of frames is kept. */
/* Write bufs[0..nb) to the worker: at once when the pipe takes them
 * (one writev, no copy), else what is left is copied into a write request
 * that libuv finishes.  Nothing is kept pointing at the caller's bytes. */
int ips__child_write_bufs(ips_child_t *w, uv_buf_t *bufs, unsigned nb) {
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
  return ips__child_write_bufs(w, &b, 1);
}

static void on_timeout(uv_timer_t *t) {
  ips_child_t *w = container_of(t, ips_child_t, timeout);
  ips__child_fault(w, IPS_ETIMEOUT, "timeout: no answer within %llu ms; worker killed",
        (unsigned long long)w->o.timeout_ms);
}

void ips__child_start_next(ips_child_t *w) {
  ips__cmd_t *c = w->head;
  ips_stamp_t D;
  int rc;
  if (!c || c->sent || w->state != IPS__ALIVE || w->closing ||
      w->in_callback)
    return;
  w->nst = 0;
  w->nupcalls = 0;
  rc = ips__child_push_stamp(w, 'D', c->plen, &D);
  if (rc == 0)
    rc = write_bytes(w, c->frame, c->len);
  if (rc) {
    ips__child_fault(w, rc, "cannot write to the worker: %s", ips_strerror(rc));
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
  c->plen = (int64_t)n + 1;
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


void ips__child_exit_fault(ips_child_t *w) {
  const char *when = w->head && w->head->sent ? "during a command"
                                              : "between commands";
  if (w->term_signal)
    ips__child_fault(w, IPS_EPIPE, "worker killed by signal %d (%s) %s",
          w->term_signal, strsignal(w->term_signal), when);
  else
    ips__child_fault(w, IPS_EPIPE, "worker exited with code %lld %s",
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
    ips__child_fault(w, rc, "%s (the worker closed fd 4 inside a frame %s; worker "
          "killed)", d, when);
  } else {
    ips__child_fault(w, IPS_EPIPE, "the worker closed fd 4 %s; worker killed", when);
  }
}

void ips__child_on_grace(uv_timer_t *t) {
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
    ips__child_exit_fault(w);
  ips__child_maybe_finish_close(w);
}

void ips__child_on_exit_cb(uv_process_t *p, int64_t status, int sig) {
  ips_child_t *w = p->data;
  w->exited = 1;
  w->exit_status = status;
  w->term_signal = sig;
  if (w->state == IPS__ALIVE && w->head && w->head->sent) {
    /* Frames may still be in the pipe: wait for EOF, briefly. */
    if (w->eof)
      ips__child_exit_fault(w);
    else
      uv_timer_start(&w->grace, ips__child_on_grace, EXIT_GRACE_MS, 0);
  } else if (w->state == IPS__ALIVE) {
    /* Not asked to quit (ips_child_close makes the state DEAD first), no
     * command to fail: a fault of its own. */
    ips__child_exit_fault(w);
  }
  /* Results owed from a close come first: the host sees a command end
   * before the process that ran it. */
  if (w->cancelled)
    cancel_queue(w);
  if (w->o.exit_cb)
    w->o.exit_cb(w, status, sig);
  if (w->closing && !uv_is_active((uv_handle_t *)&w->grace))
    uv_timer_start(&w->grace, ips__child_on_grace, EXIT_GRACE_MS, 0);
  ips__child_maybe_finish_close(w);
}


void ips__child_free_worker(ips_child_t *w) {
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
    ips__child_free_worker(w);
  }
}

void ips__child_close_handle(ips_child_t *w, uv_handle_t *h) {
  if (h->data == w && !uv_is_closing(h)) {
    w->handles++;
    uv_close(h, on_handle_closed);
  }
}

/* Free only once the process is reaped and the output drained (or the
 * grace period ran out), so no console line and no exit status is lost. */
void ips__child_maybe_finish_close(ips_child_t *w) {
  int i, drained = 1;
  if (!w->closing || !w->exited || w->handles > 0 || w->head)
    return;
  for (i = 0; i < 2; i++)
    if (w->con[i].open && !w->con[i].eof)
      drained = 0;
  if (!drained && !w->grace_expired)
    return;
  w->handles = 1; /* keep the count above 0 while closing them all */
  ips__child_close_handle(w, (uv_handle_t *)&w->proc);
  ips__child_close_handle(w, (uv_handle_t *)&w->to);
  ips__child_close_handle(w, (uv_handle_t *)&w->from);
  for (i = 0; i < 2; i++)
    if (w->con[i].open)
      ips__child_close_handle(w, (uv_handle_t *)&w->con[i].pipe);
  ips__child_close_handle(w, (uv_handle_t *)&w->timeout);
  ips__child_close_handle(w, (uv_handle_t *)&w->grace);
  ips__child_close_handle(w, (uv_handle_t *)&w->defer);
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
    (void)ips__child_push_stamp(w, 'E', -1, NULL);
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
    uv_timer_start(&w->grace, ips__child_on_grace, QUIT_GRACE_MS, 0);
  } else {
    uv_timer_start(&w->grace, ips__child_on_grace, EXIT_GRACE_MS, 0);
  }
  ips__child_stop_reading(w);
  ips__child_maybe_finish_close(w);
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
