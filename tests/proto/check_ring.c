/* check_ring.c — the live ring: producer (proto/ring.c) against reader
 * (analyze/ring_read.c), in-process, across threads and processes, across
 * format versions, after a crash, against corrupt files, and a real worker
 * writing its stamps into one. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipcstamp-ring-read.h"
#include "ipcstamp-ring.h"
#include "ring_util.h"
#include "worker_driver.h"

/* ------------------------------------------------------------------------
 * Helpers.
 */
static ips_ring_t *open_ring(size_t size) {
  ips_ring_options_t o;
  ips_ring_t *r;
  char msg[256];
  int rc;
  ips_ring_options_init(&o);
  o.dir = ru_tmpdir();
  o.size = size;
  o.program = "check_ring";
  rc = ips_ring_open(&r, &o, msg, sizeof msg);
  ck_assert_msg(rc == 0, "ips_ring_open: %s", msg);
  return r;
}

static ips_ring_reader_t *open_reader(const char *path) {
  ips_ring_reader_t *rd;
  char msg[256];
  int rc = ips_ring_reader_open(&rd, path, msg, sizeof msg);
  ck_assert_msg(rc == 0, "ips_ring_reader_open: %s", msg);
  return rd;
}

/* A stamp whose every field derives from i, so that a reader can tell a
 * whole event from a mixture of two.  mono_ns climbs (a reader refuses a
 * stamp that goes back) from below 0 (the field is signed). */
#define STAMP_MONO(i) ((int64_t)(i) * 3 - 1000000)
static void put_stamp(ips_ring_t *r, uint64_t i) {
  ips_stamp_t s;
  s.wall_us = (int64_t)i * 2;
  s.mono_ns = STAMP_MONO(i);
  s.kind = "duer"[i % 4];
  ips_ring_stamp(r, &s, i, (uint32_t)(i & 0xffff));
}

/* What a consistency-checking reader saw. */
typedef struct seen_s {
  uint64_t events, lost, bad, lost_calls;
  uint64_t next;      /* the seq expected next */
  int have_next;
  uint64_t first, last;
  char last_name[32];
} seen_t;

static int check_event(void *arg, const ips_ring_event_t *ev) {
  seen_t *s = arg;
  int64_t d = ips_ring_event_int(ev, "delivery", -1);
  const char *kind = ips_ring_event_str(ev, "kind");
  snprintf(s->last_name, sizeof s->last_name, "%s", ev->name);
  if (strcmp(ev->name, "stamp") != 0 || d < 0 || (uint64_t)d != ev->seq ||
      ips_ring_event_int(ev, "wall_us", 0) != d * 2 ||
      ips_ring_event_int(ev, "mono_ns", 1) != STAMP_MONO(d) ||
      ips_ring_event_int(ev, "upcall", -1) != (d & 0xffff) ||
      strlen(kind) != 1 || kind[0] != "duer"[d % 4])
    s->bad++;
  if (s->have_next && ev->seq != s->next) s->bad++;
  /* Where this reader joined: its first event, less any gap before it. */
  if (!s->events) s->first = ev->seq - s->lost;
  s->last = ev->seq;
  s->next = ev->seq + 1;
  s->have_next = 1;
  s->events++;
  return 0;
}

static void count_lost(void *arg, uint64_t n) {
  seen_t *s = arg;
  s->lost += n;
  s->lost_calls++;
  s->next += n;
}

/* Poll until nothing more comes. */
static void drain(ips_ring_reader_t *rd, seen_t *s) {
  int n;
  while ((n = ips_ring_reader_poll(rd, 0, check_event, count_lost, s)) > 0) {
  }
  ck_assert_msg(n == 0, "poll: %s", ips_ring_reader_message(rd));
}

/* ------------------------------------------------------------------------
 * Core
 */
typedef struct names_s {
  int stamp, attribution, mark;
  int64_t total_ns, crank;
  char vat[16], mark_name[40], kind[4];
} names_t;

static int by_name(void *arg, const ips_ring_event_t *ev) {
  names_t *n = arg;
  if (strcmp(ev->name, "stamp") == 0) {
    n->stamp++;
    snprintf(n->kind, sizeof n->kind, "%s", ips_ring_event_str(ev, "kind"));
    snprintf(n->vat, sizeof n->vat, "%s", ips_ring_event_str(ev, "vat"));
  } else if (strcmp(ev->name, "attribution") == 0) {
    n->attribution++;
    n->total_ns = ips_ring_event_int(ev, "total_ns", -1);
    n->crank = ips_ring_event_int(ev, "crank", -1);
    ck_assert_int_eq(ips_ring_event_int(ev, "pipe_ns", -1), 1);
    ck_assert_int_eq(ips_ring_event_int(ev, "worker_ns", -1), 2);
    ck_assert_int_eq(ips_ring_event_int(ev, "kernel_ns", -1), 3);
    ck_assert_int_eq(ips_ring_event_int(ev, "delivery", -1), 42);
    ck_assert_int_eq(ips_ring_event_int(ev, "mono_ns", -1), 99);
  } else if (strcmp(ev->name, "mark") == 0) {
    n->mark++;
    snprintf(n->mark_name, sizeof n->mark_name, "%s",
             ips_ring_event_str(ev, "name"));
    ck_assert_int_eq(ips_ring_event_int(ev, "mono_ns", -1), 7);
  }
  return 0;
}

START_TEST(ring_round_trip) {
  ips_ring_t *r = open_ring(0);
  ips_ring_reader_t *rd;
  ips_ring_info_t info;
  ips_ring_attribution_t a = {1, 2, 3, 6, 17, 42, NULL, 99};
  ips_stamp_t s = {5, 7, 'd', 0, 0};
  names_t n;
  char path[4200];

  snprintf(path, sizeof path, "%s/%ld.ring", ru_tmpdir(), (long)getpid());
  ck_assert_str_eq(ips_ring_path(r), path);
  ips_ring_set_vat(r, "v12");
  ips_ring_stamp(r, &s, 1, 0);
  ips_ring_attribution(r, &a);
  ips_ring_mark(r, "gc-start-of-a-rather-long-mark-name-cut", &s);
  ck_assert_uint_eq(ips_ring_written(r), 3);

  ck_assert_int_eq(ips_ring_reader_open_pid(&rd, ru_tmpdir(), (long)getpid(),
                                            NULL, 0),
                   0);
  memset(&n, 0, sizeof n);
  ck_assert_int_eq(ips_ring_reader_poll(rd, 0, by_name, NULL, &n), 3);
  ck_assert_int_eq(n.stamp, 1);
  ck_assert_int_eq(n.attribution, 1);
  ck_assert_int_eq(n.mark, 1);
  ck_assert_str_eq(n.kind, "d");
  ck_assert_str_eq(n.vat, "v12");
  ck_assert_int_eq(n.total_ns, 6);
  ck_assert_int_eq(n.crank, 17);
  ck_assert_str_eq(n.mark_name, "gc-start-of-a-rather-lon"
                                "g-mark-");  /* 31 bytes kept */
  /* Nothing new: a poll returns at once with nothing. */
  ck_assert_int_eq(ips_ring_reader_poll(rd, 0, by_name, NULL, &n), 0);
  ck_assert_int_eq(ips_ring_reader_info(rd, &info), 0);
  ck_assert_int_eq(info.pid, (long)getpid());
  ck_assert_uint_eq(info.role, IPS_RING_ROLE_WORKER);
  ck_assert_str_eq(info.program, "check_ring");
  ck_assert_str_eq(info.vat, "v12");
  ck_assert_uint_eq(info.data_size, IPS_RING_DEFAULT_SIZE);
  ck_assert_uint_eq(info.written, 3);
  ck_assert_uint_eq(info.overwritten, 0);
  ck_assert(info.alive);
  ck_assert_ptr_null(info.torn);
  ck_assert_int_gt(info.start_mono_ns, 0);
  ips_ring_reader_close(rd);
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

START_TEST(ring_max_and_seek) {
  ips_ring_t *r = open_ring(IPS_RING_MIN_SIZE);
  ips_ring_reader_t *rd;
  seen_t s;
  uint64_t i;
  for (i = 0; i < 10; i++) put_stamp(r, i);
  rd = open_reader(ips_ring_path(r));
  memset(&s, 0, sizeof s);
  /* max bounds one poll; the rest waits for the next. */
  ck_assert_int_eq(ips_ring_reader_poll(rd, 4, check_event, count_lost, &s), 4);
  ck_assert_int_eq(ips_ring_reader_poll(rd, 0, check_event, count_lost, &s), 6);
  ck_assert_uint_eq(s.bad, 0);
  ips_ring_reader_close(rd);
  /* A reader that starts at the end sees only what comes next. */
  rd = open_reader(ips_ring_path(r));
  ips_ring_reader_seek_end(rd);
  put_stamp(r, 10);
  memset(&s, 0, sizeof s);
  drain(rd, &s);
  ck_assert_uint_eq(s.events, 1);
  ck_assert_uint_eq(s.first, 10);
  ck_assert_uint_eq(s.bad, 0);
  ips_ring_reader_close(rd);
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

/* The event path wraps many times around a small ring: padding records at
 * the end, and a reader that keeps up loses nothing. */
START_TEST(ring_wraps) {
  ips_ring_t *r = open_ring(IPS_RING_MIN_SIZE + 16 * 3); /* 64 ∤ size */
  ips_ring_reader_t *rd = open_reader(ips_ring_path(r));
  seen_t s;
  uint64_t i;
  memset(&s, 0, sizeof s);
  for (i = 0; i < 5000; i++) {
    put_stamp(r, i);
    if (i % 20 == 19) drain(rd, &s);
  }
  drain(rd, &s);
  ck_assert_uint_eq(s.events, 5000);
  ck_assert_uint_eq(s.lost, 0);
  ck_assert_uint_eq(s.bad, 0);
  ck_assert_uint_gt(ips_ring_overwritten(r), 4000);
  ips_ring_reader_close(rd);
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

/* A slow reader lapped by a fast producer: it loses exactly the events
 * the producer overwrote after it last read, and says so once per gap. */
START_TEST(ring_lapped_exact) {
  ips_ring_t *r = open_ring(IPS_RING_MIN_SIZE);
  ips_ring_reader_t *rd = open_reader(ips_ring_path(r));
  ips_ring_info_t info;
  seen_t s;
  uint64_t i, over;
  memset(&s, 0, sizeof s);
  for (i = 0; i < 3; i++) put_stamp(r, i);
  drain(rd, &s);
  ck_assert_uint_eq(s.events, 3);
  for (; i < 1000; i++) put_stamp(r, i);
  over = ips_ring_overwritten(r);
  ck_assert_uint_gt(over, 3);
  drain(rd, &s);
  ck_assert_uint_eq(s.lost_calls, 1);
  ck_assert_uint_eq(s.lost, over - 3);
  ck_assert_uint_eq(ips_ring_reader_lost(rd), over - 3);
  ck_assert_uint_eq(s.events, 3 + (1000 - over));
  ck_assert_uint_eq(s.events + s.lost, 1000);
  ck_assert_uint_eq(s.last, 999);
  ck_assert_uint_eq(s.bad, 0);
  ck_assert_int_eq(ips_ring_reader_info(rd, &info), 0);
  ck_assert_uint_eq(info.overwritten, over);
  ck_assert_uint_eq(info.written, 1000);
  /* Lapped again, after a partial read of the ring. */
  ck_assert_int_eq(ips_ring_reader_poll(rd, 0, check_event, count_lost, &s), 0);
  for (; i < 1050; i++) put_stamp(r, i);  /* fewer than the ring holds */
  ck_assert_int_eq(ips_ring_reader_poll(rd, 5, check_event, count_lost, &s), 5);
  for (; i < 3000; i++) put_stamp(r, i);
  drain(rd, &s);
  ck_assert_uint_eq(s.events + s.lost, 3000);
  ck_assert_uint_eq(s.lost_calls, 2);
  ck_assert_uint_eq(s.bad, 0);
  ips_ring_reader_close(rd);
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

/* ------------------------------------------------------------------------
 * Many readers at once, on other threads, while the producer writes.
 */
typedef struct follower_s {
  const char *path;
  volatile int *done;
  seen_t s;
  int err;
  char msg[256];
} follower_t;

static void *follow(void *arg) {
  follower_t *f = arg;
  ips_ring_reader_t *rd;
  int rc = ips_ring_reader_open(&rd, f->path, f->msg, sizeof f->msg);
  if (rc != 0) {
    f->err = rc;
    return NULL;
  }
  for (;;) {
    int fin = __atomic_load_n(f->done, __ATOMIC_ACQUIRE);
    rc = ips_ring_reader_poll(rd, 0, check_event, count_lost, &f->s);
    if (rc < 0) {
      f->err = rc;
      snprintf(f->msg, sizeof f->msg, "%s", ips_ring_reader_message(rd));
      break;
    }
    if (fin && rc == 0) break;
  }
  ips_ring_reader_close(rd);
  return NULL;
}

START_TEST(ring_many_readers) {
  enum { NREADERS = 4, NEVENTS = 200000 };
  ips_ring_t *r = open_ring(IPS_RING_MIN_SIZE);
  follower_t f[NREADERS];
  pthread_t th[NREADERS];
  volatile int done = 0;
  uint64_t i;
  int k;
  for (k = 0; k < NREADERS; k++) {
    memset(&f[k], 0, sizeof f[k]);
    f[k].path = ips_ring_path(r);
    f[k].done = &done;
    ck_assert_int_eq(pthread_create(&th[k], NULL, follow, &f[k]), 0);
  }
  for (i = 0; i < NEVENTS; i++) put_stamp(r, i);
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  for (k = 0; k < NREADERS; k++) {
    pthread_join(th[k], NULL);
    ck_assert_msg(f[k].err == 0, "reader %d: %s", k, f[k].msg);
    /* Every event delivered was whole and in order; the rest is counted
     * as lost, and nothing is both or neither. */
    ck_assert_uint_eq(f[k].s.bad, 0);
    ck_assert_uint_gt(f[k].s.events, 0);
    ck_assert_uint_eq(f[k].s.last, NEVENTS - 1);
    ck_assert_uint_eq(f[k].s.first + f[k].s.events + f[k].s.lost, NEVENTS);
  }
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

/* Readers in other processes follow one producer too. */
START_TEST(ring_reader_processes) {
  enum { NPROC = 3, NEVENTS = 20000 };
  ips_ring_t *r = open_ring(IPS_RING_MIN_SIZE);
  pid_t pids[NPROC];
  uint64_t i;
  int k, st;
  for (k = 0; k < NPROC; k++) {
    pids[k] = fork();
    ck_assert_int_ge(pids[k], 0);
    if (pids[k] == 0) {
      ips_ring_reader_t *rd;
      seen_t s;
      memset(&s, 0, sizeof s);
      if (ips_ring_reader_open(&rd, ips_ring_path(r), NULL, 0) != 0) _exit(3);
      /* Follow until the last event arrives. */
      while (!(s.events && s.last == NEVENTS - 1))
        if (ips_ring_reader_poll(rd, 0, check_event, count_lost, &s) < 0) {
          fprintf(stderr, "reader process: %s\n", ips_ring_reader_message(rd));
          _exit(4);
        }
      _exit(s.bad == 0 && s.first + s.events + s.lost == NEVENTS ? 0 : 5);
    }
  }
  for (i = 0; i < NEVENTS; i++) put_stamp(r, i);
  for (k = 0; k < NPROC; k++) {
    ck_assert_int_eq(waitpid(pids[k], &st, 0), pids[k]);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "reader process %d: status 0x%x", k, st);
  }
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

/* ------------------------------------------------------------------------
 * Control: pause and resume, by the producer and by a reader.
 */
START_TEST(ring_pause_resume) {
  ips_ring_t *r = open_ring(0);
  ips_ring_reader_t *rd = open_reader(ips_ring_path(r));
  ips_ring_info_t info;
  seen_t s;
  memset(&s, 0, sizeof s);
  put_stamp(r, 0);
  ips_ring_pause(r);
  ck_assert(ips_ring_paused(r));
  put_stamp(r, 1);
  ck_assert_uint_eq(ips_ring_written(r), 1);
  ck_assert_int_eq(ips_ring_reader_info(rd, &info), 0);
  ck_assert(info.paused);
  ips_ring_resume(r);
  ck_assert(!ips_ring_paused(r));
  put_stamp(r, 1);
  /* From outside: the reader sets the control word. */
  ck_assert_int_eq(ips_ring_reader_set_paused(rd, 1), 0);
  ck_assert(ips_ring_paused(r));
  put_stamp(r, 2);
  ck_assert_uint_eq(ips_ring_written(r), 2);
  ck_assert_int_eq(ips_ring_reader_set_paused(rd, 0), 0);
  put_stamp(r, 2);
  drain(rd, &s);
  ck_assert_uint_eq(s.events, 3);
  ck_assert_uint_eq(s.bad, 0);
  ips_ring_reader_close(rd);
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

START_TEST(ring_start_paused) {
  ips_ring_options_t o;
  ips_ring_t *r;
  ips_ring_options_init(&o);
  o.dir = ru_tmpdir();
  o.paused = 1;
  ck_assert_int_eq(ips_ring_open(&r, &o, NULL, 0), 0);
  put_stamp(r, 0);
  ck_assert_uint_eq(ips_ring_written(r), 0);
  ips_ring_resume(r);
  put_stamp(r, 0);
  ck_assert_uint_eq(ips_ring_written(r), 1);
  ips_ring_close(r);
  /* A NULL ring is allowed everywhere on the event path. */
  put_stamp(NULL, 0);
  ips_ring_close(NULL);
  ru_cleanup();
}
END_TEST

START_TEST(ring_options) {
  ips_ring_options_t o;
  ips_ring_t *r;
  char msg[256];
  ips_ring_options_init(&o);
  ck_assert_ptr_null(o.dir);
  ck_assert_uint_eq(o.size, IPS_RING_DEFAULT_SIZE);
  setenv("IPCSTAMP_RING_DIR", "/some/dir", 1);
  setenv("IPCSTAMP_RING_SIZE", "65536", 1);
  ck_assert_int_eq(ips_ring_options_env(&o, msg, sizeof msg), 0);
  ck_assert_str_eq(o.dir, "/some/dir");
  ck_assert_uint_eq(o.size, 65536);
  setenv("IPCSTAMP_RING_SIZE", "1k", 1);
  ck_assert_int_eq(ips_ring_options_env(&o, msg, sizeof msg), IPS_EINVAL);
  ck_assert_ptr_nonnull(strstr(msg, "IPCSTAMP_RING_SIZE=\"1k\""));
  setenv("IPCSTAMP_RING_SIZE", "99999999999999999999999", 1);
  ck_assert_int_eq(ips_ring_options_env(&o, msg, sizeof msg), IPS_EINVAL);
  setenv("IPCSTAMP_RING_SIZE", "4095", 1);
  ck_assert_int_eq(ips_ring_options_env(&o, msg, sizeof msg), IPS_EINVAL);
  ck_assert_uint_eq(o.size, 65536);
  /* Bad options at open: no directory, a size out of range, a directory
   * that is not there. */
  ips_ring_options_init(&o);
  ck_assert_int_eq(ips_ring_open(&r, &o, msg, sizeof msg), IPS_EINVAL);
  ck_assert_ptr_nonnull(strstr(msg, "no directory"));
  o.dir = ru_tmpdir();
  o.size = (size_t)IPS_RING_MAX_SIZE + 1;
  ck_assert_int_eq(ips_ring_open(&r, &o, msg, sizeof msg), IPS_EINVAL);
  ck_assert_ptr_nonnull(strstr(msg, "size"));
  o.size = 0;
  o.dir = "/nonexistent/ipcstamp";
  ck_assert_int_eq(ips_ring_open(&r, &o, msg, sizeof msg), -ENOENT);
  ck_assert_ptr_nonnull(strstr(msg, "/nonexistent/ipcstamp/"));
  ck_assert_ptr_null(r);
  ru_cleanup();
}
END_TEST

/* ------------------------------------------------------------------------
 * Version skew.
 */
static const ru_field_t old_stamp[] = {
    /* An older producer: no vat, no upcall, and its own order. */
    {"mono_ns", 0, 8, IPS__RING_INT},
    {"wall_us", 8, 8, IPS__RING_INT},
    {"kind", 16, 1, IPS__RING_STR},
    {"delivery", 20, 4, IPS__RING_UINT},
};
static const ru_field_t new_stamp[] = {
    /* A newer producer: a field added in front moves every other one. */
    {"cpu_ns", 0, 8, IPS__RING_INT},
    {"kind", 8, 4, IPS__RING_STR},
    {"upcall", 12, 4, IPS__RING_UINT},
    {"wall_us", 16, 8, IPS__RING_INT},
    {"mono_ns", 24, 8, IPS__RING_INT},
    {"delivery", 32, 8, IPS__RING_UINT},
    {"vat", 40, 16, IPS__RING_STR},
};
static const ru_field_t gc_fields[] = {
    {"heap_bytes", 0, 8, IPS__RING_UINT},
};

typedef struct skew_s {
  int stamps, unknown;
  int64_t wall[4], mono[4], delivery[4], upcall[4];
  char kind[4][4], vat[4][16];
  int has_vat[4];
} skew_t;

/* A reader of this version: it knows "stamp" and ignores what it does not
 * know, by name. */
static int skew_reader(void *arg, const ips_ring_event_t *ev) {
  skew_t *k = arg;
  int i;
  if (strcmp(ev->name, "stamp") != 0) {
    k->unknown++;
    return 0;
  }
  i = k->stamps++;
  if (i >= 4) return 0;
  k->wall[i] = ips_ring_event_int(ev, "wall_us", -1);
  k->mono[i] = ips_ring_event_int(ev, "mono_ns", -1);
  k->delivery[i] = ips_ring_event_int(ev, "delivery", -1);
  k->upcall[i] = ips_ring_event_int(ev, "upcall", -1);
  snprintf(k->kind[i], 4, "%s", ips_ring_event_str(ev, "kind"));
  k->has_vat[i] = ips_ring_event_field(ev, "vat") != NULL;
  snprintf(k->vat[i], 16, "%s", ips_ring_event_str(ev, "vat"));
  return 0;
}

START_TEST(ring_newer_producer) {
  /* Type ids differ from ours too: names decide, not numbers. */
  const ru_type_t types[] = {
      {"gc", 1, 16, gc_fields, 1},
      {"stamp", 7, 64, new_stamp, 7},
  };
  ru_image_t im;
  unsigned char p[64], g[16];
  int64_t v;
  uint64_t u;
  uint32_t u32;
  ips_ring_reader_t *rd;
  skew_t k;
  memset(&k, 0, sizeof k);
  ru_image_init(&im, 8192, types, 2, (long)getpid());
  memset(p, 0, sizeof p);
  v = 99; memcpy(p + 0, &v, 8);
  memcpy(p + 8, "u", 1);
  u32 = 3; memcpy(p + 12, &u32, 4);
  v = 1000; memcpy(p + 16, &v, 8);
  v = 2000; memcpy(p + 24, &v, 8);
  u = 5; memcpy(p + 32, &u, 8);
  memcpy(p + 40, "v9", 2);
  u = 1 << 20; memset(g, 0, sizeof g); memcpy(g, &u, 8);
  ru_image_put(&im, 1, g, 16, 0);
  ru_image_put(&im, 7, p, 64, 0);
  /* A record longer than its table entry (room for more later): skipped
   * by its length. */
  ru_image_put(&im, 1, g, 16, 64);
  ru_image_put(&im, 7, p, 64, 0);
  rd = open_reader(ru_write("new.ring", im.bytes, im.size));
  ck_assert_int_eq(ips_ring_reader_poll(rd, 0, skew_reader, NULL, &k), 4);
  ck_assert_int_eq(k.stamps, 2);
  ck_assert_int_eq(k.unknown, 2);
  ck_assert_int_eq(k.wall[1], 1000);
  ck_assert_int_eq(k.mono[1], 2000);
  ck_assert_int_eq(k.delivery[1], 5);
  ck_assert_int_eq(k.upcall[1], 3);
  ck_assert_str_eq(k.kind[1], "u");
  ck_assert_str_eq(k.vat[1], "v9");
  ips_ring_reader_close(rd);
  ru_image_free(&im);
  ru_cleanup();
}
END_TEST

START_TEST(ring_older_producer) {
  const ru_type_t types[] = {{"stamp", 1, 32, old_stamp, 4}};
  ru_image_t im;
  unsigned char p[32];
  int64_t v;
  uint32_t u32;
  ips_ring_reader_t *rd;
  skew_t k;
  memset(&k, 0, sizeof k);
  ru_image_init(&im, 4096, types, 1, (long)getpid());
  memset(p, 0, sizeof p);
  v = 2000; memcpy(p + 0, &v, 8);
  v = 1000; memcpy(p + 8, &v, 8);
  p[16] = 'r';
  u32 = 8; memcpy(p + 20, &u32, 4);
  ru_image_put(&im, 1, p, 32, 0);
  rd = open_reader(ru_write("old.ring", im.bytes, im.size));
  ck_assert_int_eq(ips_ring_reader_poll(rd, 0, skew_reader, NULL, &k), 1);
  ck_assert_int_eq(k.wall[0], 1000);
  ck_assert_int_eq(k.mono[0], 2000);
  ck_assert_int_eq(k.delivery[0], 8);
  ck_assert_str_eq(k.kind[0], "r");
  /* Fields the older producer lacks are absent, not zero or garbage. */
  ck_assert_int_eq(k.upcall[0], -1);
  ck_assert(!k.has_vat[0]);
  ck_assert_str_eq(k.vat[0], "");
  ips_ring_reader_close(rd);
  ru_image_free(&im);
  ru_cleanup();
}
END_TEST

/* ------------------------------------------------------------------------
 * Dead producers.
 */
START_TEST(ring_dead_process) {
  ips_ring_reader_t *rd;
  ips_ring_info_t info;
  seen_t s;
  int st;
  pid_t pid;
  ru_tmpdir();  /* before the fork: the child writes there */
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    ips_ring_t *r;
    ips_ring_options_t o;
    uint64_t i;
    ips_ring_options_init(&o);
    o.dir = ru_tmpdir();
    if (ips_ring_open(&r, &o, NULL, 0) != 0) _exit(3);
    for (i = 0; i < 10; i++) put_stamp(r, i);
    _exit(0);  /* no close: the file outlives the process as it is */
  }
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert_int_eq(st, 0);
  ck_assert_int_eq(ips_ring_reader_open_pid(&rd, ru_tmpdir(), (long)pid, NULL,
                                            0),
                   0);
  memset(&s, 0, sizeof s);
  drain(rd, &s);
  ck_assert_uint_eq(s.events, 10);
  ck_assert_uint_eq(s.bad, 0);
  ck_assert_int_eq(ips_ring_reader_info(rd, &info), 0);
  ck_assert(!info.alive);
  ck_assert_int_eq(info.pid, (long)pid);
  ck_assert_ptr_null(info.torn);
  ips_ring_reader_close(rd);
  ru_cleanup();
}
END_TEST

/* A producer SIGKILLed while it writes as fast as it can: every event the
 * reader delivers is whole, and a record begun but not finished is
 * reported as torn, never delivered. */
START_TEST(ring_killed_mid_event) {
  char path[4200];
  ips_ring_reader_t *rd;
  ips_ring_info_t info;
  seen_t s;
  int st, tries;
  pid_t pid;
  ru_tmpdir();
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    ips_ring_t *r;
    ips_ring_options_t o;
    uint64_t i;
    ips_ring_options_init(&o);
    o.dir = ru_tmpdir();
    o.size = IPS_RING_MIN_SIZE;
    if (ips_ring_open(&r, &o, NULL, 0) != 0) _exit(3);
    for (i = 0;; i++) put_stamp(r, i);
  }
  snprintf(path, sizeof path, "%s/%ld.ring", ru_tmpdir(), (long)pid);
  /* Wait for the ring to fill and wrap a few times, then kill. */
  for (tries = 0; tries < 2000; tries++) {
    if (access(path, F_OK) == 0) {
      rd = open_reader(path);
      ck_assert_int_eq(ips_ring_reader_info(rd, &info), 0);
      ips_ring_reader_close(rd);
      if (info.written > 1000) break;
    }
    usleep(1000);
  }
  kill(pid, SIGKILL);
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFSIGNALED(st));

  rd = open_reader(path);
  memset(&s, 0, sizeof s);
  drain(rd, &s);
  ck_assert_int_eq(ips_ring_reader_info(rd, &info), 0);
  ck_assert(!info.alive);
  ck_assert_uint_gt(s.events, 0);
  ck_assert_uint_eq(s.bad, 0);
  /* written is counted just before head moves: a kill in between leaves
   * it one ahead. */
  ck_assert_uint_ge(s.last + 1, info.written - 1);
  ck_assert_uint_le(s.last + 1, info.written);
  ips_ring_reader_close(rd);

  /* The kill may or may not have landed inside a record: make sure of one
   * by doing what the producer does first (the record's header at head)
   * and stopping there, as a kill would. */
  {
    size_t n;
    unsigned char *b = ru_read(path, &n);
    ips__ring_hdr_t h;
    ips__ring_rec_t rec;
    uint64_t off;
    uint64_t tail, over, need;
    memcpy(&h, b, sizeof h);
    off = h.head % h.data_size;
    /* As the producer does: room first (tail moves past what the new
     * record overwrites), then the record's header. */
    tail = h.tail;
    over = h.overwritten;
    need = h.head + (off + 64 > h.data_size ? h.data_size - off : 0) + 64;
    while (need - tail > h.data_size) {
      memcpy(&rec, b + h.header_size + tail % h.data_size, sizeof rec);
      tail += rec.len;
      if (rec.type != IPS__RING_PAD) over++;
    }
    atomic_store(&((ips__ring_hdr_t *)(void *)b)->tail, tail);
    atomic_store(&((ips__ring_hdr_t *)(void *)b)->overwritten, over);
    rec.flags = 0;
    rec.seq = s.last + 1;
    if (off + 64 > h.data_size) {
      rec.len = (uint32_t)(h.data_size - off);
      rec.type = IPS__RING_PAD;
      memcpy(b + h.header_size + off, &rec, sizeof rec);
      off = 0;
    }
    rec.len = 64;
    rec.type = IPS__RING_T_STAMP;
    memcpy(b + h.header_size + off, &rec, sizeof rec);
    memset(b + h.header_size + off + sizeof rec, 0xAA, 8);  /* half a payload */
    rd = open_reader(ru_write("torn.ring", b, n));
    free(b);
  }
  {
    uint64_t last = s.last;
    memset(&s, 0, sizeof s);
    drain(rd, &s);
    ck_assert_uint_eq(s.bad, 0);
    ck_assert_uint_eq(s.last, last);
  }
  ck_assert_int_eq(ips_ring_reader_info(rd, &info), 0);
  ck_assert_ptr_nonnull(info.torn);
  ck_assert_str_eq(info.torn, "stamp");
  ips_ring_reader_close(rd);
  ru_cleanup();
}
END_TEST

/* ------------------------------------------------------------------------
 * Bad input: corrupt ring files are clear errors.
 */
static void expect_open_error(const char *name, const void *b, size_t n,
                              int code, const char *needle) {
  ips_ring_reader_t *rd;
  char msg[256];
  int rc = ips_ring_reader_open(&rd, ru_write(name, b, n), msg, sizeof msg);
  ck_assert_msg(rc == code, "%s: rc %d (%s), expected %d", name, rc, msg, code);
  ck_assert_ptr_null(rd);
  ck_assert_msg(strstr(msg, needle) != NULL, "%s: message \"%s\" lacks \"%s\"",
                name, msg, needle);
}

static void expect_poll_error(const char *name, const void *b, size_t n,
                              const char *needle) {
  ips_ring_reader_t *rd = open_reader(ru_write(name, b, n));
  ips_ring_info_t info;
  seen_t s;
  int rc;
  memset(&s, 0, sizeof s);
  while ((rc = ips_ring_reader_poll(rd, 0, check_event, count_lost, &s)) > 0) {
  }
  ck_assert_msg(rc == IPS_ERING, "%s: poll returned %d", name, rc);
  ck_assert_msg(strstr(ips_ring_reader_message(rd), needle) != NULL,
                "%s: message \"%s\" lacks \"%s\"", name,
                ips_ring_reader_message(rd), needle);
  /* The error sticks. */
  ck_assert_int_eq(ips_ring_reader_poll(rd, 0, check_event, count_lost, &s),
                   IPS_ERING);
  ck_assert_int_eq(ips_ring_reader_info(rd, &info), IPS_ERING);
  ips_ring_reader_close(rd);
}

static unsigned char *good_ring(size_t *n, ips__ring_hdr_t **h) {
  ips_ring_t *r = open_ring(IPS_RING_MIN_SIZE);
  unsigned char *b;
  uint64_t i;
  for (i = 0; i < 5; i++) put_stamp(r, i);
  b = ru_read(ips_ring_path(r), n);
  ips_ring_close(r);
  *h = (ips__ring_hdr_t *)(void *)b;
  return b;
}

START_TEST(ring_bad_headers) {
  size_t n;
  ips__ring_hdr_t *h;
  unsigned char *b = good_ring(&n, &h), *c = malloc(n);
  size_t tab = h->types_off;
  ips__ring_type_t t;
  ips__ring_field_t f;
  ck_assert_ptr_nonnull(c);

#define FRESH() memcpy(c, b, n)
  expect_open_error("empty", c, 0, IPS_ERING, "not a ring file");
  expect_open_error("short", b, 100, IPS_ERING, "not a ring file");
  expect_open_error("truncated", b, n - 4096, IPS_ERING, "truncated");
  FRESH(); memcpy(c, "XPSRING1", 8);
  expect_open_error("magic", c, n, IPS_ERING, "bad magic");
  FRESH(); ((ips__ring_hdr_t *)(void *)c)->version = 2;
  expect_open_error("version", c, n, IPS_EVERSION, "format version 2");
  FRESH(); ((ips__ring_hdr_t *)(void *)c)->endian = 0x04030201;
  expect_open_error("endian", c, n, IPS_EVERSION, "byte order");
  FRESH(); ((ips__ring_hdr_t *)(void *)c)->header_size = 0x7fffffc0;
  expect_open_error("header_size", c, n, IPS_ERING, "header size");
  FRESH(); ((ips__ring_hdr_t *)(void *)c)->header_size = 100;
  expect_open_error("header_size_small", c, n, IPS_ERING, "header size");
  FRESH(); ((ips__ring_hdr_t *)(void *)c)->data_size = 1ull << 62;
  expect_open_error("data_size", c, n, IPS_ERING, "data size");
  FRESH(); ((ips__ring_hdr_t *)(void *)c)->data_size += 16;
  expect_open_error("data_size_file", c, n, IPS_ERING, "file size");
  FRESH(); ((ips__ring_hdr_t *)(void *)c)->pid = -1;
  expect_open_error("pid", c, n, IPS_ERING, "pid");
  FRESH(); ((ips__ring_hdr_t *)(void *)c)->ntypes = 1000000;
  expect_open_error("ntypes", c, n, IPS_ERING, "event types");
  FRESH(); ((ips__ring_hdr_t *)(void *)c)->ntypes = 200;
  expect_open_error("ntypes_past", c, n, IPS_ERING, "event type 4 at byte");
  FRESH(); ((ips__ring_hdr_t *)(void *)c)->types_off = 1u << 30;
  expect_open_error("types_off", c, n, IPS_ERING, "table offset");

  /* The table itself. */
  FRESH(); memcpy(&t, c + tab, sizeof t); memset(t.name, 'x', sizeof t.name);
  memcpy(c + tab, &t, sizeof t);
  expect_open_error("type_name", c, n, IPS_ERING, "name not a NUL-terminated");
  FRESH(); memcpy(&t, c + tab, sizeof t); t.id = 0; memcpy(c + tab, &t, sizeof t);
  expect_open_error("type_id0", c, n, IPS_ERING, "id 0");
  FRESH(); memcpy(&t, c + tab, sizeof t); t.payload = 1u << 20;
  memcpy(c + tab, &t, sizeof t);
  expect_open_error("payload", c, n, IPS_ERING, "payload of");
  FRESH(); memcpy(&t, c + tab, sizeof t); t.nfields = 65535;
  memcpy(c + tab, &t, sizeof t);
  expect_open_error("nfields", c, n, IPS_ERING, "fields");
  FRESH(); memcpy(&f, c + tab + 32, sizeof f); f.offset = 60000;
  memcpy(c + tab + 32, &f, sizeof f);
  expect_open_error("field_offset", c, n, IPS_ERING, "does not fit");
  FRESH(); memcpy(&f, c + tab + 64, sizeof f); f.size = 3; f.kind = IPS__RING_INT;
  memcpy(c + tab + 64, &f, sizeof f);
  expect_open_error("field_size", c, n, IPS_ERING, "does not fit");
  FRESH(); memcpy(&f, c + tab + 32, sizeof f); f.kind = 9;
  memcpy(c + tab + 32, &f, sizeof f);
  expect_open_error("field_kind", c, n, IPS_ERING, "kind 9");
  FRESH(); memcpy(&t, c + tab, sizeof t); t.id = 2; memcpy(c + tab, &t, sizeof t);
  expect_open_error("dup_id", c, n, IPS_ERING, "repeats");

  {
    ips_ring_reader_t *rd;
    char msg[256];
    ck_assert_int_eq(ips_ring_reader_open(&rd, ru_tmpdir(), msg, sizeof msg),
                     IPS_ERING);
    ck_assert_ptr_nonnull(strstr(msg, "not a regular file"));
    ck_assert_int_eq(ips_ring_reader_open_pid(&rd, ru_tmpdir(), 1, msg,
                                              sizeof msg),
                     -ENOENT);
    ck_assert_ptr_nonnull(strstr(msg, "1.ring"));
  }
#undef FRESH
  free(b);
  free(c);
  ru_cleanup();
}
END_TEST

START_TEST(ring_bad_records) {
  size_t n;
  ips__ring_hdr_t *h;
  unsigned char *b = good_ring(&n, &h), *c = malloc(n);
  unsigned char *data;
  ips__ring_rec_t rec;
  ck_assert_ptr_nonnull(c);
#define FRESH() \
  (memcpy(c, b, n), data = c + h->header_size, memcpy(&rec, data + 64, 16))
#define PUT() memcpy(data + 64, &rec, 16)
  /* The second record (at 64) broken in each way. */
  FRESH(); rec.len = 24; PUT();
  expect_poll_error("len24", c, n, "length 24");
  FRESH(); rec.len = 0; PUT();
  expect_poll_error("len0", c, n, "length 0");
  FRESH(); rec.len = 0xfffffff0u; PUT();
  expect_poll_error("lenhuge", c, n, "length 4294967280");
  FRESH(); rec.type = 77; PUT();
  expect_poll_error("type", c, n, "type 77 is not in the header");
  FRESH(); rec.seq = 9; PUT();
  expect_poll_error("seq", c, n, "event number 9, expected 1");
  FRESH(); rec.len = 16; PUT();
  expect_poll_error("short", c, n, "too short");
  FRESH(); rec.type = IPS__RING_PAD; PUT();
  expect_poll_error("pad", c, n, "padding");
  /* Counters out of their window. */
  FRESH(); atomic_store(&((ips__ring_hdr_t *)(void *)c)->head, 8);
  expect_poll_error("head16", c, n, "head 8");
  FRESH(); atomic_store(&((ips__ring_hdr_t *)(void *)c)->tail, 1u << 20);
  expect_poll_error("tail", c, n, "not a window");
  FRESH(); atomic_store(&((ips__ring_hdr_t *)(void *)c)->head, 1ull << 40);
  expect_poll_error("head_far", c, n, "not a window");
#undef FRESH
#undef PUT
  free(b);
  free(c);
  ru_cleanup();
}
END_TEST

/* ------------------------------------------------------------------------
 * A real worker writes its stamps into its ring.
 */
typedef struct wstamps_s {
  int n;
  char kind[64];
  int64_t wall[64], mono[64];
  uint64_t delivery[64], upcall[64];
} wstamps_t;

static int collect(void *arg, const ips_ring_event_t *ev) {
  wstamps_t *w = arg;
  if (strcmp(ev->name, "stamp") != 0 || w->n >= 64) return 0;
  w->kind[w->n] = ips_ring_event_str(ev, "kind")[0];
  w->wall[w->n] = ips_ring_event_int(ev, "wall_us", 0);
  w->mono[w->n] = ips_ring_event_int(ev, "mono_ns", 0);
  w->delivery[w->n] = (uint64_t)ips_ring_event_int(ev, "delivery", 0);
  w->upcall[w->n] = (uint64_t)ips_ring_event_int(ev, "upcall", 0);
  w->n++;
  return 0;
}

static void deliver(wd_t *d, const char *cmd, wd_meter_t *m) {
  wd_result_t res;
  char err[256];
  ck_assert_int_eq(wd_command(d, '?', cmd, strlen(cmd), NULL, NULL, &res), 0);
  ck_assert_int_eq(res.tag, '.');
  ck_assert_msg(wd_meter_parse(res.meter, NULL, m, err, sizeof err) == 0, "%s",
                err);
  wd_result_free(&res);
}

START_TEST(ring_worker_stamps) {
  char env0[4200];
  const char *env[] = {env0, "IPCSTAMP_RING_SIZE=65536", NULL};
  const char *path = wd_path("worker/ipcstamp-worker-c");
  const char *argv[] = {path, NULL};
  wd_t d;
  wd_meter_t m[2];
  wstamps_t w;
  ips_ring_reader_t *rd;
  ips_ring_info_t info;
  int i, j, k = 0;
  char msg[256];

  snprintf(env0, sizeof env0, "IPCSTAMP_RING_DIR=%s", ru_tmpdir());
  ck_assert_int_eq(wd_spawn(&d, path, argv, env, 0), 0);
  deliver(&d, "{\"upcalls\":3}", &m[0]);
  deliver(&d, "{\"upcalls\":1}", &m[1]);
  ck_assert_str_eq(m[0].kinds, "dururure");
  ck_assert_str_eq(m[1].kinds, "dure");

  ck_assert_msg(ips_ring_reader_open_pid(&rd, ru_tmpdir(), (long)d.pid, msg,
                                         sizeof msg) == 0,
                "%s", msg);
  memset(&w, 0, sizeof w);
  ck_assert_int_eq(ips_ring_reader_poll(rd, 0, collect, NULL, &w), 12);
  ck_assert_int_eq(ips_ring_reader_info(rd, &info), 0);
  ck_assert(info.alive);
  ck_assert_uint_eq(info.role, IPS_RING_ROLE_WORKER);
  ck_assert_uint_eq(info.data_size, 65536);
  /* The ring holds exactly the metering's stamps, in order, with the
   * delivery and upcall indexes. */
  for (i = 0; i < 2; i++) {
    uint64_t up = 0;
    for (j = 0; j < (int)m[i].n; j++, k++) {
      ck_assert_int_eq(w.kind[k], m[i].kinds[j]);
      ck_assert_int_eq(w.wall[k], m[i].wall_us[j]);
      ck_assert_int_eq(w.mono[k], m[i].mono_ns[j]);
      ck_assert_uint_eq(w.delivery[k], (uint64_t)i + 1);
      if (w.kind[k] == 'u') up++;
      ck_assert_uint_eq(w.upcall[k],
                        w.kind[k] == 'u' || w.kind[k] == 'r' ? up : 0);
    }
  }
  ck_assert_int_eq(k, w.n);
  ips_ring_reader_close(rd);
  wd_meter_free(&m[0]);
  wd_meter_free(&m[1]);
  ck_assert_int_eq(wd_send(&d, 'q', "", 0), 0);
  ck_assert_int_eq(wd_wait(&d), 0);
  wd_free(&d);
  ru_cleanup();
}
END_TEST

START_TEST(ring_worker_bad_dir) {
  const char *env[] = {"IPCSTAMP_RING_DIR=/nonexistent/ipcstamp", NULL};
  const char *env2[] = {"IPCSTAMP_RING_DIR=/tmp", "IPCSTAMP_RING_SIZE=12",
                        NULL};
  const char *path = wd_path("worker/ipcstamp-worker-c");
  const char *argv[] = {path, NULL};
  wd_t d;
  char *err;
  ck_assert_int_eq(wd_spawn(&d, path, argv, env, 0), 0);
  ck_assert_int_eq(wd_wait(&d), 1);
  err = wd_stderr(&d);
  ck_assert_msg(strstr(err, "ring: cannot create /nonexistent/ipcstamp/") != NULL,
                "%s", err);
  free(err);
  wd_free(&d);
  ck_assert_int_eq(wd_spawn(&d, path, argv, env2, 0), 0);
  ck_assert_int_eq(wd_wait(&d), 1);
  err = wd_stderr(&d);
  ck_assert_msg(strstr(err, "IPCSTAMP_RING_SIZE=\"12\"") != NULL, "%s", err);
  free(err);
  wd_free(&d);
}
END_TEST

/* ------------------------------------------------------------------------ */
int main(void) {
  Suite *s = suite_create("ring");
  TCase *core = tcase_create("Core");
  TCase *limits = tcase_create("Limits");
  TCase *bad = tcase_create("Bad input");
  SRunner *sr;
  int failed;

  tcase_add_test(core, ring_round_trip);
  tcase_add_test(core, ring_max_and_seek);
  tcase_add_test(core, ring_wraps);
  tcase_add_test(core, ring_pause_resume);
  tcase_add_test(core, ring_start_paused);
  tcase_add_test(core, ring_options);
  tcase_add_test(core, ring_newer_producer);
  tcase_add_test(core, ring_older_producer);
  tcase_add_test(core, ring_worker_stamps);
  tcase_add_test(limits, ring_lapped_exact);
  tcase_add_test(limits, ring_many_readers);
  tcase_add_test(limits, ring_reader_processes);
  tcase_add_test(limits, ring_dead_process);
  tcase_add_test(limits, ring_killed_mid_event);
  tcase_add_test(bad, ring_bad_headers);
  tcase_add_test(bad, ring_bad_records);
  tcase_add_test(bad, ring_worker_bad_dir);
  suite_add_tcase(s, core);
  suite_add_tcase(s, limits);
  suite_add_tcase(s, bad);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
