/* bench_ring.c — what the live ring adds to a stamp (goal: a
 * stamp with the ring on at most 1.3 times the stamp alone): the worker's
 * path, ips_stamps_add() then ips_ring_stamp() of the stamp just taken,
 * against ips_stamps_add() alone, and against the same with the ring
 * paused (one relaxed load and a branch).  Sides alternate, the median of
 * the per-round ratios is printed.  The ring lives in a scratch directory
 * that is removed at the end.
 *
 * usage: bench_ring [ROUNDS [RING_BYTES]]   (default 31, the default ring) */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "ipcstamp-proto.h"
#include "ipcstamp-ring.h"

enum { PER_ROUND = 200000, TABLE = 1024 };

typedef struct {
  ips_stamps_t t;
  ips_ring_t *ring; /* NULL: the stamp alone */
} side_t;

static double batch(void *ctx) {
  side_t *s = ctx;
  int64_t t0 = bench_now_ns();
  int i;
  for (i = 0; i < PER_ROUND; i++) {
    if (s->t.n == TABLE - 1)
      ips_stamps_reset(&s->t);
    ips_stamps_add(&s->t, 'd');
    if (s->ring) /* as the worker does: the stamp it just recorded */
      ips_ring_stamp(s->ring, &s->t.v[s->t.n - 1], (uint64_t)i, 0);
  }
  return (double)(bench_now_ns() - t0) * 1e-9 / PER_ROUND;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 31;
  char dir[] = "/tmp/ipcstamp-bench-ring-XXXXXX", msg[256];
  ips_ring_options_t o;
  ips_ring_t *ring;
  side_t alone, on, paused;
  bench_ab_t r1, r2;
  if (rounds < 3)
    rounds = 3;
  if (!mkdtemp(dir))
    return 1;
  ips_ring_options_init(&o);
  o.dir = dir;
  if (argc > 2)
    o.size = (size_t)strtoull(argv[2], NULL, 10);
  if (ips_ring_open(&ring, &o, msg, sizeof msg) != 0) {
    fprintf(stderr, "bench_ring: %s\n", msg);
    return 1;
  }
  memset(&alone, 0, sizeof alone);
  if (ips_stamps_init(&alone.t, TABLE) != 0)
    return 1;
  on = alone;
  on.ring = ring;
  paused = on;
  bench_pin();
  printf("bench_ring: %d rounds x %d stamps, alternating, pinned\n", rounds,
         PER_ROUND);
  r1 = bench_compare(batch, &on, batch, &alone, rounds);
  printf("  stamp + ring event  %6.1f ns   stamp alone %6.1f ns   ratio %.3f "
         "(quartiles %.3f-%.3f; goal <= 1.3)\n",
         r1.a * 1e9, r1.b * 1e9, r1.ratio, r1.q1, r1.q3);
  ips_ring_pause(ring);
  r2 = bench_compare(batch, &paused, batch, &alone, rounds);
  printf("  ring paused         %6.1f ns   stamp alone %6.1f ns   ratio %.3f "
         "(quartiles %.3f-%.3f)\n",
         r2.a * 1e9, r2.b * 1e9, r2.ratio, r2.q1, r2.q3);
  printf("  events written %llu, overwritten %llu\n",
         (unsigned long long)ips_ring_written(ring),
         (unsigned long long)ips_ring_overwritten(ring));
  unlink(ips_ring_path(ring));
  ips_ring_close(ring);
  rmdir(dir);
  ips_stamps_free(&alone.t);
  return 0;
}
