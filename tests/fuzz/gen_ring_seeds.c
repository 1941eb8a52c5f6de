/* gen_ring_seeds.c — writes the seed corpus of fuzz_ring: rings made by the
 * real producer (fresh, wrapped with padding, paused), each small; and
 * "marks": one delivery's stamps with the VM's marks and spans between d
 * and e, and its attribution, so that fuzz_ring's joiner (the file read as
 * both a worker's ring and a parent's) hands out a delivery with marks.
 * Usage: gen_ring_seeds DIR fresh|wrapped|marks (the ring appears as
 * DIR/<pid>.ring and is renamed by the caller; see tests/local.mk). */
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
  ips_stamp_t s = {1795300856504227, 1000, 'd', 0, 0};
  ips_ring_attribution_t a = {100, 2000, 300, 2400, 12, 3, NULL, 5000};
  int i, which;
  if (argc != 3) {
    fprintf(stderr, "usage: gen_ring_seeds DIR fresh|wrapped|marks\n");
    return 2;
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
