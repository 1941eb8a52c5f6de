/* utf8.c — strict UTF-8, the one check every layer uses: the worker for
 * mark names, the parent for what it embeds in the slogfile. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-proto.h"

size_t ips_utf8_prefix(const void *p, size_t n) {
  const unsigned char *s = p;
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    size_t k;
    uint32_t cp;
    if (c < 0x80) {
      i++;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      k = 1;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      k = 2;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      k = 3;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (n - i <= k)
      return i;
    for (size_t j = 1; j <= k; j++) {
      if ((s[i + j] & 0xc0) != 0x80)
        return i;
      cp = (cp << 6) | (s[i + j] & 0x3f);
    }
    if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) ||
        (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return i;
    i += k + 1;
  }
  return n;
}

int ips_utf8_valid(const void *p, size_t n) {
  return ips_utf8_prefix(p, n) == n;
}

size_t ips_utf8_cut(const void *p, size_t n) {
  const unsigned char *s = p;
  size_t i = n, back = 0;
  /* Back over at most 3 continuation bytes to the lead byte of the last
   * character; keep it only when the character is whole within n. */
  while (i > 0 && back < 3 && (s[i - 1] & 0xc0) == 0x80) {
    i--;
    back++;
  }
  if (i > 0 && s[i - 1] >= 0xc0) {
    unsigned c = s[i - 1];
    size_t need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
    return back >= need ? n : i - 1;
  }
  return n;
}
