/* desc.c — a delivery's description, as the report shows it: from the
 * message's method, a notify's promise ids, or a text; control bytes as
 * '?'.  Both slogfile readers (slog_fast.c, slog_fields.c) call these. */
#include "config.h"

#include <string.h>

#include "slog.h"


/* The method of a message: the first string of the methargs body,
 * `#["name",[args]]` (smallcaps) or `["name",...]`, read from the raw JSON
 * string (quotes escaped) or from its value. */
void ips__desc_method(char *d, const char *s, size_t n) {
  size_t i = 0, o = 0;
  if (i < n && s[i] == '"') i++;
  if (i < n && s[i] == '#') i++;
  if (i >= n || s[i++] != '[') return;
  if (i < n && s[i] == '\\') i++;
  if (i >= n || s[i++] != '"') return;
  if (i < n && s[i] == '!') i++; /* smallcaps escapes a leading special */
  while (i < n && s[i] != '"' && s[i] != '\\' && o + 1 < IPS__DESC_MAX) {
    unsigned char c = (unsigned char)s[i++];
    d[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
  }
  o = ips_utf8_cut(d, o); /* cut short: never inside a character */
  if (o > 0)
    d[o] = '\0';
}

void ips__desc_set(char *d, const char *text, size_t n) {
  const unsigned char *s = (const unsigned char *)text;
  size_t i;
  if (n >= IPS__DESC_MAX) n = ips_utf8_cut(s, IPS__DESC_MAX - 1);
  for (i = 0; i < n; i++)
    d[i] = (s[i] < 0x20 || s[i] == 0x7f) ? '?' : (char)s[i];
  d[n] = '\0';
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
  memcpy(desc + l + 1, s, n);
  desc[l + 1 + n] = '\0';
  for (size_t i = l + 1; i < l + 1 + n; i++)
    if ((unsigned char)desc[i] < 0x20) desc[i] = '?';
}
