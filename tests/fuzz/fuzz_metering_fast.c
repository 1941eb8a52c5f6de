/* fuzz_metering_fast.c — libFuzzer target: the metering decoder's fast
 * path (proto/meter_fast.c) against its general reader (meter_read.c),
 * differentially.  Whatever the fast path takes, the general reader must
 * take and read the same (tests/parent/check_metering_fast.c does it for
 * canonical meterings and their one-byte changes; this goes further).
 * Built from the decoder's sources: their internals are not exported.
 * Seeds: tests/fuzz/corpus/metering. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "meter.h"
#include "meter_same.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  /* kept across inputs, as a child and a parser keep them */
  static ips__meter_t f, s;
  char err[256];
  int flags = size && (data[0] & 1) ? IPS__METER_TRAILING : 0;
  if (!f.walls) {
    CHECK(meter_alloc(&f, 4096) && meter_alloc(&s, 4096));
    CHECK(ips__meter_general(&f, "{\"ipcstamp\":{\"marks\":{}}}", 25, 0, err,
                             sizeof err) == 0);
  }
  if (size && ips__meter_fast(&f, buf, size, flags)) {
    CHECK(ips__meter_general(&s, buf, size, flags, err, sizeof err) == 0);
    CHECK(meter_same(&f, &s));
  } else {
    /* the general reader alone: no crash, a message when it refuses */
    if (ips__meter_general(&s, buf, size, flags, err, sizeof err) != 0)
      CHECK(err[0] != '\0');
  }
  return 0;
}
