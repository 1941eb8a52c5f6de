/* metering.c — the metering JSON a worker sends with each result
 * (docs/protocol.md, "The metering").  Numbers are formatted from integers so that no stamp is
 * ever rounded through a double. */
#include "config.h"

#include <string.h>

#include "ipcstamp-proto.h"
#include "ipcstamp-metering.h"

/* A bounded output cursor: writes past the end are counted, not done. */
typedef struct {
  char *p;
  char *end;
  int full;
} out_t;

/* Inlined, so that a literal's constant length makes its memcpy a few
 * moves rather than a call (the writer's calls to memmove were a sixth of
 * its time). */
static inline void put(out_t *o, const char *s, size_t n) {
  if (o->full || (size_t)(o->end - o->p) < n) {
    o->full = 1;
    return;
  }
  memcpy(o->p, s, n);
  o->p += n;
}

static void puts_(out_t *o, const char *s) { put(o, s, strlen(s)); }

/* "00" to "99": two digits per division.  Formatting 20 stamps of up to
 * 19 digits a delivery was the worker's largest cost after its clock reads
 * (375 ns for a 4-upcall metering, one dependent divide per
 * digit); in pairs, and in 32-bit chunks of eight, the divides halve and
 * the chunk's four pairs are independent of each other. */
static const char pairs[201] =
    "0001020304050607080910111213141516171819"
    "2021222324252627282930313233343536373839"
    "4041424344454647484950515253545556575859"
    "6061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Exactly eight digits of v < 10^8, zero-padded, at p[0..8). */
static void put8(char *p, uint32_t v) {
  uint32_t a = v / 10000, b = v % 10000;
  memcpy(p, pairs + 2 * (a / 100), 2);
  memcpy(p + 2, pairs + 2 * (a % 100), 2);
  memcpy(p + 4, pairs + 2 * (b / 100), 2);
  memcpy(p + 6, pairs + 2 * (b % 100), 2);
}

/* Decimal digits of u into the end of buf; returns the first digit. */
static char *u64_digits(char *end, uint64_t u) {
  uint32_t v;
  while (u >= 100000000u) {
    end -= 8;
    put8(end, (uint32_t)(u % 100000000u));
    u /= 100000000u;
  }
  for (v = (uint32_t)u; v >= 100; v /= 100) {
    end -= 2;
    memcpy(end, pairs + 2 * (v % 100), 2);
  }
  if (v >= 10) {
    end -= 2;
    memcpy(end, pairs + 2 * v, 2);
  } else {
    *--end = (char)('0' + v);
  }
  return end;
}

/* How many decimal digits u has: about log10(2) times its bits, then one
 * comparison; lets a number be written in place, with no copy. */
static size_t ndigits(uint64_t u) {
  static const uint64_t p10[20] = {
      1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
      100000000u, 1000000000u, 10000000000u, 100000000000u,
      1000000000000u, 10000000000000u, 100000000000000u,
      1000000000000000u, 10000000000000000u, 100000000000000000u,
      1000000000000000000u, 10000000000000000000u};
  unsigned bits = 64 - (unsigned)__builtin_clzll(u | 1);
  unsigned t = (bits * 1233) >> 12; /* 1233 / 4096 ~ log10(2), from below */
  return t + ((u | 1) >= p10[t]);
}

/* Room for n more bytes at the cursor, or the cursor becomes full. */
static int room(out_t *o, size_t n) {
  if (o->full || (size_t)(o->end - o->p) < n) {
    o->full = 1;
    return 0;
  }
  return 1;
}

/* An integer, written where it goes (the digits run backwards from its
 * end, which ndigits() places). */
static void put_i64(out_t *o, int64_t v) {
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  size_t n = ndigits(u) + (v < 0);
  if (!room(o, n))
    return;
  if (v < 0)
    o->p[0] = '-';
  u64_digits(o->p + n, u);
  o->p += n;
}

/* The leading digits of the last number written, where they are in the
 * output: the stamps of one delivery share their seconds and their mono
 * stamps' digits above the last eight, so those are copied from the
 * previous one instead of being converted again (half the writer's
 * divides).  The output before the cursor never changes. */
typedef struct {
  uint64_t hi;      /* the value the digits stand for */
  const char *text; /* its digits in the output, or NULL */
  size_t len;
} lead_t;

/* The digits of hi (not negative) ending at end, from *lead when it wrote
 * the same hi last; remembered for the next.  Returns the first digit. */
static char *lead_digits(char *end, uint64_t hi, size_t n, lead_t *lead) {
  char *s = end - n;
  if (lead && lead->text && lead->hi == hi)
    memcpy(s, lead->text, n);
  else
    u64_digits(end, hi);
  if (lead) {
    lead->hi = hi;
    lead->text = s;
    lead->len = n;
  }
  return s;
}

/* A wall stamp as seconds with six decimals, in place (ips_fmt_wall's
 * form); lead (or NULL) carries the seconds from the last one. */
static void put_wall(out_t *o, int64_t v, lead_t *lead) {
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  uint32_t frac = (uint32_t)(u % 1000000u);
  uint64_t sec = u / 1000000u;
  size_t ns = lead && lead->text && lead->hi == sec && v >= 0 ? lead->len
                                                              : ndigits(sec);
  size_t n = ns + 7 + (v < 0);
  char *e;
  if (!room(o, n))
    return;
  if (v < 0)
    o->p[0] = '-';
  e = o->p + n;
  memcpy(e - 2, pairs + 2 * (frac % 100), 2);
  memcpy(e - 4, pairs + 2 * (frac / 100 % 100), 2);
  memcpy(e - 6, pairs + 2 * (frac / 10000), 2);
  e[-7] = '.';
  lead_digits(e - 7, sec, ns, v < 0 ? NULL : lead);
  o->p += n;
}

/* A mono stamp (an integer) in place; lead carries its digits above the
 * last eight from the previous one. */
static void put_mono(out_t *o, int64_t v, lead_t *lead) {
  uint64_t hi;
  size_t nh;
  if (v < 100000000) {
    put_i64(o, v); /* negative or short: nothing worth sharing */
    return;
  }
  hi = (uint64_t)v / 100000000u;
  nh = lead->text && lead->hi == hi ? lead->len : ndigits(hi);
  if (!room(o, nh + 8))
    return;
  put8(o->p + nh, (uint32_t)((uint64_t)v % 100000000u));
  lead_digits(o->p + nh, hi, nh, lead);
  o->p += nh + 8;
}

/* "<sign><whole>.<frac>" with exactly `places` decimals; scale = 10^places. */
static size_t fmt_fixed(char buf[24], int64_t v, uint64_t scale, int places) {
  char tmp[24], *end = tmp + sizeof tmp, *s = end;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  uint64_t frac = u % scale;
  size_t n;
  int k;
  for (k = places; k >= 2; k -= 2) {
    s -= 2;
    memcpy(s, pairs + 2 * (frac % 100), 2);
    frac /= 100;
  }
  if (k)
    *--s = (char)('0' + frac % 10);
  *--s = '.';
  s = u64_digits(s, u / scale);
  if (v < 0)
    *--s = '-';
  n = (size_t)(end - s);
  memcpy(buf, s, n);
  buf[n] = '\0';
  return n;
}

size_t ips_fmt_wall(char buf[24], int64_t wall_us) {
  return fmt_fixed(buf, wall_us, 1000000u, 6);
}

size_t ips_fmt_mono(char buf[24], int64_t mono_ns) {
  return fmt_fixed(buf, mono_ns, 1000000000u, 9);
}

static int is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Keys are written without escaping, so they are held to a plain alphabet;
 * "timestamps" and "ipcstamp" belong to the writer. */
static int key_ok(const char *k) {
  size_t n;
  if (k == NULL)
    return 0;
  for (n = 0; k[n] != '\0'; n++) {
    char c = k[n];
    if (!(is_alpha(c) || (c >= '0' && c <= '9') || c == '_') || n >= 64)
      return 0;
  }
  return n > 0 && strcmp(k, IPS_MK_TIMESTAMPS) != 0 && strcmp(k, IPS_MK_IPCSTAMP) != 0;
}

size_t ips_metering_max_size(uint32_t nstamps, size_t nfields) {
  /* A stamp costs at most 1 kind letter + 27 (wall) + 21 (mono) + 21
   * (run_delay_ns) bytes with separators; a field at most 64 (key) + 24
   * (value) + 4. */
  return 256 + (size_t)nstamps * 88 + nfields * 96;
}

/* Per event: `["b",` 5 + index 10 + `,` + wall 27 + `,` + mono 21 + `],` 2;
 * per name byte at most 6 (`\u00XX`), per name 3 (quotes, comma); plus
 * the fixed members. */
size_t ips_metering_max_size_marks(uint32_t nstamps, size_t nfields,
                                   uint32_t max_marks, size_t max_mark_bytes) {
  size_t n = ips_metering_max_size(nstamps, nfields);
  if (max_marks == 0)
    return n;
  return n + 160 + (size_t)max_marks * (68 + 3) + max_mark_bytes * 6;
}

/* A name as a JSON string: the table holds valid UTF-8, so only '"', '\\'
 * and control bytes need escaping. */
static void put_name(out_t *o, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t i, run = 0;
  put(o, "\"", 1);
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    put(o, s + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      put(o, e, 2);
    } else {
      char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      put(o, e, 6);
    }
  }
  put(o, s + run, n - run);
  put(o, "\"", 1);
}

/* "marks":{"names":[...],"events":[["b",0,<wall>,<mono>],...],
 *          "dropped":N,"unbalanced":N} */
static void put_marks(out_t *o, const ips_marks_t *mk) {
  uint32_t i;
  puts_(o, ",\"" IPS_MK_MARKS "\":{\"" IPS_MK_NAMES "\":[");
  for (i = 0; i < mk->nnames; i++) {
    if (i > 0)
      put(o, ",", 1);
    put_name(o, mk->names + mk->name_off[i],
             mk->name_off[i + 1] - mk->name_off[i]);
  }
  puts_(o, "],\"" IPS_MK_EVENTS "\":[");
  for (i = 0; i < mk->n; i++) {
    const ips_mark_t *e = &mk->v[i];
    char k[6] = {'[', '"', e->kind, '"', ','};
    if (i > 0)
      put(o, ",", 1);
    put(o, k, 5);
    put_i64(o, e->name);
    put(o, ",", 1);
    put_wall(o, e->wall_us, NULL);
    put(o, ",", 1);
    put_i64(o, e->mono_ns);
    put(o, "]", 1);
  }
  puts_(o, "],\"" IPS_MK_DROPPED "\":");
  put_i64(o, mk->dropped);
  puts_(o, ",\"" IPS_MK_UNBALANCED "\":");
  put_i64(o, (int64_t)mk->unbalanced + ips_marks_open(mk));
  put(o, "}", 1);
}

/* "run_delay_ns" is written only when every stamp has its reading: one
 * number per stamp, so that a reader pairs them with "kinds" by index. */
static int all_run_delays(const ips_stamps_t *t) {
  uint32_t k;
  if (t->n == 0)
    return 0;
  for (k = 0; k < t->n; k++)
    if (!t->v[k].has_run_delay)
      return 0;
  return 1;
}

int ips_metering_write(char *dst, size_t cap, const ips_stamps_t *t,
                       const ips_meter_t *m, size_t *written) {
  return ips_metering_write_marks(dst, cap, t, NULL, m, written);
}

/* The "ipcstamp":{...} member for table t (not NULL). */
static int put_ipcstamp(out_t *o, const ips_stamps_t *t,
                        const ips_marks_t *marks, const ips_meter_t *m) {
  lead_t lm = {0, NULL, 0};
  uint32_t k;
  /* v1 exactly as before unless this command used marks. */
  int v2 = marks != NULL && marks->used;
  puts_(o, v2 ? "\"" IPS_MK_IPCSTAMP "\":{\"" IPS_MK_V "\":2,\"" IPS_MK_KINDS "\":\""
              : "\"" IPS_MK_IPCSTAMP "\":{\"" IPS_MK_V "\":1,\"" IPS_MK_KINDS "\":\"");
  for (k = 0; k < t->n; k++) {
    if (!is_alpha(t->v[k].kind))
      return IPS_EINVAL;
    put(o, &t->v[k].kind, 1);
  }
  puts_(o, "\",\"" IPS_MK_MONO "\":[");
  for (k = 0; k < t->n; k++) {
    if (k > 0)
      put(o, ",", 1);
    put_mono(o, t->v[k].mono_ns, &lm);
  }
  puts_(o, "],\"" IPS_MK_DROPPED "\":");
  put_i64(o, t->dropped);
  if (m != NULL && m->has_cpu_ns) {
    puts_(o, ",\"" IPS_MK_CPU_NS "\":");
    put_i64(o, m->cpu_ns);
  }
  if (all_run_delays(t)) {
    puts_(o, ",\"" IPS_MK_RUN_DELAY_NS "\":[");
    for (k = 0; k < t->n; k++) {
      if (k > 0)
        put(o, ",", 1);
      put_i64(o, t->v[k].run_delay_ns);
    }
    put(o, "]", 1);
  }
  if (v2)
    put_marks(o, marks);
  put(o, "}", 1);
  return 0;
}

int ips_metering_write_ipcstamp(char *dst, size_t cap, const ips_stamps_t *t,
                                const ips_marks_t *marks,
                                const ips_meter_t *m, size_t *written) {
  out_t o = {dst, dst + cap, 0};
  int rc = put_ipcstamp(&o, t, marks, m);
  if (rc != 0)
    return rc;
  if (o.full)
    return IPS_ENOBUFS;
  if (written != NULL)
    *written = (size_t)(o.p - dst);
  return 0;
}

int ips_metering_write_marks(char *dst, size_t cap, const ips_stamps_t *t,
                             const ips_marks_t *marks, const ips_meter_t *m,
                             size_t *written) {
  out_t o = {dst, dst + cap, 0};
  lead_t lw = {0, NULL, 0};
  size_t i;
  uint32_t k;

  put(&o, "{", 1);
  if (m != NULL) {
    for (i = 0; i < m->nfields; i++) {
      if (!key_ok(m->fields[i].key))
        return IPS_EINVAL;
      put(&o, "\"", 1);
      puts_(&o, m->fields[i].key);
      put(&o, "\":", 2);
      put_i64(&o, m->fields[i].value);
      put(&o, ",", 1);
    }
  }
  puts_(&o, "\"" IPS_MK_TIMESTAMPS "\":[");
  for (k = 0; t != NULL && k < t->n; k++) {
    if (k > 0)
      put(&o, ",", 1);
    put_wall(&o, t->v[k].wall_us, &lw);
  }
  put(&o, "]", 1);
  if (t != NULL) {
    int rc;
    put(&o, ",", 1);
    if ((rc = put_ipcstamp(&o, t, marks, m)) != 0)
      return rc;
  }
  put(&o, "}", 1);
  if (o.full)
    return IPS_ENOBUFS;
  if (written != NULL)
    *written = (size_t)(o.p - dst);
  return 0;
}
