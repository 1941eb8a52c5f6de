/* slog_fast_meter.c — a deliver-result's dr, with the worker's metering
 * in it, matched byte for byte (the fast path: slog_fast.c).
 *
 * The metering is the one part of a record the worker writes, not the
 * parent: its keys come in the worker's order, and ours adds the
 * ipcstamp object (stamps, kinds, CPU, run delays, marks) to what xsnap
 * writes.  Separate from slog_fast.c because it is the largest and most
 * versioned reader of the fast path (it follows ipcstamp-metering.h, not
 * the slog schema); like the rest, it returns 0 on anything it does not
 * match exactly, and the yajl path reads the line. */
#include "config.h"

#include <string.h>

#include "ipcstamp-metering.h"
#include "slog_fast.h"

/* ipcstamp.mono and timestamps: `[n,n,...]` appended as the yajl path
 * appends them (so a repeated key behaves the same). */
static int stamps(cur_t *c, int64_t *out, size_t *n, int wall) {
  if (!LIT(c, "["))
    return 0;
  if (LIT(c, "]"))
    return 1;
  for (;;) {
    int64_t v;
    long long ll;
    if (*n == IPS__MAX_STAMPS)
      return 0;
    if (wall ? !decimal_wall(c, &v) : !count(c, &ll))
      return 0;
    out[(*n)++] = wall ? v : (int64_t)ll;
    if (LIT(c, "]"))
      return 1;
    if (!LIT(c, ","))
      return 0;
  }
}

/* v2's `"marks":{"names":[...],"events":[["b",0,W,M],...],"dropped":N,
 * "unbalanced":N}` as the worker library writes it, with the
 * yajl path's bounds.  Names with escapes go to the yajl path, and so does
 * the first line with marks: it allocates the arrays. */
static int marks(cur_t *c, ips__rec_t *r) {
  const char *k;
  size_t n;
  long long v;
  if (!r->marks || !LIT(c, "{\"" IPS_MK_NAMES "\":["))
    return 0;
  r->have |= IPS__F_MARKS;
  if (!LIT(c, "]")) {
    for (;;) {
      if (!LIT(c, "\"") || !text(c, &k, &n) || n == 0 || n > 255 ||
          r->n_mnames == IPS_MAX_MARKS ||
          r->mnames_len + n + 1 > IPS__MNAMES_BYTES)
        return 0;
      r->mname_off[r->n_mnames++] = (uint32_t)r->mnames_len;
      memcpy(r->mnames + r->mnames_len, k, n);
      r->mnames_len += n;
      r->mnames[r->mnames_len++] = '\0';
      if (LIT(c, "]"))
        break;
      if (!LIT(c, ","))
        return 0;
    }
  }
  if (!LIT(c, ",\"" IPS_MK_EVENTS "\":["))
    return 0;
  if (!LIT(c, "]")) {
    for (;;) {
      ips__mark_t *m = &r->marks[r->n_marks];
      char kind;
      if (r->n_marks == IPS_MAX_MARKS || !LIT(c, "[\"") || c->i >= c->n)
        return 0;
      kind = c->s[c->i++];
      if ((kind != 'm' && kind != 'b' && kind != 'e') || !LIT(c, "\",") ||
          !count(c, &v) || v >= IPS_MAX_MARKS || !LIT(c, ",") ||
          !decimal(c, &m->wall) || !LIT(c, ","))
        return 0;
      m->kind = kind;
      m->name = (uint32_t)v;
      if (!count(c, &v) || !LIT(c, "]"))
        return 0;
      m->mono = v;
      r->n_marks++;
      if (LIT(c, "]"))
        break;
      if (!LIT(c, ","))
        return 0;
    }
  }
  return LIT(c, ",\"" IPS_MK_DROPPED "\":") && count(c, &r->mdropped) &&
         LIT(c, ",\"" IPS_MK_UNBALANCED "\":") && count(c, &r->munbalanced) &&
         LIT(c, "}");
}

/* `"ipcstamp":{"v":1,"kinds":"d...e","mono":[...],"dropped":0,"cpu_ns":N,
 * "run_delay_ns":[...]}`, keys in the order our worker library writes them,
 * cpu_ns and run_delay_ns optional; v2 adds "marks" last. */
static int ipcstamp(cur_t *c, ips__rec_t *r) {
  const char *k;
  size_t n;
  long long v;
  if (!LIT(c, "{\"" IPS_MK_V "\":") || !count(c, &v))
    return 0;
  r->ipsv = (long)v;
  r->have |= IPS__F_IPSV;
  if (!LIT(c, ",\"" IPS_MK_KINDS "\":\"") || !text(c, &k, &n) || n >= IPS__MAX_STAMPS)
    return 0;
  memcpy(r->kinds, k, n);
  r->kinds[n] = '\0';
  r->n_kinds = n;
  r->have |= IPS__F_KINDS;
  if (!LIT(c, ",\"" IPS_MK_MONO "\":") || !stamps(c, r->wmono, &r->n_wmono, 0))
    return 0;
  if (r->n_wmono > 0)
    r->have |= IPS__F_WMONO;
  if (!LIT(c, ",\"" IPS_MK_DROPPED "\":") || !count(c, &r->dropped))
    return 0;
  if (LIT(c, ",\"" IPS_MK_CPU_NS "\":")) {
    if (!count(c, &v))
      return 0;
    r->cpu_ns = v;
    r->have |= IPS__F_CPU;
  }
  if (LIT(c, ",\"" IPS_MK_RUN_DELAY_NS "\":")) {
    if (!stamps(c, r->wrunq, &r->n_wrunq, 0))
      return 0;
    if (r->n_wrunq > 0)
      r->have |= IPS__F_WRUNQ;
  }
  if (LIT(c, ",\"" IPS_MK_MARKS "\":") && !marks(c, r))
    return 0;
  return LIT(c, "}");
}

/* The metering object dr[2].  Its keys come from the worker, in its order:
 * integer counters under any plain name, `timestamps` and `ipcstamp`;
 * anything else is refused. */
static int meter_member(cur_t *c, const char *k, size_t n, void *ctx) {
  ips__rec_t *r = ctx;
  long long v;
  if (n == 10 && EQ(k, IPS_MK_TIMESTAMPS)) {
    if (!stamps(c, r->walls, &r->n_walls, 1))
      return 0;
    if (r->n_walls > 0)
      r->have |= IPS__F_WALLS;
    return 1;
  }
  if (n == 8 && EQ(k, IPS_MK_IPCSTAMP))
    return ipcstamp(c, r);
  if (n == 9 && EQ(k, "meterType"))
    r->have |= IPS__F_XSMETER;
  if (n == 7 && EQ(k, "compute")) { /* computrons, for the blocks */
    if (!count(c, &r->compute))
      return 0;
    r->have |= IPS__F_COMPUTE;
    return 1;
  }
  if (LIT(c, "\"")) /* xsnap's meterType */
    return text(c, &k, &n);
  return count(c, &v);
}

static int metering(cur_t *c, ips__rec_t *r) {
  r->have |= IPS__F_METER;
  return ips__fast_object(c, meter_member, r);
}

/* `"dr":["ok"|"error",RESULT,METERING],"seconds":S` up to the anchor.  The
 * result is stepped over with the same scan the yajl path uses (brackets
 * match, strings end), so both refuse the same broken results. */
int ips__fast_dr(cur_t *c, size_t anchor, ips__rec_t *r) {
  int64_t ns;
  long e;
  if (LIT(c, ",\"dr\":[\"ok\",")) {
    r->ok = 1;
  } else if (!LIT(c, ",\"dr\":[\"error\",")) {
    return 0;
  }
  r->have |= IPS__F_DR;
  e = ips__json_skip(c->s, c->n, c->i, 0);
  if (e < 0 || (size_t)e >= anchor)
    return 0;
  /* An error's message, as the yajl path reads it (one with an escape is
   * left to it, which decodes). */
  if (!r->ok && c->s[c->i] == '"') {
    const char *m = c->s + c->i + 1;
    size_t mn = (size_t)e - c->i - 2;
    if (memchr(m, '\\', mn))
      return 0;
    if (ips__meter_killed(m, mn))
      r->have |= IPS__F_METERKILL;
  }
  c->i = (size_t)e;
  if (!LIT(c, ","))
    return 0;
  if (LIT(c, "null"))
    r->have |= IPS__F_DRNULL; /* no metering: a local vat, or an error */
  else if (!metering(c, r))
    return 0;
  if (!LIT(c, "]"))
    return 0;
  if (c->i == anchor) /* SwingSet: seconds comes after monotime */
    return 1;
  if (!LIT(c, ",\"seconds\":") || !decimal(c, &ns))
    return 0;
  if (LIT(c, ",\"runDelayNs\":")) { /* the parent's wait at E */
    long long v;
    if (!count(c, &v))
      return 0;
    r->prunq = v;
    r->have |= IPS__F_PRUNQ;
  }
  return c->i == anchor;
}
