/* ring_writer.c — writes one ring with the real producer, as a hostile or a
 * busy worker would, for tests/live-hostile.test:
 *
 *   ring_writer DIR many N   N stamps (d, e, d, e, ... climbing), in a ring
 *                            large enough to hold them all
 *   ring_writer DIR back     a worker's d e d e whose last e goes back
 *   ring_writer DIR evil     a program name and vat with terminal escapes
 *                            (OSC title, BEL, clear screen, CSI as C1)
 *
 * The ring appears as DIR/<pid>.ring; the process then exits (readers
 * follow a dead process's ring as any other). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-ring.h"

static ips_ring_t *open_in(const char *dir, size_t size, const char *program,
                           const char *vat) {
  ips_ring_options_t o;
  ips_ring_t *r;
  char msg[256];
  ips_ring_options_init(&o);
  o.dir = dir;
  o.size = size;
  o.program = program;
  o.vat = vat;
  if (ips_ring_open(&r, &o, msg, sizeof msg) != 0) {
    fprintf(stderr, "ring_writer: %s\n", msg);
    exit(1);
  }
  return r;
}

static void stamp(ips_ring_t *r, char kind, int64_t mono, uint64_t k) {
  ips_stamp_t s;
  s.wall_us = 1795300856504227 + mono / 1000;
  s.mono_ns = mono;
  s.kind = kind;
  ips_ring_stamp(r, &s, k, 0);
}

int main(int argc, char **argv) {
  ips_ring_t *r;
  if (argc == 4 && !strcmp(argv[2], "many")) {
    long n = atol(argv[3]), i;
    /* 64 bytes a stamp, and room to spare */
    size_t size = ((size_t)n * 64 + (1u << 16) + 15) & ~(size_t)15;
    if (n <= 0 || size > IPS_RING_MAX_SIZE) return 2;
    r = open_in(argv[1], size < IPS_RING_MIN_SIZE ? IPS_RING_MIN_SIZE : size,
                "ring_writer", "v1");
    for (i = 0; i < n; i++)
      stamp(r, i % 2 ? 'e' : 'd', 1000 + i * 10, (uint64_t)i / 2 + 1);
  } else if (argc == 3 && !strcmp(argv[2], "back")) {
    r = open_in(argv[1], IPS_RING_MIN_SIZE, "ring_writer", "v1");
    stamp(r, 'd', 1000, 1);
    stamp(r, 'e', 2000, 1);
    stamp(r, 'd', 3000, 2);
    stamp(r, 'e', 2500, 2); /* before its own d */
  } else if (argc == 3 && !strcmp(argv[2], "evil")) {
    r = open_in(argv[1], IPS_RING_MIN_SIZE,
                "x\033]0;pwned\007\033[2J\302\233" "31m", "v\033[5m\007");
    stamp(r, 'd', 1000, 1);
    stamp(r, 'e', 2000, 1);
  } else {
    fprintf(stderr, "usage: ring_writer DIR many N | back | evil\n");
    return 2;
  }
  ips_ring_close(r);
  return 0;
}
