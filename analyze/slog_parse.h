/* slog_parse.h — inside the general slogfile reader (internal to the
 * analysis): the parser's state, shared by its two halves.
 *
 *   slog_parse.c   the line: yajl resumed around the skipped payloads,
 *                  the tail anchor, the arena yajl allocates from
 *   slog_fields.c  the tokens: where each sits in the record (context,
 *                  key, index) and what the analysis keeps of it
 */
#ifndef IPCSTAMP_ANALYZE_SLOG_PARSE_H
#define IPCSTAMP_ANALYZE_SLOG_PARSE_H

#include <yajl/yajl_parse.h>

#include "slog.h"

#define MAXD 16

enum { C_NONE, C_TOP, C_VD, C_MSG, C_METHARGS, C_NOTIFY, C_NENTRY, C_DR,
       C_METER, C_WALLS, C_IPS, C_WMONO, C_MARKS, C_MNAMES, C_MEVENTS, C_MEV,
       C_WRUNQ };
enum { K_NONE, K_TYPE, K_CRANK, K_VAT, K_DNUM, K_SNUM, K_TIME, K_MONO, K_VD,
       K_DR, K_IPCSTAMP, K_METHARGS, K_BODY, K_METHOD, K_TIMESTAMPS, K_V,
       K_KINDS, K_WMONO, K_DROPPED, K_CPU, K_REPLAY, K_MARKS, K_MNAMES,
       K_MEVENTS, K_MUNBAL, K_PID, K_PRUNQ, K_WRUNQ, K_HEIGHT, K_BTIME,
       K_COMPRESS, K_DBSAVE, K_COMPUTE };
enum { P_NONE, P_STOP, P_SKIP_KEYVAL, P_SKIP_ELEM, P_SKIP_REST, P_ERR };
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

#endif
