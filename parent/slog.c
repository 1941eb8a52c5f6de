/* slog.c — the slogfile writer (docs/slogfile.md).
 *
 * Each record is generated with yajl_gen in the documented field order and
 * appended, with its newline, to one buffer; the buffer is written only at
 * record boundaries.  On a regular file a failed write is cut back to the
 * last complete line, so the last line on disk is always whole.  The first
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

#include "crank.h"
#include "ipcstamp-parent.h"
#include "ipcstamp-slog.h"
#include "json.h"

/* Lines are written once this much is buffered (and at every
 * deliver-result). */
#define SLOG_FLUSH_AT 65536
/* A record being written goes to a regular file as it is made once this
 * much of it is buffered, so that a 100 MB result is not held twice (the
 * frame, and its copy); a failure cuts the file back. */
#define SLOG_SPILL_AT (1u << 20)

struct ips_slog_s {
  int fd;
  int err;
  int regular;      /* a regular file: can be cut back after a failure */
  uint64_t good;    /* where the last complete line ends (file offset) */
  ips__out_t out;   /* complete lines, then the record being written;
                       out.base: bytes written to the file */
  uint64_t rec;     /* where the record being written starts */
  yajl_gen g;       /* prints the records into out */
  yajl_gen eg;      /* prints embedded payloads into out (json.h) */
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

/* The type strings, from the one schema (ipcstamp-slog.h). */
static const char *const type_name[IPS_SLOG_NTYPES] = {
#define X(id, type, status) type,
    IPS_SLOG_RECORDS(X)
#undef X
};

/* "type":..., then the common prefix of the SwingSet records. */
static int begin(ips_slog_t *s, ips_slog_type_t t) {
  const char *type = type_name[t];
  if (s->err)
    return 0;
  s->rec = ips__out_pos(&s->out);
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

/* An untrusted payload as the next value (json.h). */
static int embed(ips_slog_t *s, const void *p, size_t n) {
  return ips__json_embed(s->g, s->eg, &s->out, p, n) == 0;
}

/* Write p[0..n) at the file's end (out.base, which the caller advances).
 * On failure the error sticks and a regular file is cut back to its last
 * complete line: half a line would break every reader. */
static int slog_write(void *ctx, const char *p, size_t n) {
  ips_slog_t *s = ctx;
  size_t done = 0;
  uint64_t keep;
  while (done < n) {
    ssize_t w = write(s->fd, p + done, n - done);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      s->err = -errno;
      /* The lines that made it: up to good, or to the last newline of
       * what this call wrote. */
      keep = s->good < s->out.base ? s->good : s->out.base;
      while (done > 0 && p[done - 1] != '\n')
        done--;
      if (done > 0)
        keep = s->out.base + done;
      if (s->regular && ftruncate(s->fd, (off_t)keep) == 0)
        (void)lseek(s->fd, (off_t)keep, SEEK_SET);
      return -1;
    }
    done += (size_t)w;
  }
  return 0;
}

/* Take back the file's bytes from pos on: a record that spilled and then
 * failed (only regular files spill). */
static int slog_cut(void *ctx, uint64_t pos) {
  ips_slog_t *s = ctx;
  if (ftruncate(s->fd, (off_t)pos) != 0 ||
      lseek(s->fd, (off_t)pos, SEEK_SET) < 0) {
    s->err = -errno;
    return -1;
  }
  return 0;
}

int ips_slog_flush(ips_slog_t *s) {
  if (s->err || s->out.len == 0)
    return s->err;
  if (slog_write(s, s->out.p, s->out.len) != 0)
    return s->err;
  s->out.base += s->out.len;
  s->out.len = 0;
  return 0;
}

/* "time" and "monotime" close every record, and its newline.  The record
 * was printed straight into out; a record that failed is cut back out. */
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
  if (ok)
    ips__out_print(&s->out, "\n", 1);
  if (!ok || s->out.oom) {
    /* No memory, or a bug: fail loudly, with none of the record in the
     * file.  (A failed write has cut the file back already, and its error
     * stuck.) */
    if (!s->err) {
      s->out.oom = 0;
      ips__out_cut(&s->out, s->rec);
      if (!s->err)
        s->err = IPS_ENOMEM;
    }
    s->out.len = 0;
    return s->err;
  }
  s->good = ips__out_pos(&s->out);
  s->lines++;
  if (flush || s->out.len >= SLOG_FLUSH_AT)
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

/* A vatID no reader would take is refused before anything is written
 * (not a sticky error: the writer is still good). */
static int vat_ok(const char *vat) {
  return vat && strlen(vat) <= IPS_SLOG_VAT_MAX;
}

int ips_slog_open(ips_slog_t **out, const char *path, int flags, int argc,
                  char **argv) {
  ips_slog_t *s;
  ips_stamp_t now;
  int fd, regular = 0, ok, i, rc;
  *out = NULL;
  fd = open_file(path, flags, &regular);
  if (fd < 0)
    return fd;
  s = calloc(1, sizeof *s);
  if (!s || !(s->out.p = malloc(SLOG_FLUSH_AT * 2)) ||
      !(s->g = yajl_gen_alloc(NULL)) || !(s->eg = yajl_gen_alloc(NULL))) {
    if (s) {
      if (s->g)
        yajl_gen_free(s->g);
      free(s->out.p);
    }
    free(s);
    close(fd);
    return IPS_ENOMEM;
  }
  s->out.cap = SLOG_FLUSH_AT * 2;
  s->fd = fd;
  s->regular = regular;
  if (regular) { /* a pipe cannot take bytes back: records stay whole */
    s->out.spill_at = SLOG_SPILL_AT;
    s->out.spill = slog_write;
    s->out.cut = slog_cut;
    s->out.ctx = s;
  }
  yajl_gen_config(s->g, yajl_gen_validate_utf8, 1);
  yajl_gen_config(s->g, yajl_gen_print_callback, ips__out_print, &s->out);
  yajl_gen_config(s->eg, yajl_gen_validate_utf8, 1);
  yajl_gen_config(s->eg, yajl_gen_print_callback, ips__out_print, &s->out);
  /* ipcstamp run has no kernel to initialise: its init is the opening of
   * the file, and the header SwingSet has no record for rides on
   * kernel-init-start. */
  rc = ips_clock_read(&now);
  if (rc) {
    ips_slog_close(s);
    return rc;
  }
  ok = begin(s, IPS_SLOG_KERNEL_INIT_START) && gen_key(s->g, "ipcstamp") &&
       OK(yajl_gen_map_open(s->g)) && gen_key(s->g, "v") &&
       gen_i64(s->g, IPS_METERING_VERSION) && gen_key(s->g, "slog") &&
       gen_i64(s->g, IPS_SLOG_FORMAT) && OK(yajl_gen_map_close(s->g)) &&
       gen_key(s->g, "version") && gen_str(s->g, PACKAGE_VERSION) &&
       gen_key(s->g, "pid") && gen_i64(s->g, getpid()) &&
       gen_key(s->g, "argv") && OK(yajl_gen_array_open(s->g));
  for (i = 0; ok && argv && i < argc; i++)
    ok = ips__json_text(s->g, argv[i], strlen(argv[i])) == 0;
  ok = ok && OK(yajl_gen_array_close(s->g));
  rc = end(s, ok, &now, 0);
  if (rc == 0)
    rc = end(s, begin(s, IPS_SLOG_KERNEL_INIT_FINISH), &now, 1);
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
  int ok, rc;
  if (!vat_ok(vat))
    return IPS_EINVAL;
  /* SwingSet frames each delivery in a crank; both records are at D. */
  ok = begin(s, IPS_SLOG_CRANK_START) && gen_key(s->g, "crankType") &&
       gen_str(s->g, IPS_SLOG_CRANK_TYPE) && gen_key(s->g, "crankNum") &&
       gen_u64(s->g, crank) && gen_key(s->g, "message") &&
       ips__crank_message(s->g, vat, vd, n);
  rc = end(s, ok, D, 0);
  if (rc)
    return rc;
  ok = begin(s, IPS_SLOG_DELIVER) && crank_fields(s, crank, vat, dnum) &&
       gen_key(s->g, "vd") && embed(s, vd, n);
  return end(s, ok, D, 0);
}

/* "runDelayNs": the parent's wait for a CPU since its previous stamp of
 * this worker, when the stamp carries it (ips_child_options_t.run_delay);
 * nothing otherwise.  In a syscall it goes before vsc: the reader skips
 * from vsc, a payload, straight to the record's time. */
static int run_delay(ips_slog_t *s, const ips_stamp_t *st) {
  if (!st || !st->has_run_delay)
    return 1;
  return gen_key(s->g, "runDelayNs") &&
         gen_u64(s->g, (uint64_t)(st->run_delay_ns < 0 ? 0
                                                       : st->run_delay_ns));
}

int ips_slog_syscall(ips_slog_t *s, uint64_t crank, const char *vat,
                     uint64_t dnum, uint64_t snum, const void *vsc, size_t n,
                     const ips_stamp_t *U) {
  int ok;
  if (!vat_ok(vat))
    return IPS_EINVAL;
  ok = begin(s, IPS_SLOG_SYSCALL) && crank_fields(s, crank, vat, dnum) &&
       gen_key(s->g, "syscallNum") && gen_u64(s->g, snum) &&
       run_delay(s, U) && gen_key(s->g, "vsc") && embed(s, vsc, n);
  return end(s, ok, U, 0);
}

int ips_slog_syscall_result(ips_slog_t *s, uint64_t crank, const char *vat,
                            uint64_t dnum, uint64_t snum, const void *vsr,
                            size_t n, const ips_stamp_t *R) {
  int ok;
  if (!vat_ok(vat))
    return IPS_EINVAL;
  ok = begin(s, IPS_SLOG_SYSCALL_RESULT) &&
       crank_fields(s, crank, vat, dnum) && gen_key(s->g, "syscallNum") &&
       gen_u64(s->g, snum) && gen_key(s->g, "vsr") && embed(s, vsr, n);
  return end(s, ok, R, 0);
}

int ips_slog_deliver_result(ips_slog_t *s, uint64_t crank, const char *vat,
                            uint64_t dnum, const ips_result_t *res) {
  const ips_stamp_t *D = NULL, *E = NULL;
  char tmp[24];
  size_t n;
  int64_t ns = 0;
  int ok, rc;
  if (!vat_ok(vat))
    return IPS_EINVAL;
  if (res->nstamps > 0 && res->stamps[0].kind == 'D')
    D = &res->stamps[0];
  if (res->nstamps > 0 && res->stamps[res->nstamps - 1].kind == 'E')
    E = &res->stamps[res->nstamps - 1];
  if (D && E)
    ns = E->mono_ns - D->mono_ns;
  ok = begin(s, IPS_SLOG_DELIVER_RESULT) &&
       crank_fields(s, crank, vat, dnum) && gen_key(s->g, "dr") &&
       OK(yajl_gen_array_open(s->g));
  if (ok && res->kind == IPS_RESULT_OK)
    ok = gen_str(s->g, "ok") && embed(s, res->data, res->len);
  else if (ok && res->kind == IPS_RESULT_ERROR)
    /* The worker's bytes with their length: a NUL inside must not cut the
     * message (res->message is a C string, for printing only). */
    ok = gen_str(s->g, "error") && ips__json_text(s->g, res->data, res->len) == 0;
  else if (ok)
    ok = gen_str(s->g, "error") &&
         ips__json_text(s->g, res->message, strlen(res->message)) == 0;
  /* The child's one parse of the metering already re-serialised it. */
  if (ok && res->metering_json)
    ok = ips__json_raw(s->g, res->metering_json, res->metering_json_len) == 0;
  else if (ok && res->metering_raw && res->metering_len > 0)
    ok = embed(s, res->metering_raw, res->metering_len);
  else if (ok)
    ok = OK(yajl_gen_null(s->g));
  ok = ok && OK(yajl_gen_array_close(s->g));
  n = ips_fmt_mono(tmp, ns < 0 ? 0 : ns);
  ok = ok && gen_key(s->g, "seconds") && OK(yajl_gen_number(s->g, tmp, n)) &&
       run_delay(s, E);
  if (ok && res->kind == IPS_RESULT_FAULT)
    ok = gen_key(s->g, "fault") && gen_str(s->g, ips_err_name(res->status));
  if (ok && res->metering_error)
    ok = gen_key(s->g, "meteringError") &&
         ips__json_text(s->g, res->metering_error,
                        strlen(res->metering_error)) == 0;
  rc = end(s, ok, E, 0);
  if (rc)
    return rc;
  /* The crank ends with its delivery, at E too. */
  ok = begin(s, IPS_SLOG_CRANK_FINISH) && gen_key(s->g, "crankNum") &&
       gen_u64(s->g, crank);
  return end(s, ok, E, 1);
}

int ips_slog_console(ips_slog_t *s, const char *vat, int fd, const char *line,
                     size_t n) {
  int ok;
  if (!vat_ok(vat))
    return IPS_EINVAL;
  ok = begin(s, IPS_SLOG_CONSOLE) && gen_key(s->g, "vatID") &&
       gen_str(s->g, vat) && gen_key(s->g, "source") &&
       gen_str(s->g, IPS_SLOG_CONSOLE_SOURCE) && gen_key(s->g, "level") &&
       gen_str(s->g, fd == 2 ? "error" : "log") && gen_key(s->g, "args") &&
       OK(yajl_gen_array_open(s->g)) && ips__json_text(s->g, line, n) == 0 &&
       OK(yajl_gen_array_close(s->g)) && gen_key(s->g, "fd") &&
       gen_i64(s->g, fd);
  return end(s, ok, NULL, 0);
}

int ips_slog_worker_start(ips_slog_t *s, const char *vat, int pid) {
  int ok;
  if (!vat_ok(vat))
    return IPS_EINVAL;
  ok = begin(s, IPS_SLOG_CREATE_VAT) && gen_key(s->g, "vatID") &&
       gen_str(s->g, vat) && gen_key(s->g, "dynamic") &&
       OK(yajl_gen_bool(s->g, 0)) && gen_key(s->g, "description") &&
       gen_str(s->g, "ipcstamp worker") && gen_key(s->g, "name") &&
       gen_str(s->g, vat) && gen_key(s->g, "managerType") &&
       gen_str(s->g, IPS_SLOG_MANAGER_TYPE) && gen_key(s->g, "pid") &&
       gen_i64(s->g, pid);
  return end(s, ok, NULL, 0);
}

/* SwingSet's reason for a terminated vat is capdata; ours is a sentence
 * with no character smallcaps would need to quote. */
static int exit_info(ips_slog_t *s, int64_t exit_status, int term_signal) {
  char body[96];
  int n;
  if (term_signal)
    n = snprintf(body, sizeof body, "#\"worker killed by signal %d\"",
                 term_signal);
  else
    n = snprintf(body, sizeof body, "#\"worker exited with code %lld\"",
                 (long long)exit_status);
  return OK(yajl_gen_map_open(s->g)) && gen_key(s->g, "body") &&
         OK(yajl_gen_string(s->g, (const unsigned char *)body, (size_t)n)) &&
         gen_key(s->g, "slots") && OK(yajl_gen_array_open(s->g)) &&
         OK(yajl_gen_array_close(s->g)) && OK(yajl_gen_map_close(s->g));
}

int ips_slog_worker_exit(ips_slog_t *s, const char *vat, int64_t exit_status,
                         int term_signal) {
  int ok;
  if (!vat_ok(vat))
    return IPS_EINVAL;
  ok = begin(s, IPS_SLOG_TERMINATE) && gen_key(s->g, "vatID") &&
       gen_str(s->g, vat) && gen_key(s->g, "shouldReject") &&
       OK(yajl_gen_bool(s->g, exit_status != 0 || term_signal != 0)) &&
       gen_key(s->g, "info") && exit_info(s, exit_status, term_signal) &&
       gen_key(s->g, "exitStatus") && gen_i64(s->g, exit_status) &&
       gen_key(s->g, "signal") && gen_i64(s->g, term_signal);
  return end(s, ok, NULL, 1);
}

/* A fault outside a command is the vat's end as SwingSet records one
 * (terminate, rejecting), with what went wrong in ipcstamp's own fields;
 * written at once: the process may take the parent down next. */
int ips_slog_worker_fault(ips_slog_t *s, const char *vat, int status,
                          const char *message) {
  static const char body[] = "#\"worker fault outside a command\"";
  int ok;
  if (!vat_ok(vat))
    return IPS_EINVAL;
  ok = begin(s, IPS_SLOG_TERMINATE) && gen_key(s->g, "vatID") &&
       gen_str(s->g, vat) && gen_key(s->g, "shouldReject") &&
       OK(yajl_gen_bool(s->g, 1)) && gen_key(s->g, "info") &&
       OK(yajl_gen_map_open(s->g)) && gen_key(s->g, "body") &&
       OK(yajl_gen_string(s->g, (const unsigned char *)body, sizeof body - 1)) &&
       gen_key(s->g, "slots") && OK(yajl_gen_array_open(s->g)) &&
       OK(yajl_gen_array_close(s->g)) && OK(yajl_gen_map_close(s->g)) &&
       gen_key(s->g, "fault") && gen_str(s->g, ips_err_name(status)) &&
       gen_key(s->g, "message") &&
       ips__json_text(s->g, message, strlen(message)) == 0;
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
  yajl_gen_free(s->eg);
  free(s->out.p);
  free(s);
  return rc;
}
