/* fuzz_otel_causes.c — libFuzzer target for the records pass of `ipcstamp
 * otel` (tools/otel/causes.c): the kinds and causes of a slogfile's
 * deliveries from its deliver and syscall records (kd, ksc), which any
 * bytes may fill.
 *
 * The input is lines, each a record of that line number.  Besides "no
 * crash, no leak", the promises checked: a deliver record's facts have a
 * NUL-terminated kind, at most OTEL_MAX_CAUSES causes, each a delivery of
 * an earlier line with a reason of 's' or 'r' and a NUL-terminated vat and
 * promise id. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "otel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  otel_causes_t *x = otel_causes_new();
  char *buf = malloc(size + 1);
  size_t i, from = 0;
  long line = 0;
  if (!x || !buf) {
    otel_causes_free(x);
    free(buf);
    return 0;
  }
  memcpy(buf, data, size);
  buf[size] = '\0';
  for (i = 0; i <= size; i++) {
    otel_deliver_facts_t f;
    size_t j;
    if (i < size && buf[i] != '\n')
      continue;
    buf[i] = '\0';
    line++;
    otel_causes_record(x, line, buf + from, i - from);
    from = i + 1;
    if (!otel_causes_get(x, line, &f))
      continue;
    CHECK(memchr(f.kind, '\0', sizeof f.kind) != NULL);
    CHECK(f.n <= OTEL_MAX_CAUSES);
    for (j = 0; j < f.n; j++) {
      CHECK(f.c[j].line > 0 && f.c[j].line < line);
      CHECK(f.c[j].why == 's' || f.c[j].why == 'r');
      CHECK(memchr(f.c[j].vat, '\0', sizeof f.c[j].vat) != NULL);
      CHECK(memchr(f.c[j].kpid, '\0', sizeof f.c[j].kpid) != NULL);
    }
  }
  otel_causes_free(x);
  free(buf);
  return 0;
}
