/* mark_pair.h — pairing a delivery's VM mark events into its marks and
 * spans (metering v2).  Shared by the slogfile's analysis
 * (marks.c) and `ipcstamp otel --ring` (tools/otel/ring.c), which compiles
 * mark_pair.c in itself: the installed library exports only its public
 * API, and the two must pair alike, so that a delivery's spans are the
 * same from either source. */
#ifndef IPCSTAMP_ANALYZE_MARK_PAIR_H
#define IPCSTAMP_ANALYZE_MARK_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-analyze.h"

/* One event as recorded: kind 'm', 'b' or 'e', a name index, its time on
 * the delivery's W clock. */
typedef struct {
  int64_t t;
  uint32_t seq;  /* recording order: the tie-break (a measure's b, then e) */
  uint32_t name;
  char kind;
} ips__mev_t;

/* Per event while pairing (private to the pairing; the caller only gives
 * room for as many as there are events): a begin's mark in out, and the
 * begin of the same name open before it. */
typedef struct {
  size_t out;
  uint32_t name;
} ips__mopen_t;

/* Pair ev[0..n) (sorted in place by time, then seq) into out (room for n):
 * a mark as kind 'm', a begin and the innermost open begin of the same
 * name as one span 's' of its length, each with its depth (spans open
 * around it) and worker stretch (wseg, from W's n_up r stamps), in time
 * order of the start.  Every event's t must already lie inside W[0] ..
 * W[2 + 2 n_up - 1] and every name index below the names' count: the
 * caller checks its own input.  name i is names + name_off[i] (kept, not
 * copied).  Returns how many went into out; *unbalanced (may be NULL) gets
 * the ends that closed no begin plus the begins left open, which are left
 * out as they have no length.  O(n log n); out of memory (a table of the
 * names), none is paired and all n are counted as unbalanced. */
size_t ips__marks_pair(ips__mev_t *ev, size_t n, ips__mopen_t *op,
                       const char *names, const uint32_t *name_off,
                       const int64_t *W, size_t n_up,
                       ips_delivery_mark_t *out, size_t *unbalanced);

/* Copy the NUL-terminated s into d (room for strlen(s) + 1: never longer):
 * valid UTF-8 kept, control bytes and broken sequences as '?', so that
 * every writer can print a name whatever bytes it came as. */
void ips__marks_sanitise(char *d, const char *s);

#endif
