/* gen_ring_seeds.c — writes the seed corpus of fuzz_ring: rings made by the
 * real producer (fresh, wrapped with padding, paused), each small.
 * Usage: gen_ring_seeds DIR (the rings appear as DIR/<pid>.ring and are
 * renamed by the caller; see tests/local.mk). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-ring.h"

static ips_ring_t *open_in(const char *dir, size_t size) {
  ips_ring_options_t o;
  ips_ring_t *r;
  char msg[256];
  ips_ring_options_init(&o);
  o.dir = dir;
  o.size = size;
  o.program = "gen_ring_seeds";
  o.vat = "v7";
  if (ips_ring_open(&r, &o, msg, sizeof msg) != 0) {
    fprintf(stderr, "gen_ring_seeds: %s\n", msg);
    exit(1);
  }
  return r;
}

int main(int argc, char **argv) {
  ips_ring_t *r;
  ips_stamp_t s = {1795300856504227, 1000, 'd'};
  ips_ring_attribution_t a = {100, 2000, 300, 2400, 12, 3, NULL, 5000};
  int i, which;
  if (argc != 3) {
    fprintf(stderr, "usage: gen_ring_seeds DIR fresh|wrapped\n");
    return 2;
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
