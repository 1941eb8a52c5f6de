/* worker_driver.c — see worker_driver.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "worker_driver.h"

const char *wd_path(const char *rel) {
  static char buf[4096];
  const char *dir = getenv("IPCSTAMP_BUILDDIR");
  snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : ".", rel);
  return buf;
}

/* A descriptor at or above 10, close-on-exec, so that moving the child's
 * ends to 3 and 4 can never clobber one another. */
static int high_fd(int fd) {
  int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  return h;
}

static int temp_fd(void) {
  char tmpl[] = "/tmp/ipcstamp-wd-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return -1;
  unlink(tmpl);
  return high_fd(fd);
}

void wd_attach(wd_t *d, int to, int from) {
  memset(d, 0, sizeof *d);
  d->to = to;
  d->from = from;
  d->out_fd = d->err_fd = -1;
  d->pid = -1;
  d->status = -1;
  ips_ns_decoder_init(&d->dec, 0);
  /* A worker that dies must fail a write, not kill the test. */
  signal(SIGPIPE, SIG_IGN);
}

int wd_spawn(wd_t *d, const char *path, const char *const *argv,
             const char *const *env, int flags) {
  int in[2], out[2];
  pid_t pid;

  wd_attach(d, -1, -1);

  if (pipe(in) != 0 || pipe(out) != 0) return -errno;
  in[0] = high_fd(in[0]);
  in[1] = high_fd(in[1]);
  out[0] = high_fd(out[0]);
  out[1] = high_fd(out[1]);
  d->out_fd = temp_fd();
  d->err_fd = temp_fd();
  if (in[0] < 0 || in[1] < 0 || out[0] < 0 || out[1] < 0 || d->out_fd < 0 ||
      d->err_fd < 0)
    return -EMFILE;

  pid = fork();
  if (pid < 0) return -errno;
  if (pid == 0) {
    int null = open("/dev/null", O_RDONLY);
    const char *const *e;
    dup2(null, 0);
    dup2(d->out_fd, 1);
    dup2(d->err_fd, 2);
    if (!(flags & WD_NO_FD3)) dup2(in[0], 3);
    else close(3);
    if (!(flags & WD_NO_FD4)) dup2(out[1], 4);
    else close(4);
    for (e = env; e && *e; e++) {
      const char *eq = strchr(*e, '=');
      if (eq) {
        char name[128];
        size_t k = (size_t)(eq - *e);
        if (k >= sizeof name) k = sizeof name - 1;
        memcpy(name, *e, k);
        name[k] = '\0';
        setenv(name, eq + 1, 1);
      } else {
        unsetenv(*e);
      }
    }
    execv(path, (char *const *)argv);
    fprintf(stderr, "wd_spawn: cannot run %s: %s\n", path, strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  d->pid = pid;
  d->to = in[1];
  d->from = out[0];
  return 0;
}

int wd_send_raw(wd_t *d, const void *p, size_t n) {
  const char *s = p;
  while (n > 0) {
    ssize_t k = write(d->to, s, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    s += k;
    n -= (size_t)k;
  }
  return 0;
}

int wd_send(wd_t *d, char tag, const void *p, size_t n) {
  char hdr[IPS_NS_HEADER_MAX];
  struct iovec iov[3];
  int rc = ips_ns_iov(iov, hdr, tag, p, n);
  if (rc) return rc;
  /* Three writes would be three chances for the worker to see a partial
   * frame: good for the worker, but here one frame is one write when it
   * fits, like a real parent. */
  if (iov[0].iov_len + n + 1 <= 65536) {
    char buf[65536];
    memcpy(buf, iov[0].iov_base, iov[0].iov_len);
    if (n) memcpy(buf + iov[0].iov_len, p, n);
    buf[iov[0].iov_len + n] = ',';
    return wd_send_raw(d, buf, iov[0].iov_len + n + 1);
  }
  if ((rc = wd_send_raw(d, iov[0].iov_base, iov[0].iov_len)) ||
      (rc = wd_send_raw(d, p, n)))
    return rc;
  return wd_send_raw(d, ",", 1);
}

void wd_close_input(wd_t *d) {
  if (d->to >= 0) close(d->to);
  d->to = -1;
}

void wd_close_output(wd_t *d) {
  if (d->from >= 0) close(d->from);
  d->from = -1;
}

int wd_recv(wd_t *d, const char **frame, size_t *len) {
  for (;;) {
    if (d->pos < d->len) {
      ssize_t k = ips_ns_feed(&d->dec, d->buf + d->pos, d->len - d->pos,
                              frame, len);
      if (k < 0) return (int)k;
      d->pos += (size_t)k;
      if (*frame) return 0;
      continue;
    }
    struct pollfd p = {d->from, POLLIN, 0};
    int pr = poll(&p, 1, WD_TIMEOUT_MS);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) return IPS_ETIMEOUT;
    ssize_t r = read(d->from, d->buf, sizeof d->buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (r == 0) {
      int e = ips_ns_finish(&d->dec);
      return e ? e : IPS_EEOF;
    }
    d->pos = 0;
    d->len = (size_t)r;
  }
}

int wd_wait(wd_t *d) {
  int i, st;
  if (d->status < 0 && d->pid > 0) {
    for (i = 0; i < WD_TIMEOUT_MS / 10; i++) {
      pid_t p = waitpid(d->pid, &st, WNOHANG);
      if (p == d->pid) {
        d->status = st;
        break;
      }
      if (p < 0 && errno != EINTR) return -1;
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
    if (d->status < 0) {
      kill(d->pid, SIGKILL);
      waitpid(d->pid, &st, 0);
      d->status = st;
      return -1;
    }
  }
  if (d->status < 0) return -1;
  if (WIFEXITED(d->status)) return WEXITSTATUS(d->status);
  if (WIFSIGNALED(d->status)) return 128 + WTERMSIG(d->status);
  return -1;
}

static char *slurp(int fd) {
  off_t end = lseek(fd, 0, SEEK_END);
  char *s;
  if (end < 0) end = 0;
  s = malloc((size_t)end + 1);
  if (!s) return NULL;
  ssize_t k = pread(fd, s, (size_t)end, 0);
  s[k > 0 ? k : 0] = '\0';
  return s;
}

char *wd_stdout(wd_t *d) { return slurp(d->out_fd); }
char *wd_stderr(wd_t *d) { return slurp(d->err_fd); }

void wd_free(wd_t *d) {
  wd_close_input(d);
  wd_close_output(d);
  if (d->pid > 0 && d->status < 0) {
    int st;
    kill(d->pid, SIGKILL);
    waitpid(d->pid, &st, 0);
    d->status = st;
  }
  if (d->out_fd >= 0) close(d->out_fd);
  if (d->err_fd >= 0) close(d->err_fd);
  d->out_fd = d->err_fd = -1;
  ips_ns_decoder_free(&d->dec);
}

static char *copy(const char *p, size_t n) {
  char *s = malloc(n + 1);
  if (n) memcpy(s, p, n);
  s[n] = '\0';
  return s;
}

static int null_reply(void *arg, uint32_t i, const char *req, size_t n,
                      const char **reply, size_t *reply_len) {
  (void)arg;
  (void)i;
  (void)req;
  (void)n;
  *reply = "null";
  *reply_len = 4;
  return 0;
}

int wd_command(wd_t *d, char tag, const void *p, size_t n, wd_upcall_fn fn,
               void *arg, wd_result_t *r) {
  const char *f;
  size_t len;
  uint32_t cap = 0;
  int rc;

  memset(r, 0, sizeof *r);
  if (!fn) fn = null_reply;
  ips_clock_read(&r->sent);
  if ((rc = wd_send(d, tag, p, n)) != 0) return rc;
  for (;;) {
    if ((rc = wd_recv(d, &f, &len)) != 0) return rc;
    if (len > 0 && f[0] == '?') {
      const char *reply;
      size_t reply_len;
      if (r->nupcalls == cap) {
        cap = cap ? cap * 2 : 16;
        r->up_in = realloc(r->up_in, cap * sizeof *r->up_in);
        r->up_out = realloc(r->up_out, cap * sizeof *r->up_out);
      }
      ips_clock_read(&r->up_in[r->nupcalls]);
      free(r->last_upcall);
      r->last_upcall = copy(f + 1, len - 1);
      r->last_upcall_len = len - 1;
      if (fn(arg, r->nupcalls, f + 1, len - 1, &reply, &reply_len) != 0)
        return IPS_EPROTO;
      ips_clock_read(&r->up_out[r->nupcalls]);
      r->nupcalls++;
      if ((rc = wd_send(d, '/', reply, reply_len)) != 0) return rc;
      continue;
    }
    ips_clock_read(&r->received);
    if (len == 0) return IPS_EEMPTY_FRAME;
    r->tag = f[0];
    if (f[0] == '.') {
      const char *sep = memchr(f + 1, '\x01', len - 1);
      if (!sep) {
        /* only 'R' gets a '.' without metering */
        r->body = copy("", 0);
        r->meter = copy("", 0);
        return 0;
      }
      r->meter = copy(f + 1, (size_t)(sep - f - 1));
      r->meter_len = (size_t)(sep - f - 1);
      r->body = copy(sep + 1, len - (size_t)(sep + 1 - f));
      r->body_len = len - (size_t)(sep + 1 - f);
      return 0;
    }
    if (f[0] == '!') {
      r->body = copy(f + 1, len - 1);
      r->body_len = len - 1;
      return 0;
    }
    return IPS_EBAD_TAG;
  }
}

void wd_result_free(wd_result_t *r) {
  free(r->meter);
  free(r->body);
  free(r->up_in);
  free(r->up_out);
  free(r->last_upcall);
  memset(r, 0, sizeof *r);
}

int wd_parse_wall(const char *s, int64_t *us) {
  int64_t whole = 0, frac = 0;
  int places = 0;
  if (!*s) return -1;
  for (; *s && *s != '.'; s++) {
    if (*s < '0' || *s > '9') return -1;
    whole = whole * 10 + (*s - '0');
  }
  if (*s == '.') {
    for (s++; *s; s++) {
      if (*s < '0' || *s > '9' || places == 6) return -1;
      frac = frac * 10 + (*s - '0');
      places++;
    }
  }
  for (; places < 6; places++) frac *= 10;
  *us = whole * 1000000 + frac;
  return 0;
}

int wd_meter_parse(const char *json, const char *const *names, wd_meter_t *m,
                   char *err, size_t errlen) {
  static const char *ts_path[] = {"timestamps", NULL};
  static const char *ips_path[] = {"ipcstamp", NULL};
  yajl_val root, ts, ips, v;
  size_t i;

  memset(m, 0, sizeof *m);
  root = yajl_tree_parse(json, err, errlen);
  if (!root) return -1;
  if (!YAJL_IS_OBJECT(root)) goto bad;
  ts = yajl_tree_get(root, ts_path, yajl_t_array);
  if (!ts) goto bad;
  m->ntimestamps = (uint32_t)ts->u.array.len;
  m->wall_us = calloc(m->ntimestamps + 1, sizeof *m->wall_us);
  for (i = 0; i < ts->u.array.len; i++) {
    v = ts->u.array.values[i];
    if (!YAJL_IS_NUMBER(v) || wd_parse_wall(v->u.number.r, &m->wall_us[i]))
      goto bad;
  }
  for (i = 0; names && names[i] && i < 8; i++) {
    const char *p[] = {names[i], NULL};
    v = yajl_tree_get(root, p, yajl_t_number);
    if (v && YAJL_IS_INTEGER(v)) {
      m->fields[i] = YAJL_GET_INTEGER(v);
      m->has_field[i] = 1;
    }
  }
  ips = yajl_tree_get(root, ips_path, yajl_t_object);
  if (ips) {
    const char *vp[] = {"v", NULL}, *kp[] = {"kinds", NULL},
               *mp[] = {"mono", NULL}, *dp[] = {"dropped", NULL},
               *cp[] = {"cpu_ns", NULL}, *rp[] = {"run_delay_ns", NULL};
    yajl_val kinds = yajl_tree_get(ips, kp, yajl_t_string);
    yajl_val mono = yajl_tree_get(ips, mp, yajl_t_array);
    m->has_ipcstamp = 1;
    v = yajl_tree_get(ips, vp, yajl_t_number);
    m->version = v ? (int)YAJL_GET_INTEGER(v) : -1;
    v = yajl_tree_get(ips, dp, yajl_t_number);
    m->dropped = v ? YAJL_GET_INTEGER(v) : -1;
    v = yajl_tree_get(ips, cp, yajl_t_number);
    if (v) {
      m->has_cpu_ns = 1;
      m->cpu_ns = YAJL_GET_INTEGER(v);
    }
    if (!kinds || !mono) goto bad;
    m->kinds = strdup(kinds->u.string);
    m->n = (uint32_t)strlen(m->kinds);
    if (mono->u.array.len != m->n || m->ntimestamps != m->n) goto bad;
    m->mono_ns = calloc(m->n + 1, sizeof *m->mono_ns);
    for (i = 0; i < m->n; i++) {
      v = mono->u.array.values[i];
      if (!YAJL_IS_INTEGER(v)) goto bad;
      m->mono_ns[i] = YAJL_GET_INTEGER(v);
    }
    v = yajl_tree_get(ips, rp, yajl_t_array);
    if (v) {
      if (v->u.array.len != m->n) goto bad;
      m->run_delay_ns = calloc(m->n + 1, sizeof *m->run_delay_ns);
      for (i = 0; i < m->n; i++) {
        if (!YAJL_IS_INTEGER(v->u.array.values[i])) goto bad;
        m->run_delay_ns[i] = YAJL_GET_INTEGER(v->u.array.values[i]);
      }
    }
  }
  yajl_tree_free(root);
  return 0;
bad:
  snprintf(err, errlen, "metering does not have the expected shape: %s",
           json);
  yajl_tree_free(root);
  wd_meter_free(m);
  return -1;
}

void wd_meter_free(wd_meter_t *m) {
  free(m->kinds);
  free(m->wall_us);
  free(m->mono_ns);
  free(m->run_delay_ns);
  m->kinds = NULL;
  m->wall_us = m->mono_ns = m->run_delay_ns = NULL;
}

int wd_deliver_null(wd_t *d, const char *cmd, size_t n, const char **frame,
                    size_t *len) {
  int rc = wd_send(d, '?', cmd, n);
  while (rc == 0) {
    if ((rc = wd_recv(d, frame, len)) != 0)
      break;
    if (*len > 0 && (*frame)[0] == '?') {
      rc = wd_send(d, '/', "null", 4);
      continue;
    }
    return *len == 0 || (*frame)[0] != '.';
  }
  return rc;
}
