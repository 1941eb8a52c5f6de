/* check_top.c — `ipcstamp top`'s model (tools/top/) and the ring
 * directory it reads through (libipcstamp-analyze's ips_ring_dir_t): the
 * order of its rows (grouped by run, the busiest run first, a run's parent
 * first, then its busiest workers), which rings' writers are dead,
 * --clean's removal of exactly those, and a directory's good and bad
 * rings through its callbacks.  Deterministic: the rows are built by hand with fixed
 * times, and the writers are this process and children it has reaped. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipcstamp-ring.h"
#include "ring_util.h"
#include "top/top.h"

#define NOW 1000000000000LL

/* A row: role, pid, ppid, and deliveries of the given totals that ended
 * just before NOW (unreadable: a ring the reader refused). */
static top_proc_t *row(top_t *t, unsigned role, long pid, long ppid,
                       const int64_t *totals, size_t n, int unreadable) {
  top_proc_t *p = calloc(1, sizeof *p);
  ips_ring_proc_t *r = calloc(1, sizeof *r);
  size_t i;
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_nonnull(r);
  r->pid = pid;
  r->ppid = ppid;
  r->info.role = role;
  if (unreadable)
    snprintf(r->error, sizeof r->error, "not a ring file");
  p->ring = r;
  for (i = 0; i < n; i++) {
    p->hist.done[i].end_mono_ns = NOW - 1000;
    p->hist.done[i].total_ns = totals[i];
    p->hist.done[i].worker_ns = totals[i];
    p->hist.done[i].pipe_ns = -1;
  }
  p->hist.ndone = n;
  t->procs[t->nprocs++] = p;
  return p;
}

START_TEST(test_order) {
  static top_t t;
  const top_proc_t *o[TOP_MAX_PROCS];
  const int64_t a[] = {5000000}, a1[] = {1000000}, a2[] = {3000000};
  const int64_t b1[] = {6000000, 4000000}, b2[] = {1000000};
  long want[] = {201, 202, 100, 102, 101, 301, 401}, run[] = {200, 200, 100, 100, 100, 301, 0};
  size_t i, n;
  memset(&t, 0, sizeof t);
  /* Listed in no useful order, as readdir gives them. */
  row(&t, IPS_RING_ROLE_WORKER, 101, 100, a1, 1, 0);
  row(&t, IPS_RING_ROLE_WORKER, 301, 0, NULL, 0, 0);   /* parent unknown */
  row(&t, 0, 401, 0, NULL, 0, 1);                      /* cannot be read */
  row(&t, IPS_RING_ROLE_WORKER, 202, 200, b2, 1, 0);   /* a run without */
  row(&t, IPS_RING_ROLE_PARENT, 100, 1, a, 1, 0);      /* ring of its own */
  row(&t, IPS_RING_ROLE_WORKER, 201, 200, b1, 2, 0);
  row(&t, IPS_RING_ROLE_WORKER, 102, 100, a2, 1, 0);
  n = top_order(&t, NOW, 10000000000LL, o);
  ck_assert_uint_eq(n, 7);
  /* Run 200 (its workers: 11 ms) before run 100 (its parent's figure,
   * 5 ms: a parent's attributions are the whole run's); 301 idle; the
   * unreadable ring last. */
  for (i = 0; i < n; i++) {
    ck_assert_msg(o[i]->ring->pid == want[i], "row %zu is pid %ld, expected %ld",
                  i, o[i]->ring->pid, want[i]);
    ck_assert_int_eq(ips_ring_proc_run(o[i]->ring), run[i]);
  }
  /* Outside the window, nothing is busy: then by run and pid. */
  n = top_order(&t, NOW + 20000000000LL, 10000000000LL, o);
  ck_assert_int_eq(o[0]->ring->pid, 100);
  ck_assert_int_eq(o[n - 1]->ring->pid, 401);
  for (i = 0; i < t.nprocs; i++) {
    free((void *)t.procs[i]->ring);
    free(t.procs[i]);
  }
}
END_TEST

/* A ring this process writes: path into buf. */
static ips_ring_t *own_ring(const char *dir, char *buf, size_t size) {
  ips_ring_options_t ro;
  ips_ring_t *r;
  char msg[256];
  ips_ring_options_init(&ro);
  ro.dir = dir;
  ro.size = 4096;
  ro.program = "check_top";
  ck_assert_msg(ips_ring_open(&r, &ro, msg, sizeof msg) == 0, "%s", msg);
  snprintf(buf, size, "%s", ips_ring_path(r));
  return r;
}

/* A child that writes a ring and exits; reaped, so its pid is free. */
static long dead_writer(const char *dir) {
  pid_t pid = fork();
  int status;
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    char path[4096];
    own_ring(dir, path, sizeof path);
    _exit(0);
  }
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return (long)pid;
}

START_TEST(test_writer_dead) {
  const char *dir = ru_tmpdir();
  char path[4096], other[4200];
  ips_ring_t *r = own_ring(dir, path, sizeof path);
  long child = dead_writer(dir);
  /* Alive and mapping it: alive. */
  ck_assert_int_eq(ips_ring_writer_dead(path, (long)getpid()), 0);
  /* Its pid gone: dead. */
  snprintf(other, sizeof other, "%s/%ld.ring", dir, child);
  ck_assert_int_eq(ips_ring_writer_dead(other, child), 1);
  /* This process has a pid, but does not map the child's ring: the
   * pid is someone else's now, as far as that ring goes. */
  ck_assert_int_eq(ips_ring_writer_dead(other, (long)getpid()), 1);
  ips_ring_close(r);
  /* Closed: no longer mapped, the writer is done with it. */
  ck_assert_int_eq(ips_ring_writer_dead(path, (long)getpid()), 1);
  ru_cleanup();
}
END_TEST

START_TEST(test_clean) {
  const char *dir = ru_tmpdir();
  char path[4096], junk[4200], out[8192];
  ips_ring_t *r = own_ring(dir, path, sizeof path);
  long child = dead_writer(dir);
  size_t removed, kept;
  FILE *f;
  char msg[256], dead[4200];
  snprintf(junk, sizeof junk, "%s/999999.ring", dir);
  f = fopen(junk, "w");
  ck_assert_ptr_nonnull(f);
  fputs("junk", f);
  fclose(f);
  f = fmemopen(out, sizeof out, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ips_ring_dir_clean(dir, f, &removed, &kept, msg, sizeof msg), 0);
  fclose(f);
  ck_assert_uint_eq(removed, 1);
  ck_assert_uint_eq(kept, 2);
  snprintf(dead, sizeof dead, "%s/%ld.ring", dir, child);
  ck_assert_int_ne(access(dead, F_OK), 0);     /* the dead writer's: gone */
  ck_assert_int_eq(access(path, F_OK), 0);     /* ours: kept */
  ck_assert_int_eq(access(junk, F_OK), 0);     /* no ring: kept */
  ck_assert_msg(strstr(out, "removed ") && strstr(out, "check_top (pid"),
                "what --clean said: %s", out);
  /* A directory that cannot be read: an error, nothing said removed. */
  ck_assert_int_lt(ips_ring_dir_clean("/nonexistent/ipcstamp", stderr,
                                      &removed, &kept, msg, sizeof msg), 0);
  ck_assert_ptr_nonnull(strstr(msg, "cannot read the directory"));
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

/* A producer's escape sequences never reach the views: the model keeps
 * the header's text printable. */
START_TEST(test_printable) {
  static top_t t;
  ips_ring_options_t ro;
  ips_ring_t *r;
  char msg[512];
  ips_ring_options_init(&ro);
  ro.dir = ru_tmpdir();
  ro.size = 4096;
  ro.program = "evil\033]0;owned\007\033[2J";
  ro.vat = "v1\033[31m";
  ck_assert_msg(ips_ring_open(&r, &ro, msg, sizeof msg) == 0, "%s", msg);
  ck_assert_int_eq(top_init(&t, ru_tmpdir(), NULL, 0), 0);
  ck_assert_int_eq(top_refresh(&t, msg, sizeof msg), 0);
  ck_assert_uint_eq(t.nprocs, 1);
  ck_assert_str_eq(t.procs[0]->ring->info.program, "evil?]0;owned??[2J");
  ck_assert_str_eq(t.procs[0]->ring->vat, "v1?[31m");
  top_free(&t);
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

/* The directory's callbacks: a good ring's events, each with its ring; a
 * junk file named like a ring said once to on_error, as a row that
 * belongs to no run; names that are not "<pid>.ring" not rings at all. */
typedef struct {
  int events, errors;
  long event_pid;
} seen_t;

static void seen_event(void *arg, const ips_ring_proc_t *p,
                       const ips_ring_event_t *ev) {
  seen_t *s = arg;
  ck_assert_str_eq(p->error, "");
  ck_assert_ptr_nonnull(ev->name);
  s->events++;
  s->event_pid = p->pid;
}

static void seen_error(void *arg, const ips_ring_proc_t *p) {
  seen_t *s = arg;
  ck_assert_int_eq(p->pid, 5);
  ck_assert_ptr_nonnull(strstr(p->error, "bad magic"));
  s->errors++;
}

START_TEST(test_dir) {
  const char *dir = ru_tmpdir();
  char path[4096], junk[4200], msg[256];
  ips_ring_t *r = own_ring(dir, path, sizeof path);
  ips_ring_dir_callbacks_t cb;
  ips_ring_dir_t *d;
  seen_t seen = {0, 0, 0};
  ips_stamp_t st;
  FILE *f;
  size_t i;
  ck_assert_int_eq(ips_clock_read(&st), 0);
  st.kind = 'd';
  for (i = 0; i < 3; i++)
    ips_ring_stamp(r, &st, i + 1, 0);
  snprintf(junk, sizeof junk, "%s/5.ring", dir);
  ck_assert_ptr_nonnull(f = fopen(junk, "w"));
  for (i = 0; i < 200; i++)
    fputs("junk junk ", f);
  fclose(f);
  snprintf(junk, sizeof junk, "%s/5.ring.tmp", dir);
  ck_assert_ptr_nonnull(f = fopen(junk, "w"));
  fclose(f);
  memset(&cb, 0, sizeof cb);
  cb.on_event = seen_event;
  cb.on_error = seen_error;
  cb.arg = &seen;
  ck_assert_int_eq(ips_ring_dir_open(&d, dir, &cb), 0);
  ck_assert_int_eq(ips_ring_dir_poll(d, msg, sizeof msg), 0);
  ck_assert_int_eq(ips_ring_dir_poll(d, msg, sizeof msg), 0);
  ck_assert_uint_eq(ips_ring_dir_count(d), 2);
  ck_assert_int_eq(seen.errors, 1); /* once, not at every poll */
  ck_assert_int_eq(seen.events, 3);
  ck_assert_int_eq(seen.event_pid, (long)getpid());
  for (i = 0; i < 2; i++) {
    const ips_ring_proc_t *p = ips_ring_dir_proc(d, i);
    ck_assert_uint_eq(p->index, i);
    if (p->pid == 5)
      ck_assert_int_eq(ips_ring_proc_run(p), 0); /* no run: unreadable */
    else
      ck_assert_int_gt(ips_ring_proc_run(p), 0);
  }
  ips_ring_dir_close(d);
  /* Only the runs asked for: the junk ring is not of this run. */
  seen.events = seen.errors = 0;
  ck_assert_int_eq(ips_ring_dir_open(&d, dir, &cb), 0);
  {
    long me = (long)getpid();
    ips_ring_dir_follow_pids(d, &me, 1);
  }
  ck_assert_int_eq(ips_ring_dir_poll(d, msg, sizeof msg), 0);
  ck_assert_uint_eq(ips_ring_dir_count(d), 1);
  ck_assert_int_eq(seen.errors, 0);
  ck_assert_int_eq(seen.events, 3);
  ips_ring_dir_close(d);
  /* A directory that cannot be read: -errno and a message. */
  ck_assert_int_eq(ips_ring_dir_open(&d, "/nonexistent/ipcstamp", &cb), 0);
  ck_assert_int_lt(ips_ring_dir_poll(d, msg, sizeof msg), 0);
  ck_assert_ptr_nonnull(strstr(msg, "cannot read the directory"));
  ips_ring_dir_close(d);
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

int main(void) {
  Suite *s = suite_create("top");
  TCase *tc = tcase_create("model");
  SRunner *sr;
  int failed;
  tcase_add_test(tc, test_order);
  tcase_add_test(tc, test_writer_dead);
  tcase_add_test(tc, test_clean);
  tcase_add_test(tc, test_printable);
  tcase_add_test(tc, test_dir);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
