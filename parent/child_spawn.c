/* child_spawn.c — a worker process started (child.h): its copies of the
 * options, its pipes (real pipes, close-on-exec on our ends), its handles;
 * and its console output read line by line.  A failed start releases what
 * it made through the same close path as a running worker (child.c). */
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

static void console_emit(ips_child_t *w, ips__console_t *c) {
  if (w->o.console_cb)
    w->o.console_cb(w, c->fd, c->line, c->len);
  c->len = 0;
}

void ips__child_console_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  ips__console_t *c = container_of(h, ips__console_t, pipe);
  ips_child_t *w = h->data;
  (void)c;
  *buf = uv_buf_init(w->rbuf, sizeof w->rbuf);
}

void ips__child_console_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  ips__console_t *c = container_of(s, ips__console_t, pipe);
  ips_child_t *w = s->data;
  ssize_t i;
  if (nread < 0) {
    if (c->len)
      console_emit(w, c);
    c->eof = 1;
    uv_read_stop(s);
    ips__child_maybe_finish_close(w);
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

/* A new worker record with its own copies of the options (the caller's
 * may go once the spawn returns), its slog generator, its console lines
 * and its run-queue reader: everything that can fail for want of memory
 * or of /proc, made before any handle exists, so that a failure here is a
 * plain free.  Returns 0, IPS_ENOMEM or IPS_ERUNQ. */
static int child_new(uv_loop_t *loop, const ips_child_options_t *opts,
                     ips_child_t **out) {
  ips_child_t *w;
  int ok = 1, i;
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
    ips__child_free_worker(w);
    return IPS_ENOMEM;
  }
  /* Each worker its own reader of the loop thread's schedstat: its
   * readings pair with that worker's previous stamp. */
  if (opts->run_delay && ips_runq_open(&w->runq) != 0) {
    ips__child_free_worker(w);
    return IPS_ERUNQ;
  }
  ips_ns_decoder_init(&w->dec, w->o.max_frame);
  *out = w;
  return 0;
}

/* The worker's five descriptors: stdin /dev/null (UV_IGNORE); stdout and stderr into
 * console pipes when the host reads the console (initialised here, so the
 * failure path must close them), else the parent's own; fd 3 the read end
 * of the command pipe, fd 4 the write end of the result pipe. */
static void child_stdio(ips_child_t *w, uv_stdio_container_t io[5],
                        uv_file cmd_rd, uv_file res_wr) {
  int i;
  memset(io, 0, 5 * sizeof *io);
  io[0].flags = UV_IGNORE;
  for (i = 1; i <= 2; i++) {
    if (w->o.console_cb) {
      uv_pipe_init(w->loop, &w->con[i - 1].pipe, 0);
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
  io[3].data.fd = cmd_rd;
  io[4].flags = UV_INHERIT_FD;
  io[4].data.fd = res_wr;
}

/* The process is running: our ends of the two pipes become libuv pipes,
 * the timers and the idle handle of the deferred callbacks exist, and
 * reading starts (results, and the console when it is read).  Nothing
 * here fails: every handle is initialised on a loop we were given. */
static void child_start(ips_child_t *w, uv_file cmd_wr, uv_file res_rd) {
  uv_loop_t *loop = w->loop;
  int i;
  uv_pipe_init(loop, &w->to, 0);
  uv_pipe_init(loop, &w->from, 0);
  w->to.data = w->from.data = w;
  uv_pipe_open(&w->to, cmd_wr);
  uv_pipe_open(&w->from, res_rd);
  uv_timer_init(loop, &w->timeout);
  uv_timer_init(loop, &w->grace);
  uv_idle_init(loop, &w->defer);
  w->timeout.data = w->grace.data = w->defer.data = w;
  uv_read_start((uv_stream_t *)&w->from, ips__child_alloc_cb, ips__child_on_read);
  for (i = 0; i < 2; i++)
    if (w->con[i].open)
      uv_read_start((uv_stream_t *)&w->con[i].pipe, ips__child_console_alloc,
                    ips__child_console_read);
  w->state = IPS__ALIVE;
}

/* A start that failed after child_new: the pipe ends still open (-1 for
 * those already closed) are closed, and w goes through the same close path
 * as a running worker when it has handles (a failed uv_spawn leaves the
 * process handle to be closed, and the console pipes were initialised),
 * so that nothing is freed before its close callback.  Returns rc. */
static int child_spawn_failed(ips_child_t *w, uv_file p3[2], uv_file p4[2],
                              int rc) {
  int i;
  for (i = 0; i < 2; i++) {
    if (p3[i] >= 0)
      close(p3[i]);
    if (p4[i] >= 0)
      close(p4[i]);
  }
  if (w->con[0].open || w->proc.data) {
    w->closing = 1;
    w->exited = 1;
    w->grace_expired = 1;
    w->handles = 1;
    if (uv_is_active((uv_handle_t *)&w->proc) || w->proc.type == UV_PROCESS)
      ips__child_close_handle(w, (uv_handle_t *)&w->proc);
    for (i = 0; i < 2; i++)
      if (w->con[i].open)
        ips__child_close_handle(w, (uv_handle_t *)&w->con[i].pipe);
    if (--w->handles == 0)
      ips__child_free_worker(w);
    return rc;
  }
  ips__child_free_worker(w);
  return rc;
}

/* In stages: the record (child_new), the pipes, the descriptors
 * (child_stdio), the process, its handles (child_start); a failure after
 * the record goes out through child_spawn_failed alone. */
int ips_child_spawn(uv_loop_t *loop, const ips_child_options_t *opts,
                     ips_child_t **out) {
  ips_child_t *w;
  uv_process_options_t po;
  uv_stdio_container_t io[5];
  uv_file p3[2] = {-1, -1}, p4[2] = {-1, -1};
  int rc;
  *out = NULL;
  if (!opts || !opts->file)
    return IPS_EINVAL;
  /* A worker that dies while we write must not kill the parent. */
  signal(SIGPIPE, SIG_IGN);
  if ((rc = child_new(loop, opts, &w)) != 0)
    return rc;

  /* Real pipes (libuv's UV_CREATE_PIPE makes socketpairs), close-on-exec
   * on our ends so that other workers do not inherit them. */
  rc = uv_pipe(p3, 0, UV_NONBLOCK_PIPE);
  if (rc == 0)
    rc = uv_pipe(p4, UV_NONBLOCK_PIPE, 0);
  if (rc)
    return child_spawn_failed(w, p3, p4, rc);

  child_stdio(w, io, p3[0], p4[1]);
  memset(&po, 0, sizeof po);
  po.file = w->o.file;
  po.args = w->o.args;
  po.env = w->o.env;
  po.cwd = w->o.cwd;
  po.stdio = io;
  po.stdio_count = 5;
  po.exit_cb = ips__child_on_exit_cb;
  w->proc.data = w;
  rc = uv_spawn(loop, &w->proc, &po);
  /* The worker's ends are its own now (or nobody's). */
  close(p3[0]);
  close(p4[1]);
  p3[0] = p4[1] = -1;
  if (rc)
    return child_spawn_failed(w, p3, p4, rc);
  w->pid = w->proc.pid;
  child_start(w, p3[1], p4[0]);
  *out = w;
  return 0;
}
