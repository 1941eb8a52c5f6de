/* check_window.c — the always-on recorder's window and triggers
 * (record/window.c, record/triggers.c; docs/always-on.md) on records made
 * here, as the kernel makes them: the window stays within its bytes and
 * its span whatever is added, keeps a process's exec past its span, and
 * writes a recording the analysis library reads back whole; a delivery is
 * a stall once past its threshold, said once, also when its worker never
 * read it, and ends with its result; an exit by a signal inside a
 * delivery is a stall that names it.  Needs neither root nor BPF. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "always.h"
#include "ipcstamp-analyze-os.h"
#include "record.h"

#define S 1000000000ull

static void add(ao_window_t *w, const struct os_event *e) {
  ao_window_add(w, e, rec_bin_size(e->type), e->ts);
}

static struct os_event wait_ev(unsigned tid, uint64_t on) {
  struct os_event e;
  memset(&e, 0, sizeof e);
  e.type = OS_EV_WAIT;
  e.tgid = e.tid = tid;
  e.ts = on;
  e.u.wait.off = on - 1000;
  e.u.wait.wake = on - 500;
  e.u.wait.sc = 0;
  e.u.wait.why = OS_WAIT_SLEEP;
  return e;
}

static struct os_event frame_ev(unsigned pid, unsigned long long pipe,
                                int write, char tag, uint64_t at) {
  struct os_event e;
  memset(&e, 0, sizeof e);
  e.type = OS_EV_FRAME;
  e.tgid = e.tid = pid;
  e.ts = at + 100;
  e.u.frame.pipe = pipe;
  e.u.frame.len = 9;
  e.u.frame.first_enter = e.u.frame.last_enter = at;
  e.u.frame.first_exit = at + 100; /* the last exit is e.ts */
  e.u.frame.write = (unsigned char)write;
  e.u.frame.tag = (unsigned char)tag;
  e.u.frame.calls = 1;
  return e;
}

/* frame_ev's frame fed to the triggers: what ao_triggers_feed returns. */
static int feed_frame(ao_triggers_t *t, unsigned pid, unsigned long long pipe,
                      int write, char tag, uint64_t at, ao_stall_t *s) {
  struct os_event e = frame_ev(pid, pipe, write, tag, at);
  return ao_triggers_feed(t, &e, sizeof e, s);
}

/* Process pid's exit record at at, its wait status code. */
static struct os_event exit_ev(unsigned pid, uint64_t at, int code) {
  struct os_event e;
  memset(&e, 0, sizeof e);
  e.type = OS_EV_EXIT;
  e.tgid = e.tid = pid;
  e.ts = at;
  e.u.exit.code = code;
  return e;
}

/* The window written to a file and read back by the analysis library. */
static ips_os_info_t read_back(const ao_window_t *w, const ao_counters_t *c) {
  char path[] = "/tmp/check_window.XXXXXX", err[256];
  ips_os_info_t info;
  ips_os_t *os = NULL;
  int fd = mkstemp(path);
  FILE *f;
  ck_assert_int_ge(fd, 0);
  ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
  ck_assert_int_eq(ao_window_write(w, f, 42, c), 0);
  fclose(f);
  ck_assert_msg(ips_os_open(&os, path, err, sizeof err) == 0, "%s", err);
  ips_os_info(os, &info);
  ips_os_free(os);
  unlink(path);
  ck_assert_int_eq(info.bad_lines, 0);
  ck_assert(info.ended);
  return info;
}

START_TEST(bytes_bound) {
  ao_counters_t c = {0};
  ao_window_t *w = ao_window_new(64 << 10, 1000 * S, &c);
  struct os_event e;
  ips_os_info_t info;
  uint64_t i;
  ck_assert_ptr_nonnull(w);
  memset(&e, 0, sizeof e);
  /* An exec first: it leaves the window, and is still written. */
  rec_proc_event(&e, S, 7, 1, "xsnap-worker\0v1:alice", 22);
  add(w, &e);
  for (i = 0; i < 20000; i++) { /* ~1.3 MB of waits, 20x the window */
    e = wait_ev(7, 2 * S + i * 1000);
    add(w, &e);
    ck_assert_uint_le(c.window_bytes, 64 << 10);
  }
  ck_assert_uint_gt(c.evicted, 18000);
  info = read_back(w, &c);
  ck_assert_uint_eq(info.waits, c.window_records);
  ck_assert_uint_eq(info.procs, 1); /* the exec kept past its records */
  ao_window_free(w);
}
END_TEST

START_TEST(span_bound) {
  ao_counters_t c = {0};
  ao_window_t *w = ao_window_new(1 << 20, 1 * S, &c);
  struct os_event e;
  uint64_t i;
  for (i = 0; i < 100; i++) { /* one a tenth of a second for 10 s */
    e = wait_ev(7, 10 * S + i * (S / 10));
    add(w, &e);
  }
  /* The last second: 10 or 11 records (the bounds are inclusive). */
  ck_assert_uint_ge(c.window_records, 10);
  ck_assert_uint_le(c.window_records, 11);
  /* Its span (--metrics' ipcstamp_window_seconds): from the oldest
   * record (18.9 s, or 19 s) to now. */
  ck_assert(fabs(ao_window_seconds(w, 20 * S) - 1.1) < 1e-9 ||
            fabs(ao_window_seconds(w, 20 * S) - 1.0) < 1e-9);
  ao_window_expire(w, 100 * S);
  ck_assert(ao_window_seconds(w, 100 * S) == 0);
  ck_assert_uint_eq(c.window_records, 0);
  ck_assert_uint_eq(c.window_bytes, 0);
  ao_window_free(w);
}
END_TEST

/* Parent 100 writes deliveries on pipe 1 to worker 200, which answers on
 * pipe 2. */
START_TEST(delivery_stall) {
  ao_counters_t c = {0};
  ao_window_t *w = ao_window_new(1 << 20, 100 * S, &c);
  ao_limits_t l = {1 * S, 1 * S};
  ao_triggers_t *t = ao_triggers_new(&l, w);
  ao_stall_t s;
  ck_assert_ptr_nonnull(t);
  /* One delivery that ends in time: no stall. */
  ck_assert_int_eq(feed_frame(t, 100, 1, 1, '?', 10 * S, &s), 0);
  feed_frame(t, 200, 1, 0, '?', 10 * S + 10, &s);
  feed_frame(t, 200, 2, 1, '.', 10 * S + S / 2, &s);
  ck_assert_int_eq(ao_triggers_check(t, 20 * S, &s), 0);
  /* The next one is never read (the worker stopped): a stall at 1 s,
   * said once, naming the worker the pipe's reader was. */
  feed_frame(t, 100, 1, 1, '?', 30 * S, &s);
  ck_assert_int_eq(ao_triggers_check(t, 30 * S + S / 2, &s), 0);
  ck_assert_int_eq(ao_triggers_check(t, 31 * S + 1, &s), 1);
  ck_assert_int_eq(s.kind, AO_DELIVERY);
  ck_assert_uint_eq(s.worker, 200);
  ck_assert_uint_eq(s.parent, 100);
  ck_assert_uint_eq(s.delivery, 2);
  ck_assert_uint_eq(s.start, 30 * S);
  ck_assert_int_eq(ao_triggers_check(t, 40 * S, &s), 0);
  /* Its result: the stall's end is known. */
  feed_frame(t, 200, 1, 0, '?', 41 * S, &s);
  feed_frame(t, 200, 2, 1, '.', 42 * S, &s);
  memset(&s, 0, sizeof s);
  s.kind = AO_DELIVERY;
  s.pipe = 1;
  s.start = 30 * S;
  ao_triggers_update(t, &s);
  ck_assert_uint_eq(s.end, 42 * S + 100);
  ao_triggers_free(t);
  ao_window_free(w);
}
END_TEST

/* An upcall inside a delivery; then the worker killed inside the next. */
START_TEST(upcall_and_exit) {
  ao_counters_t c = {0};
  ao_window_t *w = ao_window_new(1 << 20, 100 * S, &c);
  ao_limits_t l = {0, 1 * S}; /* deliveries off: only the upcall */
  ao_triggers_t *t = ao_triggers_new(&l, w);
  ao_stall_t s;
  struct os_event e;
  rec_proc_event(&e, S, 200, 100, "xsnap-worker\0v9:zoe", 20);
  add(w, &e);
  feed_frame(t, 100, 1, 1, '?', 10 * S, &s);
  feed_frame(t, 200, 1, 0, '?', 10 * S + 10, &s);
  feed_frame(t, 200, 2, 1, '?', 11 * S, &s); /* the upcall, no reply yet */
  ck_assert_int_eq(ao_triggers_check(t, 30 * S, &s), 1);
  ck_assert_int_eq(s.kind, AO_UPCALL);
  ck_assert_uint_eq(s.start, 11 * S);
  ck_assert_int_eq(ao_triggers_check(t, 31 * S, &s), 0);
  /* Killed (SIGKILL's wait status is 9) inside the delivery. */
  e = exit_ev(200, 32 * S, 9);
  ck_assert_int_eq(ao_triggers_feed(t, &e, rec_bin_size(OS_EV_EXIT), &s), 1);
  ck_assert_int_eq(s.kind, AO_EXIT);
  ck_assert_int_eq(s.in_delivery, 1);
  ck_assert_int_eq(s.code, 9);
  ck_assert_int_eq(memcmp(s.args, "xsnap-worker\0v9:zoe", 20), 0);
  /* A process that never framed ending badly is nobody's stall. */
  e.tgid = e.tid = 999;
  ck_assert_int_eq(ao_triggers_feed(t, &e, rec_bin_size(OS_EV_EXIT), &s), 0);
  ao_triggers_free(t);
  ao_window_free(w);
}
END_TEST

/* A Unix socket's id is its kernel address, reused once its worker is
 * gone: worker 200's result pipe 2, after 200 ended, is worker 300's
 * delivery pipe.  Its deliveries are deliveries (tests/data/
 * os-swingset-vanilla.os.gz has such a reuse), and a stopped 300's is a
 * stall. */
START_TEST(pipe_reused) {
  ao_counters_t c = {0};
  ao_window_t *w = ao_window_new(1 << 20, 100 * S, &c);
  ao_limits_t l = {1 * S, 1 * S};
  ao_triggers_t *t = ao_triggers_new(&l, w);
  ao_stall_t s;
  struct os_event e;
  ck_assert_ptr_nonnull(t);
  feed_frame(t, 100, 1, 1, '?', 10 * S, &s);
  feed_frame(t, 200, 1, 0, '?', 10 * S + 10, &s);
  feed_frame(t, 200, 2, 1, '.', 10 * S + S / 2, &s);
  e = exit_ev(200, 11 * S, 0);
  ck_assert_int_eq(ao_triggers_feed(t, &e, rec_bin_size(OS_EV_EXIT), &s), 0);
  /* Worker 300: one delivery on pipe 2 answered on pipe 3 in time, then
   * one it never reads. */
  feed_frame(t, 100, 2, 1, '?', 20 * S, &s);
  feed_frame(t, 300, 2, 0, '?', 20 * S + 10, &s);
  feed_frame(t, 300, 3, 1, '.', 20 * S + S / 2, &s);
  ck_assert_int_eq(ao_triggers_check(t, 25 * S, &s), 0);
  feed_frame(t, 100, 2, 1, '?', 30 * S, &s);
  ck_assert_int_eq(ao_triggers_check(t, 31 * S + 1, &s), 1);
  ck_assert_int_eq(s.kind, AO_DELIVERY);
  ck_assert_uint_eq(s.pipe, 2);
  ck_assert_uint_eq(s.worker, 300);
  ck_assert_uint_eq(s.delivery, 2);
  ck_assert_uint_eq(s.start, 30 * S);
  ao_triggers_free(t);
  ao_window_free(w);
}
END_TEST

int main(void) {
  Suite *s = suite_create("always_window");
  TCase *tc = tcase_create("window");
  SRunner *sr;
  int failed;
  tcase_add_test(tc, bytes_bound);
  tcase_add_test(tc, span_bound);
  tcase_add_test(tc, delivery_stall);
  tcase_add_test(tc, upcall_and_exit);
  tcase_add_test(tc, pipe_reused);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
