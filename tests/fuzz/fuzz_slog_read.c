/* fuzz_slog_read.c — libFuzzer target for the slogfile line reader
 * (analyze/slog_read.c, slog_ahead.c) on a regular file, which it maps.
 *
 * Each input is a file's bytes, written to a temporary file and read
 * three ways: the read path (a buffer), the mapped path, and the
 * read-ahead reader that `ipcstamp report` uses (mapped, parsing on two
 * threads).  Besides "no crash, no leak, no read out of bounds", the three
 * must give the same lines: the same bytes, lengths, flags (too long, no
 * end of line) and numbers, and the read-ahead reader the same parse
 * result as parsing the read path's line.  A small --max-line makes long
 * lines common. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slog.h"
#include "fuzz.h"

#define MAX_LINE 128
/* A flight recorder file's header: magic and three 64-bit words. */
#define FLIGHT_HEADER 32

static char path[64];
static ips__parser_t *parser;

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
  return 0;
}
