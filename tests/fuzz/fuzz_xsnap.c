/* fuzz_xsnap.c — libFuzzer target for what `ipcstamp xsnap` reads from a
 * node's tree (tools/xsnap/binary.c): the strings of a binary (any file
 * may have been planted under the names it reads), the metering slot it
 * rewrites, and the record beside the backup.
 *
 * The input is both a binary image and a record's text.  Besides "no
 * crash, no read past the end", the promises checked: the version and
 * mode found are printable and bounded; setting the slot changes only
 * the slot's bytes and reads back as set; a record that parses formats
 * back to exactly its text, and the record of any image formats to a
 * text that parses back to it. */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "xsnap.h"

static void printable(const char *s, size_t size) {
  size_t n = strnlen(s, size);
  CHECK(n < size);
  for (; *s; s++) CHECK(*s > ' ' && *s < 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  xs_kind_t k, k2;
  xs_record_t r, r2;
  char text[XS_RECORD_MAX], *img;
  size_t n, i;

  xs_kind_of((const char *)data, size, &k);
  printable(k.version, sizeof k.version);
  printable(k.metering, sizeof k.metering);
  if (size > 0 && (img = malloc(size))) {
    memcpy(img, data, size);
    if (xs_set_metering(img, size, "xsnap") == 0) {
      size_t diff = 0;
      for (i = 0; i < size; i++) diff += img[i] != (char)data[i];
      CHECK(diff <= 16);
      xs_kind_of(img, size, &k2);
      CHECK(!k2.ours || strcmp(k2.metering, "xsnap") == 0);
    }
    free(img);
  }
  if (xs_record_parse((const char *)data, size, &r) == 0) {
    n = xs_record_format(&r, text, sizeof text);
    CHECK(n == size && memcmp(text, data, size) == 0);
  }
  xs_record_of((const char *)data, size, &k, &r);
  n = xs_record_format(&r, text, sizeof text);
  CHECK(xs_record_parse(text, n, &r2) == 0 || !k.version[0]);
  return 0;
}
