/* fuzz_ring.c — libFuzzer target for the ring reader (analyze/ring_read.c)
 * and what `ipcstamp otel --ring` makes of its events (tools/otel/ring.c).
 *
 * Each input is a whole ring file: it is put in an anonymous memory file
 * and opened, polled and described like a ring of a dead process.  Besides
 * "no crash, no leak, no read outside the mapping", a reader either refuses
 * the file with a message, or delivers events whose numbers climb by one
 * (less any gap it reported) and whose fields are the table's.
 *
 * Every event then goes to otel's joiner twice, as a worker's ring and as
 * a parent's (one file has one role; as both, its own stamps and
 * attributions can join into deliveries): a delivery it hands out has
 * whole stamps, and VM marks inside the worker's d..e, of a length >= 0,
 * named in printable UTF-8; and encodes as OTLP.
 *
 * Then the file is read as `top --once`, `watch` and `otel --ring` read it:
 * from a directory (the ring as 1.ring) through the library's
 * ips_ring_dir_t, every event and any refusal through its callbacks and
 * its deliveries joined; then through tools/top's model, its figures
 * computed (ips_live_stats: the sums of hostile values must not overflow,
 * which UBSan checks).  And as `report --worker-rings` reads it: a
 * slogfile of an exact-mode xsnap worker's deliveries (xsnap's timestamps
 * alone) of the seeds' vat, joined with the ring's stamps, marks and CPU
 * time (analyze/ring_meter.c): each delivery joined, said lapped, or
 * neither, never more. */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "ipcstamp-analyze.h"
#include "ipcstamp-ring-read.h"
#include "ipcstamp-ring.h"
#include "otel.h"
#include "top.h"

typedef struct {
  uint64_t next, events, lost;
  int have;
  ips_ring_join_t *join;
  ips_ring_info_t info;
} state_t;

static int utf8_printable(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, k, j;
  while (u[i]) {
    if (u[i] < 0x20 || u[i] == 0x7f) return 0;
    k = u[i] < 0x80 ? 0 : u[i] >= 0xc2 && u[i] <= 0xdf ? 1
        : u[i] >= 0xe0 && u[i] <= 0xef ? 2 : u[i] >= 0xf0 && u[i] <= 0xf4 ? 3
        : 9;
    if (k == 9) return 0;
    for (j = 1; j <= k; j++)
      if ((u[i + j] & 0xc0) != 0x80) return 0;
    i += k + 1;
  }
  return 1;
}

static void on_joined(void *arg, const ips_delivery_t *d,
                      const ips_stats_t *st) {
  size_t i, k = 2 + 2 * d->n_up;
  otlp_req_t req;
  otel_ids_t ids;
  (void)arg;
  otel_ids_init(&ids, st);
  ids.with_pid = 1;
  CHECK(d->n_up < 4096);
  CHECK(d->marks_dropped >= 0 && d->marks_unbalanced >= 0);
  CHECK(d->n_marks == 0 || d->marks != NULL);
  for (i = 0; i < d->n_marks; i++) {
    const ips_delivery_mark_t *m = &d->marks[i];
    CHECK(m->kind == 'm' || m->kind == 's');
    CHECK(m->at >= d->W[0] && m->at <= d->W[k - 1]);
    CHECK(m->dur >= 0 && m->dur <= d->W[k - 1] - m->at);
    CHECK(m->kind == 's' || m->dur == 0);
    CHECK(m->depth >= 0 && m->wseg <= d->n_up);
    CHECK(m->name[0] && utf8_printable(m->name));
    CHECK(i == 0 || m->at >= d->marks[i - 1].at);
  }
  if (otlp_req_init(&req, "\"k\":1") == 0) {
    otlp_req_delivery(&req, &ids, st, d, NULL);
    size_t n;
    (void)otlp_req_end(&req, &n);
    otlp_req_free(&req);
  }
}

static int on_event(void *arg, const ips_ring_event_t *ev) {
  state_t *s = arg;
  size_t i;
  CHECK(ev->name && ev->name[0]);
  CHECK(!s->have || ev->seq == s->next);
  for (i = 0; i < ev->nfields; i++) {
    const ips_ring_field_t *f = &ev->fields[i];
    CHECK(f->name && f->name[0]);
    CHECK(ips_ring_event_field(ev, f->name) != NULL);
    if (f->kind == IPS_RING_FIELD_STR) CHECK(strlen(f->s) == f->len);
  }
  s->next = ev->seq + 1;
  s->have = 1;
  s->events++;
  if (s->join) {
    ips_ring_info_t as = s->info;
    as.role = IPS_RING_ROLE_WORKER;
    ips_ring_join_event(s->join, 2, &as, as.vat, ev);
    as.role = IPS_RING_ROLE_PARENT;
    ips_ring_join_event(s->join, 1, &as, as.vat, ev);
  }
  return 0;
}

static void on_lost(void *arg, uint64_t n) {
  state_t *s = arg;
  CHECK(n > 0);
  s->lost += n;
  s->next += n;
}

static void model_event(void *arg, const ips_ring_proc_t *p,
                        const ips_ring_event_t *ev) {
  (void)arg;
  CHECK(!p->error[0] && ev->name[0]);
}

static void model_error(void *arg, const ips_ring_proc_t *p) {
  size_t i;
  ++*(int *)arg;
  /* The message top shows and watch prints: printable ASCII only. */
  CHECK(p->error[0]);
  for (i = 0; p->error[i]; i++)
    CHECK((unsigned char)p->error[i] >= 0x20 && (unsigned char)p->error[i] < 0x7f);
}

static char dir[64]; /* the rings' directory, one per process */

static void remove_dir(void) { rmdir(dir); }

/* The ring as the live tools read it: the library's directory with its
 * joiner (watch, otel --ring), then top's model over it (top --once). */
/* The ring in dir (1.ring) joined to two deliveries of v7. */
static void through_worker_rings(void) {
  static const char slog[] =
      "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v7\",\"deliveryNum\":0,"
      "\"vd\":[\"bringOutYourDead\"],\"time\":1795300856.504200}\n"
      "{\"type\":\"deliver-result\",\"crankNum\":1,\"vatID\":\"v7\",\"deliveryNum\":0,"
      "\"dr\":[\"ok\",null,{\"compute\":1,\"timestamps\":[1795300856.504227,"
      "1795300856.504240]}],\"time\":1795300856.504300}\n"
      "{\"type\":\"deliver\",\"crankNum\":2,\"vatID\":\"v7\",\"deliveryNum\":1,"
      "\"vd\":[\"bringOutYourDead\"],\"time\":1795300856.504400}\n"
      "{\"type\":\"deliver-result\",\"crankNum\":2,\"vatID\":\"v7\",\"deliveryNum\":1,"
      "\"dr\":[\"ok\",null,{\"compute\":1,\"timestamps\":[1795300856.504410,"
      "1795300856.505500]}],\"time\":1795300856.505600}\n";
  char path[128], err[256];
  ips_analysis_options_t ao;
  ips_analysis_t *a;
  ips_source_t *src;
  FILE *f;
  snprintf(path, sizeof path, "%s/s.slog", dir);
  if (!(f = fopen(path, "w"))) return;
  fputs(slog, f);
  fclose(f);
  ips_analysis_options_init(&ao);
  CHECK(ips_analysis_new(&a, &ao) == 0);
  CHECK(ips_analysis_worker_rings(a, dir) == 0);
  if (ips_source_open(&src, path, NULL, err, sizeof err) == 0) {
    const ips_stats_t *st;
    while (ips_analysis_read(a, src, 0, err, sizeof err) > 0)
      ;
    ips_analysis_finish(a);
    ips_source_close(src);
    st = ips_analysis_stats(a);
    CHECK(st->n_ring_joined + st->n_ring_lapped <= st->all.n);
  }
  ips_analysis_free(a);
  unlink(path);
}

static void through_dir(const uint8_t *data, size_t size) {
  static top_t t;
  ips_ring_dir_callbacks_t cb;
  ips_ring_dir_t *d;
  ips_ring_join_counts_t c;
  char file[96], tmp[96], msg[256];
  ips_live_stats_t st;
  int fd, errors = 0;
  size_t i;
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/tmp/fuzz_ring.XXXXXX");
    if (!mkdtemp(dir)) return;
    atexit(remove_dir);
  }
  snprintf(file, sizeof file, "%s/1.ring", dir);
  snprintf(tmp, sizeof tmp, "%s/x", dir);
  fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return;
  if (size && write(fd, data, size) != (ssize_t)size) {
    close(fd);
    return;
  }
  close(fd);
  if (rename(tmp, file) != 0) return;
  memset(&cb, 0, sizeof cb);
  cb.on_event = model_event;
  cb.on_error = model_error;
  cb.on_delivery = on_joined;
  cb.arg = &errors;
  cb.poll_max = 5; /* several polls, as a backlog is read */
  CHECK(ips_ring_dir_open(&d, dir, &cb) == 0);
  for (i = 0; i < 4; i++)
    CHECK(ips_ring_dir_poll(d, msg, sizeof msg) >= 0);
  CHECK(ips_ring_dir_count(d) == 1);
  CHECK(errors <= 1);
  CHECK((ips_ring_dir_proc(d, 0)->error[0] != 0) == (errors == 1));
  ips_ring_dir_finish(d, &c);
  ips_ring_dir_close(d);
  through_worker_rings();
  CHECK(top_init(&t, dir, NULL, 0) == 0);
  for (i = 0; i < 4; i++)
    CHECK(top_refresh(&t, msg, sizeof msg) == 0);
  CHECK(t.nprocs == 1);
  ips_live_stats(&t.procs[0]->hist, INT64_MAX, INT64_MAX, &st);
  ips_live_stats(&t.procs[0]->hist, INT64_MIN, 1000000000, &st);
  ips_live_stats(&t.procs[0]->hist, 0, 1, &st);
  top_free(&t);
  unlink(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64], msg[256];
  ips_ring_reader_t *r;
  ips_ring_info_t info;
  state_t s;
  int fd, rc, rounds;
  through_dir(data, size);
  fd = memfd_create("fuzz_ring", MFD_CLOEXEC);
  if (fd < 0) return 0;
  if (size && write(fd, data, size) != (ssize_t)size) {
    close(fd);
    return 0;
  }
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  rc = ips_ring_reader_open(&r, path, msg, sizeof msg);
  close(fd);
  if (rc != 0) {
    CHECK(r == NULL && msg[0] != '\0');
    return 0;
  }
  memset(&s, 0, sizeof s);
  s.join = ips_ring_join_new(on_joined, NULL);
  if (ips_ring_reader_info(r, &s.info) != 0) memset(&s.info, 0, sizeof s.info);
  /* A static file: one poll reads everything; a second finds nothing. */
  for (rounds = 0; rounds < 3; rounds++) {
    rc = ips_ring_reader_poll(r, rounds == 0 ? 7 : 0, on_event, on_lost, &s);
    if (rc < 0) {
      CHECK(ips_ring_reader_message(r)[0] != '\0');
      CHECK(ips_ring_reader_info(r, &info) == rc);
      break;
    }
    if (rounds == 2) CHECK(rc == 0);
  }
  if (rc >= 0) {
    CHECK(ips_ring_reader_info(r, &info) == 0);
    CHECK(ips_ring_reader_lost(r) == s.lost);
  }
  if (s.join) {
    ips_ring_join_tick(s.join, 1);
    ips_ring_join_free(s.join);
  }
  ips_ring_reader_close(r);
  return 0;
}
