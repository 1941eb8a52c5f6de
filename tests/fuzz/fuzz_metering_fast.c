/* fuzz_metering_fast.c — libFuzzer target: the parent's metering matcher
 * (parent/metering_fast.c) against its general reader, differentially.
 * Whatever the matcher takes, the general reader must take and read the
 * same, with the same copy for the slogfile (tests/parent/check_metering_fast.c
 * does it for canonical meterings and their one-byte changes; this goes
 * further).  Built from the parent's sources: their internals are not
 * exported.  Seeds: tests/fuzz/corpus/metering. */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "ipcstamp-parent.h"
#include "metering.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  ips_metering_t f, s;
  yajl_gen gf = yajl_gen_alloc(NULL), gs = yajl_gen_alloc(NULL);
  int cf = 0, cs = 0;
  char err[256];
  CHECK(gf && gs);
  yajl_gen_config(gs, yajl_gen_validate_utf8, 1);
  static ips__mstore_t store; /* kept across inputs, as a child keeps it */
  ips_metering_t b;
  int took = size && ips__metering_fast(buf, size, &f, gf, &cf, NULL);
  /* into a store: the same decision, the same values */
  CHECK((size && ips__metering_fast(buf, size, &b, NULL, NULL, &store)) ==
        took);
  if (took) {
    const unsigned char *bf, *bs;
    size_t nf, ns;
    CHECK(ips__metering_parse_general(buf, size, &s, err, sizeof err, gs,
                                      &cs) == 0);
    CHECK(cf && cs && f.n == s.n && f.version == s.version &&
          f.has_ipcstamp == s.has_ipcstamp &&
          f.dropped == s.dropped && f.has_cpu_ns == s.has_cpu_ns &&
          f.cpu_ns == s.cpu_ns && f.has_compute == s.has_compute &&
          f.compute == s.compute && f.has_allocate == s.has_allocate &&
          f.allocate == s.allocate);
    CHECK(b.n == f.n && b.dropped == f.dropped && b.cpu_ns == f.cpu_ns &&
          b.compute == f.compute && b.allocate == f.allocate);
    if (f.n) { /* a stamps-off metering has no arrays on either side */
      CHECK(!strcmp(f.kinds, s.kinds) && !strcmp(b.kinds, f.kinds));
      CHECK(!memcmp(f.wall_us, s.wall_us, f.n * sizeof *f.wall_us));
      CHECK(!memcmp(f.mono_ns, s.mono_ns, f.n * sizeof *f.mono_ns));
      CHECK(!memcmp(b.wall_us, f.wall_us, f.n * sizeof *f.wall_us));
      CHECK(!memcmp(b.mono_ns, f.mono_ns, f.n * sizeof *f.mono_ns));
    } else {
      CHECK(!f.kinds && !s.kinds && !f.wall_us && !s.wall_us);
    }
    yajl_gen_get_buf(gf, &bf, &nf);
    yajl_gen_get_buf(gs, &bs, &ns);
    CHECK(nf == ns && !memcmp(bf, bs, nf));
    ips_metering_free(&s);
    ips_metering_free(&f);
  }
  yajl_gen_free(gf);
  yajl_gen_free(gs);
  return 0;
}
