/* json.c — the little JSON vocabulary every output format speaks. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ipcstamp-proto.h"

#include "output.h"

/* Every string an output writes is valid UTF-8, whatever it came from (a
 * file name, a vatID, text cut to a width): each byte that does not start
 * a whole, strict UTF-8 character is written as U+FFFD.  yajl writes a
 * string in one call, so a string that needs it is mended into a copy. */
void out_str(yajl_gen g, const char *s) {
  size_t n = strlen(s), i = 0, o = 0, k;
  char *m;
  if ((k = ips_utf8_prefix(s, n)) == n) {
    yajl_gen_string(g, (const unsigned char *)s, n);
    return;
  }
  m = malloc(3 * n);
  if (!m) { /* the text is lost, not the output's validity */
    yajl_gen_string(g, (const unsigned char *)s, k);
    return;
  }
  while (i < n) {
    memcpy(m + o, s + i, k);
    o += k;
    i += k;
    if (i == n)
      break;
    memcpy(m + o, "\xef\xbf\xbd", 3);
    o += 3;
    i++;
    k = ips_utf8_prefix(s + i, n - i);
  }
  yajl_gen_string(g, (const unsigned char *)m, o);
  free(m);
}

void out_int(yajl_gen g, const char *key, long long v) {
  out_str(g, key);
  yajl_gen_integer(g, v);
}

void out_kv(yajl_gen g, const char *key, const char *v) {
  out_str(g, key);
  out_str(g, v);
}

void out_us(yajl_gen g, const char *key, int64_t ns) {
  char b[IPS_US_BUF];
  out_str(g, key);
  ips_format_us(b, ns);
  yajl_gen_number(g, b, strlen(b));
}

void out_flush(yajl_gen g, FILE *f, int nl) {
  const unsigned char *buf;
  size_t len;
  yajl_gen_get_buf(g, &buf, &len);
  fwrite(buf, 1, len, f);
  yajl_gen_clear(g);
  if (nl) { /* a JSON line is a whole value: the next one starts afresh */
    fputc('\n', f);
    yajl_gen_reset(g, NULL);
  }
}

yajl_gen out_gen(void) {
  yajl_gen g = yajl_gen_alloc(NULL);
  if (g)
    yajl_gen_config(g, yajl_gen_validate_utf8, 0);
  return g;
}
