/* mark_pair.c — a delivery's VM mark events paired into marks and spans
 * (mark_pair.h): the one pairing of the slogfile's analysis and of
 * `ipcstamp otel --ring`. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mark_pair.h"
#include "slog.h" /* ips__text_clean */

static int cmp_ev(const void *x, const void *y) {
  const ips__mev_t *a = x, *b = y;
  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void ips__marks_sanitise(char *d, const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, o = 0;
  while (u[i]) {
    unsigned c = u[i];
    size_t k = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1
               : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 9;
    size_t j;
    if (k == 0 || (c == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f)) {
      o += ips__text_clean(d + o, u + i, k + 1); /* C0, DEL or C1: '?' */
      i += k + 1;
      continue;
    }
    /* (a NUL ends the check too: it is not a continuation byte) */
    for (j = 1; k != 9 && j <= k; j++)
      if ((u[i + j] & 0xc0) != 0x80)
        k = 9;
    if (k == 9) {
      d[o++] = '?';
      i++;
      continue;
    }
    memcpy(d + o, u + i, k + 1);
    o += k + 1;
    i += k + 1;
  }
  d[o] = '\0';
}

/* In time order, each begin is pushed on its name's own stack (a chain
 * through op: op[i].name links event i to the begin of the same name
 * opened before it) and an end pops its name's stack: the innermost open
 * span of that name, as the worker paired them, in constant time.  Only
 * the count of open spans (the depth) concerns the others.  It was a
 * search and a memmove through all open spans per end: quadratic in a
 * pathological order (thousands of begins, then as many ends of another
 * name). */
size_t ips__marks_pair(ips__mev_t *ev, size_t n, ips__mopen_t *op,
                       const char *names, const uint32_t *name_off,
                       const int64_t *W, size_t n_up,
                       ips_delivery_mark_t *out, size_t *unbalanced) {
  size_t i, nout = 0, nopen = 0, keep, lone = 0;
  uint32_t maxname = 0, *top;

  qsort(ev, n, sizeof *ev, cmp_ev);
  for (i = 0; i < n; i++)
    if (ev[i].name > maxname)
      maxname = ev[i].name;
  top = malloc(((size_t)maxname + 1) * sizeof *top);
  if (!top) { /* none paired: every event counted as unbalanced */
    if (unbalanced)
      *unbalanced = n;
    return 0;
  }
  memset(top, 0xff, ((size_t)maxname + 1) * sizeof *top); /* UINT32_MAX */
  for (i = 0; i < n; i++) {
    ips_delivery_mark_t *o;
    uint32_t *t = &top[ev[i].name];
    if (ev[i].kind == 'e') {
      /* An end without an open begin of its name was counted as
       * unbalanced by the worker. */
      if (*t == UINT32_MAX) {
        lone++;
        continue;
      }
      o = &out[op[*t].out];
      o->dur = ev[i].t - o->at;
      *t = op[*t].name;
      nopen--;
      continue;
    }
    o = &out[nout];
    o->name = names + name_off[ev[i].name];
    o->kind = ev[i].kind == 'b' ? 's' : 'm';
    o->depth = (int)nopen;
    o->at = ev[i].t;
    o->dur = ev[i].kind == 'b' ? -1 : 0;
    {
      /* Worker stretch: how many r stamps (W[2], W[4], ...) are at or
       * before it. */
      size_t lo = 0, hi = n_up;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (W[2 + 2 * mid] <= o->at)
          lo = mid + 1;
        else
          hi = mid;
      }
      o->wseg = lo;
    }
    if (ev[i].kind == 'b') {
      op[i].out = nout;
      op[i].name = *t; /* the begin of this name opened before */
      *t = (uint32_t)i;
      nopen++;
    }
    nout++;
  }
  free(top);
  /* Spans left open were reported by the worker; they have no length. */
  for (i = keep = 0; i < nout; i++)
    if (out[i].dur >= 0)
      out[keep++] = out[i];
  if (unbalanced)
    *unbalanced = lone + (nout - keep);
  return keep;
}
