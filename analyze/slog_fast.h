/* slog_fast.h — the byte matchers shared by the fast path's two files
 * (internal to libipcstamp-analyze).
 *
 * slog_fast.c matches a record's frame and the kernel's fields,
 * slog_fast_meter.c a deliver-result's dr and the worker's metering in
 * it.  Both read numbers and strings with proto/match.h's helpers, the
 * metering decoder's too.  Only the two files include this header.
 */
#ifndef IPCSTAMP_ANALYZE_SLOG_FAST_H
#define IPCSTAMP_ANALYZE_SLOG_FAST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "match.h"
#include "slog.h"

/* `{"k":V,...}` from c: each member's key goes to member(), which reads
 * its value.  Returns 1 when the object closes, 0 when anything else
 * comes or member() says no.  Inline: the matcher's innermost walk (a
 * message's arguments). */
typedef int member_fn(cur_t *c, const char *k, size_t n, void *ctx);
static inline int ips__fast_object(cur_t *c, member_fn *member, void *ctx) {
  if (!LIT(c, "{"))
    return 0;
  if (LIT(c, "}"))
    return 1;
  for (;;) {
    const char *k;
    size_t n;
    if (!LIT(c, "\"") || !text(c, &k, &n) || !LIT(c, ":") ||
        !member(c, k, n, ctx))
      return 0;
    if (LIT(c, "}"))
      return 1;
    if (!LIT(c, ","))
      return 0;
  }
}

/* slog_fast_meter.c: `,"dr":["ok"|"error",RESULT,METERING],"seconds":S`
 * of a deliver-result from c up to the anchor (the comma before "time"),
 * into r.  Returns 1 when it is all there, exactly as our parent and
 * SwingSet write it; 0 to leave the line to the yajl path. */
int ips__fast_dr(cur_t *c, size_t anchor, ips__rec_t *r);

#endif
