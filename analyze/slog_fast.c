/* slog_fast.c — the records our own parent writes, matched byte for byte.
 *
 * parent/slog.c writes every record with yajl_gen in a fixed field order and
 * a fixed layout (docs/slogfile.md): no spaces, integers without sign or
 * leading zeros, `time` and `monotime` last.  Most lines of our slogfiles
 * are `syscall`, `syscall-result`, `deliver` and `deliver-result` records
 * in exactly that form, and yajl's tokeniser and callbacks were most of the
 * report's time.  This is not a JSON parser: it accepts only those exact
 * bytes, and returns 0 on anything else (another field order, a space, an
 * escape, a fault, an unknown key in the metering) so that the yajl path in
 * slog_parse.c reads the line as before, errors and all.  It never accepts
 * a line the yajl path would refuse: where it checks less (the inside of a
 * payload), the yajl path does not check it either (docs/report.md).
 */
#include "config.h"

#include <string.h>

#include "cursor.h"
#include "ipcstamp-metering.h"
#include "decimal.h"
#include "blocks.h"
#include "slog.h"

/* Whether the bytes at p are the literal lit (cursor.h's compare). */
#define EQ(p, lit) cur_eq((p), (lit), sizeof(lit) - 1)


/* A JSON integer as the parent writes it: 1 to 18 digits, no leading zero
 * (which yajl would refuse), so that it is also what to_ll() accepts. */
static inline __attribute__((always_inline)) int count(cur_t *c,
                                                      long long *out) {
  size_t b = c->i, e;
  uint64_t v = 0;
  e = ips__digits(c->s, b, c->n, &v);
  if (e == b || e - b > 18 || (c->s[b] == '0' && e - b > 1))
    return 0;
  c->i = e;
  *out = (long long)v;
  return 1;
}

/* A JSON number straight into nanoseconds (decimal.h). */
static int decimal(cur_t *c, int64_t *ns) {
  size_t e = ips__decimal(c->s, c->i, c->n, ns);
  if (e == IPS__DECIMAL_BAD)
    return 0;
  c->i = e;
  return 1;
}

/* The same, where the number is most likely a wall time (a record's time,
 * xsnap's timestamps) or a float's seconds (monotime, SwingSet's seconds):
 * that shape is tried here, inlined, and only another goes to the call.
 * A third of all numbers tried the wall shape first and failed, in a
 * call. */
#ifdef IPS_SWAR
#define SHAPED(name, shape)                                                 \
  static inline __attribute__((always_inline)) int name(cur_t *c,           \
                                                        int64_t *ns) {      \
    size_t e = shape(c->s, c->i, c->n, ns);                                 \
    if (e == IPS__DECIMAL_BAD)                                              \
      return decimal(c, ns);                                                \
    c->i = e;                                                               \
    return 1;                                                               \
  }
SHAPED(decimal_wall, ips__decimal_wall)
SHAPED(decimal_mono, ips__decimal_mono)
#else
#define decimal_wall decimal
#define decimal_mono decimal
#endif

/* A string's contents after its opening quote, up to its closing quote: no
 * escapes and no control bytes (yajl would refuse those, or decode them).
 * Eight bytes at a time where eight are left (a type, a vatID, a syscall's
 * name: a byte at a time, this was a third of the matcher's time). */
static inline __attribute__((always_inline)) int text(cur_t *c, const char **s,
                                                     size_t *n) {
  size_t b = c->i, i = b;
#ifdef IPS_SWAR
  const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
  while (c->n - i >= 8) {
    uint64_t x, q, bs, stop;
    memcpy(&x, c->s + i, 8);
    q = x ^ (ones * '"');
    bs = x ^ (ones * '\\');
    /* A byte is flagged where it is a quote or a backslash (zero after
     * the xor) or below 0x20.  A borrow can flag a byte above a flagged
     * one, never below: the lowest flag is a true one. */
    stop = (((q - ones) & ~q) | ((bs - ones) & ~bs) |
            ((x - ones * 0x20) & ~x)) & high;
    if (stop) {
      i += (unsigned)__builtin_ctzll(stop) / 8;
      if (c->s[i] != '"')
        return 0;
      *s = c->s + b;
      *n = i - b;
      c->i = i + 1;
      return 1;
    }
    i += 8;
  }
#endif
  for (; i < c->n; i++) {
    unsigned char ch = (unsigned char)c->s[i];
    if (ch == '"') {
      *s = c->s + b;
      *n = i - b;
      c->i = i + 1;
      return 1;
    }
    if (ch == '\\' || ch < 0x20)
      return 0;
  }
  c->i = i;
  return 0;
}

/* `"crankNum":N,"vatID":"V","deliveryNum":N` after the type; a SwingSet
 * kernel replaying a transcript writes no crankNum. */
static int crank_fields(cur_t *c, ips__rec_t *r) {
  const char *v;
  size_t n;
  if (LIT(c, ",\"crankNum\":")) {
    if (!count(c, &r->crank))
      return 0;
    r->have |= IPS__F_CRANK;
  }
  if (!LIT(c, ",\"vatID\":\"") || !text(c, &v, &n) || n >= IPS__VAT_MAX ||
      !LIT(c, ",\"deliveryNum\":") || !count(c, &r->dnum))
    return 0;
  /* (text() stops at C0 bytes, so what is left to clean is DEL and C1) */
  r->vat_len = (unsigned)ips__text_clean(r->vatbuf, v, n);
  r->vatbuf[r->vat_len] = '\0';
  r->have |= IPS__F_VAT | IPS__F_DNUM;
  return 1;
}

/* What a SwingSet kernel writes next (slogger.js): `"replay":B`, then
 * `"dispatch":"..."` (deliveries) or `"syscall":"..."` (syscalls), then the
 * kernel's side of the payload (kd, ksc or ksr), stepped over with the scan
 * the yajl path uses for it.  Each is optional: our parent writes none. */
/* Inlined, so that the names' lengths are constants and their compares
 * are a load or two, not calls to memcmp (2% of the time). */
static inline __attribute__((always_inline)) int swingset_fields(
    cur_t *c, size_t anchor, ips__rec_t *r, const char *name, size_t nn,
    const char *k, size_t kn) {
  const char *v;
  size_t n;
  long e;
  if (LIT(c, ",\"replay\":")) {
    if (LIT(c, "true"))
      r->have |= IPS__F_REPLAY;
    else if (!LIT(c, "false"))
      return 0;
  }
  if (lit(c, name, nn) && !text(c, &v, &n))
    return 0;
  if (kn && lit(c, k, kn)) {
    e = ips__json_skip(c->s, c->n, c->i, 0);
    if (e < 0 || (size_t)e >= anchor)
      return 0;
    c->i = (size_t)e;
  }
  return 1;
}
#define SWINGSET(c, anchor, r, name, k) \
  swingset_fields((c), (anchor), (r), name, sizeof(name) - 1, k, sizeof(k) - 1)

/* The tail `,"time":T,"monotime":M}` that ends the line, found from the
 * end back (by its colons: the numbers have none), and SwingSet's
 * `,"seconds":S` after it if there is one.  Returns the index of the
 * comma before "time" (the anchor), or 0.  The numbers hold no
 * `,"time":`, so this is the line's last one, the anchor the yajl path
 * would use. */
static size_t tail(const char *s, size_t len, ips__rec_t *r) {
  const char *m, *t;
  cur_t c;
  if (len < 32 || s[len - 1] != '}')
    return 0;
  m = memrchr(s + 20, ':', len - 20);
  if (m && m - 10 > s + 20 && EQ(m - 10, ",\"seconds\":")) {
    int64_t ns;
    c.s = s;
    c.i = (size_t)(m + 1 - s);
    c.n = len;
    if (!decimal_mono(&c, &ns) || c.i != len - 1)
      return 0;
    len = (size_t)(m - 10 - s) + 1; /* as if '}' followed monotime */
    m = memrchr(s + 20, ':', (size_t)(m - 10 - (s + 20)));
  }
  if (!m || m - 11 <= s + 20 || !EQ(m - 11, ",\"monotime\":"))
    return 0;
  t = memrchr(s + 20, ':', (size_t)(m - 11 - (s + 20)));
  if (!t || !EQ(t - 7, ",\"time\":"))
    return 0;
  c.s = s;
  c.i = (size_t)(t + 1 - s);
  c.n = len;
  if (!decimal_wall(&c, &r->time_ns) || c.i != (size_t)(m - 11 - s))
    return 0;
  c.i = (size_t)(m + 1 - s);
  if (!decimal_mono(&c, &r->mono_ns) || c.i != len - 1)
    return 0;
  r->have |= IPS__F_TIME | IPS__F_MONO;
  return (size_t)(t - 7 - s);
}

/* The bytes [from, end) can be one JSON value: it starts like one and its
 * last byte closes it.  This is the check the yajl path makes on a payload
 * it steps over (tail_ok() in slog_parse.c), no more. */
static int value_ends(const char *s, size_t from, size_t end) {
  char first, last;
  if (end <= from)
    return 0;
  first = s[from];
  last = s[end - 1];
  switch (first) {
    case '[': return last == ']';
    case '{': return last == '}';
    case '"': return last == '"' && end - from >= 2;
    default:
      return (first == '-' || ips__is_digit(first) || first == 't' || first == 'f' ||
              first == 'n') &&
             (ips__is_digit(last) || last == 'e' || last == 'l');
  }
}

/* `{"k":V,...}` from c: each member's key goes to member(), which reads
 * its value.  Returns 1 when the object closes, 0 when anything else
 * comes or member() says no. */
typedef int member_fn(cur_t *c, const char *k, size_t n, void *ctx);
static int object(cur_t *c, member_fn *member, void *ctx) {
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

/* A member of the flat arguments below: a plain string or a count.  The
 * keys method, methargs and args are left to the yajl path. */
static int flat_member(cur_t *c, const char *k, size_t n, void *ctx) {
  long long v;
  (void)ctx;
  if ((n == 6 && EQ(k, "method")) ||
      (n == 8 && EQ(k, "methargs")) ||
      (n == 4 && EQ(k, "args")))
    return 0;
  return LIT(c, "\"") ? text(c, &k, &n) : count(c, &v);
}

/* `,{"k":V,...}` with plain string or count values, the arguments of
 * `ipcstamp run --demo`'s messages.  The yajl path reads all of it, and
 * names the message by its target unless a key is method, methargs or
 * args: those are left to it. */
static int flat_args(cur_t *c) {
  return LIT(c, ",") && object(c, flat_member, NULL);
}

/* `,[["p-1",...],...]]` after "notify": each resolution's promise id, the
 * rest of it stepped over by the scan the yajl path uses. */
static int notify(cur_t *c, size_t anchor, ips__rec_t *r) {
  int nvp = 0;
  memcpy(r->descbuf, "notify", 7);
  r->have |= IPS__F_NOTIFY;
  if (!LIT(c, ",["))
    return 0;
  if (!LIT(c, "]")) {
    for (;;) {
      const char *v;
      size_t n;
      long e;
      if (!LIT(c, "[\"") || !text(c, &v, &n))
        return 0;
      ips__desc_vpid(r->descbuf, &nvp, v, n);
      e = ips__json_skip(c->s, c->n, c->i, 1);
      if (e < 0 || (size_t)e >= anchor)
        return 0;
      c->i = (size_t)e;
      if (LIT(c, "]"))
        break;
      if (!LIT(c, ","))
        return 0;
    }
  }
  return LIT(c, "]") && c->i == anchor;
}

/* `"vd":[...]`: the description, as the yajl path makes it.  A message
 * whose third element is neither a methargs nor flat is left to it. */
static int vd(cur_t *c, size_t anchor, ips__rec_t *r) {
  const char *t, *target;
  size_t n, tn;
  if (!LIT(c, ",\"vd\":[\"") || !text(c, &t, &n))
    return 0;
  if (n == 7 && EQ(t, "message")) {
    if (!LIT(c, ",\"") || !text(c, &target, &tn))
      return 0;
    if (!LIT(c, ",{\"methargs\":{\"body\":\"")) {
      if (!flat_args(c) || !LIT(c, "]") || c->i != anchor)
        return 0;
      ips__desc_set(r->descbuf, target, tn);
      return 1;
    }
    c->i--; /* the body string, with its opening quote */
    /* The body runs to the anchor as far as the report is concerned: the
     * method is its first string, the rest is payload. */
    if (c->i >= anchor || c->s[anchor - 1] != ']')
      return 0;
    ips__desc_set(r->descbuf, target, tn);
    ips__desc_method(r->descbuf, c->s + c->i, anchor - c->i);
    return 1;
  }
  if (n == 6 && EQ(t, "notify"))
    return notify(c, anchor, r);
  if (c->i >= anchor || (c->s[c->i] != ']' && c->s[c->i] != ',') ||
      c->s[anchor - 1] != ']')
    return 0;
  ips__desc_set(r->descbuf, t, n);
  return 1;
}

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
 * "unbalanced":N}` as the worker library writes it (issue 14), with the
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
  return object(c, meter_member, r);
}

/* `"dr":["ok"|"error",RESULT,METERING],"seconds":S` up to the anchor.  The
 * result is stepped over with the same scan the yajl path uses (brackets
 * match, strings end), so both refuse the same broken results. */
static int dr(cur_t *c, size_t anchor, ips__rec_t *r) {
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

/* A record of a type the analysis does not read: 1, matched (its type is
 * all there is to know); 0 for a block record, which yajl reads. */
static int other(const char *t, size_t n) {
  return ips__block_type(t, n) == IPS__BLK_NONE;
}

int ips__slog_fast(ips__rec_t *r, const char *s, size_t len) {
  cur_t c = {s, 0, len};
  const char *t;
  size_t n, anchor;
  if (!LIT(&c, "{\"type\":\"") || !text(&c, &t, &n))
    return 0;
  /* The type decides; the yajl path stops at an unknown one too, and
   * reads the block records (other() leaves them to it). */
  switch (n) {
    case 7:
      if (EQ(t, "deliver"))
        r->type = IPS__REC_DELIVER;
      else if (EQ(t, "syscall"))
        r->type = IPS__REC_SYSCALL;
      else if (EQ(t, "console"))
        return 0; /* an upcall: yajl reads its fields */
      else
        return other(t, n);
      break;
    case 14:
      if (EQ(t, "syscall-result"))
        r->type = IPS__REC_SYSCALL_RESULT;
      else if (EQ(t, "deliver-result"))
        r->type = IPS__REC_RESULT;
      else
        return other(t, n);
      break;
    case 10:
      if (EQ(t, "slog-start"))
        return 0; /* once per file: yajl reads its ipcstamp.v */
      if (EQ(t, "create-vat"))
        return 0; /* once per worker: yajl reads its pid */
      return other(t, n);
    case 12:
      if (EQ(t, "worker-start"))
        return 0; /* the same, in slog format 1 */
      return other(t, n);
    case 17:
      if (EQ(t, "kernel-init-start"))
        return 0; /* the same, in slog format 2 */
      return other(t, n);
    default:
      return other(t, n);
  }
  anchor = tail(s, len, r);
  if (!anchor || !crank_fields(&c, r))
    return 0;
  switch (r->type) {
    case IPS__REC_DELIVER:
      return SWINGSET(&c, anchor, r, ",\"dispatch\":\"", ",\"kd\":") &&
             vd(&c, anchor, r);
    case IPS__REC_SYSCALL:
    case IPS__REC_SYSCALL_RESULT:
      if (!LIT(&c, ",\"syscallNum\":") || !count(&c, &r->snum))
        return 0;
      r->have |= IPS__F_SNUM;
      if (r->type == IPS__REC_SYSCALL && LIT(&c, ",\"runDelayNs\":")) {
        long long v; /* the parent's wait at U */
        if (!count(&c, &v))
          return 0;
        r->prunq = v;
        r->have |= IPS__F_PRUNQ;
      }
      if (r->type == IPS__REC_SYSCALL
              ? !SWINGSET(&c, anchor, r, ",\"syscall\":\"", ",\"ksc\":") ||
                    !LIT(&c, ",\"vsc\":")
              : !SWINGSET(&c, anchor, r, ",\"syscall\":\"", ",\"ksr\":") ||
                    !LIT(&c, ",\"vsr\":"))
        return 0;
      return value_ends(s, c.i, anchor);
    default:
      return SWINGSET(&c, anchor, r, ",\"dispatch\":\"", "") &&
             dr(&c, anchor, r);
  }
}
