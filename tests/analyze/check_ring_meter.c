/* check_ring_meter.c — a slogfile whose meterings are xsnap's alone (an
 * exact-mode ipcstamp-worker-xs: docs/xsnap.md) joined with the worker's
 * ring by ips_analysis_worker_rings(): every number known.  The ring is
 * written by the real producer (proto/ring.c) as the worker library
 * writes it; the slogfile is a SwingSet kernel's shape, with xsnap's own
 * timestamps a few microseconds before the ring's stamps of the same
 * moments.  Joined: the mono clock, cpu_ns and the span; a ring too small
 * for the run: the deliveries it lost said lapped, the rest joined; a
 * ring whose stamps do not read d (u r)* e: not joined. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze_suites.h"
#include "ipcstamp-ring.h"

#define MAXD 512
/* µs since the epoch of the first delivery: just after the ring was
 * opened, as a worker's deliveries are. */
static int64_t base_us;

typedef struct {
  int n;
  char clock[MAXD];
  int ring[MAXD], has_cpu[MAXD];
  int64_t cpu[MAXD], worker[MAXD];
  size_t marks[MAXD];
} seen_t;

static void on_delivery(void *arg, const ips_delivery_t *d) {
  seen_t *s = arg;
  ck_assert_int_lt(s->n, MAXD);
  s->clock[s->n] = d->clock;
  s->ring[s->n] = d->ring;
  s->has_cpu[s->n] = d->has_cpu;
  s->cpu[s->n] = d->cpu_ns;
  s->worker[s->n] = d->worker;
  s->marks[s->n] = d->n_marks;
  s->n++;
}

/* Delivery i starts at t = BASE + 10000 i µs: the kernel's D t, U t+150,
 * R t+200, E t+400; xsnap's timestamps t+10, t+100, t+250, t+350; the
 * ring's stamps one µs after each of xsnap's, a span t+20..t+40. */
static int64_t t0(int i) { return base_us + 10000LL * i; }

static void put(ips_ring_t *r, char kind, int64_t us, uint64_t dn, uint32_t up) {
  ips_stamp_t s;
  s.wall_us = us;
  s.mono_ns = us * 1000;
  s.kind = kind;
  ips_ring_stamp(r, &s, dn, up);
}

/* A worker ring of n deliveries in dir (size data bytes); bad: the first
 * delivery's stamps out of order. */
static void write_ring(const char *dir, size_t size, int n, int bad) {
  ips_ring_options_t o;
  ips_ring_t *r;
  char msg[256];
  int i;
  mkdir(dir, 0755);
  ips_ring_options_init(&o);
  o.dir = dir;
  o.size = size;
  o.vat = "v1";
  o.program = "ipcstamp-worker-xs";
  ck_assert_msg(ips_ring_open(&r, &o, msg, sizeof msg) == 0, "%s", msg);
  {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    base_us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec + 1000;
  }
  for (i = 0; i < n; i++) {
    int64_t t = t0(i);
    ips_stamp_t m;
    uint64_t dn = (uint64_t)i + 2; /* the worker's first command was an 'e' */
    put(r, 'd', t + 11, dn, 0);
    m.wall_us = t + 20;
    m.mono_ns = (t + 20) * 1000;
    m.kind = 'b';
    ips_ring_vm_mark(r, 'b', "xsnap.gc", 8, &m, dn);
    m.wall_us = t + 40;
    m.mono_ns = (t + 40) * 1000;
    ips_ring_vm_mark(r, 'e', "xsnap.gc", 8, &m, dn);
    put(r, bad && i == 0 ? 'r' : 'u', t + 101, dn, 1);
    put(r, bad && i == 0 ? 'u' : 'r', t + 251, dn, 1);
    ips_ring_cpu(r, 123000 + i, dn);
    put(r, 'e', t + 351, dn, 0);
  }
  ips_ring_close(r);
}

/* us as the kernel's time (seconds, 6 decimals) and its monotime (the
 * same clock as the worker's mono here: 9 decimals). */
static void sec(char *out, size_t size, int64_t us) {
  snprintf(out, size, "%lld.%06lld", (long long)(us / 1000000), (long long)(us % 1000000));
}
static void mono(char *out, size_t size, int64_t us) {
  snprintf(out, size, "%lld.%06lld000", (long long)(us / 1000000), (long long)(us % 1000000));
}

/* The kernel's slogfile of the same n deliveries, meterings xsnap's. */
static char *write_slog(int n) {
  size_t cap = (size_t)n * 1200 + 1, o = 0;
  char *s = malloc(cap), a[4][32], k[4][32], m[4][32];
  int i, j;
  static const int kt[4] = {0, 150, 200, 400}, xt[4] = {10, 100, 250, 350};
  ck_assert_ptr_nonnull(s);
  for (i = 0; i < n; i++) {
    for (j = 0; j < 4; j++) {
      sec(k[j], sizeof k[j], t0(i) + kt[j]);
      sec(a[j], sizeof a[j], t0(i) + xt[j]);
      mono(m[j], sizeof m[j], t0(i) + kt[j]);
    }
    o += (size_t)snprintf(s + o, cap - o,
        "{\"type\":\"deliver\",\"crankNum\":%d,\"vatID\":\"v1\",\"deliveryNum\":%d,\"replay\":false,"
        "\"vd\":[\"bringOutYourDead\"],\"time\":%s,\"monotime\":%s}\n"
        "{\"type\":\"syscall\",\"crankNum\":%d,\"vatID\":\"v1\",\"deliveryNum\":%d,\"syscallNum\":0,"
        "\"replay\":false,\"vsc\":[\"vatstoreGet\",\"k\"],\"time\":%s,\"monotime\":%s}\n"
        "{\"type\":\"syscall-result\",\"crankNum\":%d,\"vatID\":\"v1\",\"deliveryNum\":%d,\"syscallNum\":0,"
        "\"replay\":false,\"vsr\":[\"ok\",\"v\"],\"time\":%s,\"monotime\":%s}\n"
        "{\"type\":\"deliver-result\",\"crankNum\":%d,\"vatID\":\"v1\",\"deliveryNum\":%d,\"replay\":false,"
        "\"dr\":[\"ok\",null,{\"meterType\":\"xs-meter-36\",\"currentHeapCount\":1,\"compute\":5,"
        "\"allocate\":6,\"timestamps\":[%s,%s,%s,%s]}],\"time\":%s,\"monotime\":%s}\n",
        i + 1, i, k[0], m[0], i + 1, i, k[1], m[1], i + 1, i, k[2], m[2], i + 1, i, a[0], a[1],
        a[2], a[3], k[3], m[3]);
    ck_assert_int_lt(o, cap);
  }
  return s;
}

/* Analyse n deliveries' slogfile, with the rings of dir when not NULL. */
static ips_analysis_t *analyse(int n, const char *dir, seen_t *seen) {
  ips_analysis_options_t ao;
  ips_source_t *src;
  ips_analysis_t *a;
  char err[256], *text = write_slog(n);
  const char *path = tt_tmp("in.slog");
  FILE *f = fopen(path, "w");
  long k;
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
  free(text);
  memset(seen, 0, sizeof *seen);
  ips_analysis_options_init(&ao);
  ao.on_delivery = on_delivery;
  ao.arg = seen;
  ck_assert_int_eq(ips_analysis_new(&a, &ao), 0);
  if (dir) ck_assert_int_eq(ips_analysis_worker_rings(a, dir), 0);
  ck_assert_int_eq(ips_source_open(&src, path, NULL, err, sizeof err), 0);
  while ((k = ips_analysis_read(a, src, 0, err, sizeof err)) > 0)
    ;
  ck_assert_msg(k == 0, "analysis: %s", err);
  ips_analysis_finish(a);
  ips_source_close(src);
  return a;
}

START_TEST(joined) {
  const char *dir = tt_tmp("rings");
  seen_t s;
  ips_analysis_t *a;
  int i;
  write_ring(dir, 1 << 20, 3, 0);
  a = analyse(3, NULL, &s);
  ck_assert_int_eq(s.n, 3);
  ck_assert_int_eq(s.clock[0], 'w'); /* without the rings: xsnap's wall stamps */
  ck_assert_int_eq(s.ring[0], 0);
  ips_analysis_free(a);
  a = analyse(3, dir, &s);
  ck_assert_int_eq(s.n, 3);
  for (i = 0; i < 3; i++) {
    ck_assert_int_eq(s.ring[i], IPS_RING_JOINED);
    ck_assert_int_eq(s.clock[i], 'm');
    ck_assert(s.has_cpu[i]);
    ck_assert_int_eq(s.cpu[i], 123000 + i);
    ck_assert_uint_eq(s.marks[i], 1); /* the span xsnap.gc */
    /* the worker's own: (u - d) + (e - r) on the ring's mono stamps */
    ck_assert_int_eq(s.worker[i], (90 + 100) * 1000);
  }
  ck_assert_uint_eq(ips_analysis_stats(a)->n_ring_joined, 3);
  ck_assert_uint_eq(ips_analysis_stats(a)->n_ring_lapped, 0);
  ips_analysis_free(a);
}
END_TEST

START_TEST(lapped) {
  const char *dir = tt_tmp("small");
  const ips_stats_t *st;
  seen_t s;
  ips_analysis_t *a;
  int i, first_joined = -1;
  write_ring(dir, 4096, 200, 0);
  a = analyse(200, dir, &s);
  st = ips_analysis_stats(a);
  ck_assert_int_eq(s.n, 200);
  /* Each delivery is joined or said lapped: the lost ones first. */
  ck_assert_uint_eq(st->n_ring_joined + st->n_ring_lapped, 200);
  ck_assert_uint_gt(st->n_ring_lapped, 150);
  ck_assert_uint_gt(st->n_ring_joined, 0);
  for (i = 0; i < 200; i++) {
    if (s.ring[i] == IPS_RING_JOINED && first_joined < 0) first_joined = i;
    if (first_joined >= 0) ck_assert_int_eq(s.ring[i], IPS_RING_JOINED);
    else ck_assert_msg(s.ring[i] == IPS_RING_LAPPED && s.clock[i] == 'w', "delivery %d", i);
  }
  ips_analysis_free(a);
}
END_TEST

START_TEST(not_the_shape) {
  const char *dir = tt_tmp("bad");
  seen_t s;
  ips_analysis_t *a = NULL;
  write_ring(dir, 1 << 20, 2, 1);
  a = analyse(2, dir, &s);
  ck_assert_int_eq(s.n, 2);
  ck_assert_int_eq(s.ring[0], IPS_RING_MISSING); /* d r u e: not joined, said */
  ck_assert_int_eq(s.clock[0], 'w');
  ck_assert_int_eq(s.ring[1], IPS_RING_JOINED);
  ips_analysis_free(a);
}
END_TEST

START_TEST(bad_calls) {
  ips_analysis_options_t ao;
  ips_analysis_t *a;
  const char *file = tt_tmp("a-file"), *fifo = tt_tmp("a-fifo");
  FILE *f;
  ips_analysis_options_init(&ao);
  ck_assert_int_eq(ips_analysis_new(&a, &ao), 0);
  ck_assert_int_eq(ips_analysis_worker_rings(a, NULL), IPS_EINVAL);
  /* A folder the user named that is not one is said, not taken as rings
   * with nothing (every delivery NO RING, in silence). */
  ck_assert_int_eq(ips_analysis_worker_rings(a, tt_tmp("none")), -ENOENT);
  ck_assert_ptr_nonnull(f = fopen(file, "w"));
  fclose(f);
  ck_assert_int_eq(ips_analysis_worker_rings(a, file), -ENOTDIR);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  ck_assert_int_eq(ips_analysis_worker_rings(a, fifo), -ENOTDIR); /* no hang */
  mkdir(tt_tmp("empty"), 0755);
  ck_assert_int_eq(ips_analysis_worker_rings(a, tt_tmp("empty")), 0);
  ck_assert_int_eq(ips_analysis_worker_rings(a, tt_tmp("empty")), IPS_EINVAL); /* once */
  ips_analysis_free(a);
}
END_TEST

/* One dead worker's ring in dir: a process that wrote a delivery of vat
 * v9 and exited. */
static void dead_ring(const char *dir) {
  pid_t pid = fork();
  int st;
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    ips_ring_options_t o;
    ips_ring_t *r;
    char msg[256];
    ips_ring_options_init(&o);
    o.dir = dir;
    o.size = 4096;
    o.vat = "v9";
    o.program = "ipcstamp-worker-xs";
    if (ips_ring_open(&r, &o, msg, sizeof msg) != 0) _exit(1);
    put(r, 'd', base_us - 500, 2, 0);
    put(r, 'e', base_us - 400, 2, 0);
    ips_ring_close(r);
    _exit(0);
  }
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a dead worker's ring");
}

/* Where the folder lists pid's ring, and how many rings. */
static long listed_at(const char *dir, long pid, long *n) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char mine[32];
  long at = -1;
  snprintf(mine, sizeof mine, "%ld.ring", pid);
  ck_assert_ptr_nonnull(d);
  for (*n = 0; (e = readdir(d)) != NULL;) {
    if (!strstr(e->d_name, ".ring")) continue;
    if (!strcmp(e->d_name, mine)) at = *n;
    (*n)++;
  }
  closedir(d);
  return at;
}

/* write_ring's ring of n deliveries, written by a child that then exits
 * (base_us is the child's, sent back): its pid. */
static long child_ring(const char *dir, int n) {
  int fd[2], st;
  pid_t pid;
  ck_assert_int_eq(pipe(fd), 0);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(fd[0]);
    write_ring(dir, 1 << 16, n, 0);
    _exit(write(fd[1], &base_us, sizeof base_us) == sizeof base_us ? 0 : 1);
  }
  close(fd[1]);
  ck_assert_int_eq(read(fd[0], &base_us, sizeof base_us), sizeof base_us);
  close(fd[0]);
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the worker's ring");
  return pid;
}

/* A busy node's ring folder: the worker's ring listed after more than
 * IPS_RING_DIR_MAX_PROCS rings of workers that have exited.  The dead
 * ones read to their end make room: the worker's is found, every
 * delivery joined, and nothing is said left unread. */
START_TEST(crowded) {
  const char *dir = tt_tmp("crowded");
  char path[4200];
  seen_t s;
  ips_analysis_t *a;
  long at, n, i, ring = getpid();
  write_ring(dir, 1 << 16, 3, 0);
  for (i = 0; i < IPS_RING_DIR_MAX_PROCS + 44; i++)
    dead_ring(dir);
  /* The folder's order is the file system's.  tmpfs lists the newest
   * first: more dead rings put this process's past the bound.  ext4
   * lists by a hash of the name, where a ring listed early stays early
   * (one run in ten): then the ring is written again by children, each
   * a new name listed elsewhere, until one's is past the bound. */
  while ((at = listed_at(dir, ring, &n)) < IPS_RING_DIR_MAX_PROCS + 16 &&
         n < 4000)
    for (i = 0; i < 100; i++)
      dead_ring(dir);
  for (i = 0; at < IPS_RING_DIR_MAX_PROCS + 16 && i < 100; i++) {
    snprintf(path, sizeof path, "%s/%ld.ring", dir, ring);
    ck_assert_int_eq(unlink(path), 0);
    ring = child_ring(dir, 3);
    at = listed_at(dir, ring, &n);
  }
  ck_assert_int_ge(at, IPS_RING_DIR_MAX_PROCS);
  a = analyse(3, dir, &s);
  ck_assert_int_eq(s.n, 3);
  for (i = 0; i < 3; i++)
    ck_assert_msg(s.ring[i] == IPS_RING_JOINED, "delivery %ld: %d (ring listed "
                  "%ld of %ld)", i, s.ring[i], at, n);
  ck_assert_uint_eq(ips_analysis_worker_rings_skipped(a), 0);
  ips_analysis_free(a);
}
END_TEST

static void count_event(void *arg, const ips_ring_proc_t *p,
                        const ips_ring_event_t *ev) {
  (void)p;
  (void)ev;
  ++*(long *)arg;
}

/* A ring retired (retire_done) is not read again: at the polls after the
 * one that closed it, the folder still lists it, and each of its events
 * is counted once. */
START_TEST(retired_once) {
  const char *dir = tt_tmp("retired");
  ips_ring_dir_callbacks_t cb;
  ips_ring_dir_t *d;
  char msg[256];
  long events = 0, i, n;
  mkdir(dir, 0755);
  for (i = 0; i < IPS_RING_DIR_MAX_PROCS + 20; i++)
    dead_ring(dir); /* 2 events each */
  (void)listed_at(dir, getpid(), &n);
  memset(&cb, 0, sizeof cb);
  cb.on_event = count_event;
  cb.arg = &events;
  cb.retire_done = 1;
  ck_assert_int_eq(ips_ring_dir_open(&d, dir, &cb), 0);
  for (i = 0; i < 6; i++)
    ck_assert_int_ge(ips_ring_dir_poll(d, msg, sizeof msg), 0);
  ck_assert_int_eq(events, 2 * n);
  ck_assert_uint_le(ips_ring_dir_count(d), 20);
  ck_assert_uint_eq(ips_ring_dir_skipped(d), 0);
  ips_ring_dir_close(d);
}
END_TEST

Suite *ring_meter_suite(void) {
  Suite *s = suite_create("Worker rings");
  TCase *c = tcase_create("Core");
  tcase_add_test(c, joined);
  tcase_add_test(c, lapped);
  tcase_add_test(c, not_the_shape);
  tcase_add_test(c, bad_calls);
  tcase_add_test(c, crowded);
  tcase_add_test(c, retired_once);
  tcase_set_timeout(c, 120); /* crowded forks some hundreds of workers */
  suite_add_tcase(s, c);
  return s;
}
