/* metering_fast.c — the metering our worker library writes, matched byte
 * for byte, without yajl (issue 16: reading it with yajl was most of what
 * the stamps cost a parent, 0.58 us of an empty delivery's 0.94 us).
 *
 * The form (proto/metering.c writes it so): counters "key":N with keys of
 * [A-Za-z0-9_] and integers, then "timestamps":[S.ffffff,...], then
 * "ipcstamp":{"v":1,"kinds":"d(ur)*e","mono":[N,...],"dropped":N} with an
 * optional ,"cpu_ns":N, and nothing else: no space, no escape, no exponent.
 * What the matcher accepts is valid metering that the yajl path
 * (metering.c) would accept and read the same; everything else, including
 * every error, goes to that path, which says what is wrong.  Since the
 * bytes are then canonical JSON, they are their own re-serialisation: the
 * slogfile's copy is the bytes.  tests/check_parent_metering.c compares the
 * two paths on every seed and on every one-byte change of canonical
 * meterings. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "ipcstamp-parent.h"
#include "json.h"
#include "metering.h"


static int digit(char ch) { return ch >= '0' && ch <= '9'; }

/* 1 to 18 digits, no leading zero (JSON has none): a count. */
static int count(cur_t *c, int64_t *out) {
  size_t b = c->i;
  int64_t v = 0;
  /* at most 18 digits are read (they fit); a 19th is refused unread */
  while (c->i < c->n && digit(c->s[c->i]) && c->i - b < 18)
    v = v * 10 + (c->s[c->i++] - '0');
  if (c->i == b || (c->i < c->n && digit(c->s[c->i])) ||
      (c->s[b] == '0' && c->i - b > 1))
    return 0;
  *out = v;
  return 1;
}

/* Seconds with exactly six decimals, 1 to 12 integer digits (no leading
 * zero): microseconds. */
static int wall(cur_t *c, int64_t *us) {
  size_t b = c->i, k;
  int64_t sec = 0, frac = 0;
  while (c->i < c->n && digit(c->s[c->i]) && c->i - b < 12)
    sec = sec * 10 + (c->s[c->i++] - '0');
  if (c->i == b || (c->s[b] == '0' && c->i - b > 1) ||
      !LIT(c, "."))
    return 0;
  for (k = 0; k < 6; k++) {
    if (c->i >= c->n || !digit(c->s[c->i]))
      return 0;
    frac = frac * 10 + (c->s[c->i++] - '0');
  }
  if (c->i < c->n && digit(c->s[c->i]))
    return 0;
  *us = sec * 1000000 + frac;
  return 1;
}

/* [a,b,...] of count() or wall(): the count, into a fresh array. */
static int list(cur_t *c, int64_t **out, uint32_t *n, int walls) {
  size_t i, k = 1;
  int64_t *v;
  if (!LIT(c, "[") || LIT(c, "]"))
    return 0; /* an empty list: the general path */
  for (i = c->i; i < c->n && c->s[i] != ']'; i++)
    k += c->s[i] == ',';
  if (k > IPS_METERING_MAX_STAMPS || !(v = malloc(k * sizeof *v)))
    return 0;
  for (i = 0; i < k; i++)
    if (!(walls ? wall(c, &v[i]) : count(c, &v[i])) ||
        !(i + 1 < k ? LIT(c, ",") : LIT(c, "]"))) {
      free(v);
      return 0;
    }
  *out = v;
  *n = (uint32_t)k;
  return 1;
}

int ips__metering_fast(const char *buf, size_t n, ips_metering_t *m,
                       yajl_gen copy, int *copied) {
  cur_t c = {buf, 0, n};
  int seen_compute = 0, seen_allocate = 0;
  uint32_t nmono = 0, i;
  int64_t *mono = NULL, v;
  const char *k;
  size_t kn;
  memset(m, 0, sizeof *m);
  if (!LIT(&c, "{\""))
    return 0;
  /* the VM's counters */
  while (!LIT(&c, "timestamps\":")) {
    for (k = buf + c.i, kn = 0; c.i < n; c.i++, kn++) {
      char ch = buf[c.i];
      if (!(digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
            ch == '_'))
        break;
    }
    if (kn == 0 || !LIT(&c, "\":") || !count(&c, &v) || !LIT(&c, ",\""))
      goto no;
    if ((kn == 8 && !memcmp(k, "ipcstamp", 8)) ||
        (kn == 10 && !memcmp(k, "timestamps", 10)))
      goto no;
    if (kn == 7 && !memcmp(k, "compute", 7)) {
      if (seen_compute++)
        goto no; /* a duplicate: the general path refuses it */
      m->has_compute = 1;
      m->compute = v;
    } else if (kn == 8 && !memcmp(k, "allocate", 8)) {
      if (seen_allocate++)
        goto no;
      m->has_allocate = 1;
      m->allocate = v;
    }
  }
  if (!list(&c, &m->wall_us, &m->n, 1) ||
      !LIT(&c, ",\"ipcstamp\":{\"v\":1,\"kinds\":\""))
    goto no;
  m->has_ipcstamp = 1;
  m->version = 1;
  for (k = buf + c.i, kn = 0; c.i < n && buf[c.i] != '"'; c.i++, kn++)
    if (buf[c.i] != 'd' && buf[c.i] != 'u' && buf[c.i] != 'r' &&
        buf[c.i] != 'e')
      goto no;
  if (kn != m->n || !LIT(&c, "\",\"mono\":") ||
      !list(&c, &mono, &nmono, 0) || nmono != m->n ||
      !LIT(&c, ",\"dropped\":") || !count(&c, &m->dropped))
    goto no;
  m->mono_ns = mono;
  mono = NULL;
  if (LIT(&c, ",\"cpu_ns\":")) {
    if (!count(&c, &m->cpu_ns))
      goto no;
    m->has_cpu_ns = 1;
  }
  if (!LIT(&c, "}}") || c.i != n)
    goto no;
  /* The checks of the general path, on what is read. */
  if (m->n < 2 || m->n % 2 || k[0] != 'd' || k[m->n - 1] != 'e')
    goto no;
  for (i = 1; i + 1 < m->n; i++)
    if (k[i] != ((i & 1) ? 'u' : 'r'))
      goto no;
  for (i = 1; i < m->n; i++)
    if (m->mono_ns[i] < m->mono_ns[i - 1])
      goto no;
  if (!(m->kinds = malloc(m->n + 1)))
    goto no;
  memcpy(m->kinds, k, m->n);
  m->kinds[m->n] = 0;
  if (copy) {
    /* canonical JSON: the bytes are their own re-serialisation */
    if (ips__json_raw(copy, buf, n) != 0)
      goto no;
    *copied = 1;
  }
  return 1;
no:
  free(mono);
  ips_metering_free(m);
  return 0;
}
