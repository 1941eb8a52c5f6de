/* suites.h — the Check suites of tests/proto/check_proto, and a seeded PRNG so
 * that random tests are reproducible (the seed is printed on failure). */
#ifndef IPCSTAMP_TESTS_SUITES_H
#define IPCSTAMP_TESTS_SUITES_H

#include <check.h>
#include <stdint.h>

Suite *errors_suite(void);
Suite *netstring_suite(void);
Suite *stamps_suite(void);
Suite *metering_suite(void);
Suite *marks_suite(void);

/* xorshift64*: small, fast, and the same on every machine. */
static inline uint64_t test_rand(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 2685821657736338717ULL;
}

#endif
