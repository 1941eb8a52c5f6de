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
 *
 * This file matches the frame (type, crank fields, the time tail) and the
 * kernel's fields of each record type; a deliver-result's dr, whose
 * metering is the worker's and the largest reader here, is
 * slog_fast_meter.c.  The numbers and strings are read by slog_fast.h.
 */
#include "config.h"

#include <string.h>

#include "blocks.h"
#include "slog_fast.h"

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
  return LIT(c, ",") && ips__fast_object(c, flat_member, NULL);
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
             ips__fast_dr(&c, anchor, r);
  }
}
