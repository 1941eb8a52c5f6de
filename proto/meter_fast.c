/* meter_fast.c — the metering decoder's fast path (meter.h): the form our
 * worker library writes, and xsnap's, matched byte for byte without yajl
 * (reading our worker's with yajl was most of what the stamps cost a
 * parent; the slogfile's fast path reads one a delivery).
 *
 * The form: the VM's counters, "key":N with keys of [A-Za-z0-9_] (and
 * xsnap's "meterType":"..."), then "timestamps":[S.f,...], then
 * "ipcstamp":{"v":V,"kinds":"...","mono":[N,...],"dropped":N} with an
 * optional ,"cpu_ns":N, ,"run_delay_ns":[N,...] and ,"marks":{"names":
 * [...],"events":[[K,N,W,M],...],"dropped":N,"unbalanced":N}, and nothing
 * else: no space, no escape, no exponent, no byte above 0x7f in a string.
 * What it accepts, meter_read.c would accept and read the same; anything
 * else goes there, which says what is wrong.  The tests compare the two
 * on every seed and on every one-byte change of canonical meterings. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "ipcstamp-metering.h"
#include "match.h"
#include "meter.h"

/* The last first word of eight digits converted in a list, and its value:
 * a delivery's stamps share their leading digits, so the next number's
 * first word is often the same bytes, already checked and converted.
 * set is 0 until there is one (no value of x can mean "none": the input
 * may hold any eight bytes, eight NULs included). */
typedef struct {
  uint64_t x;
  uint32_t v;
  int set;
} memo_t;

/* 1 to 18 digits, no leading zero (JSON has none): a count, its first
 * word of eight digits remembered in memo (or NULL), as match.h's count()
 * reads it. */
static int count_memo(cur_t *c, int64_t *out, memo_t *memo) {
  long long v;
#ifdef IPS_SWAR
  static const uint64_t p10[11] = {1, 10, 100, 1000, 10000, 100000,
                                   1000000, 10000000, 100000000,
                                   1000000000, 10000000000ull};
  uint64_t x, rest = 0;
  size_t e;
  if (memo && c->n - c->i >= 8) {
    memcpy(&x, c->s + c->i, 8);
    if (!(memo->set && x == memo->x)) {
      if (ips__nondigits(x) != 0 || c->s[c->i] == '0')
        goto plain;
      memo->set = 1;
      memo->x = x;
      memo->v = ips__value8(x - 0x3030303030303030ull);
    }
    e = ips__digits(c->s, c->i + 8, c->n, &rest);
    if (e - (c->i + 8) > 10)
      return 0;
    *out = (int64_t)((uint64_t)memo->v * p10[e - (c->i + 8)] + rest);
    c->i = e;
    return 1;
  }
plain:
#else
  (void)memo;
#endif
  if (!count(c, &v))
    return 0;
  *out = v;
  return 1;
}

/* Seconds as a JSON number, into ns: the shape of every wall stamp from
 * 2001 to 2286 inlined (match.h), any other decimal by the call. */
static int wall(cur_t *c, int64_t *ns) { return decimal_wall(c, ns); }

/* [a,b,...] of walls or counts into arr (room for cap; NULL: read, not
 * kept), their number in *n.  An empty list is matched too. */
static int list(cur_t *c, int64_t *arr, size_t cap, size_t *n, int walls) {
  size_t k = 0;
  int64_t v;
  memo_t memo = {0, 0, 0};
  if (!LIT(c, "["))
    return 0;
  if (!LIT(c, "]")) {
    for (;;) {
      if (k == cap || !(walls ? wall(c, &v) : count_memo(c, &v, &memo)))
        return 0;
      if (arr)
        arr[k] = v;
      k++;
      if (LIT(c, "]"))
        break;
      if (!LIT(c, ","))
        return 0;
    }
  }
  *n = k;
  return 1;
}

/* A string of printable ASCII after its opening quote (the general reader
 * would check the UTF-8 of any other byte). */
static int ascii(cur_t *c, const char **s, size_t *n) {
  size_t i;
  if (!text(c, s, n))
    return 0;
  for (i = 0; i < *n; i++)
    if ((unsigned char)(*s)[i] > 0x7e)
      return 0;
  return 1;
}

/* "names":[...], within the general reader's bounds. */
static int names(cur_t *c, ips__meter_t *m) {
  const char *k;
  size_t n;
  if (!LIT(c, "{\"" IPS_MK_NAMES "\":["))
    return 0;
  if (LIT(c, "]"))
    return 1;
  for (;;) {
    if (!LIT(c, "\"") || !ascii(c, &k, &n) || n == 0 || n > 255 ||
        m->n_mnames == IPS_MAX_MARKS ||
        m->mnames_len - m->n_mnames + n > IPS_MAX_MARK_BYTES)
      return 0;
    m->mname_off[m->n_mnames++] = (uint32_t)m->mnames_len;
    memcpy(m->mnames + m->mnames_len, k, n);
    m->mnames_len += n;
    m->mnames[m->mnames_len++] = '\0';
    if (LIT(c, "]"))
      return 1;
    if (!LIT(c, ","))
      return 0;
  }
}

/* v2's marks as the worker library writes them: names, events [kind,
 * name index, wall, mono], dropped, unbalanced. */
static int marks(cur_t *c, ips__meter_t *m) {
  long long v;
  if (!m->marks || !names(c, m) || !LIT(c, ",\"" IPS_MK_EVENTS "\":["))
    return 0;
  if (!LIT(c, "]")) {
    for (;;) {
      ips__mark_t *e = &m->marks[m->n_marks];
      char kind;
      if (m->n_marks == IPS_MAX_MARKS || !LIT(c, "[\"") || c->i >= c->n)
        return 0;
      kind = c->s[c->i++];
      if ((kind != 'm' && kind != 'b' && kind != 'e') || !LIT(c, "\",") ||
          !count(c, &v) || v >= IPS_MAX_MARKS || !LIT(c, ",") ||
          !decimal(c, &e->wall) || !LIT(c, ",") || !count_memo(c, &e->mono, NULL) ||
          !LIT(c, "]"))
        return 0;
      e->kind = kind;
      e->name = (uint32_t)v;
      m->n_marks++;
      if (LIT(c, "]"))
        break;
      if (!LIT(c, ","))
        return 0;
    }
  }
  if (!LIT(c, ",\"" IPS_MK_DROPPED "\":") || !count_memo(c, &m->mdropped, NULL) ||
      !LIT(c, ",\"" IPS_MK_UNBALANCED "\":") || !count_memo(c, &m->munbalanced, NULL) ||
      !LIT(c, "}"))
    return 0;
  m->have |= IPS__M_MARKS;
  return 1;
}

/* `{"v":V,"kinds":"...","mono":[...],"dropped":N` and the optional
 * cpu_ns, run_delay_ns and marks, in the writer's order, to the object's
 * end. */
static int ipcstamp(cur_t *c, ips__meter_t *m) {
  const char *k;
  size_t n;
  if (!LIT(c, "{\"" IPS_MK_V "\":") || !count_memo(c, &m->v, NULL) || m->v > 1000000 ||
      !LIT(c, ",\"" IPS_MK_KINDS "\":\""))
    return 0;
  /* the stamps' letters (any other string: the general reader) */
  for (k = c->s + c->i, n = 0; c->i < c->n && (c->s[c->i] == 'd' ||
       c->s[c->i] == 'u' || c->s[c->i] == 'r' || c->s[c->i] == 'e');)
    c->i++, n++;
  if (!LIT(c, "\"") || n > m->cap)
    return 0;
  memcpy(m->kinds, k, n);
  m->kinds[n] = '\0';
  m->n_kinds = n;
  if (!LIT(c, ",\"" IPS_MK_MONO "\":") ||
      !list(c, m->mono, m->cap, &m->n_mono, 0) ||
      !LIT(c, ",\"" IPS_MK_DROPPED "\":") || !count_memo(c, &m->dropped, NULL))
    return 0;
  m->have |= IPS__M_IPC | IPS__M_V | IPS__M_KINDS | IPS__M_MONO |
             IPS__M_DROPPED;
  if (LIT(c, ",\"" IPS_MK_CPU_NS "\":")) {
    if (!count_memo(c, &m->cpu_ns, NULL))
      return 0;
    m->have |= IPS__M_CPU;
  }
  if (LIT(c, ",\"" IPS_MK_RUN_DELAY_NS "\":")) {
    if (!list(c, m->runq, m->cap, &m->n_runq, 0))
      return 0;
    m->have |= IPS__M_RUNQ;
  }
  if (LIT(c, ",\"" IPS_MK_MARKS "\":") && !marks(c, m))
    return 0;
  return LIT(c, "}");
}

/* One of the VM's counters before "timestamps": "key":N (a count), or
 * xsnap's "meterType":"...".  compute and allocate are kept; a key given
 * twice, or one of the names the rest of the metering uses, is left to
 * the general reader. */
static int counter(cur_t *c, ips__meter_t *m) {
  const char *k = c->s + c->i, *s;
  size_t kn = 0;
  int64_t v;
  while (c->i < c->n && (ips__is_digit(c->s[c->i]) || c->s[c->i] == '_' ||
                         ((c->s[c->i] | 0x20) >= 'a' &&
                          (c->s[c->i] | 0x20) <= 'z')))
    c->i++, kn++;
  if (kn == 0 || !LIT(c, "\":"))
    return 0;
#define KEY(lit) (kn == sizeof(lit) - 1 && !memcmp(k, lit, kn))
  if (KEY(IPS_MK_METER_TYPE)) {
    if (m->have & IPS__M_XSMETER || !LIT(c, "\"") || !ascii(c, &s, &kn))
      return 0;
    m->have |= IPS__M_XSMETER;
    return 1;
  }
  if (!count_memo(c, &v, NULL) || KEY(IPS_MK_IPCSTAMP))
    return 0;
  if (KEY(IPS_MK_COMPUTE) || KEY(IPS_MK_ALLOCATE)) {
    unsigned bit = KEY(IPS_MK_COMPUTE) ? IPS__M_COMPUTE : IPS__M_ALLOCATE;
    if (m->have & bit)
      return 0;
    m->have |= bit;
    *(bit == IPS__M_COMPUTE ? &m->compute : &m->allocate) = v;
  }
#undef KEY
  return 1;
}

int ips__meter_fast(ips__meter_t *m, const char *buf, size_t n, int flags) {
  cur_t c = {buf, 0, n};
  ips__meter_reset(m);
  if (!LIT(&c, "{\""))
    return 0;
  while (!LIT(&c, IPS_MK_TIMESTAMPS "\":"))
    if (!counter(&c, m) || !LIT(&c, ",\""))
      return 0;
  if (!list(&c, m->walls, m->cap, &m->n_walls, 1))
    return 0;
  m->have |= IPS__M_TS;
  if (LIT(&c, ",\"" IPS_MK_IPCSTAMP "\":") && !ipcstamp(&c, m))
    return 0;
  if (!LIT(&c, "}") || (!(flags & IPS__METER_TRAILING) && c.i != n))
    return 0;
  m->used = c.i;
  return 1;
}
