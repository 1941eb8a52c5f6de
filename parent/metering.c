/* metering.c — the metering reader: untrusted metering JSON (docs/protocol.md, "The metering")
 * into an ips_metering_t, with yajl's streaming parser and no tree.
 *
 * The parser is a small state machine over the two levels that matter (the
 * top object and the "ipcstamp" object); anything else is skipped whole,
 * with its nesting bounded.  Arrays grow by doubling but never beyond
 * IPS_METERING_MAX_STAMPS, so a worker cannot make us allocate more than a
 * small multiple of what it sent. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "ipcstamp-parent.h"
#include "ipcstamp-metering.h"
#include "digits.h"
#include "json.h"
#include "marks_check.h"
#include "metering.h"

enum { K_NONE, K_OTHER, K_TS, K_IPC, K_COMPUTE, K_ALLOCATE,
       K_V, K_KINDS, K_MONO, K_DROPPED, K_CPU };
enum { T_NULL, T_BOOL, T_NUM, T_STR, T_OPEN_MAP, T_OPEN_ARR };

typedef struct {
  ips_metering_t *m;
  yajl_handle h;
  int depth;      /* open containers that we track (skipped ones excluded) */
  int skip;       /* open containers inside a skipped value */
  int key1, key2; /* the key whose value comes next, per level */
  int in_ts, in_ipc, in_mono;
  unsigned seen;  /* keys seen once already (bit per K_*) */
  uint32_t ts_cap, mono_cap, nmono;
  int seen_v, kinds_len;
  int rc;
  char *err;
  size_t errsize;
  ips__jcopy_t copy; /* the re-serialiser, when copying */
  int copying;
} mp_t;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(mp_t *p, int rc, const char *fmt, ...) {
  va_list ap;
  size_t len;
  if (p->rc)
    return p->copying && p->rc != IPS_ENOMEM;
  p->rc = rc;
  if (p->errsize) {
    va_start(ap, fmt);
    vsnprintf(p->err, p->errsize, fmt, ap);
    va_end(ap);
    len = strlen(p->err);
    snprintf(p->err + len, p->errsize - len, " at byte %zu",
             p->h ? yajl_get_bytes_consumed(p->h) : (size_t)0);
  }
  /* A copy goes on to the end of the value: valid JSON that is bad
   * metering is still embedded whole in the slogfile. */
  return p->copying && rc != IPS_ENOMEM;
}

/* Seconds ("1795300856.504227", or any JSON number) into microseconds.
 * The plain decimal form is converted with integers (no rounding drift);
 * other forms go through strtod and are rounded. */
static int parse_wall(const char *s, size_t n, int64_t *us) {
  size_t i = 0, j;
  int64_t sec = 0, frac = 0;
  int fd = 0;
  char tmp[64];
  double d;
  char *end;
  while (i < n && s[i] >= '0' && s[i] <= '9' && i < 13)
    sec = sec * 10 + (s[i++] - '0');
  if (i > 0 && (i == n || s[i] == '.')) {
    j = i == n ? i : i + 1;
    for (; j < n && s[j] >= '0' && s[j] <= '9'; j++) {
      if (fd < 6) {
        frac = frac * 10 + (s[j] - '0');
        fd++;
      }
    }
    /* The same bound as below: past it, seconds * 10^6 would overflow. */
    if (j == n && (i == n || j > i + 1) && sec <= 9000000000000LL) {
      while (fd++ < 6)
        frac *= 10;
      *us = sec * 1000000 + frac;
      return 1;
    }
  }
  if (n >= sizeof tmp)
    return 0;
  memcpy(tmp, s, n);
  tmp[n] = 0;
  errno = 0;
  d = strtod(tmp, &end);
  if (errno || *end || !(d >= 0) || d > 9.0e12)
    return 0;
  *us = (int64_t)(d * 1e6 + 0.5);
  return 1;
}

static int grow(int64_t **v, uint32_t *cap, uint32_t n) {
  uint32_t nc;
  int64_t *nv;
  if (n < *cap)
    return 1;
  if (n >= IPS_METERING_MAX_STAMPS)
    return 0;
  nc = *cap ? *cap * 2 : 16;
  if (nc > IPS_METERING_MAX_STAMPS)
    nc = IPS_METERING_MAX_STAMPS;
  nv = realloc(*v, nc * sizeof **v);
  if (!nv)
    return 0;
  *v = nv;
  *cap = nc;
  return 1;
}

static int key_id(int level, const unsigned char *s, size_t n) {
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(s, lit, n))
  if (level == 1) {
    if (IS(IPS_MK_TIMESTAMPS)) return K_TS;
    if (IS(IPS_MK_IPCSTAMP)) return K_IPC;
    if (IS(IPS_MK_COMPUTE)) return K_COMPUTE;
    if (IS(IPS_MK_ALLOCATE)) return K_ALLOCATE;
  } else {
    if (IS(IPS_MK_V)) return K_V;
    if (IS(IPS_MK_KINDS)) return K_KINDS;
    if (IS(IPS_MK_MONO)) return K_MONO;
    if (IS(IPS_MK_DROPPED)) return K_DROPPED;
    if (IS(IPS_MK_CPU_NS)) return K_CPU;
  }
  return K_OTHER;
#undef IS
}

static const char *key_name(int k) {
  switch (k) {
  case K_TS: return IPS_MK_TIMESTAMPS;
  case K_IPC: return IPS_MK_IPCSTAMP;
  case K_V: return "ipcstamp.v";
  case K_KINDS: return "ipcstamp.kinds";
  case K_MONO: return "ipcstamp.mono";
  case K_DROPPED: return "ipcstamp.dropped";
  case K_CPU: return "ipcstamp.cpu_ns";
  default: return "?";
  }
}

static int start_skip(mp_t *p, int t) {
  if (t == T_OPEN_MAP || t == T_OPEN_ARR)
    p->skip = 1;
  return 1;
}

/* An element of "timestamps" (walls: seconds into microseconds) or of
 * "ipcstamp.mono" (nanoseconds): one more stamp, the list grown to at most
 * IPS_METERING_MAX_STAMPS so that a worker cannot make us allocate more
 * than a small multiple of what it sent. */
static int stamp_value(mp_t *p, int t, const char *s, size_t n) {
  ips_metering_t *m = p->m;
  int mono = p->in_mono;
  int64_t **arr = mono ? &m->mono_ns : &m->wall_us, v;
  uint32_t *cap = mono ? &p->mono_cap : &p->ts_cap;
  uint32_t *len = mono ? &p->nmono : &m->n;
  if (t != T_NUM ||
      !(mono ? ips__parse_uint(s, n, &v) : parse_wall(s, n, &v)))
    return fail(p, IPS_EMETERING,
                mono ? "metering: ipcstamp.mono[%" PRIu32
                       "] is not a non-negative integer"
                     : "metering: timestamps[%" PRIu32
                       "] is not a non-negative number of seconds",
                *len);
  if (!grow(arr, cap, *len))
    return fail(p, IPS_EMETERING, "metering: more than %u stamps",
                IPS_METERING_MAX_STAMPS);
  (*arr)[(*len)++] = v;
  return 1;
}

/* A value of the "ipcstamp" object, by its key: the version (known ones
 * only), the kinds string, the opening of the mono list, the dropped and
 * cpu_ns counts; any other key's value is skipped whole. */
static int ipc_value(mp_t *p, int t, const char *s, size_t n) {
  ips_metering_t *m = p->m;
  int64_t v;
  int k = p->key2;
  p->key2 = K_NONE;
  switch (k) {
  case K_V:
    if (t != T_NUM || !ips__parse_uint(s, n, &v) || v > 1000000)
      return fail(p, IPS_EMETERING,
                  "metering: ipcstamp.v is not a version number");
    /* v2 adds "marks" (skipped here, carried verbatim into the slog;
     * the analysis validates it). */
    if (v < IPS_METERING_VERSION || v > IPS_METERING_VERSION_MAX)
      return fail(p, IPS_EVERSION,
                  "metering: ipcstamp.v is %" PRId64
                  ": unknown version (this reader knows %d to %d)",
                  v, IPS_METERING_VERSION, IPS_METERING_VERSION_MAX);
    m->version = (int)v;
    p->seen_v = 1;
    return 1;
  case K_KINDS:
    if (t != T_STR || n > IPS_METERING_MAX_STAMPS)
      return fail(p, IPS_EMETERING,
                  "metering: ipcstamp.kinds is not a string");
    m->kinds = malloc(n + 1);
    if (!m->kinds)
      return fail(p, IPS_ENOMEM, "metering: out of memory");
    memcpy(m->kinds, s, n);
    m->kinds[n] = 0;
    p->kinds_len = (int)n;
    return 1;
  case K_MONO:
    if (t != T_OPEN_ARR)
      return fail(p, IPS_EMETERING, "metering: ipcstamp.mono is not a list");
    p->in_mono = 1;
    p->depth++;
    return 1;
  case K_DROPPED:
  case K_CPU:
    if (t != T_NUM || !ips__parse_uint(s, n, &v))
      return fail(p, IPS_EMETERING,
                  "metering: %s is not a non-negative integer",
                  key_name(k));
    if (k == K_DROPPED)
      m->dropped = v;
    else {
      m->has_cpu_ns = 1;
      m->cpu_ns = v;
    }
    return 1;
  default:
    return start_skip(p, t);
  }
}

/* A value of the top object, by its key: the two lists and the ipcstamp
 * object are entered; the VM's counters are informative, kept when they
 * are integers; anything else is skipped whole. */
static int top_value(mp_t *p, int t, const char *s, size_t n) {
  ips_metering_t *m = p->m;
  int64_t v;
  int k = p->key1;
  p->key1 = K_NONE;
  switch (k) {
  case K_TS:
    if (t != T_OPEN_ARR)
      return fail(p, IPS_EMETERING, "metering: timestamps is not a list");
    p->in_ts = 1;
    p->depth++;
    return 1;
  case K_IPC:
    if (t != T_OPEN_MAP)
      return fail(p, IPS_EMETERING,
                  "metering: ipcstamp is not an object");
    p->in_ipc = 1;
    m->has_ipcstamp = 1;
    p->depth++;
    return 1;
  case K_COMPUTE:
  case K_ALLOCATE:
    if (t == T_NUM && ips__parse_uint(s, n, &v)) {
      if (k == K_COMPUTE) {
        m->has_compute = 1;
        m->compute = v;
      } else {
        m->has_allocate = 1;
        m->allocate = v;
      }
    }
    return start_skip(p, t);
  default:
    return start_skip(p, t);
  }
}

/* Every value (scalar or the opening of a container) goes through here,
 * after the copy has taken it.  Once the metering is known to be bad only
 * the copy goes on.  Inside a skipped value only the nesting is counted
 * (bounded); otherwise the value goes to the reader of where it is: the
 * top object's opening, a stamp list's element, the ipcstamp object or
 * the top object. */
static int value(mp_t *p, int t, const char *s, size_t n) {
  if (p->rc)
    return p->copying && p->rc != IPS_ENOMEM;
  if (p->skip) {
    if (t == T_OPEN_MAP || t == T_OPEN_ARR) {
      if (++p->skip + p->depth > IPS_JSON_MAX_DEPTH)
        return fail(p, IPS_EMETERING, "metering: nested too deeply");
    }
    return 1;
  }
  if (p->depth == 0) {
    if (t != T_OPEN_MAP)
      return fail(p, IPS_EMETERING, "metering: not a JSON object");
    p->depth = 1;
    return 1;
  }
  if (p->in_mono || p->in_ts)
    return stamp_value(p, t, s, n);
  if (p->in_ipc)
    return ipc_value(p, t, s, n);
  return top_value(p, t, s, n);
}

/* Each token goes to the copy first (which refuses nothing the metering
 * reader accepts: it only stops copying), then to the reader. */
static int cb_null(void *c) {
  mp_t *p = c;
  if (p->copying)
    ips__jcopy_null(&p->copy);
  return value(c, T_NULL, NULL, 0);
}
static int cb_bool(void *c, int b) {
  mp_t *p = c;
  if (p->copying)
    ips__jcopy_bool(&p->copy, b);
  return value(c, T_BOOL, NULL, 0);
}
static int cb_num(void *c, const char *s, size_t n) {
  mp_t *p = c;
  if (p->copying)
    ips__jcopy_number(&p->copy, s, n);
  return value(c, T_NUM, s, n);
}
static int cb_str(void *c, const unsigned char *s, size_t n) {
  mp_t *p = c;
  if (p->copying)
    ips__jcopy_string(&p->copy, s, n);
  return value(c, T_STR, (const char *)s, n);
}
static int cb_smap(void *c) {
  mp_t *p = c;
  if (p->copying)
    ips__jcopy_map_open(&p->copy);
  return value(c, T_OPEN_MAP, NULL, 0);
}
static int cb_sarr(void *c) {
  mp_t *p = c;
  if (p->copying)
    ips__jcopy_array_open(&p->copy);
  return value(c, T_OPEN_ARR, NULL, 0);
}

static int cb_key(void *c, const unsigned char *s, size_t n) {
  mp_t *p = c;
  int k, bit;
  if (p->copying)
    ips__jcopy_string(&p->copy, s, n);
  if (p->rc)
    return p->copying && p->rc != IPS_ENOMEM;
  if (p->skip)
    return 1;
  k = key_id(p->in_ipc ? 2 : 1, s, n);
  if (k != K_OTHER) {
    bit = 1u << k;
    if (p->seen & bit)
      return fail(p, IPS_EMETERING, "metering: duplicate key %s",
                  key_name(k));
    p->seen |= bit;
  }
  if (p->in_ipc)
    p->key2 = k;
  else
    p->key1 = k;
  return 1;
}

static int close_common(mp_t *p) {
  if (p->rc)
    return p->copying && p->rc != IPS_ENOMEM;
  if (p->skip) {
    p->skip--;
    return 1;
  }
  if (p->in_mono)
    p->in_mono = 0;
  else if (p->in_ts)
    p->in_ts = 0;
  else if (p->in_ipc)
    p->in_ipc = 0;
  p->depth--;
  return 1;
}
static int cb_emap(void *c) {
  mp_t *p = c;
  if (p->copying)
    ips__jcopy_map_close(&p->copy);
  return close_common(p);
}
static int cb_earr(void *c) {
  mp_t *p = c;
  if (p->copying)
    ips__jcopy_array_close(&p->copy);
  return close_common(p);
}

static const yajl_callbacks cbs = {cb_null, cb_bool, NULL,    NULL,
                                   cb_num,  cb_str,  cb_smap, cb_key,
                                   cb_emap, cb_sarr, cb_earr};

/* The stamp sequence a worker writes: d, then u/r pairs, then e. */
static int kinds_ok(const char *k, uint32_t n) {
  uint32_t i;
  if (n < 2 || k[0] != 'd' || k[n - 1] != 'e')
    return 0;
  for (i = 1; i + 1 < n; i++)
    if (k[i] != ((i & 1) ? 'u' : 'r'))
      return 0;
  return (n & 1) == 0;
}

static int check(mp_t *p) {
  ips_metering_t *m = p->m;
  uint32_t i;
  if (!m->has_ipcstamp) {
    /* xsnap's plain list: the kinds follow from the count when it is even
     * (xsnap silently drops the final stamp when its table is full). */
    if (m->n >= 2 && (m->n & 1) == 0) {
      m->kinds = malloc(m->n + 1);
      if (!m->kinds)
        return fail(p, IPS_ENOMEM, "metering: out of memory");
      m->kinds[0] = 'd';
      for (i = 1; i + 1 < m->n; i++)
        m->kinds[i] = (i & 1) ? 'u' : 'r';
      m->kinds[m->n - 1] = 'e';
      m->kinds[m->n] = 0;
    }
    return 1;
  }
  if (!p->seen_v)
    return fail(p, IPS_EMETERING, "metering: ipcstamp.v is missing");
  if (!(p->seen & (1u << K_KINDS)) || !(p->seen & (1u << K_MONO)))
    return fail(p, IPS_EMETERING, "metering: ipcstamp.%s is missing",
                (p->seen & (1u << K_KINDS)) ? IPS_MK_MONO : IPS_MK_KINDS);
  if ((uint32_t)p->kinds_len != m->n || p->nmono != m->n)
    return fail(p, IPS_EMETERING,
                "metering: %" PRIu32 " timestamps but %d kinds and %" PRIu32
                " mono stamps",
                m->n, p->kinds_len, p->nmono);
  if (!kinds_ok(m->kinds, m->n))
    return fail(p, IPS_EMETERING,
                "metering: ipcstamp.kinds \"%.40s\" is not d(ur)*e",
                m->kinds);
  for (i = 1; i < m->n; i++)
    if (m->mono_ns[i] < m->mono_ns[i - 1])
      return fail(p, IPS_EMETERING,
                  "metering: ipcstamp.mono[%" PRIu32 "] goes backwards", i);
  return 1;
}

int ips__metering_parse(const char *buf, size_t n, ips_metering_t *m,
                        char *err, size_t errsize, yajl_gen copy,
                        int *copied) {
  if (copied)
    *copied = 0;
  if (errsize)
    err[0] = 0;
  /* Our worker's exact form first: no yajl, and its bytes are the copy. */
  if (buf && n && ips__metering_fast(buf, n, m, copy, copied, NULL))
    return 0;
  return ips__metering_parse_general(buf, n, m, err, errsize, copy, copied);
}

int ips__metering_parse_general(const char *buf, size_t n, ips_metering_t *m,
                                char *err, size_t errsize, yajl_gen copy,
                                int *copied) {
  mp_t p;
  yajl_status st;
  memset(m, 0, sizeof *m);
  memset(&p, 0, sizeof p);
  p.m = m;
  p.err = err;
  p.errsize = errsize;
  if (copied)
    *copied = 0;
  if (copy) {
    ips__jcopy_init(&p.copy, copy);
    p.copying = 1;
  }
  if (errsize)
    err[0] = 0;
  if (!buf || n == 0) {
    fail(&p, IPS_EMETERING, "metering: empty");
    return p.rc;
  }
  p.h = yajl_alloc(&cbs, NULL, &p);
  if (!p.h)
    return IPS_ENOMEM;
  st = yajl_parse(p.h, (const unsigned char *)buf, n);
  if (st == yajl_status_ok)
    st = yajl_complete_parse(p.h);
  if (copied)
    *copied = st == yajl_status_ok && p.copy.ok;
  if (st != yajl_status_ok && !p.rc) {
    unsigned char *e = yajl_get_error(p.h, 0, NULL, 0);
    fail(&p, IPS_EMETERING, "metering: invalid JSON (%s)",
         e ? (const char *)e : "?");
    if (e)
      yajl_free_error(p.h, e);
  }
  if (!p.rc)
    check(&p);
  yajl_free(p.h);
  p.h = NULL;
  /* v2: the marks, which the pass above stepped over (marks_check.c). */
  if (!p.rc && m->version == IPS_METERING_VERSION_MARKS)
    p.rc = ips__marks_check(buf, n, m, err, errsize);
  if (p.rc) {
    ips_metering_free(m);
    return p.rc;
  }
  return 0;
}

int ips_metering_parse(const char *buf, size_t n, ips_metering_t *m,
                       char *err, size_t errsize) {
  return ips__metering_parse(buf, n, m, err, errsize, NULL, NULL);
}

void ips_metering_free(ips_metering_t *m) {
  free(m->wall_us);
  free(m->kinds);
  free(m->mono_ns);
  memset(m, 0, sizeof *m);
}
