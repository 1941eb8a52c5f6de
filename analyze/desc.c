/* desc.c — a delivery's description, as the report shows it: from the
 * message's method, a notify's promise ids, or a text; control characters
 * as '?' (ips__text_clean, which vatIDs and mark names go through too).
 * Both slogfile readers (slog_fast.c, slog_fields.c) call these. */
#include "config.h"

#include <string.h>

#include "slog.h"


size_t ips__text_clean(char *d, const void *s, size_t n) {
  const unsigned char *u = s;
  size_t i, o = 0;
  for (i = 0; i < n; i++) {
    unsigned char c = u[i];
    if (c < 0x20 || c == 0x7f) {
      c = '?';
    } else if (c == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f) {
      c = '?'; /* C1: U+009B is a CSI to a UTF-8 terminal */
      i++;
    }
    d[o++] = (char)c;
  }
  return o;
}

/* The method of a message: the first string of the methargs body,
 * `#["name",[args]]` (smallcaps) or `["name",...]`, read from the raw JSON
 * string (quotes escaped) or from its value. */
void ips__desc_method(char *d, const char *s, size_t n) {
  size_t i = 0, e, o;
  if (i < n && s[i] == '"') i++;
  if (i < n && s[i] == '#') i++;
  if (i >= n || s[i++] != '[') return;
  if (i < n && s[i] == '\\') i++;
  if (i >= n || s[i++] != '"') return;
  if (i < n && s[i] == '!') i++; /* smallcaps escapes a leading special */
  for (e = i; e < n && s[e] != '"' && s[e] != '\\' && e - i < IPS__DESC_MAX;)
    e++;
  if (e - i >= IPS__DESC_MAX) /* cut short: never inside a character */
    e = i + ips_utf8_cut(s + i, IPS__DESC_MAX - 1);
  o = ips__text_clean(d, s + i, e - i);
  if (o > 0)
    d[o] = '\0';
}

void ips__desc_set(char *d, const char *text, size_t n) {
  if (n >= IPS__DESC_MAX) n = ips_utf8_cut(text, IPS__DESC_MAX - 1);
  d[ips__text_clean(d, text, n)] = '\0';
}

void ips__desc_vpid(char *desc, int *nvp, const char *s, size_t n) {
  size_t l = strlen(desc);
  if ((*nvp)++ >= 4) {
    if (*nvp == 6 && l + 4 < IPS__DESC_MAX) memcpy(desc + l, " ...", 5);
    return;
  }
  if (l + n + 2 >= IPS__DESC_MAX)
    return;
  desc[l] = ' ';
  desc[l + 1 + ips__text_clean(desc + l + 1, s, n)] = '\0';
}
