/* slog_parse.h — inside the general slogfile reader (internal to the
 * analysis): the parser's state, shared by its two halves.
 *
 *   slog_parse.c   the line: yajl resumed around the skipped payloads,
 *                  the tail anchor, the arena yajl allocates from
 *   slog_fields.c  the tokens: where each sits in the record (context,
 *                  key, index) and what the analysis keeps of it
 * A deliver-result's metering is not tokenised here: at its opening brace
 * the parse stops (P_METER) and its bytes go to the one metering decoder
 * (slog_meter.c).
 */
#ifndef IPCSTAMP_ANALYZE_SLOG_PARSE_H
#define IPCSTAMP_ANALYZE_SLOG_PARSE_H

#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "decimal.h"
#include "digits.h"
#include "slog.h"

#define MAXD 16

/* Where a token sits (C_IPS: a slog-start's "ipcstamp" object). */
enum { C_NONE, C_TOP, C_VD, C_MSG, C_METHARGS, C_NOTIFY, C_NENTRY, C_DR,
       C_IPS };
enum { K_NONE, K_TYPE, K_CRANK, K_VAT, K_DNUM, K_SNUM, K_TIME, K_MONO, K_VD,
       K_DR, K_IPCSTAMP, K_METHARGS, K_BODY, K_METHOD, K_V, K_REPLAY, K_PID,
       K_PRUNQ, K_HEIGHT, K_BTIME, K_COMPRESS, K_DBSAVE };
/* P_METER: dr[2]'s opening brace was read, its metering is the decoder's. */
enum { P_NONE, P_STOP, P_SKIP_KEYVAL, P_SKIP_ELEM, P_SKIP_REST, P_ERR,
       P_METER };
enum { V_OTHER, V_MESSAGE, V_NOTIFY };

struct ips__parser {
  int strict;           /* validate every byte (yajl with UTF-8 checks) */
  int fast;             /* try slog_fast.c's matcher first */
  int noskip;           /* tokenise payloads too: strict, or a retry */
  ips__rec_t rec;
  int mute, depth, pending, extract, vdtype, nvp;
  uint64_t top_seen;    /* K_* bits of the record's fields read so far */
  int to_tail;          /* the skipped value runs to the tail anchor */
  int dr_msg;           /* the element skipped next is an error's message */
  const char *line;     /* the line being parsed, and its tail anchor: */
  size_t len;           /* the index of its last `,"time":`, or 0 */
  long anchor;
  size_t used;          /* bytes of arena handed out for this line */
  yajl_alloc_funcs af;
  _Alignas(16) char arena[32768];
  char stk[MAXD];
  int ctx[MAXD], key[MAXD], idx[MAXD];
  char err[200];
  yajl_callbacks cb;
};

/* The callbacks that read the tokens into p->rec (slog_fields.c). */
void ips__parse_callbacks(yajl_callbacks *cb);
/* An array's element is over: the next has the next index. */
void ips__parse_elem_done(ips__parser_t *p);
/* A container closes (0: it was not well formed, p->err says why). */
int ips__parse_pop(ips__parser_t *p);
/* The line is bad: msg goes to p->err.  Returns 0, for yajl to stop. */
static inline int ips__parse_fail(ips__parser_t *p, const char *msg) {
  snprintf(p->err, sizeof p->err, "%s", msg);
  p->pending = P_ERR;
  return 0;
}

/* A macro, so that the length is a constant and memcmp is inlined: keys
 * are compared for every token of every line. */
#define is(s, n, lit) \
  ((n) == sizeof(lit) - 1 && !memcmp((s), (lit), sizeof(lit) - 1))

/* A count: 1 to 18 digits (so that it fits), read by the one digit
 * parser (proto/digits.h).  0, or -1 when it is not. */
static inline int ips__to_ll(const unsigned char *s, size_t n,
                             long long *out) {
  uint64_t v = 0;
  if (n == 0 || n > 18 || ips__digits((const char *)s, 0, n, &v) != n)
    return -1;
  *out = (long long)v;
  return 0;
}

#endif
