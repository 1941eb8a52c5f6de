/* fuzz_netstring.c — libFuzzer target for the incremental netstring decoder.
 *
 * The first byte of the input chooses how the rest is cut into chunks, so
 * the fuzzer explores partial reads too.  Besides "no crash, no leak", it
 * checks the decoder's promises: every frame it yields re-encodes to exactly
 * the bytes it consumed, offsets only grow, and a failed decoder stays
 * failed with the same error. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-proto.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ips_ns_decoder_t d;
  const char *in;
  size_t n, pos = 0, frame_start = 0;
  unsigned cut;
  uint64_t last_offset = 0;
  static char enc[4096 + 16];

  if (size < 1)
    return 0;
  cut = data[0];
  in = (const char *)data + 1;
  n = size - 1;
  /* Small maximum so that the length limit is reached often. */
  ips_ns_decoder_init(&d, 4096);
  while (pos < n) {
    const char *f;
    size_t flen;
    size_t chunk = cut == 0 ? n - pos : 1 + (pos * 7 + cut) % cut;
    ssize_t used;
    if (chunk > n - pos)
      chunk = n - pos;
    used = ips_ns_feed(&d, in + pos, chunk, &f, &flen);
    if (used < 0) {
      const char *f2;
      size_t l2;
      CHECK(ips_ns_error(&d) == used);
      CHECK(ips_ns_error_offset(&d) >= frame_start);
      CHECK(ips_ns_feed(&d, "0:,", 3, &f2, &l2) == used);
      break;
    }
    CHECK((size_t)used <= chunk);
    pos += (size_t)used;
    CHECK(ips_ns_offset(&d) == pos && ips_ns_offset(&d) >= last_offset);
    last_offset = ips_ns_offset(&d);
    if (f != NULL) {
      size_t w;
      CHECK(flen <= 4096);
      CHECK(ips_ns_encode(enc, sizeof enc, f, flen, &w) == 0);
      CHECK(w == pos - frame_start);
      CHECK(memcmp(enc, in + frame_start, w) == 0);
      frame_start = pos;
    } else if (used == 0) {
      abort(); /* no progress and no frame on non-empty input */
    }
  }
  if (ips_ns_error(&d) == 0)
    CHECK(ips_ns_finish(&d) == (ips_ns_idle(&d) ? 0 : IPS_ENS_EOF));
  ips_ns_decoder_free(&d);
  return 0;
}
