/* slog.c — the slogfile writer (DESIGN.md §5, docs/slogfile.md).
 *
 * Each record is generated with yajl_gen in the documented field order,
 * straight into one bounded buffer through yajl's print callback (never
 * into yajl's own buffer and then copied: a 100 MB result would be held
 * three times).  The buffer is written when it holds SLOG_FLUSH_AT bytes,
 * at a record boundary when it can, else mid-record; a piece of output as
 * large as that (a big payload) is written from where it lies without a
 * copy.  So the writer holds at most 2 * SLOG_FLUSH_AT bytes whatever the
 * record's size.  On a regular file a failed write is cut back to the last
 * complete line, so the last line on disk is always whole.  The first
 * error sticks: every later call returns it, and nothing is dropped without
 * the caller being told. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

#include "ipcstamp-parent.h"
#include "json.h"

/* Lines are written once this much is buffered (and at every
 * deliver-result). */
#define SLOG_FLUSH_AT 65536

struct ips_slog_s {
  int fd;
  int err;
  int regular;      /* a regular file: can be cut back after a failure */
  off_t disk;       /* bytes written */
  off_t good;       /* bytes on disk up to the end of the last whole line */
  char *buf;        /* SLOG_FLUSH_AT * 2 bytes: never grows */
  size_t len, cap;
  yajl_gen g;
  ips__json_stream_t js; /* a base64 value being streamed */
  uint64_t lines;
};


#define OK(call) ((call) == yajl_gen_status_ok)

static int gen_key(yajl_gen g, const char *k) {
  return OK(yajl_gen_string(g, (const unsigned char *)k, strlen(k)));
}

static int gen_u64(yajl_gen g, uint64_t v) {
  char tmp[24];
  int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
  return OK(yajl_gen_number(g, tmp, (size_t)n));
}

static int gen_i64(yajl_gen g, int64_t v) {
  char tmp[24];
  int n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
  return OK(yajl_gen_number(g, tmp, (size_t)n));
}

static int gen_str(yajl_gen g, const char *s) {
  return ips__json_text(g, s, strlen(s)) == 0;
}

/* "type":..., then the common prefix of the SwingSet records. */
static int begin(ips_slog_t *s, const char *type) {
  if (s->err)
    return 0;
  yajl_gen_reset(s->g, NULL);
  return OK(yajl_gen_map_open(s->g)) && gen_key(s->g, "type") &&
         gen_str(s->g, type);
}

static int crank_fields(ips_slog_t *s, uint64_t crank, const char *vat,
                        uint64_t dnum) {
  return gen_key(s->g, "crankNum") && gen_u64(s->g, crank) &&
         gen_key(s->g, "vatID") && gen_str(s->g, vat) &&
         gen_key(s->g, "deliveryNum") && gen_u64(s->g, dnum);
}

/* Half a line would break every reader: after a failure (of a write, or
 * of a record half written) a regular file is cut back to its last whole
 * line.  The error sticks. */
static int fail_cut(ips_slog_t *s, int rc) {
  s->err = rc;
  s->len = 0;
  if (s->regular && s->disk > s->good &&
      ftruncate(s->fd, s->good) == 0 && lseek(s->fd, s->good, SEEK_SET) >= 0)
    s->disk = s->good;
  return rc;
}

/* Write p[0..n) to the file, keeping disk/good up to date. */
static int write_raw(ips_slog_t *s, const char *p, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(s->fd, p + done, n - done);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return fail_cut(s, -errno);
    }
    done += (size_t)w;
    s->disk += (off_t)w;
    {
      const char *nl = memrchr(p + done - (size_t)w, '\n', (size_t)w);
      if (nl)
        s->good = s->disk - (off_t)(p + done - (nl + 1));
    }
  }
  return 0;
}

int ips_slog_flush(ips_slog_t *s) {
  int rc;
  if (s->err || s->len == 0)
    return s->err;
  rc = write_raw(s, s->buf, s->len);
  s->len = 0;
  return rc;
}

/* yajl's output, as it is generated.  It cannot return an error: a failed
 * write sticks in s->err, and end() reports it. */
static void slog_print(void *ctx, const char *p, size_t n) {
  ips_slog_t *s = ctx;
  if (s->err)
    return;
  if (p == ips__json_raw_mark) {
    ips__json_stream_base64(&s->js, slog_print, s);
    return;
  }
  if (s->len + n > s->cap && ips_slog_flush(s))
    return;
  if (n >= SLOG_FLUSH_AT) {
    (void)write_raw(s, p, n);
    return;
  }
  memcpy(s->buf + s->len, p, n);
  s->len += n;
}

/* "time" and "monotime" close every record; then the line is buffered. */
static int end(ips_slog_t *s, int ok, const ips_stamp_t *st, int flush) {
  ips_stamp_t now;
  char tmp[24];
  size_t n;
  if (s->err)
    return s->err;
  if (!st) {
    if (ips_clock_read(&now))
      ok = 0;
    st = &now;
  }
  if (ok) {
    n = ips_fmt_wall(tmp, st->wall_us);
    ok = gen_key(s->g, "time") && OK(yajl_gen_number(s->g, tmp, n));
  }
  if (ok) {
    n = ips_fmt_mono(tmp, st->mono_ns);
    ok = gen_key(s->g, "monotime") && OK(yajl_gen_number(s->g, tmp, n)) &&
         OK(yajl_gen_map_close(s->g));
  }
  if (s->err)
    return s->err;
  if (!ok)
    /* Only a bug or no memory gets here; fail loudly, and cut off what
     * of the record was written rather than leave half a line. */
    return fail_cut(s, IPS_ENOMEM);
  slog_print(s, "\n", 1);
  if (s->err)
    return s->err;
  s->lines++;
  if (flush || s->len >= SLOG_FLUSH_AT)
    return ips_slog_flush(s);
  return 0;
}

static int open_file(const char *path, int flags, int *regular) {
  struct stat st;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                0644);
  if (fd >= 0) {
    *regular = 1;
    return fd;
  }
  if (errno != EEXIST)
    return -errno;
  fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return -errno;
  if (fstat(fd, &st) < 0) {
    int e = -errno;
    close(fd);
    return e;
  }
  *regular = S_ISREG(st.st_mode);
  if (*regular) {
    if (!(flags & IPS_SLOG_FORCE)) {
      close(fd);
      return -EEXIST;
    }
    if (ftruncate(fd, 0) < 0) {
      int e = -errno;
      close(fd);
      return e;
    }
  }
  return fd;
}

int ips_slog_open(ips_slog_t **out, const char *path, int flags, int argc,
                  char **argv) {
  ips_slog_t *s;
  int fd, regular = 0, ok, i, rc;
  *out = NULL;
  fd = open_file(path, flags, &regular);
  if (fd < 0)
    return fd;
  s = calloc(1, sizeof *s);
  if (!s || !(s->buf = malloc(SLOG_FLUSH_AT * 2)) ||
      !(s->g = yajl_gen_alloc(NULL))) {
    if (s)
      free(s->buf);
    free(s);
    close(fd);
    return IPS_ENOMEM;
  }
  s->cap = SLOG_FLUSH_AT * 2;
  s->fd = fd;
  s->regular = regular;
  yajl_gen_config(s->g, yajl_gen_validate_utf8, 1);
  yajl_gen_config(s->g, yajl_gen_print_callback, slog_print, s);
  ok = begin(s, "slog-start") && gen_key(s->g, "ipcstamp") &&
       OK(yajl_gen_map_open(s->g)) && gen_key(s->g, "v") &&
       gen_i64(s->g, IPS_METERING_VERSION) && OK(yajl_gen_map_close(s->g)) &&
       gen_key(s->g, "version") && gen_str(s->g, PACKAGE_VERSION) &&
       gen_key(s->g, "pid") && gen_i64(s->g, getpid()) &&
       gen_key(s->g, "argv") && OK(yajl_gen_array_open(s->g));
  for (i = 0; ok && argv && i < argc; i++)
    ok = ips__json_text_s(s->g, &s->js, argv[i], strlen(argv[i])) == 0;
  ok = ok && OK(yajl_gen_array_close(s->g));
  rc = end(s, ok, NULL, 1);
  if (rc) {
    ips_slog_close(s);
    return rc;
  }
  *out = s;
  return 0;
}

int ips_slog_deliver(ips_slog_t *s, uint64_t crank, const char *vat,
                     uint64_t dnum, const void *vd, size_t n,
                     const ips_stamp_t *D) {
  int ok = begin(s, "deliver") && crank_fields(s, crank, vat, dnum) &&
           gen_key(s->g, "vd") && ips__json_embed_s(s->g, &s->js, vd, n) == 0;
  return end(s, ok, D, 0);
}

int ips_slog_syscall(ips_slog_t *s, uint64_t crank, const char *vat,
                     uint64_t dnum, uint64_t snum, const void *vsc, size_t n,
                     const ips_stamp_t *U) {
  int ok = begin(s, "syscall") && crank_fields(s, crank, vat, dnum) &&
           gen_key(s->g, "syscallNum") && gen_u64(s->g, snum) &&
           gen_key(s->g, "vsc") && ips__json_embed_s(s->g, &s->js, vsc, n) == 0;
  return end(s, ok, U, 0);
}

int ips_slog_syscall_result(ips_slog_t *s, uint64_t crank, const char *vat,
                            uint64_t dnum, uint64_t snum, const void *vsr,
                            size_t n, const ips_stamp_t *R) {
  int ok = begin(s, "syscall-result") && crank_fields(s, crank, vat, dnum) &&
           gen_key(s->g, "syscallNum") && gen_u64(s->g, snum) &&
           gen_key(s->g, "vsr") && ips__json_embed_s(s->g, &s->js, vsr, n) == 0;
  return end(s, ok, R, 0);
}

int ips_slog_deliver_result(ips_slog_t *s, uint64_t crank, const char *vat,
                            uint64_t dnum, const ips_result_t *res) {
  const ips_stamp_t *D = NULL, *E = NULL;
  char tmp[24];
  size_t n;
  int64_t ns = 0;
  int ok;
  if (res->nstamps > 0 && res->stamps[0].kind == 'D')
    D = &res->stamps[0];
  if (res->nstamps > 0 && res->stamps[res->nstamps - 1].kind == 'E')
    E = &res->stamps[res->nstamps - 1];
  if (D && E)
    ns = E->mono_ns - D->mono_ns;
  ok = begin(s, "deliver-result") && crank_fields(s, crank, vat, dnum) &&
       gen_key(s->g, "dr") && OK(yajl_gen_array_open(s->g));
  if (ok && res->kind == IPS_RESULT_OK)
    ok = gen_str(s->g, "ok") &&
         ips__json_embed_s(s->g, &s->js, res->data, res->len) == 0;
  else if (ok && res->kind == IPS_RESULT_ERROR)
    /* The worker's bytes with their length: a NUL inside must not cut
     * the message (message is a C string for printing only). */
    ok = gen_str(s->g, "error") &&
         ips__json_text_s(s->g, &s->js, res->data, res->len) == 0;
  else if (ok)
    ok = gen_str(s->g, "error") &&
         ips__json_text_s(s->g, &s->js, res->message, strlen(res->message)) == 0;
  if (ok && res->metering_raw && res->metering_len > 0)
    ok = ips__json_embed_s(s->g, &s->js, res->metering_raw, res->metering_len) == 0;
  else if (ok)
    ok = OK(yajl_gen_null(s->g));
  ok = ok && OK(yajl_gen_array_close(s->g));
  n = ips_fmt_mono(tmp, ns < 0 ? 0 : ns);
  ok = ok && gen_key(s->g, "seconds") && OK(yajl_gen_number(s->g, tmp, n));
  if (ok && res->kind == IPS_RESULT_FAULT)
    ok = gen_key(s->g, "fault") && gen_str(s->g, ips_err_name(res->status));
  if (ok && res->metering_error)
    ok = gen_key(s->g, "meteringError") &&
         ips__json_text_s(s->g, &s->js, res->metering_error,
                        strlen(res->metering_error)) == 0;
  return end(s, ok, E, 1);
}

int ips_slog_console(ips_slog_t *s, const char *vat, int fd, const char *line,
                     size_t n) {
  int ok = begin(s, "console") && gen_key(s->g, "vatID") &&
           gen_str(s->g, vat) && gen_key(s->g, "fd") && gen_i64(s->g, fd) &&
           gen_key(s->g, "line") && ips__json_text_s(s->g, &s->js, line, n) == 0;
  return end(s, ok, NULL, 0);
}

int ips_slog_worker_start(ips_slog_t *s, const char *vat, int pid) {
  int ok = begin(s, "worker-start") && gen_key(s->g, "vatID") &&
           gen_str(s->g, vat) && gen_key(s->g, "pid") && gen_i64(s->g, pid);
  return end(s, ok, NULL, 0);
}

int ips_slog_worker_exit(ips_slog_t *s, const char *vat, int64_t exit_status,
                         int term_signal) {
  int ok = begin(s, "worker-exit") && gen_key(s->g, "vatID") &&
           gen_str(s->g, vat) && gen_key(s->g, "exitStatus") &&
           gen_i64(s->g, exit_status) && gen_key(s->g, "signal") &&
           gen_i64(s->g, term_signal);
  return end(s, ok, NULL, 1);
}

int ips_slog_worker_fault(ips_slog_t *s, const char *vat, int status,
                          const char *message) {
  int ok = begin(s, "worker-fault") && gen_key(s->g, "vatID") &&
           gen_str(s->g, vat) && gen_key(s->g, "fault") &&
           gen_str(s->g, ips_err_name(status)) && gen_key(s->g, "message") &&
           gen_str(s->g, message);
  return end(s, ok, NULL, 1);
}

int ips_slog_error(const ips_slog_t *s) { return s->err; }

uint64_t ips_slog_lines(const ips_slog_t *s) { return s->lines; }

int ips_slog_close(ips_slog_t *s) {
  int rc;
  if (!s)
    return 0;
  ips_slog_flush(s);
  rc = s->err;
  if (close(s->fd) < 0 && !rc)
    rc = -errno;
  yajl_gen_free(s->g);
  free(s->buf);
  free(s);
  return rc;
}
