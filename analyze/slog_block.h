/* slog_block.h — a block of lines read ahead (slog_ahead.c) and the
 * records its reader thread parsed them into, kept compactly in the
 * block's own arenas until the caller takes them.  Internal to the
 * analysis. */
#ifndef IPCSTAMP_ANALYZE_SLOG_BLOCK_H
#define IPCSTAMP_ANALYZE_SLOG_BLOCK_H

#include <stdint.h>
#include <string.h>

#include "slog.h"

#define BLOCK_LINES 4096u /* a block ends here or when its buffer is full */
/* Out of room in an arena (reserve()). */
#define NOROOM UINT32_MAX

/* A line, and what the reader's parse of it gave.  The record is kept as
 * its hot fields, its cold ones only when they are not all zero (in the
 * block's stamps arena, with its arrays), and its two strings in the
 * block's text: the whole record, with its 64- and 96-byte buffers mostly
 * empty, was more bytes than the line it came from, written on one core
 * and read on the other (a twentieth of the time); then, as 152 plain
 * bytes, still 216 a line, against 96 now.  hand_out() makes a record of
 * it again. */
/* No cold part; an empty string.  Never an offset of anything of one byte
 * or more (reserve() gives those below UINT32_MAX - 1), nor NOROOM. */
#define NONE (UINT32_MAX - 1)
typedef struct {
  const char *p;     /* the line's bytes, in data (none if dropped) */
  size_t len;
  int flags;
  int parsed;        /* ips__slog_parse()'s result; 1 when not parsed */
  _Alignas(8) unsigned char hot[IPS__REC_HOT]; /* the record's start */
  /* Offsets into the block's arenas (bounded: reserve()), or NONE. */
  uint32_t vat, desc; /* text: the strings */
  uint32_t cold;      /* stamps: a cold_t; text: the error when parsed < 0 */
} line_t;

/* The rest of a record that has any: its cold fields and where its arrays
 * are in the block's arenas. */
typedef struct {
  unsigned char plain[IPS__REC_PLAIN - IPS__REC_HOT];
  uint32_t walls, wmono, kinds;           /* stamps, stamps, text */
  uint32_t wrunq;                         /* stamps */
  uint32_t marks, mname_off, mnames;      /* ipcstamp.marks, when present */
} cold_t;

/* A buffer that grows; offsets into it stay valid when it moves. */
typedef struct {
  char *p;
  size_t used, cap;
} arena_t;

/* Who parses a block.  FILLED blocks are free to take; the reader's are
 * handed out from their records, the caller's line by line. */
enum { FILLED, BY_READER, PARSED, BY_CALLER };

typedef struct {
  char *data;      /* the buffer the lines are in */
  size_t cap;
  line_t *lines;   /* BLOCK_LINES */
  size_t n;
  arena_t stamps;  /* int64_t walls and wmono of the reader's records */
  arena_t text;    /* their kinds strings and parse errors */
  int state;       /* under the lock */
  int status;      /* after these lines: 1 more to come, 0 end, -1 error,
                      IPS__SLOG_AGAIN none yet (following) */
  char err[256];
  uint64_t done;   /* input consumed when the block was filled */
  /* Mapped: the block is the range [from, to) of the mapping, cut into
   * lines by whoever parses it; the lines in lines[] (parsed by the
   * reader, at most BLOCK_LINES) end at cut, and the caller cuts and
   * parses the rest itself. */
  size_t from, to, cut;
} block_t;

/* Parses every line of b into its records (kept in b's arenas).  Returns
 * 0, or -1 when out of memory: then b is left to the caller to parse. */
int ips__block_parse(ips__parser_t *p, block_t *b);
/* One line of b (l, in b->lines) into its record, kept: 0 or -1. */
int ips__block_parse_line(ips__parser_t *p, block_t *b, line_t *l);

/* The record the reader parsed l into, made again in *out, pointing
 * into b's arenas (which no longer move once the block is parsed): its
 * hot bytes, and its cold ones when it has any, else zeros (written only
 * when the record before had some: *out_cold says whether it had).
 * Inline: the caller's thread makes every record so. */
static inline const ips__rec_t *ips__block_unkeep(ips__rec_t *out,
                                                  int *out_cold,
                                                  const block_t *b,
                                                  const line_t *l) {
  static int64_t no_stamps[1];
  static char no_kinds[1];
  ips__rec_t *r = out;
  memcpy(r, l->hot, IPS__REC_HOT);
  r->vat = l->vat == NONE ? "" : b->text.p + l->vat;
  r->desc = l->desc == NONE ? "" : b->text.p + l->desc;
  if (l->cold != NONE) {
    const cold_t *c = (const cold_t *)(const void *)(b->stamps.p + l->cold);
    memcpy((char *)r + IPS__REC_HOT, c->plain, sizeof c->plain);
    r->walls = (int64_t *)(void *)(b->stamps.p + c->walls);
    r->wmono = (int64_t *)(void *)(b->stamps.p + c->wmono);
    r->wrunq = (int64_t *)(void *)(b->stamps.p + c->wrunq);
    r->kinds = b->text.p + c->kinds;
    if (r->have & IPS__F_MARKS) {
      r->marks = (ips__mark_t *)(void *)(b->stamps.p + c->marks);
      r->mname_off = (uint32_t *)(void *)(b->stamps.p + c->mname_off);
      r->mnames = b->text.p + c->mnames;
    } else { /* nothing of the parser's is pointed to */
      r->marks = NULL;
      r->mname_off = NULL;
      r->mnames = NULL;
    }
    *out_cold = 1;
  } else if (*out_cold || !r->kinds) {
    memset((char *)r + IPS__REC_HOT, 0, IPS__REC_PLAIN - IPS__REC_HOT);
    r->walls = r->wmono = r->wrunq = no_stamps;
    r->kinds = no_kinds;
    r->marks = NULL;
    r->mname_off = NULL;
    r->mnames = NULL;
    *out_cold = 0;
  }
  return r;
}

#endif
