/* fuzz_otel_causes.c — libFuzzer target for the analysis's scan of the
 * records `ipcstamp otel` links its spans by (analyze/causes.c): the kinds
 * and causes of a slogfile's deliveries from its deliver and syscall
 * records (kd, ksc), which any bytes may fill.
 *
 * The input is lines, each a record of that line number.  Besides "no
 * crash, no leak", the promises checked: a deliver record's facts have a
 * NUL-terminated kind, at most IPS_MAX_CAUSES causes, each a delivery of
 * an earlier line with a reason of 's' or 'r' and a NUL-terminated vat and
 * promise id. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "causes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ips__causes_t *x = ips__causes_new();
  char *buf = malloc(size + 1);
  size_t i, from = 0;
  long line = 0;
  if (!x || !buf) {
    ips__causes_free(x);
    free(buf);
    return 0;
  }
  memcpy(buf, data, size);
  buf[size] = '\0';
  for (i = 0; i <= size; i++) {
    ips_delivery_causes_t f;
    size_t j;
    if (i < size && buf[i] != '\n')
      continue;
    buf[i] = '\0';
    line++;
    ips__causes_record(x, line, buf + from, i - from);
    from = i + 1;
    if (!ips__causes_get(x, line, &f))
      continue;
    CHECK(memchr(f.kind, '\0', sizeof f.kind) != NULL);
    CHECK(f.n <= IPS_MAX_CAUSES);
    for (j = 0; j < f.n; j++) {
      CHECK(f.c[j].line > 0 && f.c[j].line < line);
      CHECK(f.c[j].why == 's' || f.c[j].why == 'r');
      CHECK(memchr(f.c[j].vat, '\0', sizeof f.c[j].vat) != NULL);
      CHECK(memchr(f.c[j].kpid, '\0', sizeof f.c[j].kpid) != NULL);
    }
  }
  ips__causes_free(x);
  free(buf);
  return 0;
}
