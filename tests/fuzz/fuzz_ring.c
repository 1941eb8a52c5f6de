/* fuzz_ring.c — libFuzzer target for the ring reader (analyze/ring_read.c).
 *
 * Each input is a whole ring file: it is put in an anonymous memory file
 * and opened, polled and described like a ring of a dead process.  Besides
 * "no crash, no leak, no read outside the mapping", a reader either refuses
 * the file with a message, or delivers events whose numbers climb by one
 * (less any gap it reported) and whose fields are the table's. */
#define _GNU_SOURCE
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "ipcstamp-ring-read.h"

typedef struct {
  uint64_t next, events, lost;
  int have;
} state_t;

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
  return 0;
}

static void on_lost(void *arg, uint64_t n) {
  state_t *s = arg;
  CHECK(n > 0);
  s->lost += n;
  s->next += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64], msg[256];
  ips_ring_reader_t *r;
  ips_ring_info_t info;
  state_t s;
  int fd = memfd_create("fuzz_ring", MFD_CLOEXEC), rc, rounds;
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
  ips_ring_reader_close(r);
  return 0;
}
