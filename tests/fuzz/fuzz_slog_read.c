/* fuzz_slog_read.c — libFuzzer target for the slogfile line reader
 * (analyze/slog_read.c, slog_ahead.c) on a regular file, which it maps.
 *
 * Each input is a file's bytes, written to a temporary file and read
 * three ways: the read path (a buffer), the mapped path, and the
 * read-ahead reader that `ipcstamp report` uses (mapped, parsing on two
 * threads).  Besides "no crash, no leak, no read out of bounds", the three
 * must give the same lines: the same bytes, lengths, flags (too long, no
 * end of line) and numbers, and the read-ahead reader the same parse
 * result as parsing the read path's line; and read from a pipe, the same
 * lines as from the file (check_pipe).  A small --max-line makes long
 * lines common.
 *
 * Then the follow path (report --follow): the same whole lines, and once
 * at the end of the file, the path replaced by a FIFO is an error saying
 * so, never a wait (check_follow). */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slog.h"
#include "fuzz.h"

#define MAX_LINE 128
/* A flight recorder file's header: magic and three 64-bit words. */
#define FLIGHT_HEADER 32

static char path[64];
static ips__parser_t *parser;

/* The same bytes through a pipe, as `ssh node cat FILE | ipcstamp report
 * -` reads them: the same lines, flags and numbers as from the file, except
 * where only a file can tell.  A flight recorder is judged by its header
 * when a file is opened, and by its first bytes when a pipe is first read:
 * a file refused at opening is refused by the pipe's first read, and a
 * pipe may refuse at once what a file reads as text (fewer bytes than a
 * header). */
static void check_pipe(size_t size) {
  ips__slog_in_t *fi, *pi;
  char dev[32], e1[512], e2[512];
  int p[2], first = 1;
  if (size > 60000)
    return; /* more than a pipe holds without a reader */
  CHECK(pipe(p) == 0);
  {
    /* The file's bytes into the pipe, then its end: EOF after them. */
    char buf[4096];
    int fd = open(path, O_RDONLY);
    ssize_t n;
    CHECK(fd >= 0);
    while ((n = read(fd, buf, sizeof buf)) > 0)
      CHECK(write(p[1], buf, (size_t)n) == n);
    close(fd);
    close(p[1]);
  }
  snprintf(dev, sizeof dev, "/dev/fd/%d", p[0]);
  fi = ips__slog_open(path, MAX_LINE, e1, sizeof e1);
  pi = ips__slog_open(dev, MAX_LINE, e2, sizeof e2);
  close(p[0]);
  CHECK(pi != NULL);
  for (;;) {
    const char *l1 = NULL, *l2;
    size_t n1 = 0, n2;
    int f1 = 0, f2, c1 = -2;
    int c2 = ips__slog_next(pi, &l2, &n2, &f2, e2, sizeof e2);
    if (fi)
      c1 = ips__slog_next(fi, &l1, &n1, &f1, e1, sizeof e1);
    if (first && c2 == -1 && c1 != -1) {
      CHECK(strstr(e2, "flight recorder") || strstr(e2, "standard input"));
      break;
    }
    first = 0;
    CHECK(c1 == c2);
    if (c1 != 1)
      break;
    CHECK(n1 == n2 && f1 == f2);
    CHECK(ips__slog_lineno(fi) == ips__slog_lineno(pi));
    if (!(f1 & IPS__LINE_TOOLONG))
      CHECK(memcmp(l1, l2, n1) == 0);
  }
  ips__slog_close(fi);
  ips__slog_close(pi);
}

static void check_follow(void) {
  char e1[512], e2[512], old[80];
  ips__slog_in_t *fo = ips__slog_open(path, MAX_LINE, e1, sizeof e1);
  ips__slog_in_t *ref = ips__slog_open(path, MAX_LINE, e2, sizeof e2);
  int c, i;
  CHECK(!fo == !ref);
  if (!fo)
    return;
  if (ips__slog_follow(fo, path) != 0) { /* a flight recorder */
    ips__slog_close(fo);
    ips__slog_close(ref);
    return;
  }
  for (;;) {
    const char *l1, *l2;
    size_t n1, n2;
    int f1, f2;
    c = ips__slog_next(fo, &l1, &n1, &f1, e1, sizeof e1);
    if (c != 1)
      break;
    CHECK(ips__slog_next(ref, &l2, &n2, &f2, e2, sizeof e2) == 1);
    CHECK(n1 == n2 && f1 == f2);
    if (!(f1 & IPS__LINE_TOOLONG))
      CHECK(memcmp(l1, l2, n1) == 0);
  }
  if (c == IPS__SLOG_AGAIN) {
    snprintf(old, sizeof old, "%s.old", path);
    CHECK(rename(path, old) == 0 && mkfifo(path, 0600) == 0);
    /* the old file's unfinished line may come first */
    for (i = 0; i < 4 && (c == 1 || c == IPS__SLOG_AGAIN); i++) {
      const char *l;
      size_t n;
      int f;
      c = ips__slog_next(fo, &l, &n, &f, e1, sizeof e1);
    }
    CHECK(c == -1 && strstr(e1, "replaced by a FIFO") != NULL);
    unlink(path);
    CHECK(rename(old, path) == 0);
  }
  ips__slog_close(fo);
  ips__slog_close(ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ips__slog_in_t *rd, *mp;
  ips__slog_ahead_t *ah;
  char err[512], e2[512], e3[512];
  int fd;
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/fuzz_slog_read.%d", (int)getpid());
    parser = ips__parser_new(0);
    CHECK(parser != NULL);
  }
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
  close(fd);
  rd = ips__slog_open(path, MAX_LINE, err, sizeof err);
  mp = ips__slog_open(path, MAX_LINE, e2, sizeof e2);
  ah = ips__slog_ahead_open(path, MAX_LINE, 0, 0, e3, sizeof e3);
  /* All three open it, or none: a flight recorder file whose header is
   * damaged is refused by each. */
  CHECK(!rd == !mp && !rd == !ah);
  check_pipe(size);
  if (!rd)
    return 0;
  /* Mapped unless empty, gzip (which the read path inflates) or a flight
   * recorder file (read through its ring: flight.c). */
  CHECK(ips__slog_map(mp, path) ==
        (size > 0 && !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b) &&
         !(size >= FLIGHT_HEADER && memcmp(data, "AG-SLOG!", 8) == 0)));
  for (;;) {
    const char *l1, *l2;
    const ips__rec_t *r;
    ips__slog_item_t it;
    size_t n1, n2;
    int f1, f2, c1 = ips__slog_next(rd, &l1, &n1, &f1, err, sizeof err);
    int c2 = ips__slog_next(mp, &l2, &n2, &f2, e2, sizeof e2);
    int c3 = ips__slog_ahead_next(ah, &it, e3, sizeof e3);
    CHECK(c1 == c2 && c1 == c3);
    if (c1 != 1)
      break;
    CHECK(n1 == n2 && f1 == f2 && n1 == it.len && f1 == it.flags);
    CHECK(ips__slog_lineno(rd) == ips__slog_lineno(mp) &&
          ips__slog_lineno(rd) == ips__slog_ahead_lineno(ah));
    CHECK(n1 <= MAX_LINE || (f1 & IPS__LINE_TOOLONG));
    if (f1 & IPS__LINE_TOOLONG)
      continue;
    CHECK(memcmp(l1, l2, n1) == 0);
    CHECK(it.parsed == ips__slog_parse(parser, l1, n1, &r, err, sizeof err));
    if (it.parsed == 0)
      CHECK(it.rec->type == r->type && it.rec->have == r->have &&
            it.rec->n_walls == r->n_walls && it.rec->n_wmono == r->n_wmono);
  }
  ips__slog_close(rd);
  ips__slog_close(mp);
  ips__slog_ahead_close(ah);
  check_follow();
  return 0;
}
