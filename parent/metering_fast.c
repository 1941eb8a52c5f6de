/* metering_fast.c — the metering our worker library writes, matched byte
 * for byte, without yajl (reading it with yajl was most of what
 * the stamps cost a parent, 0.58 us of an empty delivery's 0.94 us).
 *
 * The form (proto/metering.c writes it so): counters "key":N with keys of
 * [A-Za-z0-9_] and integers, then "timestamps":[S.ffffff,...], then
 * "ipcstamp":{"v":1,"kinds":"d(ur)*e","mono":[N,...],"dropped":N} with an
 * optional ,"cpu_ns":N and ,"run_delay_ns":[N,...] (one per stamp), and
 * nothing else: no space, no escape, no exponent;
 * or, from a worker whose stamps are off, the counters and
 * "timestamps":[] alone.
 * What the matcher accepts is valid metering that the yajl path
 * (metering.c) would accept and read the same; everything else, including
 * every error, goes to that path, which says what is wrong.  Since the
 * bytes are then canonical JSON, they are their own re-serialisation: the
 * slogfile's copy is the bytes.  tests/parent/check_parent_metering.c compares the
 * two paths on every seed and on every one-byte change of canonical
 * meterings. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "digits.h"
#include "ipcstamp-parent.h"
#include "ipcstamp-metering.h"
#include "json.h"
#include "metering.h"


/* The last first word of eight digits converted in a list, and its value:
 * a delivery's stamps share their leading digits, so the next number's
 * first word is often the same bytes, already checked and converted.
 * set is 0 until there is one (no value of x can mean "none": the input
 * may hold any eight bytes, eight NULs included; the fuzzer found that). */
typedef struct {
  uint64_t x;
  uint32_t v;
  int set;
} memo_t;

/* The run of digits at the cursor, at most max (<= 18, so that it fits):
 * its value and length, the cursor after it; 0 when the run is longer
 * than max (the cursor then stays put).  An empty run is length 0.  memo
 * (or NULL) remembers the first word across the numbers of a list. */
static int run(cur_t *c, size_t max, int64_t *out, size_t *len,
               memo_t *memo) {
  static const uint64_t p10[9] = {1,      10,      100,      1000,     10000,
                                  100000, 1000000, 10000000, 100000000};
  const char *p = c->s + c->i;
  size_t left = c->n - c->i, k = 0;
  uint64_t v = 0;
#ifdef IPS_SWAR
  while (left - k >= 8) {
    uint64_t x, bad;
    size_t d;
    memcpy(&x, p + k, 8);
    if (k == 0 && memo && memo->set && x == memo->x && max >= 8) {
      v = memo->v;
      k = 8;
      continue;
    }
    bad = ips__nondigits(x);
    d = bad ? (size_t)__builtin_ctzll(bad) >> 3 : 8;
    if (k + d > max)
      return 0;
    /* The digits' values: no borrow reaches them from the bytes after
     * (borrows go up, towards later bytes); shifting them to the top
     * drops those bytes and leaves leading zeros. */
    if (d == 8 && k == 0 && memo) {
      memo->set = 1;
      memo->x = x;
      memo->v = ips__value8(x - 0x3030303030303030ull);
      v = memo->v;
    } else if (d) {
      v = v * p10[d] + ips__value8((x - 0x3030303030303030ull) << (8 * (8 - d)));
    }
    k += d;
    if (d < 8)
      goto done;
  }
#endif
  for (; k < left && ips__is_digit(p[k]); k++) {
    if (k == max)
      return 0;
    v = v * 10 + (uint64_t)(p[k] - '0');
  }
#ifdef IPS_SWAR
done:
#endif
  c->i += k;
  *out = (int64_t)v;
  *len = k;
  return 1;
}

/* 1 to 18 digits, no leading zero (JSON has none): a count.  A 19th digit
 * is refused unread. */
static int count(cur_t *c, int64_t *out, memo_t *memo) {
  size_t b = c->i, k;
  if (!run(c, 18, out, &k, memo) || k == 0 || (c->s[b] == '0' && k > 1))
    return 0;
  return 1;
}

/* Seconds with exactly six decimals, 1 to 12 integer digits (no leading
 * zero): microseconds. */
static int wall(cur_t *c, int64_t *us, memo_t *memo) {
  size_t b = c->i, k;
  int64_t sec, frac;
#ifdef IPS_SWAR
  /* The form of every wall stamp from 2001 to 2286: ten digits, the
   * point, six digits and a byte that is not a digit, read as three
   * overlapping words with one test each. */
  if (c->n - b >= 18) {
    uint64_t w0, w1, w2;
    memcpy(&w0, c->s + b, 8);
    memcpy(&w1, c->s + b + 8, 8);  /* d d . d d d d d */
    memcpy(&w2, c->s + b + 10, 8); /* . d d d d d d x */
    int same = memo->set && w0 == memo->x; /* checked, converted before */
    if ((same || (ips__nondigits(w0) == 0 && c->s[b] != '0')) &&
        c->s[b + 10] == '.' && ips__nondigits(w1) == 0x800000ull &&
        ips__nondigits(w2) == 0x8000000000000080ull) {
      if (!same) {
        memo->set = 1;
        memo->x = w0;
        memo->v = ips__value8(w0 - 0x3030303030303030ull);
      }
      sec = (int64_t)memo->v * 100 +
            (c->s[b + 8] - '0') * 10 + (c->s[b + 9] - '0');
      /* the six decimals to the top six bytes, the point dropped */
      frac = ips__value8(((w2 << 8) & 0xffffffffffff0000ull) -
                    0x3030303030300000ull);
      c->i = b + 17;
      *us = sec * 1000000 + frac;
      return 1;
    }
  }
#endif
  if (!run(c, 12, &sec, &k, NULL) || k == 0 || (c->s[b] == '0' && k > 1) ||
      !LIT(c, ".") || !run(c, 6, &frac, &k, NULL) || k != 6)
    return 0;
  *us = sec * 1000000 + frac;
  return 1;
}

/* [a,b,...] of count() or wall(): the values into (*arr)[off..), growing
 * *arr (capacity *cap values) as needed, their number in *n.  Grown, not
 * counted first: one pass over the bytes.  On failure *arr stays the
 * caller's to free.  Bounded: at most IPS_METERING_MAX_STAMPS values, and
 * each takes at least two bytes of the input. */
static int list(cur_t *c, int64_t **arr, size_t *cap, size_t off,
                uint32_t *n, int walls) {
  size_t k = 0;
  memo_t memo = {0, 0, 0};
  if (!LIT(c, "[") || LIT(c, "]"))
    return 0; /* an empty list: the general path */
  for (;;) {
    if (off + k == *cap) {
      size_t nc = *cap ? 2 * *cap : 32;
      int64_t *g;
      if (k >= IPS_METERING_MAX_STAMPS ||
          !(g = realloc(*arr, nc * sizeof *g)))
        return 0;
      *arr = g;
      *cap = nc;
    }
    if (!(walls ? wall(c, *arr + off + k, &memo)
                : count(c, *arr + off + k, &memo)))
      return 0;
    k++;
    if (LIT(c, "]"))
      break;
    if (!LIT(c, ","))
      return 0;
  }
  if (k > IPS_METERING_MAX_STAMPS)
    return 0;
  *n = (uint32_t)k;
  return 1;
}

void ips__mstore_free(ips__mstore_t *s) {
  free(s->v);
  free(s->kinds);
  memset(s, 0, sizeof *s);
}

int ips__mstore_take(ips__mstore_t *s, ips_metering_t *m) {
  size_t n = m->n, nv = (size_t)n * 2;
  if (s->cap < nv) {
    int64_t *g = realloc(s->v, nv * sizeof *g);
    if (!g)
      return IPS_ENOMEM;
    s->v = g;
    s->cap = nv;
  }
  if (m->kinds && s->kcap < n + 1) {
    char *g = realloc(s->kinds, n + 1);
    if (!g)
      return IPS_ENOMEM;
    s->kinds = g;
    s->kcap = n + 1;
  }
  /* the walls, then the monos after them: the matcher's layout */
  if (m->wall_us)
    memcpy(s->v, m->wall_us, n * sizeof *s->v);
  if (m->mono_ns)
    memcpy(s->v + n, m->mono_ns, n * sizeof *s->v);
  if (m->kinds)
    memcpy(s->kinds, m->kinds, n + 1);
  free(m->wall_us);
  free(m->mono_ns);
  free(m->kinds);
  m->wall_us = m->wall_us ? s->v : NULL;
  m->mono_ns = m->mono_ns ? s->v + n : NULL;
  m->kinds = m->kinds ? s->kinds : NULL;
  return 0;
}

/* The VM's counters, "key":N, up to and including "timestamps":; only
 * computrons and allocate are kept (in m).  0 for what the general path
 * must judge: a key outside [A-Za-z0-9_], a count that is not one, a
 * duplicate of the two kept, or one of the names only the ipcstamp part
 * may use. */
static int counters(cur_t *c, ips_metering_t *m) {
  int seen_compute = 0, seen_allocate = 0;
  const char *k;
  size_t kn;
  int64_t v;
  while (!LIT(c, "timestamps\":")) {
    for (k = c->s + c->i, kn = 0; c->i < c->n; c->i++, kn++) {
      char ch = c->s[c->i];
      if (!(ips__is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
            ch == '_'))
        break;
    }
    if (kn == 0 || !LIT(c, "\":") || !count(c, &v, NULL) || !LIT(c, ",\""))
      return 0;
    if ((kn == 8 && !memcmp(k, IPS_MK_IPCSTAMP, 8)) ||
        (kn == 10 && !memcmp(k, IPS_MK_TIMESTAMPS, 10)))
      return 0;
    if (kn == 7 && !memcmp(k, IPS_MK_COMPUTE, 7)) {
      if (seen_compute++)
        return 0; /* a duplicate: the general path refuses it */
      m->has_compute = 1;
      m->compute = v;
    } else if (kn == 8 && !memcmp(k, IPS_MK_ALLOCATE, 8)) {
      if (seen_allocate++)
        return 0;
      m->has_allocate = 1;
      m->allocate = v;
    }
  }
  return 1;
}

/* The kinds string's letters, up to its closing quote (not read): where
 * they start and how many.  0 on a letter that is not d, u, r or e. */
static int kinds_run(cur_t *c, const char **k, size_t *kn) {
  *k = c->s + c->i;
  for (*kn = 0; c->i < c->n && c->s[c->i] != '"'; c->i++, (*kn)++)
    if (c->s[c->i] != 'd' && c->s[c->i] != 'u' && c->s[c->i] != 'r' &&
        c->s[c->i] != 'e')
      return 0;
  return 1;
}

/* After the monos: "dropped":N, then an optional "cpu_ns":N and an
 * optional "run_delay_ns" list of exactly nwall counts, then the two
 * closing braces at the very end of the bytes. */
static int tail(cur_t *c, ips_metering_t *m, uint32_t nwall) {
  uint32_t i;
  if (!LIT(c, ",\"" IPS_MK_DROPPED "\":") || !count(c, &m->dropped, NULL))
    return 0;
  if (LIT(c, ",\"" IPS_MK_CPU_NS "\":")) {
    if (!count(c, &m->cpu_ns, NULL))
      return 0;
    m->has_cpu_ns = 1;
  }
  /* One count per stamp (IPCSTAMP_RUN_DELAY): the parent does not use
   * it, the slogfile keeps it in the bytes; matched so that asking for it
   * does not cost a yajl parse. */
  if (LIT(c, ",\"" IPS_MK_RUN_DELAY_NS "\":[")) {
    int64_t d;
    for (i = 0; i < nwall; i++)
      if (!count(c, &d, NULL) ||
          !(i + 1 < nwall ? LIT(c, ",") : LIT(c, "]")))
        return 0;
  }
  return LIT(c, "}}") && c->i == c->n;
}

/* The checks of the general path, on what is read: an even number of
 * stamps, at least two, kinds d (u r)* e, and mono times that never go
 * back. */
static int stamps_valid(const char *k, const int64_t *mono, uint32_t n) {
  uint32_t i;
  if (n < 2 || n % 2 || k[0] != 'd' || k[n - 1] != 'e')
    return 0;
  for (i = 1; i + 1 < n; i++)
    if (k[i] != ((i & 1) ? 'u' : 'r'))
      return 0;
  for (i = 1; i < n; i++)
    if (mono[i] < mono[i - 1])
      return 0;
  return 1;
}

/* The kinds as a string: in the store's buffer (grown as needed), or
 * without a store in one of its own that the caller frees.  NULL when out
 * of memory. */
static char *kinds_keep(ips__mstore_t *store, const char *k, uint32_t n) {
  char *kinds;
  if (store) {
    if (store->kcap < (size_t)n + 1) {
      char *g = realloc(store->kinds, (size_t)n + 1);
      if (!g)
        return NULL;
      store->kinds = g;
      store->kcap = (size_t)n + 1;
    }
    kinds = store->kinds;
  } else if (!(kinds = malloc((size_t)n + 1))) {
    return NULL;
  }
  memcpy(kinds, k, n);
  kinds[n] = 0;
  return kinds;
}

/* The slog copy, when there is one: canonical JSON, so the bytes are
 * their own re-serialisation. */
static int copy_bytes(yajl_gen copy, const char *buf, size_t n, int *copied) {
  if (!copy)
    return 1;
  if (ips__json_raw(copy, buf, n) != 0)
    return 0;
  *copied = 1;
  return 1;
}

/* In the order of the bytes: the counters, the walls, the kinds, the
 * monos, the tail; then the general path's checks on what was read, and
 * only then the kinds kept and the copy made (a match that fails after
 * the copy would have the general path copy the bytes a second time). */
int ips__metering_fast(const char *buf, size_t n, ips_metering_t *m,
                       yajl_gen copy, int *copied, ips__mstore_t *store) {
  cur_t c = {buf, 0, n};
  uint32_t nwall = 0, nmono = 0;
  /* without a store, the walls and the monos get arrays of their own */
  int64_t *own_w = NULL, *own_m = NULL;
  size_t cap_w = 0, cap_m = 0, moff;
  int64_t **wa = store ? &store->v : &own_w, **ma = store ? &store->v : &own_m;
  size_t *wc = store ? &store->cap : &cap_w, *mc = store ? &store->cap : &cap_m;
  char *kinds = NULL;
  const char *k;
  size_t kn;
  memset(m, 0, sizeof *m);
  if (!LIT(&c, "{\"") || !counters(&c, m))
    goto no;
  /* A worker with stamps turned off (IPCSTAMP_DISABLE) sends its counters
   * and an empty list: matched too, or turning the stamps off would cost
   * the parent a yajl parse that stamps on do not. */
  if (c.n - c.i == 3 && LIT(&c, "[]}")) {
    if (!copy_bytes(copy, buf, n, copied))
      goto no;
    return 1;
  }
  if (!list(&c, wa, wc, 0, &nwall, 1) ||
      !LIT(&c, ",\"" IPS_MK_IPCSTAMP "\":{\"" IPS_MK_V "\":1,\"" IPS_MK_KINDS
               "\":\"") ||
      !kinds_run(&c, &k, &kn))
    goto no;
  /* in a store, the monos follow the walls in the one array */
  moff = store ? nwall : 0;
  if (kn != nwall || !LIT(&c, "\",\"" IPS_MK_MONO "\":") ||
      !list(&c, ma, mc, moff, &nmono, 0) || nmono != nwall ||
      !tail(&c, m, nwall) || !stamps_valid(k, *ma + moff, nwall) ||
      !(kinds = kinds_keep(store, k, nwall)))
    goto no;
  if (!copy_bytes(copy, buf, n, copied)) {
    if (!store)
      free(kinds);
    goto no;
  }
  m->n = nwall;
  m->has_ipcstamp = 1;
  m->version = 1;
  m->wall_us = *wa;
  m->mono_ns = *ma + moff;
  m->kinds = kinds;
  return 1;
no:
  free(own_w);
  free(own_m);
  memset(m, 0, sizeof *m);
  return 0;
}
