/* gen_ring_seeds.c — writes the seed corpus of fuzz_ring: rings made by the
 * real producer (fresh, wrapped with padding, paused), each small; and
 * "marks": one delivery's stamps with the VM's marks and spans between d
 * and e, and its attribution, so that fuzz_ring's joiner (the file read as
 * both a worker's ring and a parent's) hands out a delivery with marks.
 * Usage: gen_ring_seeds DIR fresh|wrapped|marks (the ring appears as
 * DIR/<pid>.ring and is renamed by the caller; see tests/local.mk).
 *
 * It also writes the rings of tests/tools/live-hostile.test, as a busy or a
 * hostile worker would:
 *   gen_ring_seeds DIR many N   N stamps (d, e, ... climbing), in a ring
 *                               large enough to hold them all
 *   gen_ring_seeds DIR back     a worker's d e d e whose last e goes back
 *   gen_ring_seeds DIR evil     a program name and vat with terminal
 *                               escapes (OSC title, BEL, clear screen, C1)
 * Each prints the ring's path. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-ring.h"

static ips_ring_t *open_named(const char *dir, size_t size,
                              const char *program, const char *vat) {
  ips_ring_options_t o;
  ips_ring_t *r;
  char msg[256];
  ips_ring_options_init(&o);
  o.dir = dir;
  o.size = size;
  o.program = program;
  o.vat = vat;
  if (ips_ring_open(&r, &o, msg, sizeof msg) != 0) {
    fprintf(stderr, "gen_ring_seeds: %s\n", msg);
    exit(1);
  }
  return r;
}

static ips_ring_t *open_in(const char *dir, size_t size) {
  return open_named(dir, size, "gen_ring_seeds", "v7");
}

static void stamp(ips_ring_t *r, char kind, int64_t mono, uint64_t k) {
  ips_stamp_t s;
  s.wall_us = 1795300856504227 + mono / 1000;
  s.mono_ns = mono;
  s.kind = kind;
  ips_ring_stamp(r, &s, k, 0);
}

/* The rings of tests/tools/live-hostile.test; 2 for an unknown mode. */
static int hostile(const char *dir, const char *mode, const char *count) {
  ips_ring_t *r;
  if (count && !strcmp(mode, "many")) {
    long n = atol(count), i;
    /* 64 bytes a stamp, and room to spare */
    size_t size = ((size_t)n * 64 + (1u << 16) + 15) & ~(size_t)15;
    if (n <= 0 || size > IPS_RING_MAX_SIZE) return 2;
    r = open_named(dir, size, "gen_ring_seeds", "v1");
    for (i = 0; i < n; i++)
      stamp(r, i % 2 ? 'e' : 'd', 1000 + i * 10, (uint64_t)i / 2 + 1);
  } else if (!count && !strcmp(mode, "back")) {
    r = open_named(dir, IPS_RING_MIN_SIZE, "gen_ring_seeds", "v1");
    stamp(r, 'd', 1000, 1);
    stamp(r, 'e', 2000, 1);
    stamp(r, 'd', 3000, 2);
    stamp(r, 'e', 2500, 2); /* before its own d */
  } else if (!count && !strcmp(mode, "evil")) {
    r = open_named(dir, IPS_RING_MIN_SIZE,
                   "x\033]0;pwned\007\033[2J\302\233" "31m", "v\033[5m\007");
    stamp(r, 'd', 1000, 1);
    stamp(r, 'e', 2000, 1);
  } else {
    return 2;
  }
  printf("%s\n", ips_ring_path(r));
  ips_ring_close(r);
  return 0;
}

int main(int argc, char **argv) {
  ips_ring_t *r;
  ips_stamp_t s = {1795300856504227, 1000, 'd', 0, 0};
  ips_ring_attribution_t a = {100, 2000, 300, 2400, 12, 3, NULL, 5000};
  int i, which;
  if ((argc == 3 || argc == 4) &&
      (!strcmp(argv[2], "many") || !strcmp(argv[2], "back") ||
       !strcmp(argv[2], "evil")))
    which = hostile(argv[1], argv[2], argc == 4 ? argv[3] : NULL);
  else
    which = argc == 3 ? -1 : 2;
  if (which >= 0) {
    if (which)
      fprintf(stderr, "usage: gen_ring_seeds DIR fresh|wrapped|marks|"
                      "many N|back|evil\n");
    return which;
  }
  if (strcmp(argv[2], "marks") == 0) {
    /* d 1000, u 1400, r 1600, e 2000: marks and spans in both stretches,
     * a measure recorded after the end of the span around it, an end
     * without a begin, a begin never ended, a mark timed after e; each
     * written after the stamp number "after" */
    static const struct {
      int after;
      char kind;
      const char *name;
      int64_t at;
    } m[] = {
        {0, 'b', "outer", 1100}, {0, 'm', "tick", 1200}, {0, 'e', "lone", 1300},
        {2, 'e', "outer", 1800}, {2, 'b', "measure", 1700},
        {2, 'e', "measure", 1750}, {2, 'b', "open", 1900},
        {2, 'm', "late", 2500}};
    static const char kinds[] = "dure";
    static const int64_t at[] = {1000, 1400, 1600, 2000};
    ips_ring_attribution_t one = {200, 600, 200, 1000, 1, 1, NULL, 2000};
    size_t j;
    r = open_in(argv[1], 4096);
    for (i = 0; i < 4; i++) {
      s.kind = kinds[i];
      s.mono_ns = at[i];
      ips_ring_stamp(r, &s, 1, (uint32_t)(i == 1 || i == 2));
      for (j = 0; j < sizeof m / sizeof m[0]; j++) {
        ips_stamp_t t = s;
        if (m[j].after != i) continue;
        t.mono_ns = m[j].at;
        ips_ring_vm_mark(r, m[j].kind, m[j].name, strlen(m[j].name), &t, 1);
      }
    }
    ips_ring_attribution(r, &one);
    printf("%s\n", ips_ring_path(r));
    ips_ring_close(r);
    return 0;
  }
  which = strcmp(argv[2], "wrapped") == 0;
  r = open_in(argv[1], which ? 4096 + 48 : 4096);
  for (i = 0; i < (which ? 150 : 6); i++) {
    s.kind = "dure"[i % 4];
    s.mono_ns += 1000;
    s.wall_us += 1;
    ips_ring_stamp(r, &s, (uint64_t)i / 4 + 1, (uint32_t)(i % 4 == 1 || i % 4 == 2));
    if (i % 4 == 3) ips_ring_attribution(r, &a);
    if (i % 9 == 0) ips_ring_mark(r, "gc", &s);
  }
  printf("%s\n", ips_ring_path(r));
  ips_ring_close(r);
  return 0;
}
