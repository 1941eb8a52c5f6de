/* cursor.h — a cursor over bytes for the exact-form matchers (internal,
 * header only, not installed): the analysis's slog lines
 * (analyze/slog_fast.c) and the parent's metering (parent/metering_fast.c)
 * both match a known form byte for byte and hand anything else to yajl. */
#ifndef IPCSTAMP_PROTO_CURSOR_H
#define IPCSTAMP_PROTO_CURSOR_H

#include <stddef.h>
#include <string.h>

typedef struct {
  const char *s;
  size_t i, n; /* at s[i], of s[0..n) */
} cur_t;

/* The literal l[0..ln) at the cursor: step over it (1), or 0. */
static inline int lit(cur_t *c, const char *l, size_t ln) {
  if (c->n - c->i < ln || memcmp(c->s + c->i, l, ln))
    return 0;
  c->i += ln;
  return 1;
}
/* With a literal, the length is a constant and memcmp is inlined. */
#define LIT(c, l) lit((c), (l), sizeof(l) - 1)

#endif
