/* check_worker.c — tests of worker/: the shared checks, the library used
 * in-process over pipes, the embedding guide's example, and main(). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipcstamp-worker.h"
#include "worker_suites.h"

/* ------------------------------------------------------------------------
 * Shared checks.
 */
void start(wd_t *d, const char *prog, const char *const *env) {
  const char *path = wd_path(prog);
  const char *argv[] = {path, NULL};
  ck_assert_int_eq(wd_spawn(d, path, argv, env, 0), 0);
}

void deliver_ok(wd_t *d, char tag, const char *payload, size_t n,
                wd_upcall_fn fn, void *arg, const char *const *names,
                wd_result_t *r, wd_meter_t *m) {
  char err[512];
  int rc = wd_command(d, tag, payload, n, fn, arg, r);
  ck_assert_msg(rc == 0, "command failed: %s", ips_strerror(rc));
  ck_assert_msg(r->tag == '.', "expected '.', got '%c': %s", r->tag,
                r->body ? r->body : "");
  ck_assert_msg(wd_meter_parse(r->meter, names, m, err, sizeof err) == 0,
                "%s", err);
}

void deliver_error(wd_t *d, char tag, const char *payload, size_t n,
                   const char *needle) {
  wd_result_t r;
  int rc = wd_command(d, tag, payload, n, NULL, NULL, &r);
  ck_assert_msg(rc == 0, "command failed: %s", ips_strerror(rc));
  ck_assert_msg(r.tag == '!', "expected '!', got '%c'", r.tag);
  ck_assert_msg(strstr(r.body, needle), "'%s' not in '%s'", needle, r.body);
  wd_result_free(&r);
}

/* a <= b, for both clocks of two stamps. */
static void before(const ips_stamp_t *a, int64_t b_wall, int64_t b_mono,
                   const char *what, uint32_t i) {
  ck_assert_msg(a->mono_ns <= b_mono, "%s %u: mono %lld > %lld", what, i,
                (long long)a->mono_ns, (long long)b_mono);
  ck_assert_msg(a->wall_us <= b_wall, "%s %u: wall %lld > %lld", what, i,
                (long long)a->wall_us, (long long)b_wall);
}

static void after(int64_t a_wall, int64_t a_mono, const ips_stamp_t *b,
                  const char *what, uint32_t i) {
  ck_assert_msg(a_mono <= b->mono_ns, "%s %u: mono %lld > %lld", what, i,
                (long long)a_mono, (long long)b->mono_ns);
  ck_assert_msg(a_wall <= b->wall_us, "%s %u: wall %lld > %lld", what, i,
                (long long)a_wall, (long long)b->wall_us);
}

void check_stamps(const wd_result_t *r, const wd_meter_t *m) {
  uint32_t i, k = r->nupcalls, pairs;
  int64_t hi = INT64_MIN;
  uint64_t close_to = 0;

  ck_assert(m->has_ipcstamp);
  /* v2 only adds marks: the stamps are checked the same way. */
  ck_assert(m->version == 1 || m->version == 2);
  ck_assert_uint_ge(m->n, 2);
  ck_assert_int_eq(m->kinds[0], 'd');
  ck_assert_int_eq(m->kinds[m->n - 1], 'e');
  pairs = (m->n - 2) / 2;
  ck_assert_uint_eq(m->n, 2 + 2 * pairs);
  ck_assert_uint_le(pairs, k);
  for (i = 0; i < pairs; i++) {
    ck_assert_int_eq(m->kinds[1 + 2 * i], 'u');
    ck_assert_int_eq(m->kinds[2 + 2 * i], 'r');
  }
  ck_assert_int_eq(m->dropped, 2 * (int64_t)(k - pairs));
  for (i = 1; i < m->n; i++) {
    ck_assert_msg(m->mono_ns[i - 1] <= m->mono_ns[i], "mono goes back at %u",
                  i);
    ck_assert_msg(m->wall_us[i - 1] <= m->wall_us[i], "wall goes back at %u",
                  i);
  }
  /* d after the command was sent, before the first upcall (or result). */
  before(&r->sent, m->wall_us[0], m->mono_ns[0], "d after send", 0);
  {
    const ips_stamp_t *ub = k ? &r->up_in[0] : &r->received;
    after(m->wall_us[0], m->mono_ns[0], ub, "d before next", 0);
  }
  /* u_i after the previous reply was sent, before the driver got it;
   * r_i after the driver sent the reply, before the next frame arrived. */
  for (i = 0; i < pairs; i++) {
    uint32_t u = 1 + 2 * i, rr = 2 + 2 * i;
    const ips_stamp_t *u_lo = i ? &r->up_out[i - 1] : &r->sent;
    const ips_stamp_t *r_hi = i + 1 < k ? &r->up_in[i + 1] : &r->received;
    before(u_lo, m->wall_us[u], m->mono_ns[u], "u after", i);
    after(m->wall_us[u], m->mono_ns[u], &r->up_in[i], "u before U", i);
    before(&r->up_out[i], m->wall_us[rr], m->mono_ns[rr], "r after R", i);
    after(m->wall_us[rr], m->mono_ns[rr], r_hi, "r before", i);
  }
  /* e after the last reply was sent, before the driver read the result. */
  before(k ? &r->up_out[k - 1] : &r->sent, m->wall_us[m->n - 1],
         m->mono_ns[m->n - 1], "e after", 0);
  after(m->wall_us[m->n - 1], m->mono_ns[m->n - 1], &r->received,
        "e before E", 0);
  /* The two clocks advance together: wall - mono is the same for every
   * stamp, up to the microsecond of wall.  A preemption between the two
   * reads of one stamp (wall is read first) only lowers that stamp's
   * difference, by as long as the worker was off the CPU, which on a busy
   * machine can be milliseconds: so nearly all stamps, not every one, must
   * sit within 1 ms of the highest difference. */
  for (i = 0; i < m->n; i++) {
    int64_t off = m->wall_us[i] * 1000 - m->mono_ns[i];
    if (i == 0 || off > hi) hi = off;
  }
  for (i = 0; i < m->n; i++)
    if (m->wall_us[i] * 1000 - m->mono_ns[i] >= hi - 1000000) close_to++;
  ck_assert_msg(close_to * 10 >= (uint64_t)m->n * 9,
                "wall and mono drift apart: %llu of %u stamps within 1 ms",
                (unsigned long long)close_to, (unsigned)m->n);
}

int hang_up(void *arg, uint32_t i, const char *req, size_t n,
            const char **reply, size_t *reply_len) {
  (void)i;
  (void)req;
  (void)n;
  (void)reply;
  (void)reply_len;
  wd_close_input(arg);
  return 1;
}

void expect_alive(wd_t *d) {
  const char *f;
  size_t n;
  ck_assert_int_eq(wd_send(d, 'R', NULL, 0), 0);
  ck_assert_int_eq(wd_recv(d, &f, &n), 0);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(f[0], '.');
}

void expect_exit(wd_t *d, int status, const char *needle) {
  int st = wd_wait(d);
  char *err = wd_stderr(d);
  ck_assert_msg(st == status, "exit status %d, expected %d; stderr: %s", st,
                status, err);
  if (needle)
    ck_assert_msg(strstr(err, needle), "'%s' not in stderr: %s", needle,
                  err);
  free(err);
}

void expect_framing_error(const char *prog, const char *const *env,
                          const char *raw, size_t n, int close_after, int code,
                          long offset) {
  wd_t d;
  char at[64];
  start(&d, prog, env);
  ck_assert_int_eq(wd_send_raw(&d, raw, n), 0);
  if (close_after) wd_close_input(&d);
  snprintf(at, sizeof at, "at byte %ld", offset);
  expect_exit(&d, 2, ips_strerror(code));
  expect_exit(&d, 2, at);
  wd_free(&d);
}

/* ------------------------------------------------------------------------
 * The library in-process: a worker on two pipes, the test as its parent
 * (through the driver, attached to the other ends).
 */
typedef struct {
  ips_worker_t w;
  wd_t parent;
  int cmd[2]; /* test → worker */
  int res[2]; /* worker → test */
} inproc_t;

static void inproc_init(inproc_t *t, const char *commands, unsigned flags) {
  ips_worker_options_t o;
  ck_assert_int_eq(pipe(t->cmd), 0);
  ck_assert_int_eq(pipe(t->res), 0);
  wd_attach(&t->parent, t->cmd[1], t->res[0]);
  if (commands)
    ck_assert_int_eq(wd_send_raw(&t->parent, commands, strlen(commands)), 0);
  ips_worker_options_init(&o);
  o.fd_in = t->cmd[0];
  o.fd_out = t->res[1];
  o.flags = flags;
  ck_assert_int_eq(ips_worker_init(&t->w, &o), 0);
}

static void inproc_free(inproc_t *t) {
  ips_worker_close(&t->w);
  wd_free(&t->parent);
  close(t->cmd[0]);
  close(t->res[1]);
}

/* The next frame the worker wrote. */
static void inproc_frame(inproc_t *t, const char **f, size_t *n) {
  ck_assert_int_eq(wd_recv(&t->parent, f, n), 0);
}

START_TEST(lib_options_env) {
  ips_worker_options_t o;
  char msg[200];

  ips_worker_options_init(&o);
  ck_assert_int_eq(o.fd_in, 3);
  ck_assert_int_eq(o.fd_out, 4);
  ck_assert_uint_eq(o.stamp_capacity, 1024);
  setenv("IPCSTAMP_MAX_FRAME", "4096", 1);
  setenv("IPCSTAMP_STAMP_CAPACITY", "2", 1);
  setenv("IPCSTAMP_DISABLE", "1", 1);
  ck_assert_int_eq(ips_worker_options_env(&o, msg, sizeof msg), 0);
  ck_assert_uint_eq(o.max_frame, 4096);
  ck_assert_uint_eq(o.stamp_capacity, 2);
  ck_assert(o.flags & IPS_WORKER_NO_STAMPS);
  setenv("IPCSTAMP_DISABLE", "0", 1);
  ck_assert_int_eq(ips_worker_options_env(&o, msg, sizeof msg), 0);
  ck_assert(!(o.flags & IPS_WORKER_NO_STAMPS));

  /* Each bad value is refused with its name, and o is left alone. */
  static const char *const bad[][2] = {
      {"IPCSTAMP_MAX_FRAME", "0"},          {"IPCSTAMP_MAX_FRAME", "1e6"},
      {"IPCSTAMP_MAX_FRAME", "-5"},         {"IPCSTAMP_MAX_FRAME", "1000000000"},
      {"IPCSTAMP_MAX_FRAME", " 12"},        {"IPCSTAMP_STAMP_CAPACITY", "1"},
      {"IPCSTAMP_STAMP_CAPACITY", "99999999999999999999"},
      {"IPCSTAMP_DISABLE", "yes"},          {"IPCSTAMP_DISABLE", "true"},
  };
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ips_worker_options_t before_o;
    unsetenv("IPCSTAMP_MAX_FRAME");
    unsetenv("IPCSTAMP_STAMP_CAPACITY");
    unsetenv("IPCSTAMP_DISABLE");
    setenv(bad[i][0], bad[i][1], 1);
    before_o = o;
    ck_assert_int_eq(ips_worker_options_env(&o, msg, sizeof msg), IPS_EINVAL);
    ck_assert_msg(strstr(msg, bad[i][0]), "%s", msg);
    ck_assert_int_eq(memcmp(&before_o, &o, sizeof o), 0);
  }
  /* Empty means unset. */
  setenv("IPCSTAMP_DISABLE", "", 1);
  unsetenv("IPCSTAMP_STAMP_CAPACITY");
  ck_assert_int_eq(ips_worker_options_env(&o, msg, sizeof msg), 0);
}
END_TEST

START_TEST(lib_init_errors) {
  ips_worker_options_t o;
  ips_worker_t w;
  int p[2];

  ips_worker_options_init(&o);
  o.fd_in = 77;
  ck_assert_int_eq(ips_worker_init(&w, &o), -EBADF);
  ck_assert_msg(strstr(ips_worker_message(&w), "fd 77 is not open"), "%s",
                ips_worker_message(&w));
  ips_worker_close(&w);
  ips_worker_close(&w);

  ck_assert_int_eq(pipe(p), 0);
  ips_worker_options_init(&o);
  o.fd_in = p[0];
  o.fd_out = p[1];
  o.tags = "?R";
  ck_assert_int_eq(ips_worker_init(&w, &o), IPS_EINVAL);
  o.tags = "?";
  o.stamp_capacity = 1;
  ck_assert_int_eq(ips_worker_init(&w, &o), IPS_EINVAL);
  o.stamp_capacity = 2;
  ck_assert_int_eq(ips_worker_init(&w, &o), 0);
  /* The parent's pipe must not leak into processes the VM starts. */
  ck_assert(fcntl(p[0], F_GETFD) & FD_CLOEXEC);
  ck_assert(fcntl(p[1], F_GETFD) & FD_CLOEXEC);
  /* A dead parent is an error return, not a silent SIGPIPE. */
  struct sigaction sa;
  sigaction(SIGPIPE, NULL, &sa);
  ck_assert(sa.sa_handler == SIG_IGN);
  ips_worker_close(&w);
  ips_worker_close(&w);
  close(p[0]);
  close(p[1]);
}
END_TEST

START_TEST(lib_usage_errors) {
  inproc_t b;
  ips_command_t cmd;
  const char *f, *reply;
  size_t n, reply_len;
  char err[256];
  wd_meter_t m;
  ips_meter_field_t bad_key = {"bad key", 1};
  ips_meter_t mb = {&bad_key, 1, 0, 0};
  ips_meter_field_t many[9];
  ips_meter_t mm = {many, 9, 0, 0};
  size_t i;

  for (i = 0; i < 9; i++) {
    many[i].key = "k";
    many[i].value = 1;
  }
  inproc_init(&b, "2:?a,", 0);
  /* Nothing is pending yet. */
  ck_assert_int_eq(ips_worker_upcall(&b.w, "x", 1, &reply, &reply_len),
                   IPS_EINVAL);
  ck_assert_int_eq(ips_worker_reply_ok(&b.w, "", 0, NULL), IPS_EINVAL);
  ck_assert_int_eq(ips_worker_reply_error(&b.w, "x", 1), IPS_EINVAL);

  ck_assert_int_eq(ips_worker_next(&b.w, &cmd), 0);
  ck_assert_int_eq(cmd.tag, '?');
  ck_assert_uint_eq(cmd.len, 1);
  ck_assert_int_eq(cmd.data[0], 'a');
  /* Refused replies send nothing and leave the stamps as they were. */
  ck_assert_int_eq(ips_worker_reply_ok(&b.w, "", 0, &mb), IPS_EINVAL);
  ck_assert_int_eq(ips_worker_reply_ok(&b.w, "", 0, &mm), IPS_EINVAL);
  ck_assert_int_eq(ips_worker_reply_ok(&b.w, "", IPS_NS_LEN_MAX, NULL),
                   IPS_EINVAL);
  ck_assert_int_eq(ips_worker_upcall(&b.w, "", IPS_NS_LEN_MAX, &reply,
                                     &reply_len),
                   IPS_EINVAL);
  ck_assert_uint_eq(b.w.stamps.n, 1);
  ck_assert_uint_eq(b.w.stamps.dropped, 0);
  ck_assert_int_eq(ips_worker_failed(&b.w), 0);
  ck_assert_int_eq(ips_worker_reply_ok(&b.w, "ok", 2, NULL), 0);
  ck_assert_int_eq(ips_worker_reply_ok(&b.w, "ok", 2, NULL), IPS_EINVAL);

  inproc_frame(&b, &f, &n);
  ck_assert_int_eq(f[0], '.');
  const char *sep = memchr(f, '\x01', n);
  ck_assert_ptr_nonnull(sep);
  ck_assert_int_eq(memcmp(sep + 1, "ok", 2), 0);
  char *json = strndup(f + 1, (size_t)(sep - f - 1));
  ck_assert_int_eq(wd_meter_parse(json, NULL, &m, err, sizeof err), 0);
  ck_assert_str_eq(m.kinds, "de");
  ck_assert_int_eq(m.dropped, 0);
  wd_meter_free(&m);
  free(json);
  inproc_free(&b);
}
END_TEST

START_TEST(lib_unanswered_command) {
  inproc_t b;
  ips_command_t cmd;
  const char *f;
  size_t n;

  inproc_init(&b, "2:?a,2:?b,1:q,", 0);
  ck_assert_int_eq(ips_worker_next(&b.w, &cmd), 0);
  ck_assert_int_eq(cmd.data[0], 'a');
  /* No reply to 'a': the library answers it before reading 'b'. */
  ck_assert_int_eq(ips_worker_next(&b.w, &cmd), 0);
  ck_assert_int_eq(cmd.data[0], 'b');
  inproc_frame(&b, &f, &n);
  ck_assert_int_eq(f[0], '!');
  ck_assert_msg(memmem(f, n, "did not reply", 13), "%.*s", (int)n, f);
  ck_assert_int_eq(ips_worker_reply_error(&b.w, "no", 2), 0);
  ck_assert_int_eq(ips_worker_next(&b.w, &cmd), IPS_WORKER_DONE);
  inproc_frame(&b, &f, &n);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(memcmp(f, "!no", 3), 0);
  inproc_free(&b);
}
END_TEST

START_TEST(lib_no_stamps) {
  inproc_t b;
  ips_command_t cmd;
  const char *f;
  size_t n;
  ips_meter_field_t fld = {"compute", 7};
  ips_meter_t m = {&fld, 1, 1, 99};

  inproc_init(&b, "1:?,", IPS_WORKER_NO_STAMPS | IPS_WORKER_CPU_TIME);
  ck_assert_int_eq(ips_worker_next(&b.w, &cmd), 0);
  ck_assert_int_eq(ips_worker_reply_ok(&b.w, "", 0, &m), 0);
  inproc_frame(&b, &f, &n);
  ck_assert_uint_eq(n, strlen(".{\"compute\":7,\"timestamps\":[]}\x01"));
  ck_assert_int_eq(
      memcmp(f, ".{\"compute\":7,\"timestamps\":[]}\x01", n), 0);
  inproc_free(&b);
}
END_TEST

/* IPS_WORKER_HOST_IO (Agoric's xsnap-worker keeps its own I/O): the fds
 * are not touched (an fd that is not open is no error), calls out of order
 * are refused, and ips_worker_end() gives exactly the "ipcstamp" member
 * that the library's own reply would carry for the same stamps. */
START_TEST(lib_host_io) {
  ips_worker_t w;
  ips_worker_options_t o;
  const char *j;
  size_t n, k;
  char full[4096];
  ips_meter_t m = {NULL, 0, 1, 1234};

  ips_worker_options_init(&o);
  o.fd_in = 1000; /* not open: only the library's own I/O needs them */
  o.fd_out = 1001;
  o.flags = IPS_WORKER_HOST_IO;
  ck_assert_int_eq(ips_worker_init(&w, &o), 0);
  ck_assert_int_eq(ips_worker_stamp(&w, 'u'), IPS_EINVAL); /* no command */
  ck_assert_int_eq(ips_worker_end(&w, NULL, &j, &n), IPS_EINVAL);
  ck_assert_ptr_null(j);
  ck_assert_int_eq(ips_worker_begin(&w, '?'), 0);
  ck_assert_int_eq(ips_worker_stamp(&w, 'x'), IPS_EINVAL);
  ck_assert_int_eq(ips_worker_stamp(&w, 'u'), 0);
  ck_assert_int_eq(ips_worker_stamp(&w, 'r'), 0);
  ck_assert_int_eq(ips_worker_span_begin(&w, "gc"), 0);
  ck_assert_int_eq(ips_worker_span_end(&w, "gc"), 0);
  ck_assert_int_eq(ips_worker_end(&w, &m, &j, &n), 0);
  ck_assert_ptr_nonnull(j);
  /* The same member as the whole metering's, from the same table. */
  ck_assert_int_eq(ips_metering_write_marks(full, sizeof full, &w.stamps,
                                            &w.marks, &m, &k), 0);
  ck_assert_msg(k > n && memcmp(full + k - 1 - n, j, n) == 0 &&
                    full[k - 1 - n - 1] == ',',
                "member %.*s not at the end of %.*s", (int)n, j, (int)k,
                full);
  ck_assert_msg(strncmp(j, "\"ipcstamp\":{\"v\":2,\"kinds\":\"dure\",", 33) == 0,
                "%.*s", (int)n, j);
  ck_assert_msg(strstr(full, "\"cpu_ns\":1234") != NULL, "%s", full);
  ck_assert_int_eq(w.stamps.n, 4);
  /* Answered: nothing pending; a '!' answer is abandon(). */
  ck_assert_int_eq(ips_worker_end(&w, NULL, &j, &n), IPS_EINVAL);
  ck_assert_int_eq(ips_worker_begin(&w, 'e'), 0);
  ips_worker_abandon(&w);
  ck_assert_int_eq(ips_worker_stamp(&w, 'u'), IPS_EINVAL);
  ips_worker_close(&w);

  /* Without the flag, the calls are refused. */
  ips_worker_options_init(&o);
  o.fd_in = o.fd_out = 1;
  ck_assert_int_eq(ips_worker_init(&w, &o), 0);
  ck_assert_int_eq(ips_worker_begin(&w, '?'), IPS_EINVAL);
  ips_worker_close(&w);

  /* Stamps off: end() answers with no member at all. */
  ips_worker_options_init(&o);
  o.flags = IPS_WORKER_HOST_IO | IPS_WORKER_NO_STAMPS;
  ck_assert_int_eq(ips_worker_init(&w, &o), 0);
  ck_assert_int_eq(ips_worker_begin(&w, '?'), 0);
  ck_assert_int_eq(ips_worker_end(&w, NULL, &j, &n), 0);
  ck_assert_ptr_null(j);
  ck_assert_uint_eq(n, 0);
  ips_worker_close(&w);
}
END_TEST

/* Descriptors a parent handed over non-blocking: reads and writes wait
 * with poll() instead of failing with EAGAIN. */
START_TEST(lib_nonblocking_fds) {
  inproc_t b;
  ips_command_t cmd;
  size_t big = 1 << 20, got = 0;
  char *result = malloc(big);
  pid_t pid;
  int st;

  memset(result, 'x', big);
  inproc_init(&b, NULL, IPS_WORKER_NO_STAMPS);
  fcntl(b.cmd[0], F_SETFL, O_NONBLOCK);
  fcntl(b.res[1], F_SETFL, O_NONBLOCK);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    /* The parent: a late command, then a slow reader. */
    char buf[4096];
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    if (write(b.cmd[1], "1:?,", 4) != 4) _exit(3);
    for (;;) {
      ssize_t k = read(b.res[0], buf, sizeof buf);
      if (k <= 0) break;
      got += (size_t)k;
      if (got >= big) break;
    }
    free(result);
    ips_worker_close(&b.w);
    wd_free(&b.parent);
    _exit(got >= big ? 0 : 4);
  }
  ck_assert_int_eq(ips_worker_next(&b.w, &cmd), 0);
  ck_assert_int_eq(ips_worker_reply_ok(&b.w, result, big, NULL), 0);
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  free(result);
  inproc_free(&b);
}
END_TEST

/* ------------------------------------------------------------------------
 * The embedding guide's example (docs/embedding.md), as built by make.
 */
static int shout(void *arg, uint32_t i, const char *req, size_t n,
                 const char **reply, size_t *reply_len) {
  static char buf[256];
  size_t k;
  (void)arg;
  (void)i;
  if (n == 5 && memcmp(req, "empty", 5) == 0) {
    *reply = "";
    *reply_len = 0;
    return 0;
  }
  for (k = 0; k < n && k < sizeof buf; k++)
    buf[k] = (req[k] >= 'a' && req[k] <= 'z') ? (char)(req[k] - 32) : req[k];
  *reply = buf;
  *reply_len = k;
  return 0;
}

START_TEST(lib_embedding_example) {
  static const char *const names[] = {"deliveries", NULL};
  wd_t d;
  wd_result_t r;
  wd_meter_t m;

  start(&d, EMBED_EXAMPLE, NULL);
  deliver_ok(&d, '?', "\"hello\"", 7, shout, NULL, names, &r, &m);
  ck_assert_str_eq(r.body, "\"HELLO\"");
  ck_assert_str_eq(r.last_upcall, "\"hello\"");
  ck_assert(m.has_field[0]);
  ck_assert_int_eq(m.fields[0], 1);
  ck_assert(m.has_cpu_ns);
  check_stamps(&r, &m);
  wd_result_free(&r);
  wd_meter_free(&m);
  deliver_ok(&d, '?', "again", 5, shout, NULL, names, &r, &m);
  ck_assert_str_eq(r.body, "AGAIN");
  ck_assert_int_eq(m.fields[0], 2);
  wd_result_free(&r);
  wd_meter_free(&m);
  ck_assert_int_eq(wd_command(&d, '?', "empty", 5, shout, NULL, &r), 0);
  ck_assert_int_eq(r.tag, '!');
  ck_assert_str_eq(r.body, "empty reply");
  wd_result_free(&r);
  deliver_error(&d, 'e', "1+1", 3, "unsupported command tag 'e'");
  expect_alive(&d);
  ck_assert_int_eq(wd_send(&d, 'q', NULL, 0), 0);
  expect_exit(&d, 0, NULL);
  wd_free(&d);
}
END_TEST

Suite *worker_lib_suite(void) {
  Suite *s = suite_create("Worker library");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, lib_options_env);
  tcase_add_test(tc, lib_init_errors);
  tcase_add_test(tc, lib_usage_errors);
  tcase_add_test(tc, lib_unanswered_command);
  tcase_add_test(tc, lib_no_stamps);
  tcase_add_test(tc, lib_host_io);
  tcase_add_test(tc, lib_nonblocking_fds);
  tcase_add_test(tc, lib_embedding_example);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(worker_lib_suite());
  int failed;
  /* The worker programs add cpu_ns when asked; these tests check it. */
  setenv("IPCSTAMP_CPU_TIME", "1", 1);
  srunner_add_suite(sr, worker_c_suite());
  srunner_add_suite(sr, worker_js_suite());
  srunner_add_suite(sr, worker_marks_suite());
  srunner_add_suite(sr, worker_run_delay_suite());
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
