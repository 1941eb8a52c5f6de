/* fuzz.h — what every libFuzzer target here shares. */
#ifndef IPCSTAMP_TESTS_FUZZ_H
#define IPCSTAMP_TESTS_FUZZ_H

#include <stdint.h>
#include <stdlib.h>

/* A broken promise is a crash, so libFuzzer keeps the input. */
#define CHECK(c) \
  do {           \
    if (!(c))    \
      abort();   \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
