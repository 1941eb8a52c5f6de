/* fuzz_blocks.c — libFuzzer target for the block assembler and the heap
 * snapshot clock (analyze/blocks.c) behind `ipcstamp blocks`, through the
 * public analysis on a whole file.
 *
 * Each input is a slogfile's bytes, written to a temporary file and read
 * by an analysis with the block callback, on the wall and the mono clock.
 * Besides "no crash, no leak, no undefined behaviour", every block handed
 * out must add up: its parts are its swingset time, exactly (wrapping
 * arithmetic, which hostile times may need, still adds up); and every
 * delivery's gap and snapshots are never negative and add up to D minus
 * the previous E.  The wall clock's run keeps the deliveries' kinds and
 * causes too (analyze/causes.c, fed by the same reader): each delivery's
 * are well formed, its causes earlier deliver records. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipcstamp-analyze.h"
#include "fuzz.h"

static char path[64];

static void on_block(void *arg, const ips_block_t *b) {
  uint64_t sum = (uint64_t)b->pipe + (uint64_t)b->worker +
                 (uint64_t)b->kernel + (uint64_t)b->unmatched +
                 (uint64_t)b->snap_save + (uint64_t)b->snap_load +
                 (uint64_t)b->kernel_own;
  (void)arg;
  CHECK(sum == (uint64_t)b->swingset_ns);
  CHECK(b->clock == 'w' || b->clock == 'm');
  CHECK(memchr(b->busy_vat, '\0', sizeof b->busy_vat) != NULL);
  CHECK(memchr(b->dom_desc, '\0', sizeof b->dom_desc) != NULL);
}

static ips_analysis_t *cur; /* the run's analysis */

static void on_delivery(void *arg, const ips_delivery_t *d) {
  ips_delivery_causes_t c;
  size_t i;
  (void)arg;
  CHECK(d->snap_save_ns >= 0 && d->snap_load_ns >= 0);
  CHECK(!d->has_gap || d->gap_ns >= 0);
  if (!ips_analysis_causes(cur, d->line, &c))
    return;
  CHECK(memchr(c.kind, '\0', sizeof c.kind) != NULL);
  CHECK(c.n <= IPS_MAX_CAUSES);
  for (i = 0; i < c.n; i++) {
    CHECK(c.c[i].line > 0 && c.c[i].line < d->line);
    CHECK(c.c[i].why == 's' || c.c[i].why == 'r');
  }
}

static void run(int clock) {
  ips_source_t *src;
  ips_analysis_t *a;
  ips_analysis_options_t o;
  char err[256];
  long n;
  ips_analysis_options_init(&o);
  o.clock = clock;
  o.on_delivery = on_delivery;
  if (ips_source_open(&src, path, NULL, err, sizeof err) < 0)
    return;
  CHECK(ips_analysis_new(&a, &o) == 0);
  CHECK(ips_analysis_on_block(a, on_block, NULL) == 0);
  cur = a;
  if (clock == IPS_CLOCK_WALL)
    CHECK(ips_analysis_keep_causes(a) == 0);
  while ((n = ips_analysis_read(a, src, 0, err, sizeof err)) > 0) {
  }
  ips_analysis_finish(a);
  ips_analysis_free(a);
  ips_source_close(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *f;
  if (!path[0])
    snprintf(path, sizeof path, "/tmp/fuzz_blocks.%ld", (long)getpid());
  f = fopen(path, "wb");
  CHECK(f != NULL);
  CHECK(fwrite(data, 1, size, f) == size || size == 0);
  CHECK(fclose(f) == 0);
  run(IPS_CLOCK_WALL);
  run(IPS_CLOCK_AUTO);
  unlink(path);
  return 0;
}
