/* slog_block.c — a block's records kept (slog_block.h): each parsed
 * record copied out of the parser, whose arrays the next line reuses, into
 * the block's arenas, as its hot bytes and, only when it has any, its
 * cold ones. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "slog.h"
#include "slog_block.h"

/* Room for n more bytes at an 8-byte aligned offset, which it returns, or
 * NOROOM when out of memory or past what an offset holds (a block's lines
 * are far fewer bytes: a stamp is at least two bytes of text and takes
 * eight here).  The arena always has a buffer after it, even for n == 0
 * (memcpy wants a pointer). */
static uint32_t reserve(arena_t *ar, size_t n) {
  size_t at = (ar->used + 7) & ~(size_t)7;
  if (n >= NOROOM || at >= NOROOM - n)
    return NOROOM;
  if (at + n > ar->cap || !ar->p) {
    size_t cap = ar->cap ? ar->cap : 4096;
    char *p;
    while (cap < at + n)
      cap *= 2;
    p = realloc(ar->p, cap);
    if (!p)
      return NOROOM;
    ar->p = p;
    ar->cap = cap;
  }
  ar->used = at + n;
  return (uint32_t)at;
}

/* A NUL-terminated string of n bytes into b's text; its offset, or NOROOM. */
static uint32_t keep_text(block_t *b, const char *s, size_t n) {
  uint32_t at = reserve(&b->text, n + 1);
  if (at != NOROOM) {
    memcpy(b->text.p + at, s, n);
    b->text.p[at + n] = '\0';
  }
  return at;
}

/* A string into b's text: its offset, NONE when empty, or NOROOM. */
static uint32_t keep_str(block_t *b, const char *s, size_t n) {
  return n ? keep_text(b, s, n) : NONE;
}

/* Whether the record has anything in its cold part: a result's metering,
 * a start's version, a worker's pid (the parser's reset() zeroes it). */
static int has_cold(const ips__rec_t *r) {
  static const unsigned char zero[IPS__REC_PLAIN - IPS__REC_HOT];
  return (r->have & IPS__F_MARKS) || r->kinds[0] ||
         memcmp((const char *)r + IPS__REC_HOT, zero, sizeof zero) != 0;
}

/* Keeps a copy of what the parser's record points to (its arrays are
 * reused on the next line) in the block's arenas.  Returns 0 or -1. */
static int keep(block_t *b, line_t *l, const ips__rec_t *r, const char *err) {
  uint32_t at;
  cold_t *c;
  if (l->parsed < 0)
    return (l->cold = keep_text(b, err, strlen(err))) == NOROOM ? -1 : 0;
  memcpy(l->hot, r, IPS__REC_HOT);
  /* Both are NUL-terminated in their buffers: vat at vat_len. */
  if ((l->vat = keep_str(b, r->vat, r->vat_len)) == NOROOM ||
      (l->desc = keep_str(b, r->desc, r->desc[0] ? strlen(r->desc) : 0)) ==
          NOROOM)
    return -1;
  l->cold = NONE;
  if (!has_cold(r))
    return 0;
  if ((at = reserve(&b->stamps, sizeof *c)) == NOROOM)
    return -1;
  l->cold = at;
  {
    uint32_t walls, wmono, wrunq, kinds;
    if ((walls = reserve(&b->stamps, r->n_walls * sizeof *r->walls)) ==
            NOROOM ||
        (wmono = reserve(&b->stamps, r->n_wmono * sizeof *r->wmono)) ==
            NOROOM ||
        (wrunq = reserve(&b->stamps, r->n_wrunq * sizeof *r->wrunq)) ==
            NOROOM ||
        (kinds = reserve(&b->text, r->n_kinds + 1)) == NOROOM)
      return -1;
    /* The arena may have moved: c is taken after every reserve. */
    c = (cold_t *)(void *)(b->stamps.p + at);
    memcpy(c->plain, (const char *)r + IPS__REC_HOT, sizeof c->plain);
    c->walls = walls;
    c->wmono = wmono;
    c->wrunq = wrunq;
    c->kinds = kinds;
    memcpy(b->stamps.p + walls, r->walls, r->n_walls * sizeof *r->walls);
    memcpy(b->stamps.p + wmono, r->wmono, r->n_wmono * sizeof *r->wmono);
    memcpy(b->stamps.p + wrunq, r->wrunq, r->n_wrunq * sizeof *r->wrunq);
    memcpy(b->text.p + kinds, r->kinds, r->n_kinds + 1);
  }
  /* The marks' arrays are the parser's too, overwritten by the next line
   * with marks: without this copy a delivery parsed ahead was attributed
   * with a later delivery's marks. */
  if (!(r->have & IPS__F_MARKS))
    return 0;
  {
    uint32_t marks, mname_off, mnames;
    if ((marks = reserve(&b->stamps, r->n_marks * sizeof *r->marks)) ==
            NOROOM ||
        (mname_off = reserve(&b->stamps,
                             r->n_mnames * sizeof *r->mname_off)) == NOROOM ||
        (mnames = reserve(&b->text, r->mnames_len)) == NOROOM)
      return -1;
    c = (cold_t *)(void *)(b->stamps.p + at);
    c->marks = marks;
    c->mname_off = mname_off;
    c->mnames = mnames;
    memcpy(b->stamps.p + marks, r->marks, r->n_marks * sizeof *r->marks);
    memcpy(b->stamps.p + mname_off, r->mname_off,
           r->n_mnames * sizeof *r->mname_off);
    memcpy(b->text.p + mnames, r->mnames, r->mnames_len);
  }
  return 0;
}

int ips__block_parse_line(ips__parser_t *p, block_t *b, line_t *l) {
  const ips__rec_t *r = NULL;
  char err[256];
  if (l->flags & IPS__LINE_TOOLONG)
    return 0;
  l->parsed = ips__slog_parse(p, l->p, l->len, &r, err, sizeof err);
  return keep(b, l, r, err);
}

int ips__block_parse(ips__parser_t *p, block_t *b) {
  size_t i;
  b->stamps.used = b->text.used = 0;
  for (i = 0; i < b->n; i++)
    if (ips__block_parse_line(p, b, &b->lines[i]) < 0)
      return -1;
  return 0;
}
