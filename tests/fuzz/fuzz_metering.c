/* fuzz_metering.c — libFuzzer target for the parent's metering reader, the
 * first thing that touches a worker's untrusted metering JSON.
 *
 * Besides "no crash, no leak, no read past the input", it checks a round
 * trip: whatever the reader accepts is written again by the worker's
 * writer (proto) and read back to the same stamps. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-parent.h"
#include "ipcstamp-proto.h"
#include "fuzz.h"

static void round_trip(const ips_metering_t *m) {
  ips_stamps_t t;
  ips_metering_t back;
  ips_meter_t extra = {NULL, 0, m->has_cpu_ns, m->cpu_ns};
  char err[256], *out;
  size_t cap, len;
  uint32_t i;
  int rc;

  if (m->n < 2 || m->dropped < 0 || m->dropped > UINT32_MAX)
    return;
  if (ips_stamps_init(&t, m->n) != 0)
    return;
  for (i = 0; i < m->n; i++) {
    ips_stamp_t s = {m->wall_us[i], m->mono_ns[i], m->kinds[i], 0, 0};
    t.v[i] = s;
  }
  t.n = m->n;
  t.dropped = (uint32_t)m->dropped;
  cap = ips_metering_max_size(t.n, 0);
  out = malloc(cap);
  CHECK(out != NULL);
  rc = ips_metering_write(out, cap, &t, &extra, &len);
  if (rc == 0) {
    CHECK(ips_metering_parse(out, len, &back, err, sizeof err) == 0);
    CHECK(back.n == m->n && back.dropped == m->dropped);
    CHECK(back.has_cpu_ns == m->has_cpu_ns);
    CHECK(!m->has_cpu_ns || back.cpu_ns == m->cpu_ns);
    CHECK(strcmp(back.kinds, m->kinds) == 0);
    CHECK(memcmp(back.wall_us, m->wall_us, m->n * sizeof *m->wall_us) == 0);
    CHECK(memcmp(back.mono_ns, m->mono_ns, m->n * sizeof *m->mono_ns) == 0);
    ips_metering_free(&back);
  } else {
    CHECK(rc == IPS_EINVAL); /* a kind the writer will not emit */
  }
  free(out);
  ips_stamps_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ips_metering_t m;
  char err[256];
  /* A private copy of exactly size bytes: ASan then catches any read past
   * the end, which a NUL-terminated copy would hide. */
  char *buf = malloc(size ? size : 1);
  int rc;
  CHECK(buf != NULL);
  memcpy(buf, data, size);
  rc = ips_metering_parse(buf, size, &m, err, sizeof err);
  if (rc == 0) {
    CHECK(m.n <= IPS_METERING_MAX_STAMPS);
    CHECK(m.n == 0 || m.wall_us != NULL);
    CHECK(m.kinds == NULL || strlen(m.kinds) == m.n);
    if (m.has_ipcstamp && m.mono_ns != NULL && m.kinds != NULL)
      round_trip(&m);
  } else {
    CHECK(rc == IPS_EMETERING || rc == IPS_EVERSION);
    CHECK(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
  }
  ips_metering_free(&m);
  free(buf);
  return 0;
}
