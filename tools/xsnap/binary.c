/* binary.c — what a worker binary is, from the strings in it, and the
 * record of an original that install keeps beside its backup (xsnap.h).
 * Everything here reads untrusted bytes: a planted file may hold any. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "xsnap.h"

/* The strings worker/xs/hooks.c puts in every ipcstamp-worker-xs, and
 * xsnap's own.  The metering slot is the prefix followed by a field of
 * METERING_FIELD bytes, the mode NUL-padded (hooks.c declares it so). */
static const char marker[] = "ipcstamp-worker-xs: xsnap-worker with ipcstamp";
static const char dev_marker[] = "ipcstamp-worker-xs-dev: a development build";
static const char xsnap_version[] = "xsnap_version: ";
static const char slot[] = "ipcstamp-xs-metering=";
#define METERING_FIELD 16

/* Up to size - 1 printable, non-blank bytes at p (before end), NUL-ended. */
static void word(const char *p, const char *end, char *out, size_t size) {
  size_t n;
  for (n = 0; p + n < end && n + 1 < size && p[n] > ' ' && p[n] < 0x7f; n++)
    out[n] = p[n];
  out[n] = '\0';
}

/* The one metering slot of buf, or NULL (none, or more than one). */
static char *find_slot(const char *buf, size_t len) {
  const char *p = memmem(buf, len, slot, sizeof slot - 1), *q;
  if (!p || (size_t)(buf + len - p) < sizeof slot - 1 + METERING_FIELD)
    return NULL;
  q = memmem(p + 1, (size_t)(buf + len - p - 1), slot, sizeof slot - 1);
  return q ? NULL : (char *)p + sizeof slot - 1;
}

void xs_kind_of(const char *buf, size_t len, xs_kind_t *k) {
  const char *p, *end = buf + len;
  memset(k, 0, sizeof *k);
  k->elf = len >= 4 && memcmp(buf, "\177ELF", 4) == 0;
  k->ours = memmem(buf, len, marker, sizeof marker - 1) != NULL;
  k->dev = memmem(buf, len, dev_marker, sizeof dev_marker - 1) != NULL;
  if ((p = memmem(buf, len, xsnap_version, sizeof xsnap_version - 1)))
    word(p + sizeof xsnap_version - 1, end, k->version, sizeof k->version);
  if (k->ours && (p = find_slot(buf, len))) {
    word(p, p + METERING_FIELD, k->metering, sizeof k->metering);
    /* As the worker reads it: the field's bytes up to a NUL (hooks.c) */
    k->slot_damaged = strncmp(p, "xsnap", METERING_FIELD) != 0 &&
                      strncmp(p, "ipcstamp", METERING_FIELD) != 0;
  }
}

int xs_set_metering(char *buf, size_t len, const char *mode) {
  char *p = find_slot(buf, len);
  size_t n = strlen(mode);
  if (!p || n >= METERING_FIELD) return -1;
  memset(p, 0, METERING_FIELD);
  memcpy(p, mode, n);
  return 0;
}

static const char record_head[] = "ipcstamp xsnap backup v1: size ";

size_t xs_record_format(const xs_record_t *r, char *out, size_t size) {
  int n = snprintf(out, size, "%s%" PRIu64 " crc32 %08" PRIx32 " xsnap %s\n",
                   record_head, r->size, r->crc, r->version);
  return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

void xs_record_of(const char *data, size_t len, const xs_kind_t *k,
                  xs_record_t *r) {
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t off = 0;
  /* zlib takes a uInt length: feed it in pieces. */
  while (off < len) {
    size_t n = len - off > (1u << 30) ? (1u << 30) : len - off;
    crc = crc32(crc, (const Bytef *)data + off, (uInt)n);
    off += n;
  }
  r->size = len;
  r->crc = (uint32_t)crc;
  snprintf(r->version, sizeof r->version, "%s", k->version);
}

int xs_record_parse(const char *text, size_t len, xs_record_t *r) {
  char line[XS_RECORD_MAX], back[XS_RECORD_MAX];
  unsigned long long size;
  unsigned crc;
  int n = -1;
  /* One line, of the length format writes at most, no NUL in it. */
  if (len == 0 || len >= sizeof line || memchr(text, '\0', len) ||
      text[len - 1] != '\n' || memchr(text, '\n', len - 1))
    return -1;
  memcpy(line, text, len);
  line[len] = '\0';
  memset(r, 0, sizeof *r);
  if (sscanf(line, "ipcstamp xsnap backup v1: size %20llu crc32 %8x xsnap %31s%n",
             &size, &crc, r->version, &n) != 3 || n < 0)
    return -1;
  r->size = size;
  r->crc = crc;
  /* Exactly what format writes: no sign, spaces or leading zeros let in. */
  if (xs_record_format(r, back, sizeof back) != len || memcmp(back, line, len) != 0)
    return -1;
  return 0;
}
