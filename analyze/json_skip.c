/* slog_skip.c — skip a JSON value without tokenising it.
 *
 * The payloads of a slogfile line are most of its bytes and the report does
 * not need them.  yajl still parses everything around them; this scan only
 * checks that brackets match and strings end, which is what tells a cut or
 * garbled payload from a whole one.  It is not a parser: it accepts
 * whatever a well-bracketed value looks like (`--strict` validates all).
 */
#include "config.h"

#include <string.h>

#include "slog.h"

#define MAX_NEST 512

/* Index just past the closing quote of the string whose opening quote is at
 * p[pos - 1], or -1.  memchr does the work: backslashes are rare, and a
 * quote is escaped exactly when an odd run of backslashes precedes it. */
static long skip_string(const char *p, size_t len, size_t pos) {
  for (;;) {
    const char *q = memchr(p + pos, '"', len - pos);
    size_t i, bs = 0;
    if (!q)
      return -1;
    i = (size_t)(q - p);
    while (i - bs > pos && p[i - bs - 1] == '\\')
      bs++;
    pos = i + 1;
    if (!(bs & 1))
      return (long)pos;
  }
}

long ips__json_skip(const char *p, size_t len, size_t pos, int depth) {
  char stack[MAX_NEST];
  int n = 0, want = depth;
  if (depth == 0) {
    while (pos < len && (p[pos] == ' ' || p[pos] == '\t' || p[pos] == '\r' ||
                         p[pos] == '\n'))
      pos++;
    if (pos >= len)
      return -1;
    if (p[pos] == '"')
      return skip_string(p, len, pos + 1);
    if (p[pos] != '{' && p[pos] != '[') {
      /* A scalar: its characters, up to the next delimiter. */
      size_t s = pos;
      while (pos < len && (strchr("+-.0123456789eEtruefalsn", p[pos]) &&
                           p[pos] != '\0'))
        pos++;
      return pos > s ? (long)pos : -1;
    }
  }
  /* Enclosing containers of unknown type match any closer. */
  while (pos < len) {
    char c = p[pos++];
    switch (c) {
      case '"': {
        long e = skip_string(p, len, pos);
        if (e < 0)
          return -1;
        pos = (size_t)e;
        break;
      }
      case '{':
      case '[':
        if (n == MAX_NEST)
          return -1;
        stack[n++] = c;
        break;
      case '}':
      case ']':
        if (n > 0) {
          if (stack[--n] != (c == '}' ? '{' : '['))
            return -1;
          if (n == 0 && want == 0)
            return (long)pos;
        } else {
          if (want == 0)
            return -1;
          if (--want == 0)
            return (long)pos;
        }
        break;
      default:
        break;
    }
  }
  return -1;
}

/* Called for every stamp of every line: one pass, no floating point. */
int ips__dec_to_ns(const char *s, size_t n, int64_t *out) {
  static const uint32_t scale[10] = {1000000000, 100000000, 10000000, 1000000,
                                     100000,     10000,     1000,     100,
                                     10,         1};
  size_t i = 0, start;
  uint64_t v = 0, f = 0;
  int neg = 0, fd = 0;
  if (n > 0 && s[0] == '-') {
    neg = 1;
    i = 1;
  }
  start = i;
  while (i < n && (unsigned)(s[i] - '0') < 10)
    v = v * 10 + (uint64_t)(s[i++] - '0');
  /* INT64_MAX ns is 9223372036.854775807 s. */
  if (i == start || i - start > 10 || v > 9223372035u)
    return -1;
  if (i < n && s[i] == '.') {
    size_t fs = ++i;
    while (i < n && (unsigned)(s[i] - '0') < 10) {
      if (fd < 9) {
        f = f * 10 + (uint64_t)(s[i] - '0');
        fd++;
      }
      i++;
    }
    if (i == fs)
      return -1;
  }
  if (i != n)
    return -1; /* exponents never appear in stamps: refuse, do not guess */
  v = v * 1000000000u + f * scale[fd];
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 0;
}
