/* meter_read.c — the metering decoder's general reader (meter.h): any JSON
 * into an ips__meter_t with yajl's streaming parser and no tree, and
 * ips__meter_decode, which tries the exact form (meter_fast.c) first.
 *
 * A small state machine over the containers that matter (the top object,
 * "ipcstamp", its lists, "marks" and its lists and events); anything else
 * is skipped whole, with its nesting bounded.  The marks are read in the
 * same pass as the rest.  Every error says what and at which byte. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "decimal.h"
#include "ipcstamp-metering.h"
#include "ipcstamp-slog.h"
#include "meter.h"

/* The known keys, one id each over the three objects (a bit per id in
 * seen: a key given twice is refused, JSON leaving it ambiguous). */
enum { K_NONE, K_OTHER, K_TS, K_IPC, K_COMPUTE, K_ALLOCATE, K_XSMETER,
       K_V, K_KINDS, K_MONO, K_DROPPED, K_CPU, K_RUNQ, K_MARKS,
       K_NAMES, K_EVENTS, K_MDROPPED, K_UNBAL };
/* What a container is. */
enum { C_SKIP, C_TOP, C_IPC, C_MARKS, C_WALLS, C_MONO, C_RUNQ, C_NAMES,
       C_EVENTS, C_EV };
enum { T_NULL, T_BOOL, T_NUM, T_STR, T_MAP, T_ARR };

#define MAXC 8 /* the containers tracked: top, ipcstamp, marks, events, one */

typedef struct {
  ips__meter_t *m;
  yajl_handle h;
  int depth;        /* tracked containers open */
  int skip;         /* containers open inside a skipped value */
  int ctx[MAXC];
  int key;          /* the key whose value comes next in the object open */
  uint32_t seen;
  int ev_field;     /* fields of the event being read */
  int rc;
  char *err;
  size_t errsize;
} mr_t;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(mr_t *p, int rc, const char *fmt, ...) {
  va_list ap;
  size_t len;
  if (p->rc)
    return 0;
  p->rc = rc;
  if (p->errsize) {
    len = (size_t)snprintf(p->err, p->errsize, "metering: ");
    if (len < p->errsize) {
      va_start(ap, fmt);
      vsnprintf(p->err + len, p->errsize - len, fmt, ap);
      va_end(ap);
    }
    len = strlen(p->err);
    snprintf(p->err + len, p->errsize - len, " at byte %zu",
             p->h ? yajl_get_bytes_consumed(p->h) : (size_t)0);
  }
  return 0;
}

static int key_id(int c, const unsigned char *s, size_t n) {
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(s, lit, n))
  if (c == C_TOP) {
    if (IS(IPS_MK_TIMESTAMPS)) return K_TS;
    if (IS(IPS_MK_IPCSTAMP)) return K_IPC;
    if (IS(IPS_MK_COMPUTE)) return K_COMPUTE;
    if (IS(IPS_MK_ALLOCATE)) return K_ALLOCATE;
    if (IS(IPS_MK_METER_TYPE)) return K_XSMETER;
  } else if (c == C_IPC) {
    if (IS(IPS_MK_V)) return K_V;
    if (IS(IPS_MK_KINDS)) return K_KINDS;
    if (IS(IPS_MK_MONO)) return K_MONO;
    if (IS(IPS_MK_DROPPED)) return K_DROPPED;
    if (IS(IPS_MK_CPU_NS)) return K_CPU;
    if (IS(IPS_MK_RUN_DELAY_NS)) return K_RUNQ;
    if (IS(IPS_MK_MARKS)) return K_MARKS;
  } else if (c == C_MARKS) {
    if (IS(IPS_MK_NAMES)) return K_NAMES;
    if (IS(IPS_MK_EVENTS)) return K_EVENTS;
    if (IS(IPS_MK_DROPPED)) return K_MDROPPED;
    if (IS(IPS_MK_UNBALANCED)) return K_UNBAL;
  }
  return K_OTHER;
#undef IS
}

/* A key's name as the messages give it: from the top, dotted. */
static const char *key_name(int k) {
  static const char *const names[] = {
      "?", "?", IPS_MK_TIMESTAMPS, IPS_MK_IPCSTAMP, IPS_MK_COMPUTE,
      IPS_MK_ALLOCATE, IPS_MK_METER_TYPE, "ipcstamp.v", "ipcstamp.kinds",
      "ipcstamp.mono", "ipcstamp.dropped", "ipcstamp.cpu_ns",
      "ipcstamp.run_delay_ns", "ipcstamp.marks", "ipcstamp.marks.names",
      "ipcstamp.marks.events", "ipcstamp.marks.dropped",
      "ipcstamp.marks.unbalanced"};
  return names[k];
}

/* The marks' arrays, allocated once, on the first metering with marks. */
static int marks_ready(mr_t *p) {
  ips__meter_t *m = p->m;
  if (m->marks)
    return 1;
  m->marks = malloc(IPS_MAX_MARKS * sizeof *m->marks);
  m->mname_off = malloc(IPS_MAX_MARKS * sizeof *m->mname_off);
  m->mnames = malloc(IPS__METER_NAMES);
  if (m->marks && m->mname_off && m->mnames)
    return 1;
  ips__meter_release(m);
  return fail(p, IPS_ENOMEM, "out of memory for ipcstamp.marks");
}

/* A container opens: tracked as c, or skipped (C_SKIP) with its nesting
 * bounded. */
static int open_as(mr_t *p, int c) {
  if (c == C_SKIP || p->skip) {
    if (++p->skip + p->depth > IPS_SLOG_MAX_DEPTH)
      return fail(p, IPS_EMETERING, "nested too deeply");
    return 1;
  }
  p->ctx[p->depth++] = c;
  p->key = K_NONE;
  return 1;
}

/* An element of one of the lists of numbers: a wall stamp (seconds into
 * ns), a mono stamp or a run delay (integer ns), up to m->cap of each. */
static int list_number(mr_t *p, int c, int t, const char *s, size_t n) {
  ips__meter_t *m = p->m;
  int64_t *arr = c == C_WALLS ? m->walls : c == C_MONO ? m->mono : m->runq;
  size_t *len = c == C_WALLS ? &m->n_walls
                : c == C_MONO ? &m->n_mono : &m->n_runq;
  const char *what = c == C_WALLS ? IPS_MK_TIMESTAMPS
                     : c == C_MONO ? "ipcstamp.mono" : "ipcstamp.run_delay_ns";
  int64_t v;
  int ok = t == T_NUM && (c == C_WALLS ? !ips__dec_to_ns(s, n, &v)
                                      : ips__parse_uint(s, n, &v));
  /* a wall stamp may be negative here: the writer's rules refuse it
   * (meter_check.c), the analysis says its delivery is out of range */
  if (!ok)
    return fail(p, IPS_EMETERING,
                c == C_WALLS ? "%s[%zu] is not a decimal number of seconds"
                             : "%s[%zu] is not a non-negative integer",
                what, *len);
  if (*len == m->cap)
    return fail(p, IPS_EMETERING, "more than %zu stamps in %s", m->cap, what);
  if (arr)
    arr[*len] = v;
  (*len)++;
  return 1;
}

/* A name of ipcstamp.marks.names: 1 to 255 bytes, within the worker
 * library's bounds on names and their bytes. */
static int mark_name(mr_t *p, int t, const char *s, size_t n) {
  ips__meter_t *m = p->m;
  if (t != T_STR || n == 0 || n > 255)
    return fail(p, IPS_EMETERING, "ipcstamp.marks.names[%zu] is not a name "
                "of 1 to 255 bytes", m->n_mnames);
  if (m->n_mnames == IPS_MAX_MARKS ||
      m->mnames_len - m->n_mnames + n > IPS_MAX_MARK_BYTES)
    return fail(p, IPS_EMETERING, "ipcstamp.marks.names exceed %u names or "
                "%u bytes", IPS_MAX_MARKS, IPS_MAX_MARK_BYTES);
  m->mname_off[m->n_mnames++] = (uint32_t)m->mnames_len;
  memcpy(m->mnames + m->mnames_len, s, n);
  m->mnames_len += n;
  m->mnames[m->mnames_len++] = '\0';
  return 1;
}

/* A field of the event being read: [kind, name index, wall, mono]. */
static int mark_field(mr_t *p, int t, const char *s, size_t n) {
  ips__meter_t *m = p->m;
  ips__mark_t *e = &m->marks[m->n_marks];
  size_t i = m->n_marks;
  int64_t v;
  switch (p->ev_field++) {
    case 0:
      if (t != T_STR || n != 1 || (s[0] != 'm' && s[0] != 'b' && s[0] != 'e'))
        return fail(p, IPS_EMETERING, "ipcstamp.marks.events[%zu][0] is not "
                    "\"m\", \"b\" or \"e\"", i);
      e->kind = s[0];
      return 1;
    case 1:
      if (t != T_NUM || !ips__parse_uint(s, n, &v) || v >= IPS_MAX_MARKS)
        return fail(p, IPS_EMETERING, "ipcstamp.marks.events[%zu][1] is not "
                    "a name index", i);
      e->name = (uint32_t)v;
      return 1;
    case 2:
      if (t != T_NUM || ips__dec_to_ns(s, n, &e->wall))
        return fail(p, IPS_EMETERING, "ipcstamp.marks.events[%zu][2] is not "
                    "a wall time", i);
      return 1;
    case 3:
      if (t != T_NUM || !ips__parse_uint(s, n, &e->mono))
        return fail(p, IPS_EMETERING, "ipcstamp.marks.events[%zu][3] is not "
                    "integer nanoseconds", i);
      return 1;
    default:
      return fail(p, IPS_EMETERING, "ipcstamp.marks.events[%zu] is not "
                  "[kind, name, wall, mono]", i);
  }
}

/* A count at key k: ipcstamp's v (known to be a version number), dropped
 * and cpu_ns, the marks' dropped and unbalanced. */
static int count_at(mr_t *p, int k, int t, const char *s, size_t n) {
  ips__meter_t *m = p->m;
  static const unsigned bit[] = {
      [K_V] = IPS__M_V, [K_DROPPED] = IPS__M_DROPPED, [K_CPU] = IPS__M_CPU};
  int64_t v;
  if (t != T_NUM || !ips__parse_uint(s, n, &v) || (k == K_V && v > 1000000))
    return fail(p, IPS_EMETERING, k == K_V ? "%s is not a version number"
                : k >= K_MDROPPED ? "%s is not a count"
                                  : "%s is not a non-negative integer",
                key_name(k));
  switch (k) {
    case K_V: m->v = v; break;
    case K_DROPPED: m->dropped = v; break;
    case K_CPU: m->cpu_ns = v; break;
    case K_MDROPPED: m->mdropped = v; return 1;
    default: m->munbalanced = v; return 1;
  }
  m->have |= bit[k];
  return 1;
}

/* The value of key k of the object open (top, ipcstamp or marks). */
static int member(mr_t *p, int k, int t, const char *s, size_t n) {
  ips__meter_t *m = p->m;
  static const int lists[] = {[K_TS] = C_WALLS, [K_MONO] = C_MONO,
                              [K_RUNQ] = C_RUNQ, [K_NAMES] = C_NAMES,
                              [K_EVENTS] = C_EVENTS};
  static const unsigned has[] = {[K_TS] = IPS__M_TS, [K_MONO] = IPS__M_MONO,
                                 [K_RUNQ] = IPS__M_RUNQ};
  int64_t v;
  switch (k) {
    case K_TS: case K_MONO: case K_RUNQ: case K_NAMES: case K_EVENTS:
      if (t != T_ARR)
        return fail(p, IPS_EMETERING, "%s is not a list", key_name(k));
      m->have |= k == K_NAMES || k == K_EVENTS ? 0u : has[k];
      return open_as(p, lists[k]);
    case K_IPC: case K_MARKS:
      if (t != T_MAP)
        return fail(p, IPS_EMETERING, "%s is not an object", key_name(k));
      m->have |= k == K_IPC ? IPS__M_IPC : IPS__M_MARKS;
      if (k == K_MARKS && !marks_ready(p))
        return 0;
      return open_as(p, k == K_IPC ? C_IPC : C_MARKS);
    case K_KINDS:
      if (t != T_STR)
        return fail(p, IPS_EMETERING, "ipcstamp.kinds is not a string");
      if (n > m->cap)
        return fail(p, IPS_EMETERING, "more than %zu stamps in "
                    "ipcstamp.kinds", m->cap);
      memcpy(m->kinds, s, n);
      m->kinds[n] = '\0';
      m->n_kinds = n;
      m->have |= IPS__M_KINDS;
      return 1;
    case K_V: case K_DROPPED: case K_CPU: case K_MDROPPED: case K_UNBAL:
      return count_at(p, k, t, s, n);
    case K_COMPUTE: case K_ALLOCATE:
      /* the VM's counters are informative: kept when they are counts */
      if (t == T_NUM && ips__parse_uint(s, n, &v)) {
        m->have |= k == K_COMPUTE ? IPS__M_COMPUTE : IPS__M_ALLOCATE;
        *(k == K_COMPUTE ? &m->compute : &m->allocate) = v;
      }
      break;
    case K_XSMETER:
      m->have |= IPS__M_XSMETER;
      break;
  }
  return t == T_MAP || t == T_ARR ? open_as(p, C_SKIP) : 1;
}

/* Every value (a scalar or a container's opening) goes through here. */
static int value(mr_t *p, int t, const char *s, size_t n) {
  int c, k;
  if (p->rc)
    return 0;
  if (p->skip)
    return t == T_MAP || t == T_ARR ? open_as(p, C_SKIP) : 1;
  if (p->depth == 0) {
    if (t != T_MAP)
      return fail(p, IPS_EMETERING, "not a JSON object");
    return open_as(p, C_TOP);
  }
  c = p->ctx[p->depth - 1];
  switch (c) {
    case C_WALLS: case C_MONO: case C_RUNQ:
      return list_number(p, c, t, s, n);
    case C_NAMES:
      return mark_name(p, t, s, n);
    case C_EVENTS:
      if (t != T_ARR)
        return fail(p, IPS_EMETERING, "ipcstamp.marks.events[%zu] is not a "
                    "list", p->m->n_marks);
      if (p->m->n_marks == IPS_MAX_MARKS)
        return fail(p, IPS_EMETERING, "ipcstamp.marks has more than %u "
                    "events", IPS_MAX_MARKS);
      p->ev_field = 0;
      return open_as(p, C_EV);
    case C_EV:
      return mark_field(p, t, s, n);
  }
  k = p->key;
  p->key = K_NONE;
  return member(p, k, t, s, n);
}

static int cb_key(void *c, const unsigned char *s, size_t n) {
  mr_t *p = c;
  int k;
  if (p->rc)
    return 0;
  if (p->skip)
    return 1;
  k = key_id(p->ctx[p->depth - 1], s, n);
  if (k != K_OTHER) {
    if (p->seen & (1u << k))
      return fail(p, IPS_EMETERING, "duplicate key %s", key_name(k));
    p->seen |= 1u << k;
  }
  p->key = k;
  return 1;
}

static int cb_close(void *c) {
  mr_t *p = c;
  if (p->rc)
    return 0;
  if (p->skip) {
    p->skip--;
    return 1;
  }
  if (p->ctx[--p->depth] == C_EV) {
    if (p->ev_field != 4)
      return fail(p, IPS_EMETERING, "ipcstamp.marks.events[%zu] is not "
                  "[kind, name, wall, mono]", p->m->n_marks);
    p->m->n_marks++;
  }
  p->key = K_NONE;
  return 1;
}

static int cb_null(void *c) { return value(c, T_NULL, NULL, 0); }
static int cb_bool(void *c, int b) { (void)b; return value(c, T_BOOL, NULL, 0); }
static int cb_num(void *c, const char *s, size_t n) {
  return value(c, T_NUM, s, n);
}
static int cb_str(void *c, const unsigned char *s, size_t n) {
  return value(c, T_STR, (const char *)s, n);
}
static int cb_map(void *c) { return value(c, T_MAP, NULL, 0); }
static int cb_arr(void *c) { return value(c, T_ARR, NULL, 0); }

static const yajl_callbacks cbs = {cb_null, cb_bool, NULL,   NULL,
                                   cb_num,  cb_str,  cb_map, cb_key,
                                   cb_close, cb_arr, cb_close};

/* yajl's verdict on the bytes: its own message when it is not JSON. */
static void json_error(mr_t *p, const char *buf, size_t n) {
  unsigned char *e = yajl_get_error(p->h, 0, (const unsigned char *)buf, n);
  char *nl = e ? strchr((char *)e, '\n') : NULL;
  if (nl)
    *nl = '\0';
  fail(p, IPS_EMETERING, "invalid JSON (%s)", e ? (const char *)e : "?");
  p->m->syntax = 1;
  if (e)
    yajl_free_error(p->h, e);
}

int ips__meter_general(ips__meter_t *m, const char *buf, size_t n, int flags,
                       char *err, size_t errsize) {
  mr_t p;
  yajl_status st;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.err = err;
  p.errsize = errsize;
  ips__meter_reset(m);
  if (errsize)
    err[0] = 0;
  if (!buf || n == 0) {
    fail(&p, IPS_EMETERING, "empty");
    return p.rc;
  }
  if (!(p.h = yajl_alloc(&cbs, NULL, &p)))
    return IPS_ENOMEM;
  if (flags & IPS__METER_TRAILING)
    yajl_config(p.h, yajl_allow_trailing_garbage, 1);
  st = yajl_parse(p.h, (const unsigned char *)buf, n);
  /* with trailing bytes allowed, the parse stops at the object's end */
  m->used = flags & IPS__METER_TRAILING ? yajl_get_bytes_consumed(p.h) : n;
  if (st == yajl_status_ok)
    st = yajl_complete_parse(p.h);
  if (st != yajl_status_ok && !p.rc)
    json_error(&p, buf, n);
  yajl_free(p.h);
  return p.rc;
}

int ips__meter_decode(ips__meter_t *m, const char *buf, size_t n, int flags,
                      char *err, size_t errsize) {
  if (!(flags & IPS__METER_GENERAL) && buf && n &&
      ips__meter_fast(m, buf, n, flags)) {
    m->fast = 1;
    if (errsize)
      err[0] = 0;
    return 0;
  }
  return ips__meter_general(m, buf, n, flags, err, errsize);
}

void ips__meter_release(ips__meter_t *m) {
  free(m->marks);
  free(m->mname_off);
  free(m->mnames);
  m->marks = NULL;
  m->mname_off = NULL;
  m->mnames = NULL;
}
