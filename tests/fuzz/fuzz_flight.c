/* fuzz_flight.c — libFuzzer target for the flight recorder reader
 * (analyze/flight.c): Agoric's flight-recorder.bin, read through the same
 * entry as `ipcstamp report FILE` (the slog input, which recognises the
 * file by its magic).
 *
 * Each input is a recorder without its 8-byte magic "AG-SLOG!", which is
 * put in front, so that every execution reaches the recorder's parser
 * (header: arena size, start, end; then records that may wrap).  The bytes
 * go through a temporary file, since the reader reads a file.  Besides
 * "no crash, no leak, no read out of bounds", every line it yields is
 * within --max-line (or reported too long) and their count is bounded by
 * the file's size. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slog.h"
#include "fuzz.h"

#define MAX_LINE 4096

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ips__slog_in_t *in;
  const char *line;
  char err[512];
  size_t len, lines = 0;
  int fd, flags, rc;
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/fuzz_flight.%d", (int)getpid());
  }
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  CHECK(write(fd, "AG-SLOG!", 8) == 8);
  CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
  close(fd);
  in = ips__slog_open(path, MAX_LINE, err, sizeof err);
  if (!in)
    return 0;
  while ((rc = ips__slog_next(in, &line, &len, &flags, err, sizeof err)) ==
         1) {
    CHECK(len <= MAX_LINE || (flags & IPS__LINE_TOOLONG));
    /* Each line ends at a byte of the file ('\n' or its end). */
    CHECK(++lines <= size + 1);
  }
  ips__slog_close(in);
  return 0;
}
