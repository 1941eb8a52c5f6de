/* check_os_join.c — the join of a recording with the deliveries
 * (ips_os_split, docs/os.md "How a delivery is split"), on recordings
 * written here by hand: two workers whose frames interleave in time, each
 * delivery matched to its own worker's frames by the vat its worker's
 * arguments name (as SwingSet names xsnap workers, "v1:alice"), in frame
 * order, and a frame of no delivery counted (unmatched_frames).  Needs
 * neither root nor BPF: the recording is a file like any other. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipcstamp-analyze-os.h"

/* The parent (pid 100) and two workers: 200 runs vat v1, 300 vat v2. */
static const char *const head =
    "{\"ipcstamp_os\":1,\"clock\":\"CLOCK_MONOTONIC\",\"unit\":\"ns\","
    "\"start\":1000,\"kernel\":\"6\",\"follow\":\"command\"}\n"
    "{\"t\":\"exec\",\"ns\":1100,\"pid\":200,\"ppid\":100,"
    "\"argv\":[\"/usr/bin/xsnap-worker\",\"v1:alice\"]}\n"
    "{\"t\":\"exec\",\"ns\":1200,\"pid\":300,\"ppid\":100,"
    "\"argv\":[\"/usr/bin/xsnap-worker\",\"v2:bob\"]}\n";

/* Both sides of one frame: written by wpid (enter..wret), read by rpid
 * (returned with its last byte at rret), pipe the stream. */
static void frame(FILE *f, int pipe, int wpid, int rpid, char tag, long enter,
                  long wret, long rret) {
  fprintf(f,
          "{\"t\":\"frame\",\"side\":\"w\",\"pid\":%d,\"tid\":%d,\"pipe\":%d,"
          "\"fd\":4,\"len\":9,\"tag\":\"%c\",\"head\":\"\",\"enter\":%ld,"
          "\"ret\":%ld,\"last_enter\":%ld,\"last_ret\":%ld,\"calls\":1}\n",
          wpid, wpid, pipe, tag, enter, wret, enter, wret);
  fprintf(f,
          "{\"t\":\"frame\",\"side\":\"r\",\"pid\":%d,\"tid\":%d,\"pipe\":%d,"
          "\"fd\":3,\"len\":9,\"tag\":\"%c\",\"head\":\"\",\"enter\":%ld,"
          "\"ret\":%ld,\"last_enter\":%ld,\"last_ret\":%ld,\"calls\":1}\n",
          rpid, rpid, pipe, tag, rret - 10, rret, rret - 10, rret);
}

/* A new recording at path (a temporary file's name, 64 bytes), its head
 * line written: the records follow. */
static FILE *new_recording(char *path) {
  FILE *f;
  int fd;
  snprintf(path, 64, "/tmp/check_os_join.XXXXXX");
  ck_assert_int_ge(fd = mkstemp(path), 0);
  ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
  fputs(head, f);
  return f;
}

/* The recording: d1 (v1) from 10000 to 11400, d2 (v2) from 10040 to
 * 11600.  d2's send is written (10050) before d1's (10100), inside d1's
 * window: by time alone d1 takes it.  extra: a frame of no delivery. */
static char *write_recording(int extra) {
  static char path[64];
  FILE *f = new_recording(path);
  frame(f, 21, 100, 300, '?', 10050, 10060, 10250); /* d2's send */
  frame(f, 11, 100, 200, '?', 10100, 10150, 10350); /* d1's send */
  frame(f, 12, 200, 100, '.', 11050, 11100, 11300); /* d1's result */
  frame(f, 22, 300, 100, '.', 11250, 11300, 11500); /* d2's result */
  if (extra == 1)
    frame(f, 11, 100, 200, '?', 15000, 15010, 15100);
  if (extra == 2) { /* work of no delivery, before the deliveries */
    frame(f, 11, 100, 200, 'e', 2000, 2010, 2050);   /* evaluate, */
    frame(f, 12, 200, 100, '.', 2100, 2110, 2150);   /* ... answered */
    frame(f, 11, 100, 200, '?', 3000, 3010, 3050);   /* setBundle, */
    frame(f, 12, 200, 100, '?', 3100, 3110, 3150);   /* ... an upcall, */
    frame(f, 11, 100, 200, '/', 3200, 3210, 3250);   /* ... its reply, */
    frame(f, 12, 200, 100, '.', 3300, 3310, 3350);   /* ... answered */
    frame(f, 11, 100, 200, 'w', 4000, 4010, 4050);   /* a snapshot, */
    frame(f, 12, 200, 100, '!', 4100, 4110, 4150);   /* ... failed */
    frame(f, 11, 100, 200, 'x', 5000, 5010, 5050);   /* no such tag */
    frame(f, 12, 200, 100, '!', 5100, 5110, 5150);
    frame(f, 22, 300, 100, '.', 7000, 7010, 7050);   /* of no command */
    frame(f, 11, 100, 200, 'q', 16000, 16010, 16050); /* quit */
  }
  fputs("{\"t\":\"end\",\"ns\":20000,\"events\":10,\"lost\":0,\"status\":0}\n",
        f);
  ck_assert_int_eq(fclose(f), 0);
  return path;
}

/* A delivery of vat with no upcall: D, d, e, E on one clock (mono), its
 * worker's pid unknown (SwingSet's slogfiles say none). */
static void delivery(ips_delivery_t *d, int64_t *P, int64_t *W,
                     const char *vat) {
  memset(d, 0, sizeof *d);
  d->vat = vat;
  d->desc = d->method = "";
  d->clock = d->pclock = 'm';
  d->P = P;
  d->W = W;
  d->pipe = (W[0] - P[0]) + (P[1] - W[1]);
  d->worker = W[1] - W[0];
  d->total = P[1] - P[0];
}

/* The recording of write_recording(extra), opened (its path in *path). */
static ips_os_t *open_recording(int extra, char **path) {
  ips_os_t *os;
  char err[256];
  *path = write_recording(extra);
  ck_assert_msg(ips_os_open(&os, *path, err, sizeof err) == 0, "%s", err);
  return os;
}

static void check_split(const ips_os_split_t *s, const ips_delivery_t *d,
                        long long pid) {
  ck_assert_uint_eq(s->frames, 2);
  ck_assert_uint_eq(s->frames_expected, 2);
  ck_assert_int_eq(s->worker_pid, pid);
  ck_assert_int_eq(s->kernel_pid, 100);
  ck_assert_int_eq(s->pipe_not_measured, 0);
  ck_assert_int_eq(s->pipe_before_write + s->pipe_write + s->pipe_in_pipe +
                       s->pipe_sleep + s->pipe_page_fault +
                       s->pipe_cpu_wait + s->pipe_reader,
                   d->pipe);
  ck_assert_int_eq(s->worker.on_cpu, d->worker);
}

START_TEST(interleaved_workers) {
  int64_t P1[2] = {10000, 11400}, W1[2] = {10400, 11000};
  int64_t P2[2] = {10040, 11600}, W2[2] = {10300, 11200};
  ips_delivery_t d1, d2;
  ips_os_split_t s1, s2;
  ips_os_info_t info;
  char *path;
  ips_os_t *os = open_recording(0, &path);
  delivery(&d1, P1, W1, "v1");
  delivery(&d2, P2, W2, "v2");
  ck_assert_int_eq(ips_os_split(os, &d1, &s1), 0);
  ck_assert_int_eq(ips_os_split(os, &d2, &s2), 0);
  check_split(&s1, &d1, 200);
  check_split(&s2, &d2, 300);
  /* d1's send: its own frame, written at 10100 (not d2's at 10050). */
  ck_assert_int_eq(s1.pipe_before_write, (10100 - 10000) + (11050 - 11000));
  ck_assert_int_eq(s2.pipe_before_write, (10050 - 10040) + (11250 - 11200));
  ips_os_info(os, &info);
  ck_assert_uint_eq(info.frames, 4);
  ck_assert_uint_eq(info.unmatched_frames, 0);
  ips_os_free(os);
  unlink(path);
}
END_TEST

/* A worker that ran no vat of the slogfile: its frame is counted, and a
 * delivery of a vat no worker's arguments name matches by time alone. */
START_TEST(unmatched_frame_counted) {
  int64_t P1[2] = {10000, 11400}, W1[2] = {10400, 11000};
  ips_delivery_t d1;
  ips_os_split_t s1;
  ips_os_info_t info;
  char *path;
  ips_os_t *os = open_recording(1, &path);
  delivery(&d1, P1, W1, "v1");
  ck_assert_int_eq(ips_os_split(os, &d1, &s1), 0);
  check_split(&s1, &d1, 200);
  ips_os_info(os, &info);
  /* d2's two frames of ? and the extra one; results are not counted. */
  ck_assert_uint_eq(info.unmatched_frames, 2);
  ips_os_free(os);
  unlink(path);
}
END_TEST

/* A frame is taken once: another delivery over the same time finds none,
 * the same delivery split again finds its own again. */
START_TEST(frame_taken_once) {
  int64_t P1[2] = {10000, 11400}, W1[2] = {10400, 11000};
  ips_delivery_t d1, other;
  ips_os_split_t s1;
  char *path;
  ips_os_t *os = open_recording(0, &path);
  delivery(&d1, P1, W1, "v1");
  ck_assert_int_eq(ips_os_split(os, &d1, &s1), 0);
  ck_assert_uint_eq(s1.frames, 2);
  other = d1;
  other.line = 99;
  ck_assert_int_eq(ips_os_split(os, &other, &s1), 0);
  ck_assert_uint_eq(s1.frames, 0);
  ck_assert_int_eq(s1.pipe_not_measured, other.pipe);
  ck_assert_int_eq(ips_os_split(os, &d1, &s1), 0);
  ck_assert_uint_eq(s1.frames, 2);
  ips_os_free(os);
  unlink(path);
}
END_TEST

/* One wait of thread tid (its process's too), as a recording's line. */
static void wait_line(FILE *f, int tid, long off, long wake, long on,
                      const char *why, const char *sc) {
  fprintf(f,
          "{\"t\":\"wait\",\"pid\":%d,\"tid\":%d,\"off\":%ld,\"wake\":%ld,"
          "\"on\":%ld,\"why\":\"%s\",\"nr\":0,\"sc\":%s}\n",
          tid, tid, off, wake, on, why, sc);
}

/* A preemption of thread tid from off to on, with the scheduler's run
 * time of the thread when it left and the steal clocks at both ends
 * (version 3's wait), as a recording's line. */
static void wait_run(FILE *f, int tid, long off, long on, long runtime,
                     long steal_off, long steal_on) {
  fprintf(f,
          "{\"t\":\"wait\",\"pid\":%d,\"tid\":%d,\"off\":%ld,\"wake\":0,"
          "\"on\":%ld,\"why\":\"cpu\",\"nr\":-1,\"sc\":null,\"maj_flt\":0,"
          "\"runtime\":%ld,\"steal_off\":%ld,\"steal_on\":%ld,\"waker\":0,"
          "\"took\":301,\"left\":0,\"cpu\":1}\n",
          tid, tid, off, on, runtime, steal_off, steal_on);
}

/* A recording of one delivery of v1 (worker 200) whose worker, the
 * reader of its send, was woken for it and then, the bytes waiting,
 * slept on something else and was preempted before its read returned;
 * with runs, the worker is also preempted three times in its own time,
 * each wait with the run time and steal clocks. */
static ips_os_t *reader_recording(char **path, int runs) {
  static char name[64];
  ips_os_t *os;
  char err[256];
  FILE *f = new_recording(name);
  frame(f, 11, 100, 200, '?', 10100, 10150, 10350); /* the send */
  frame(f, 12, 200, 100, '.', 11050, 11100, 11300); /* the result */
  /* Asleep in read since before the send: woken 10 ns after the write
   * returned, on a CPU 10 ns later; ran 10 ns; asleep in a futex (begun
   * with the bytes waiting) 10 ns, runnable 5; ran 5 ns; preempted for
   * 100 ns; its read returned at 10350. */
  wait_line(f, 200, 9000, 10160, 10170, "sleep", "\"read\"");
  wait_line(f, 200, 10180, 10190, 10195, "sleep", "\"futex\"");
  wait_line(f, 200, 10200, 0, 10300, "cpu", "null");
  if (runs) {
    fputs("{\"t\":\"task\",\"pid\":300,\"tid\":301,\"comm\":\"a hog\"}\n", f);
    /* Runs from 10600 to 10900 (charged 200, 60 stolen) and from 10950
     * to 11200 (charged 150, 50 stolen), the first after a wait without
     * the clocks (as version 2's). */
    wait_run(f, 200, 10500, 10600, 5000, 700, 740);
    wait_run(f, 200, 10900, 10950, 5200, 800, 900);
    wait_run(f, 200, 11200, 11250, 5350, 950, 960);
  }
  fputs("{\"t\":\"end\",\"ns\":20000,\"events\":10,\"lost\":0}\n", f);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_msg(ips_os_open(&os, name, err, sizeof err) == 0, "%s", err);
  *path = name;
  return os;
}

/* The delivery of reader_recording(runs) split into *s (the recording
 * open, at *path). */
static ips_os_t *split_reader(int runs, ips_delivery_t *d, int64_t *P,
                              int64_t *W, ips_os_split_t *s, char **path) {
  ips_os_t *os = reader_recording(path, runs);
  delivery(d, P, W, "v1");
  ck_assert_int_eq(ips_os_split(os, d, s), 0);
  return os;
}

/* "in pipe" is only the time the reader was blocked with nothing to
 * read: its own waits while the bytes waited are their own parts (a
 * reader preempted there is waiting for a CPU, not in the pipe). */
START_TEST(reader_waits_not_in_pipe) {
  int64_t P[2] = {10000, 11400}, W[2] = {10400, 11000};
  ips_delivery_t d;
  ips_os_split_t s;
  char *path;
  ips_os_t *os = split_reader(0, &d, P, W, &s, &path);
  check_split(&s, &d, 200);
  /* The send: before write 100, write 50, in pipe 10 (10150..10160),
   * asleep in the futex 10, waiting for a CPU 10 + 5 + 100, the reader
   * running 10 + 5, then on a CPU from 10300 to its stamp at 10400.  The
   * result: the parent never slept for it (ran from the write's return
   * to its read at 11290, then read until its stamp at 11400). */
  ck_assert_int_eq(s.pipe_before_write, 100 + 50);
  ck_assert_int_eq(s.pipe_write, 50 + 50);
  ck_assert_int_eq(s.pipe_in_pipe, 10);
  ck_assert_int_eq(s.pipe_sleep, 10);
  ck_assert_int_eq(s.pipe_page_fault, 0);
  ck_assert_int_eq(s.pipe_cpu_wait, 115);
  ck_assert_int_eq(s.pipe_reader, 15 + 100 + (11290 - 11100) + 110);
  ips_os_free(os);
  unlink(path);
}
END_TEST

/* On a CPU, split by the scheduler's own count (docs/os.md, "On a
 * CPU"): what it charged the thread (on_cpu), what the hypervisor stole,
 * the rest; a run partly in the stretch in proportion, a run whose
 * clocks are not recorded all on_cpu.  And waiting for a CPU by who had
 * it. */
START_TEST(on_cpu_charged_and_stolen) {
  int64_t P[2] = {10000, 11400}, W[2] = {10400, 11000};
  ips_delivery_t d;
  ips_os_split_t s;
  char *path;
  ips_os_t *os = split_reader(1, &d, P, W, &s, &path);
  /* 10400..10500 ran (no clocks: on_cpu); 10500..10600 preempted;
   * 10600..10900 charged 200, stolen 60, 40 the rest; 10900..10950
   * preempted; 10950..11000 is 50 of the 250 ns run charged 150 with 50
   * stolen: 30 charged, 10 stolen, 10 the rest. */
  ck_assert_int_eq(s.worker.cpu_wait, 100 + 50);
  ck_assert_int_eq(s.worker.on_cpu, 100 + 200 + 30);
  ck_assert_int_eq(s.worker.steal, 60 + 10);
  ck_assert_int_eq(s.worker.uncharged, 40 + 10);
  ck_assert_int_eq(s.worker.on_cpu + s.worker.steal + s.worker.uncharged +
                       s.worker.cpu_wait, d.worker);
  /* Who had the CPU: thread 301 of process 300, "a hog", took it at both
   * preemptions (its name as a CSV cell can list it); the waits without
   * the clocks name no one. */
  ck_assert_str_eq(s.worker.cpu_wait_by[0].sc, "a_hog:300");
  ck_assert_int_eq(s.worker.cpu_wait_by[0].ns, 100 + 50);
  ck_assert_str_eq(s.worker.cpu_wait_by[1].sc, "");
  ips_os_free(os);
  unlink(path);
}
END_TEST

/* Every recorded frame is a delivery's or a kind of work's: the commands
 * of no delivery joined with their upcalls, replies and answers, each
 * exchange cut at its frames' instants. */
START_TEST(other_work_by_kind) {
  int64_t P1[2] = {10000, 11400}, W1[2] = {10400, 11000};
  int64_t P2[2] = {10040, 11600}, W2[2] = {10300, 11200};
  ips_delivery_t d1, d2;
  ips_os_split_t s;
  ips_os_other_t o;
  const ips_os_work_t *w;
  char *path;
  ips_os_t *os = open_recording(2, &path);
  uint64_t all = 0;
  size_t k;
  delivery(&d1, P1, W1, "v1");
  delivery(&d2, P2, W2, "v2");
  ck_assert_int_eq(ips_os_split(os, &d1, &s), 0);
  ck_assert_int_eq(ips_os_split(os, &d2, &s), 0);
  ck_assert_int_eq(ips_os_other(os, &o), 0);
  ck_assert_uint_eq(o.frames, 16);
  ck_assert_uint_eq(o.delivery_frames, 4);
  for (k = 0; k < IPS_OS_WORK_N; k++) {
    w = &o.kind[k];
    all += w->frames;
    ck_assert_int_eq(w->write + w->pipe + w->worker_ns + w->reply, w->ns);
    ck_assert_int_eq(w->worker.on_cpu, w->worker_ns); /* no waits */
  }
  ck_assert_uint_eq(all + o.delivery_frames, o.frames);
  w = &o.kind[IPS_OS_WORK_evaluate];
  ck_assert_uint_eq(w->exchanges, 1);
  ck_assert_uint_eq(w->frames, 2);
  ck_assert_uint_eq(w->answered, 1);
  ck_assert_int_eq(w->ns, 150);
  ck_assert_int_eq(w->write, 10);
  ck_assert_int_eq(w->pipe, 40);
  ck_assert_int_eq(w->worker_ns, 50);
  ck_assert_int_eq(w->reply, 50);
  w = &o.kind[IPS_OS_WORK_command];
  ck_assert_uint_eq(w->frames, 4);
  ck_assert_int_eq(w->ns, 350);
  ck_assert_int_eq(w->worker_ns, 250); /* its upcall's time in it */
  ck_assert_uint_eq(o.kind[IPS_OS_WORK_snapshot_write].errors, 1);
  ck_assert_uint_eq(o.kind[IPS_OS_WORK_other_command].frames, 2);
  ck_assert_uint_eq(o.kind[IPS_OS_WORK_quit].frames, 1);
  ck_assert_int_eq(o.kind[IPS_OS_WORK_quit].ns, 50);
  ck_assert_int_eq(o.kind[IPS_OS_WORK_quit].reply, 0);
  ck_assert_uint_eq(o.kind[IPS_OS_WORK_no_command].frames, 1);
  ck_assert_uint_eq(o.kind[IPS_OS_WORK_no_command].exchanges, 0);
  ips_os_free(os);
  unlink(path);
}
END_TEST

int main(void) {
  Suite *s = suite_create("os_join");
  TCase *tc = tcase_create("match");
  SRunner *sr;
  int failed;
  tcase_add_test(tc, interleaved_workers);
  tcase_add_test(tc, unmatched_frame_counted);
  tcase_add_test(tc, frame_taken_once);
  tcase_add_test(tc, reader_waits_not_in_pipe);
  tcase_add_test(tc, on_cpu_charged_and_stolen);
  tcase_add_test(tc, other_work_by_kind);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
