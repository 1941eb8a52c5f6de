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
