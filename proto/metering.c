/* metering.c — the metering JSON a worker sends with each result
 * (docs/protocol.md, "The metering").  Numbers are formatted from integers so that no stamp is
 * ever rounded through a double. */
#include "config.h"

#include <string.h>

#include "ipcstamp-proto.h"

/* A bounded output cursor: writes past the end are counted, not done. */
typedef struct {
  char *p;
  char *end;
  int full;
} out_t;

static void put(out_t *o, const char *s, size_t n) {
  if (o->full || (size_t)(o->end - o->p) < n) {
    o->full = 1;
    return;
  }
  memcpy(o->p, s, n);
  o->p += n;
}

static void puts_(out_t *o, const char *s) { put(o, s, strlen(s)); }

/* Decimal digits of u into the end of buf; returns the first digit. */
static char *u64_digits(char *end, uint64_t u) {
  do {
    *--end = (char)('0' + u % 10);
    u /= 10;
  } while (u > 0);
  return end;
}

static void put_i64(out_t *o, int64_t v) {
  char buf[24], *end = buf + sizeof buf, *s;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  s = u64_digits(end, u);
  if (v < 0)
    *--s = '-';
  put(o, s, (size_t)(end - s));
}

/* "<sign><whole>.<frac>" with exactly `places` decimals; scale = 10^places. */
static size_t fmt_fixed(char buf[24], int64_t v, uint64_t scale, int places) {
  char tmp[24], *end = tmp + sizeof tmp, *s = end;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  uint64_t frac = u % scale;
  size_t n;
  int k;
  for (k = 0; k < places; k++) {
    *--s = (char)('0' + frac % 10);
    frac /= 10;
  }
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
  return n > 0 && strcmp(k, "timestamps") != 0 && strcmp(k, "ipcstamp") != 0;
}

size_t ips_metering_max_size(uint32_t nstamps, size_t nfields) {
  /* A stamp costs at most 1 kind letter + 27 (wall) + 21 (mono) bytes with
   * separators; a field at most 64 (key) + 24 (value) + 4. */
  return 256 + (size_t)nstamps * 64 + nfields * 96;
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
  char num[24];
  uint32_t i;
  puts_(o, ",\"marks\":{\"names\":[");
  for (i = 0; i < mk->nnames; i++) {
    if (i > 0)
      put(o, ",", 1);
    put_name(o, mk->names + mk->name_off[i],
             mk->name_off[i + 1] - mk->name_off[i]);
  }
  puts_(o, "],\"events\":[");
  for (i = 0; i < mk->n; i++) {
    const ips_mark_t *e = &mk->v[i];
    char k[6] = {'[', '"', e->kind, '"', ','};
    if (i > 0)
      put(o, ",", 1);
    put(o, k, 5);
    put_i64(o, e->name);
    put(o, ",", 1);
    put(o, num, ips_fmt_wall(num, e->wall_us));
    put(o, ",", 1);
    put_i64(o, e->mono_ns);
    put(o, "]", 1);
  }
  puts_(o, "],\"dropped\":");
  put_i64(o, mk->dropped);
  puts_(o, ",\"unbalanced\":");
  put_i64(o, (int64_t)mk->unbalanced + ips_marks_open(mk));
  put(o, "}", 1);
}

int ips_metering_write(char *dst, size_t cap, const ips_stamps_t *t,
                       const ips_meter_t *m, size_t *written) {
  return ips_metering_write_marks(dst, cap, t, NULL, m, written);
}

int ips_metering_write_marks(char *dst, size_t cap, const ips_stamps_t *t,
                             const ips_marks_t *marks, const ips_meter_t *m,
                             size_t *written) {
  out_t o = {dst, dst + cap, 0};
  char num[24];
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
  puts_(&o, "\"timestamps\":[");
  for (k = 0; t != NULL && k < t->n; k++) {
    if (k > 0)
      put(&o, ",", 1);
    put(&o, num, ips_fmt_wall(num, t->v[k].wall_us));
  }
  put(&o, "]", 1);
  if (t != NULL) {
    /* v1 exactly as before unless this command used marks. */
    int v2 = marks != NULL && marks->used;
    puts_(&o, v2 ? ",\"ipcstamp\":{\"v\":2,\"kinds\":\""
                 : ",\"ipcstamp\":{\"v\":1,\"kinds\":\"");
    for (k = 0; k < t->n; k++) {
      if (!is_alpha(t->v[k].kind))
        return IPS_EINVAL;
      put(&o, &t->v[k].kind, 1);
    }
    puts_(&o, "\",\"mono\":[");
    for (k = 0; k < t->n; k++) {
      if (k > 0)
        put(&o, ",", 1);
      put_i64(&o, t->v[k].mono_ns);
    }
    puts_(&o, "],\"dropped\":");
    put_i64(&o, t->dropped);
    if (m != NULL && m->has_cpu_ns) {
      puts_(&o, ",\"cpu_ns\":");
      put_i64(&o, m->cpu_ns);
    }
    if (v2)
      put_marks(&o, marks);
    put(&o, "}", 1);
  }
  put(&o, "}", 1);
  if (o.full)
    return IPS_ENOBUFS;
  if (written != NULL)
    *written = (size_t)(o.p - dst);
  return 0;
}
