/* ids.c — trace and span ids derived from the slogfile, so that sending the
 * same file twice gives the same ids (a receiver or a collector that
 * de-duplicates sees a re-send as the same spans, not new ones).
 *
 * The hash is FNV-1a over the identity's bytes, each 64-bit half with its
 * own seed, then a 64-bit finaliser (xor-shift-multiply) so that near
 * identities (crank 12 and 13) differ in every bit.  It is not
 * cryptographic: the ids only have to be distinct and reproducible, and
 * they are computed the same way on every machine (integers are hashed as
 * little-endian bytes whatever the host's order). */
#include "config.h"

#include <string.h>

#include "otel.h"


static uint64_t fnv_u64(uint64_t h, uint64_t v) {
  unsigned char b[8];
  int i;
  for (i = 0; i < 8; i++)
    b[i] = (unsigned char)(v >> (8 * i));
  return ips_fnv1a(h, b, 8);
}

/* Murmur3's fmix64: every input bit moves every output bit. */
static uint64_t fmix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

/* The hash of (run, d's identity, what, k) from seed. */
static uint64_t hash(const otel_ids_t *ids, const ips_delivery_t *d,
                     uint64_t seed, uint64_t what, uint64_t k) {
  uint64_t h = seed;
  h = fnv_u64(h, ids->run[0]);
  h = fnv_u64(h, ids->run[1]);
  h = ips_fnv1a(h, d->vat, strlen(d->vat) + 1);
  h = fnv_u64(h, (uint64_t)d->crank);
  h = fnv_u64(h, (uint64_t)d->dnum);
  h = fnv_u64(h, (uint64_t)d->line);
  /* Only for the rings, so that a file's ids stay what they were before
   * pids were read. */
  if (ids->with_pid)
    h = fnv_u64(h, (uint64_t)d->worker_pid);
  h = fnv_u64(h, what);
  h = fnv_u64(h, k);
  return fmix(h);
}

static void put_be(uint8_t *out, uint64_t v) {
  int i;
  for (i = 0; i < 8; i++)
    out[i] = (uint8_t)(v >> (56 - 8 * i));
}

void otel_ids_init(otel_ids_t *ids, const ips_stats_t *st) {
  ids->run[0] = st->first_time_ok ? (uint64_t)st->first_time : 0;
  ids->run[1] = st->first_mono_ok ? (uint64_t)st->first_mono : 0;
  ids->with_pid = 0;
}

/* Two seeds (FNV's offset basis, and another odd constant). */
#define SEED_A IPS_FNV1A_BASIS
#define SEED_B 0x9e3779b97f4a7c15ULL

void otel_trace_id(const otel_ids_t *ids, const ips_delivery_t *d,
                   uint8_t out[16]) {
  uint64_t a = hash(ids, d, SEED_A, 1, 0), b = hash(ids, d, SEED_B, 1, 0);
  if (!a && !b) /* the all-zero id is invalid: vanishingly rare, but fixed */
    b = 1;
  put_be(out, a);
  put_be(out + 8, b);
}

void otel_span_id(const otel_ids_t *ids, const ips_delivery_t *d, size_t k,
                  uint8_t out[8]) {
  uint64_t a = hash(ids, d, SEED_A, 2, (uint64_t)k);
  put_be(out, a ? a : 1);
}
