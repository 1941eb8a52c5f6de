/* check_ring_hostile.c — the ring against whoever else can write its
 * directory or its file: a name planted where the producer
 * creates its ring, a filesystem with no room, a FIFO or a device where a
 * reader looks for rings, a file truncated under a reader, stamps that go
 * back in time. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipcstamp-ring-read.h"
#include "ipcstamp-ring.h"
#include "ring_util.h"
#include "worker_driver.h"

static ips_ring_t *open_sized(const char *dir, size_t size, char *msg,
                              size_t n, int *rc) {
  ips_ring_options_t o;
  ips_ring_t *r = NULL;
  ips_ring_options_init(&o);
  o.dir = dir;
  o.size = size;
  o.program = "check_ring_hostile";
  *rc = ips_ring_open(&r, &o, msg, n);
  return r;
}

static ips_ring_t *open_ring(const char *dir, char *msg, size_t n, int *rc) {
  return open_sized(dir, IPS_RING_MIN_SIZE, msg, n, rc);
}

static void put(ips_ring_t *r, char kind, int64_t mono, uint64_t delivery) {
  ips_stamp_t s;
  s.wall_us = 1;
  s.mono_ns = mono;
  s.kind = kind;
  ips_ring_stamp(r, &s, delivery, 0);
}

static int count_event(void *arg, const ips_ring_event_t *ev) {
  (void)ev;
  ++*(int *)arg;
  return 0;
}

/* A victim file whose content must survive the producer. */
static const char victim_text[] = "precious: not a ring\n";

static void check_victim(const char *path) {
  size_t n;
  unsigned char *b = ru_read(path, &n);
  ck_assert_msg(n == sizeof victim_text - 1 &&
                    memcmp(b, victim_text, n) == 0,
                "the planted link was followed: %s now holds %zu bytes", path,
                n);
  free(b);
}

/* The old producer built its ring at "<pid>.ring.tmp" with O_TRUNC: a
 * symlink planted there made it overwrite any file it could write.  The
 * name at <pid>.ring itself is replaced, never followed. */
START_TEST(planted_names_not_followed) {
  const char *dir = ru_tmpdir();
  char victim[4200], link1[4200], link2[4200], msg[256];
  ips_ring_t *r;
  int rc;
  FILE *f;
  struct stat st;
  snprintf(victim, sizeof victim, "%s/victim", dir);
  f = fopen(victim, "w");
  ck_assert_ptr_nonnull(f);
  fputs(victim_text, f);
  fclose(f);
  snprintf(link1, sizeof link1, "%s/%ld.ring.tmp", dir, (long)getpid());
  snprintf(link2, sizeof link2, "%s/%ld.ring", dir, (long)getpid());
  ck_assert_int_eq(symlink(victim, link1), 0);
  ck_assert_int_eq(symlink(victim, link2), 0);
  r = open_ring(dir, msg, sizeof msg, &rc);
  ck_assert_msg(rc == 0, "ips_ring_open: %s", msg);
  put(r, 'd', 1, 1);
  check_victim(victim);
  /* The ring is a regular file of its own at <pid>.ring, readable by
   * others (watchers run as anyone). */
  ck_assert_int_eq(lstat(link2, &st), 0);
  ck_assert(S_ISREG(st.st_mode));
  ck_assert_int_eq(st.st_mode & 0777, 0644);
  ips_ring_close(r);
  check_victim(victim);
  ru_cleanup();
}
END_TEST

/* A sparse ring on a full filesystem was SIGBUS at the first write into a
 * page the filesystem could not back (mid-run).  Reserved at creation, it
 * is a refusal at start-up.  Needs a small tmpfs: root only. */
START_TEST(full_filesystem_refused_at_start) {
  const char *dir = ru_tmpdir();
  char msg[256] = "", env0[4200], *err = NULL;
  const char *env[] = {env0, NULL};
  const char *path = wd_path("worker/ipcstamp-worker-c");
  const char *argv[] = {path, NULL};
  ips_ring_t *r;
  int rc = 0, i, left, status = -1, pfd[2];
  pid_t pid;
  wd_t d;
  if (geteuid() != 0 || mount("tmpfs", dir, "tmpfs", 0, "size=64k") != 0) {
    fprintf(stderr, "check_ring_hostile: full filesystem: skipped (needs "
                    "root to mount a 64 KiB tmpfs: %s)\n", strerror(errno));
    ru_cleanup();
    return;
  }
  /* The default 1 MiB ring on a 64 KiB filesystem, in a child: before the
   * fix it opened, and its writes died of SIGBUS.  The filesystem is
   * unmounted whatever happened, before anything is asserted. */
  ck_assert_int_eq(pipe(pfd), 0);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(pfd[0]);
    r = open_sized(dir, IPS_RING_DEFAULT_SIZE, msg, sizeof msg, &rc);
    if (write(pfd[1], msg, sizeof msg) != (ssize_t)sizeof msg) _exit(3);
    if (rc == 0) {
      for (i = 0; i < 100000; i++) put(r, 'd', i, (uint64_t)i + 1);
      _exit(2);
    }
    _exit(rc == -ENOSPC ? 0 : 1);
  }
  close(pfd[1]);
  if (read(pfd[0], msg, sizeof msg) != (ssize_t)sizeof msg) msg[0] = '\0';
  msg[sizeof msg - 1] = '\0';
  close(pfd[0]);
  waitpid(pid, &status, 0);
  /* The worker refuses at start-up: exit status 1 and a message. */
  snprintf(env0, sizeof env0, "IPCSTAMP_RING_DIR=%s", dir);
  if (wd_spawn(&d, path, argv, env, 0) == 0) {
    rc = wd_wait(&d);
    err = wd_stderr(&d);
    wd_free(&d);
  }
  {
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    left = system(cmd);
  }
  umount(dir);
  ru_cleanup();
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "ring on a full filesystem: status 0x%x (%s)", status, msg);
  ck_assert_msg(strstr(msg, "no room for") != NULL, "%s", msg);
  ck_assert_msg(err && rc == 1 && strstr(err, "no room for") != NULL,
                "worker: exit %d: %s", rc, err ? err : "");
  free(err);
  /* Nothing left behind: neither a ring nor its temporary file. */
  ck_assert_int_eq(left, 0);
}
END_TEST

/* A FIFO or a device where a ring should be: refused at once with what it
 * is (opening a FIFO waited for a writer, forever). */
START_TEST(fifo_and_device_refused) {
  const char *dir = ru_tmpdir();
  char p[4200], msg[512];
  ips_ring_reader_t *rd;
  alarm(20); /* a hang is a failure, not a stuck suite */
  snprintf(p, sizeof p, "%s/41.ring", dir);
  ck_assert_int_eq(mkfifo(p, 0644), 0);
  ck_assert_int_eq(ips_ring_reader_open(&rd, p, msg, sizeof msg), IPS_ERING);
  ck_assert_ptr_null(rd);
  ck_assert_msg(strstr(msg, "not a regular file (a FIFO)") != NULL, "%s", msg);
  /* Read-only for us (another user's FIFO): the same. */
  chmod(p, 0444);
  ck_assert_int_eq(ips_ring_reader_open(&rd, p, msg, sizeof msg), IPS_ERING);
  snprintf(p, sizeof p, "%s/42.ring", dir);
  ck_assert_int_eq(symlink("/dev/zero", p), 0);
  ck_assert_int_eq(ips_ring_reader_open(&rd, p, msg, sizeof msg), IPS_ERING);
  ck_assert_msg(strstr(msg, "not a regular file (a device)") != NULL, "%s",
                msg);
  alarm(0);
  ru_cleanup();
}
END_TEST

/* The file cut short under a reader (a hostile worker owns its ring): an
 * error saying so, sticky, never SIGBUS. */
START_TEST(truncated_under_reader) {
  const char *dir = ru_tmpdir();
  char msg[512];
  ips_ring_reader_t *rd;
  ips_ring_info_t info;
  ips_ring_t *r;
  int rc, n = 0, i;
  r = open_ring(dir, msg, sizeof msg, &rc);
  ck_assert_msg(rc == 0, "%s", msg);
  for (i = 0; i < 10; i++) put(r, "de"[i % 2], i, (uint64_t)i / 2 + 1);
  ck_assert_int_eq(ips_ring_reader_open(&rd, ips_ring_path(r), msg, sizeof msg),
                   0);
  ck_assert_int_eq(ips_ring_reader_poll(rd, 3, count_event, NULL, &n), 3);
  ck_assert_int_eq(truncate(ips_ring_path(r), 0), 0);
  rc = ips_ring_reader_poll(rd, 0, count_event, NULL, &n);
  ck_assert_int_eq(rc, IPS_ERING);
  ck_assert_msg(strstr(ips_ring_reader_message(rd), "truncated while being "
                                                    "read") != NULL,
                "%s", ips_ring_reader_message(rd));
  ck_assert_int_eq(ips_ring_reader_info(rd, &info), IPS_ERING);
  ips_ring_reader_close(rd);
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

START_TEST(truncated_before_info) {
  const char *dir = ru_tmpdir();
  char msg[512];
  ips_ring_reader_t *rd;
  ips_ring_info_t info;
  ips_ring_t *r;
  int rc;
  r = open_ring(dir, msg, sizeof msg, &rc);
  ck_assert_msg(rc == 0, "%s", msg);
  put(r, 'd', 1, 1);
  ck_assert_int_eq(ips_ring_reader_open(&rd, ips_ring_path(r), msg, sizeof msg),
                   0);
  ck_assert_int_eq(truncate(ips_ring_path(r), 0), 0);
  ck_assert_int_eq(ips_ring_reader_info(rd, &info), IPS_ERING);
  ck_assert_int_eq(ips_ring_reader_set_paused(rd, 1), IPS_ERING);
  ips_ring_reader_close(rd);
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

/* One process's stamps come from one monotonic clock: a stamp below the
 * previous one is refused (it gave otel --ring spans of negative
 * duration; the analysis refuses such stamps in a slogfile). */
START_TEST(stamps_going_back_refused) {
  const char *dir = ru_tmpdir();
  char msg[512];
  ips_ring_reader_t *rd;
  ips_ring_t *r;
  int rc, n = 0;
  r = open_ring(dir, msg, sizeof msg, &rc);
  ck_assert_msg(rc == 0, "%s", msg);
  put(r, 'd', 1000, 1);
  put(r, 'e', 1000, 1); /* equal is fine: a coarse clock */
  put(r, 'd', 2000, 2);
  put(r, 'e', 1500, 2);
  ck_assert_int_eq(ips_ring_reader_open(&rd, ips_ring_path(r), msg, sizeof msg),
                   0);
  rc = ips_ring_reader_poll(rd, 0, count_event, NULL, &n);
  ck_assert_int_eq(rc, IPS_ERING);
  ck_assert_int_eq(n, 3);
  ck_assert_msg(strstr(ips_ring_reader_message(rd), "mono_ns 1500 is before "
                                                    "the previous stamp's "
                                                    "2000") != NULL,
                "%s", ips_ring_reader_message(rd));
  ips_ring_reader_close(rd);
  /* After seek_end, only what follows counts. */
  ck_assert_int_eq(ips_ring_reader_open(&rd, ips_ring_path(r), msg, sizeof msg),
                   0);
  ips_ring_reader_seek_end(rd);
  put(r, 'd', 1600, 3);
  n = 0;
  ck_assert_int_eq(ips_ring_reader_poll(rd, 0, count_event, NULL, &n), 1);
  ips_ring_reader_close(rd);
  ips_ring_close(r);
  ru_cleanup();
}
END_TEST

int main(void) {
  Suite *s = suite_create("ring_hostile");
  TCase *tc = tcase_create("Hostile");
  SRunner *sr;
  int failed;
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, planted_names_not_followed);
  tcase_add_test(tc, full_filesystem_refused_at_start);
  tcase_add_test(tc, fifo_and_device_refused);
  tcase_add_test(tc, truncated_under_reader);
  tcase_add_test(tc, truncated_before_info);
  tcase_add_test(tc, stamps_going_back_refused);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
