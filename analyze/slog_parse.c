/* slog_parse.c — one slogfile line into an ips__rec_t.
 *
 * yajl's streaming parser tokenises everything the report reads.  When it
 * reaches a payload the report does not read (vsc, vsr, kd, the result, a
 * message's arguments), a callback cancels the parse; ips__json_skip() steps
 * over the value, and a fresh yajl handle resumes after it, primed with a
 * muted prefix that reopens the enclosing containers.  So every byte outside
 * the payloads is validated by yajl, and a payload is still checked for
 * matching brackets and closed strings (enough to see a cut line).
 * With strict set, nothing is skipped.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "ipcstamp-slog.h"
#include "slog.h"

#define MAXD 16

enum { C_NONE, C_TOP, C_VD, C_MSG, C_METHARGS, C_NOTIFY, C_NENTRY, C_DR,
       C_METER, C_WALLS, C_IPS, C_WMONO, C_MARKS, C_MNAMES, C_MEVENTS, C_MEV,
       C_WRUNQ };
enum { K_NONE, K_TYPE, K_CRANK, K_VAT, K_DNUM, K_SNUM, K_TIME, K_MONO, K_VD,
       K_DR, K_IPCSTAMP, K_METHARGS, K_BODY, K_METHOD, K_TIMESTAMPS, K_V,
       K_KINDS, K_WMONO, K_DROPPED, K_CPU, K_REPLAY, K_MARKS, K_MNAMES,
       K_MEVENTS, K_MUNBAL, K_PID, K_PRUNQ, K_WRUNQ };
enum { P_NONE, P_STOP, P_SKIP_KEYVAL, P_SKIP_ELEM, P_SKIP_REST, P_ERR };
enum { V_OTHER, V_MESSAGE, V_NOTIFY };

struct ips__parser {
  int strict;           /* validate every byte (yajl with UTF-8 checks) */
  int fast;             /* try slog_fast.c's matcher first */
  int noskip;           /* tokenise payloads too: strict, or a retry */
  ips__rec_t rec;
  int mute, depth, pending, extract, vdtype, nvp;
  unsigned top_seen;    /* K_* bits of the record's fields read so far */
  int to_tail;          /* the skipped value runs to the tail anchor */
  int dr_msg;           /* the element skipped next is an error's message */
  const char *line;     /* the line being parsed, and its tail anchor: */
  size_t len;           /* the index of its last `,"time":`, or 0 */
  long anchor;
  size_t used;          /* bytes of arena handed out for this line */
  yajl_alloc_funcs af;
  _Alignas(16) char arena[32768];
  char stk[MAXD];
  int ctx[MAXD], key[MAXD], idx[MAXD];
  char err[200];
  yajl_callbacks cb;
};

static void *a_malloc(void *ctx, size_t n);
static void *a_realloc(void *ctx, void *ptr, size_t n);
static void a_free(void *ctx, void *ptr);

static void elem_done(ips__parser_t *p) {
  if (p->depth > 0 && p->depth < MAXD && p->stk[p->depth] == 'a')
    p->idx[p->depth]++;
}

static int cur_ctx(const ips__parser_t *p) {
  return p->depth > 0 && p->depth < MAXD ? p->ctx[p->depth] : C_NONE;
}
static int cur_key(const ips__parser_t *p) {
  return p->depth > 0 && p->depth < MAXD ? p->key[p->depth] : K_NONE;
}
static int cur_idx(const ips__parser_t *p) {
  return p->depth > 0 && p->depth < MAXD ? p->idx[p->depth] : -1;
}

static int child_ctx(const ips__parser_t *p, char type) {
  int c = cur_ctx(p), k = cur_key(p), i = cur_idx(p);
  if (p->depth == 0)
    return type == 'm' ? C_TOP : C_NONE;
  switch (c) {
    case C_TOP:
      if (k == K_VD && type == 'a') return C_VD;
      if (k == K_DR && type == 'a') return C_DR;
      if (k == K_IPCSTAMP && type == 'm') return C_IPS;
      break;
    case C_VD:
      if (i == 1 && p->vdtype == V_NOTIFY && type == 'a') return C_NOTIFY;
      if (i == 2 && p->vdtype == V_MESSAGE && type == 'm') return C_MSG;
      break;
    case C_NOTIFY:
      if (type == 'a') return C_NENTRY;
      break;
    case C_MSG:
      if (k == K_METHARGS && type == 'm') return C_METHARGS;
      break;
    case C_DR:
      if (i == 2 && type == 'm') return C_METER;
      break;
    case C_METER:
      if (k == K_TIMESTAMPS && type == 'a') return C_WALLS;
      if (k == K_IPCSTAMP && type == 'm') return C_IPS;
      break;
    case C_IPS:
      if (k == K_WMONO && type == 'a') return C_WMONO;
      if (k == K_WRUNQ && type == 'a') return C_WRUNQ;
      if (k == K_MARKS && type == 'm') return C_MARKS;
      break;
    case C_MARKS:
      if (k == K_MNAMES && type == 'a') return C_MNAMES;
      if (k == K_MEVENTS && type == 'a') return C_MEVENTS;
      break;
    case C_MEVENTS:
      if (type == 'a') return C_MEV;
      break;
  }
  return C_NONE;
}

static int fail(ips__parser_t *p, const char *msg);

/* The mark arrays, allocated once, on the first metering with marks. */
static int marks_ready(ips__parser_t *p) {
  ips__rec_t *r = &p->rec;
  if (r->marks)
    return 1;
  r->marks = malloc(IPS_MAX_MARKS * sizeof *r->marks);
  r->mname_off = malloc(IPS_MAX_MARKS * sizeof *r->mname_off);
  r->mnames = malloc(IPS__MNAMES_BYTES);
  if (r->marks && r->mname_off && r->mnames)
    return 1;
  free(r->marks);
  free(r->mname_off);
  free(r->mnames);
  r->marks = NULL;
  r->mname_off = NULL;
  r->mnames = NULL;
  return fail(p, "out of memory for ipcstamp.marks");
}

static int push(ips__parser_t *p, char type) {
  int c = child_ctx(p, type);
  p->depth++;
  if (p->depth < MAXD) {
    p->stk[p->depth] = type;
    p->ctx[p->depth] = c;
    p->key[p->depth] = K_NONE;
    p->idx[p->depth] = 0;
  }
  if (c == C_METER)
    p->rec.have |= IPS__F_METER;
  if (c == C_MARKS) {
    if (p->rec.have & IPS__F_MARKS)
      return fail(p, "ipcstamp.marks appears twice");
    p->rec.have |= IPS__F_MARKS;
    return marks_ready(p);
  }
  if (c == C_MEV) {
    if (p->rec.n_marks == IPS_MAX_MARKS)
      return fail(p, "ipcstamp.marks has more than 65536 events");
    p->rec.mev_have = 0;
  }
  return 1;
}

static int pop(ips__parser_t *p) {
  int c = cur_ctx(p);
  if (c == C_MEV) {
    if (p->rec.mev_have != 15)
      return fail(p, "an ipcstamp.marks event is not [kind, name, wall, mono]");
    p->rec.n_marks++;
  }
  p->depth--;
  elem_done(p);
  return 1;
}

/* A record whose type is not a string is bad input, not a record of some
 * other type to step over quietly.  Called by every non-string value. */
static int type_not_string(ips__parser_t *p) {
  if (p->mute || p->depth != 1 || cur_key(p) != K_TYPE)
    return 0;
  snprintf(p->err, sizeof p->err, "type is not a string");
  p->pending = P_ERR;
  return 1;
}

static int cb_start_map(void *ctx) {
  ips__parser_t *p = ctx;
  if (type_not_string(p))
    return 0;
  return p->mute ? 1 : push(p, 'm');
}
static int cb_start_array(void *ctx) {
  ips__parser_t *p = ctx;
  if (type_not_string(p))
    return 0;
  return p->mute ? 1 : push(p, 'a');
}
static int cb_end(void *ctx) {
  ips__parser_t *p = ctx;
  if (!p->mute)
    return pop(p);
  return 1;
}

/* A macro, so that the length is a constant and memcmp is inlined: keys
 * are compared for every token of every line. */
#define is(s, n, lit) \
  ((n) == sizeof(lit) - 1 && !memcmp((s), (lit), sizeof(lit) - 1))

/* What the analysis reads of each record type, by the names of the one
 * schema (ipcstamp-slog.h); a type the schema does not list is another
 * SwingSet record.  (slog_fast.c matches the same names; the equivalence
 * tests hold the two readers together.) */
static int rec_of(int id) {
  switch (id) {
    case IPS_SLOG_DELIVER: return IPS__REC_DELIVER;
    case IPS_SLOG_SYSCALL: return IPS__REC_SYSCALL;
    case IPS_SLOG_SYSCALL_RESULT: return IPS__REC_SYSCALL_RESULT;
    case IPS_SLOG_DELIVER_RESULT: return IPS__REC_RESULT;
    case IPS_SLOG_CONSOLE: return IPS__REC_CONSOLE;
    /* where a vat's worker process is named (its pid: ipcstamp's field) */
    case IPS_SLOG_CREATE_VAT:
    case IPS_SLOG_WORKER_START: return IPS__REC_WORKER;
    /* where the format version is (format 2, format 1) */
    case IPS_SLOG_KERNEL_INIT_START:
    case IPS_SLOG_SLOG_START: return IPS__REC_START;
    default: return IPS__REC_OTHER;
  }
}

static int rec_type(const char *s, size_t n) {
  static const char *const names[IPS_SLOG_NTYPES] = {
#define X(id, type, status) type,
      IPS_SLOG_RECORDS(X)
#undef X
  };
  int i;
  for (i = 0; i < IPS_SLOG_NTYPES; i++)
    if (strlen(names[i]) == n && !memcmp(names[i], s, n))
      return rec_of(i);
  return IPS__REC_OTHER;
}

static int cb_key(void *ctx, const unsigned char *s, size_t n) {
  ips__parser_t *p = ctx;
  int k = K_NONE, skip = 0;
  if (p->mute)
    return 1;
  switch (cur_ctx(p)) {
    case C_TOP:
      if (is(s, n, "type")) k = K_TYPE;
      else if (is(s, n, "crankNum")) k = K_CRANK;
      else if (is(s, n, "vatID")) k = K_VAT;
      else if (is(s, n, "deliveryNum")) k = K_DNUM;
      else if (is(s, n, "syscallNum")) k = K_SNUM;
      else if (is(s, n, "time")) k = K_TIME;
      else if (is(s, n, "monotime")) k = K_MONO;
      else if (is(s, n, "vd")) k = K_VD;
      else if (is(s, n, "dr")) k = K_DR;
      else if (is(s, n, "ipcstamp")) k = K_IPCSTAMP;
      else if (is(s, n, "replay")) k = K_REPLAY;
      else if (is(s, n, "pid")) k = K_PID;
      else if (is(s, n, "runDelayNs")) k = K_PRUNQ;
      else if (is(s, n, "vatSourceBundle"))
        skip = 1; /* SwingSet's create-vat: the vat's whole code */
      else if (is(s, n, "vsc") || is(s, n, "vsr"))
        skip = 3; /* last before time, monotime (docs/slogfile.md) */
      else if (is(s, n, "kd") || is(s, n, "ksc") || is(s, n, "ksr"))
        skip = 1; /* SwingSet's: vd, vsc or vsr follow */
      /* A field given twice is ambiguous (JSON leaves it open), and the
       * fast path, which stops early, could read a different copy. */
      if (k != K_NONE && (p->top_seen & (1u << k))) {
        snprintf(p->err, sizeof p->err, "the field \"%.*s\" appears twice",
                 (int)n, (const char *)s);
        p->pending = P_ERR;
        return 0;
      }
      p->top_seen |= 1u << k;
      break;
    case C_MSG:
      if (is(s, n, "methargs")) k = K_METHARGS;
      else if (is(s, n, "method")) k = K_METHOD;
      else if (is(s, n, "args")) skip = 1;
      break;
    case C_METHARGS:
      if (is(s, n, "body")) {
        k = K_BODY;
        skip = 2;
      } else if (is(s, n, "slots")) {
        skip = 1;
      }
      break;
    case C_METER:
      if (is(s, n, "timestamps")) k = K_TIMESTAMPS;
      else if (is(s, n, "ipcstamp")) k = K_IPCSTAMP;
      else if (is(s, n, "meterType")) p->rec.have |= IPS__F_XSMETER;
      break;
    case C_IPS:
      if (is(s, n, "v")) k = K_V;
      else if (is(s, n, "kinds")) k = K_KINDS;
      else if (is(s, n, "mono")) k = K_WMONO;
      else if (is(s, n, "dropped")) k = K_DROPPED;
      else if (is(s, n, "cpu_ns")) k = K_CPU;
      else if (is(s, n, "run_delay_ns")) k = K_WRUNQ;
      else if (is(s, n, "marks")) k = K_MARKS;
      break;
    case C_MARKS:
      if (is(s, n, "names")) k = K_MNAMES;
      else if (is(s, n, "events")) k = K_MEVENTS;
      else if (is(s, n, "dropped")) k = K_DROPPED;
      else if (is(s, n, "unbalanced")) k = K_MUNBAL;
      break;
  }
  if (p->depth < MAXD)
    p->key[p->depth] = k;
  if (skip && !p->noskip) {
    p->pending = P_SKIP_KEYVAL;
    p->extract = skip == 2;
    p->to_tail = skip >= 2;
    return 0;
  }
  return 1;
}

/* The method of a message: the first string of the methargs body,
 * `#["name",[args]]` (smallcaps) or `["name",...]`, read from the raw JSON
 * string (quotes escaped) or from its value. */
void ips__desc_method(char *d, const char *s, size_t n) {
  size_t i = 0, o = 0;
  if (i < n && s[i] == '"') i++;
  if (i < n && s[i] == '#') i++;
  if (i >= n || s[i++] != '[') return;
  if (i < n && s[i] == '\\') i++;
  if (i >= n || s[i++] != '"') return;
  if (i < n && s[i] == '!') i++; /* smallcaps escapes a leading special */
  while (i < n && s[i] != '"' && s[i] != '\\' && o + 1 < IPS__DESC_MAX) {
    unsigned char c = (unsigned char)s[i++];
    d[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
  }
  if (o > 0)
    d[o] = '\0';
}

void ips__desc_set(char *d, const char *text, size_t n) {
  const unsigned char *s = (const unsigned char *)text;
  size_t i;
  if (n >= IPS__DESC_MAX) n = IPS__DESC_MAX - 1;
  for (i = 0; i < n; i++)
    d[i] = (s[i] < 0x20 || s[i] == 0x7f) ? '?' : (char)s[i];
  d[n] = '\0';
}

void ips__desc_vpid(char *desc, int *nvp, const char *s, size_t n) {
  size_t l = strlen(desc);
  if ((*nvp)++ >= 4) {
    if (*nvp == 6 && l + 4 < IPS__DESC_MAX) memcpy(desc + l, " ...", 5);
    return;
  }
  if (l + n + 2 >= IPS__DESC_MAX)
    return;
  desc[l] = ' ';
  memcpy(desc + l + 1, s, n);
  desc[l + 1 + n] = '\0';
  for (size_t i = l + 1; i < l + 1 + n; i++)
    if ((unsigned char)desc[i] < 0x20) desc[i] = '?';
}

static int fail(ips__parser_t *p, const char *msg) {
  snprintf(p->err, sizeof p->err, "%s", msg);
  p->pending = P_ERR;
  return 0;
}

static int cb_string(void *ctx, const unsigned char *s, size_t n) {
  ips__parser_t *p = ctx;
  int c, k, i;
  if (p->mute)
    return 1;
  c = cur_ctx(p), k = cur_key(p), i = cur_idx(p);
  switch (c) {
    case C_TOP:
      if (k == K_TYPE) {
        ips__rec_t *r = &p->rec;
        r->type = rec_type((const char *)s, n);
        if (r->type == IPS__REC_OTHER && !p->noskip) {
          p->pending = P_STOP; /* other SwingSet records: not read */
          return 0;
        }
      } else if (k == K_VAT) {
        if (n >= IPS__VAT_MAX)
          return fail(p, "vatID is longer than 63 bytes");
        memcpy(p->rec.vatbuf, s, n);
        p->rec.vatbuf[n] = '\0';
        p->rec.vat_len = (unsigned)n;
        for (size_t j = 0; j < n; j++)
          if ((unsigned char)p->rec.vatbuf[j] < 0x20) p->rec.vatbuf[j] = '?';
        p->rec.have |= IPS__F_VAT;
      }
      break;
    case C_VD:
      if (i == 1 && p->vdtype == V_MESSAGE) {
        /* ["message", "method", args] (simple kernels): the best name
         * there is until a methargs or method field says otherwise. */
        ips__desc_set(p->rec.descbuf, (const char *)s, n);
      } else if (i == 0) {
        ips__desc_set(p->rec.descbuf, (const char *)s, n);
        p->vdtype = is(s, n, "message") ? V_MESSAGE
                    : is(s, n, "notify") ? V_NOTIFY : V_OTHER;
        if (p->vdtype == V_NOTIFY)
          p->rec.have |= IPS__F_NOTIFY;
        if (p->vdtype == V_OTHER && !p->noskip) {
          elem_done(p);
          p->pending = P_SKIP_REST;
          p->to_tail = 1;
          return 0;
        }
      }
      break;
    case C_NENTRY:
      if (i == 0) {
        ips__desc_vpid(p->rec.descbuf, &p->nvp, (const char *)s, n);
        if (!p->noskip) {
          elem_done(p);
          p->pending = P_SKIP_REST;
          return 0;
        }
      }
      break;
    case C_MSG:
      if (k == K_METHOD) ips__desc_set(p->rec.descbuf, (const char *)s, n);
      break;
    case C_METHARGS:
      if (k == K_BODY) ips__desc_method(p->rec.descbuf, (const char *)s, n);
      break;
    case C_DR:
      if (i == 0) {
        p->rec.ok = is(s, n, "ok");
        p->rec.have |= IPS__F_DR;
        if (!p->noskip) {
          elem_done(p);
          p->pending = P_SKIP_ELEM; /* the result or the error message */
          p->dr_msg = !p->rec.ok;
          return 0;
        }
      } else if (i == 1 && !p->rec.ok &&
                 ips__meter_killed((const char *)s, n)) {
        p->rec.have |= IPS__F_METERKILL;
      }
      break;
    case C_MNAMES: {
      ips__rec_t *r = &p->rec;
      if (n == 0 || n > 255)
        return fail(p, "an ipcstamp.marks name is empty or over 255 bytes");
      if (r->n_mnames == IPS_MAX_MARKS ||
          r->mnames_len + n + 1 > IPS__MNAMES_BYTES)
        return fail(p, "ipcstamp.marks has too many names");
      r->mname_off[r->n_mnames++] = (uint32_t)r->mnames_len;
      memcpy(r->mnames + r->mnames_len, s, n);
      r->mnames_len += n;
      r->mnames[r->mnames_len++] = '\0';
      break;
    }
    case C_MEV:
      if (i != 0 || n != 1 || (s[0] != 'm' && s[0] != 'b' && s[0] != 'e'))
        return fail(p, "an ipcstamp.marks event's kind is not \"m\", \"b\" or \"e\"");
      p->rec.marks[p->rec.n_marks].kind = (char)s[0];
      p->rec.mev_have |= 1;
      break;
    case C_IPS:
      if (k == K_KINDS) {
        if (n >= IPS__MAX_STAMPS)
          return fail(p, "ipcstamp.kinds has too many stamps");
        memcpy(p->rec.kinds, s, n);
        p->rec.kinds[n] = '\0';
        p->rec.n_kinds = n;
        p->rec.have |= IPS__F_KINDS;
      }
      break;
  }
  elem_done(p);
  return 1;
}

static int to_ll(const unsigned char *s, size_t n, long long *out) {
  long long v = 0;
  size_t i = 0;
  if (n == 0 || n > 18)
    return -1;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return 0;
}

static int cb_number(void *ctx, const char *s, size_t n) {
  ips__parser_t *p = ctx;
  ips__rec_t *r = &p->rec;
  const unsigned char *u = (const unsigned char *)s;
  int64_t ns;
  long long ll;
  if (type_not_string(p))
    return 0;
  if (p->mute)
    return 1;
  switch (cur_ctx(p)) {
    case C_TOP:
      switch (cur_key(p)) {
        case K_CRANK:
          if (to_ll(u, n, &r->crank)) return fail(p, "crankNum is not a count");
          r->have |= IPS__F_CRANK;
          break;
        case K_DNUM:
          if (to_ll(u, n, &r->dnum)) return fail(p, "deliveryNum is not a count");
          r->have |= IPS__F_DNUM;
          break;
        case K_SNUM:
          if (to_ll(u, n, &r->snum)) return fail(p, "syscallNum is not a count");
          r->have |= IPS__F_SNUM;
          break;
        case K_TIME:
          if (ips__dec_to_ns(s, n, &r->time_ns)) return fail(p, "time is not a decimal number");
          r->have |= IPS__F_TIME;
          break;
        case K_MONO:
          if (ips__dec_to_ns(s, n, &r->mono_ns)) return fail(p, "monotime is not a decimal number");
          r->have |= IPS__F_MONO;
          break;
        case K_PID:
          if (to_ll(u, n, &r->pid) || r->pid == 0)
            return fail(p, "pid is not a process id (a count from 1)");
          r->have |= IPS__F_PID;
          break;
        case K_PRUNQ:
          if (to_ll(u, n, &ll)) return fail(p, "runDelayNs is not a count");
          r->prunq = ll;
          r->have |= IPS__F_PRUNQ;
          break;
      }
      break;
    case C_WALLS:
      if (r->n_walls == IPS__MAX_STAMPS)
        return fail(p, "metering has too many timestamps");
      if (ips__dec_to_ns(s, n, &ns))
        return fail(p, "a metering timestamp is not a decimal number");
      r->walls[r->n_walls++] = ns;
      r->have |= IPS__F_WALLS;
      break;
    case C_WMONO:
      if (r->n_wmono == IPS__MAX_STAMPS)
        return fail(p, "ipcstamp.mono has too many stamps");
      if (to_ll(u, n, &ll))
        return fail(p, "an ipcstamp.mono stamp is not integer nanoseconds");
      r->wmono[r->n_wmono++] = ll;
      r->have |= IPS__F_WMONO;
      break;
    case C_WRUNQ:
      if (r->n_wrunq == IPS__MAX_STAMPS)
        return fail(p, "ipcstamp.run_delay_ns has too many entries");
      if (to_ll(u, n, &ll))
        return fail(p, "an ipcstamp.run_delay_ns entry is not integer "
                       "nanoseconds");
      r->wrunq[r->n_wrunq++] = ll;
      r->have |= IPS__F_WRUNQ;
      break;
    case C_IPS:
      switch (cur_key(p)) {
        case K_V:
          if (to_ll(u, n, &ll)) return fail(p, "ipcstamp.v is not a number");
          r->ipsv = (long)ll;
          r->have |= IPS__F_IPSV;
          break;
        case K_DROPPED:
          if (to_ll(u, n, &r->dropped)) return fail(p, "ipcstamp.dropped is not a count");
          break;
        case K_CPU:
          if (to_ll(u, n, &ll)) return fail(p, "ipcstamp.cpu_ns is not a count");
          r->cpu_ns = ll;
          r->have |= IPS__F_CPU;
          break;
      }
      break;
    case C_MARKS:
      if (cur_key(p) == K_DROPPED || cur_key(p) == K_MUNBAL) {
        if (to_ll(u, n, &ll))
          return fail(p, "ipcstamp.marks.dropped or .unbalanced is not a count");
        if (cur_key(p) == K_DROPPED)
          r->mdropped = ll;
        else
          r->munbalanced = ll;
      }
      break;
    case C_MEV: {
      ips__mark_t *m = &r->marks[r->n_marks];
      int i = cur_idx(p);
      if (i == 1) {
        if (to_ll(u, n, &ll) || ll >= IPS_MAX_MARKS)
          return fail(p, "an ipcstamp.marks event's name is not an index");
        m->name = (uint32_t)ll;
      } else if (i == 2) {
        if (ips__dec_to_ns(s, n, &m->wall))
          return fail(p, "an ipcstamp.marks event's wall is not a decimal number");
      } else if (i == 3) {
        if (to_ll(u, n, &ll))
          return fail(p, "an ipcstamp.marks event's mono is not integer nanoseconds");
        m->mono = ll;
      } else {
        return fail(p, "an ipcstamp.marks event is not [kind, name, wall, mono]");
      }
      r->mev_have |= 1 << i;
      break;
    }
  }
  elem_done(p);
  return 1;
}

static int cb_scalar(void *ctx) {
  ips__parser_t *p = ctx;
  if (type_not_string(p))
    return 0;
  if (!p->mute)
    elem_done(p);
  return 1;
}
static int cb_null(void *ctx) {
  ips__parser_t *p = ctx;
  /* dr[2] null: SwingSet's local vats have no metering. */
  if (!p->mute && cur_ctx(p) == C_DR && cur_idx(p) == 2)
    p->rec.have |= IPS__F_DRNULL;
  return cb_scalar(ctx);
}
static int cb_bool(void *ctx, int b) {
  ips__parser_t *p = ctx;
  if (b && !p->mute && p->depth == 1 && cur_key(p) == K_REPLAY)
    p->rec.have |= IPS__F_REPLAY;
  return cb_scalar(ctx);
}

ips__parser_t *ips__parser_new(int mode) {
  ips__parser_t *p = calloc(1, sizeof *p);
  int strict = (mode & IPS__PARSE_STRICT) != 0;
  if (!p)
    return NULL;
  p->strict = strict;
  p->noskip = strict;
  p->fast = !strict && !(mode & IPS__PARSE_NOFAST);
  p->rec.walls = malloc(IPS__MAX_STAMPS * sizeof(int64_t));
  p->rec.wmono = malloc(IPS__MAX_STAMPS * sizeof(int64_t));
  p->rec.wrunq = malloc(IPS__MAX_STAMPS * sizeof(int64_t));
  p->rec.kinds = malloc(IPS__MAX_STAMPS + 1);
  if (!p->rec.walls || !p->rec.wmono || !p->rec.wrunq || !p->rec.kinds) {
    ips__parser_free(p);
    return NULL;
  }
  p->af.malloc = a_malloc;
  p->af.realloc = a_realloc;
  p->af.free = a_free;
  p->af.ctx = p;
  p->cb.yajl_null = cb_null;
  p->cb.yajl_boolean = cb_bool;
  p->cb.yajl_number = cb_number;
  p->cb.yajl_string = cb_string;
  p->cb.yajl_start_map = cb_start_map;
  p->cb.yajl_map_key = cb_key;
  p->cb.yajl_end_map = cb_end;
  p->cb.yajl_start_array = cb_start_array;
  p->cb.yajl_end_array = cb_end;
  return p;
}

void ips__parser_free(ips__parser_t *p) {
  if (!p)
    return;
  free(p->rec.walls);
  free(p->rec.wmono);
  free(p->rec.wrunq);
  free(p->rec.kinds);
  free(p->rec.marks);
  free(p->rec.mname_off);
  free(p->rec.mnames);
  free(p);
}

static size_t skip_ws(const char *s, size_t len, size_t pos) {
  while (pos < len &&
         (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r' || s[pos] == '\n'))
    pos++;
  return pos;
}

/* ---- the fast path ------------------------------------------------- *
 * The payloads run up to the record's tail, `,"time":T,"monotime":M}`
 * (docs/slogfile.md puts them last), so instead of scanning a payload we find
 * the tail from the end of the line and let yajl parse the tail.  What is
 * between is checked only at its ends; --strict reads every byte. */

static void find_anchor(ips__parser_t *p) {
  static const char pat[] = ",\"time\":";
  size_t i, lo = p->len > 512 ? p->len - 512 : 0;
  p->anchor = 0;
  if (p->noskip || p->len < 8)
    return;
  for (i = p->len - 8 + 1; i-- > lo;)
    if (p->line[i] == ',' && !memcmp(p->line + i, pat, 8)) {
      p->anchor = (long)i;
      return;
    }
}

static size_t back_ws(const char *s, size_t i) {
  while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '\r'))
    i--;
  return i;
}

/* The value starting at from can end right before the anchor: it starts like
 * a value, and the byte before the anchor closes it (or closes `closer`). */
static int tail_ok(const ips__parser_t *p, size_t from, char closer) {
  const char *s = p->line;
  size_t end;
  char first, last;
  if (p->anchor <= 0 || (size_t)p->anchor <= from)
    return 0;
  end = back_ws(s, (size_t)p->anchor);
  if (end <= from)
    return 0;
  first = s[from];
  last = s[end - 1];
  if (closer)
    return last == closer;
  switch (first) {
    case '[': return last == ']';
    case '{': return last == '}';
    case '"': return last == '"' && end - from >= 2;
    default:
      return (first == '-' || (first >= '0' && first <= '9') || first == 't' ||
              first == 'f' || first == 'n') &&
             ((last >= '0' && last <= '9') || last == 'e' || last == 'l');
  }
}

/* yajl allocates a handle, a lexer and buffers per resume: a bump arena
 * reset at each line takes malloc off the hot path. */
static void *a_malloc(void *ctx, size_t n) {
  ips__parser_t *p = ctx;
  size_t need = (n + 16 + 15) & ~(size_t)15;
  char *b;
  if (p->used + need <= sizeof p->arena) {
    b = p->arena + p->used;
    p->used += need;
  } else if (!(b = malloc(n + 16))) {
    return NULL;
  }
  memcpy(b, &n, sizeof n);
  return b + 16;
}

static int in_arena(ips__parser_t *p, void *ptr) {
  return (char *)ptr >= p->arena && (char *)ptr < p->arena + sizeof p->arena;
}

static void a_free(void *ctx, void *ptr) {
  if (ptr && !in_arena(ctx, ptr))
    free((char *)ptr - 16);
}

static void *a_realloc(void *ctx, void *ptr, size_t n) {
  size_t old;
  void *np;
  if (!ptr)
    return a_malloc(ctx, n);
  memcpy(&old, (char *)ptr - 16, sizeof old);
  if (n <= old)
    return ptr;
  np = a_malloc(ctx, n);
  if (!np)
    return NULL;
  memcpy(np, ptr, old);
  a_free(ctx, ptr);
  return np;
}

static yajl_handle new_handle(ips__parser_t *p) {
  yajl_handle h = yajl_alloc(&p->cb, &p->af, p);
  if (h && !p->strict)
    yajl_config(h, yajl_dont_validate_strings, 1);
  return h;
}

static void reset(ips__parser_t *p) {
  ips__rec_t *r = &p->rec;
  r->type = IPS__REC_OTHER;
  r->have = 0;
  r->ok = 0;
  r->descbuf[0] = r->vatbuf[0] = '\0';
  r->vat_len = 0;
  r->vat = r->vatbuf;
  r->desc = r->descbuf;
  r->pid = 0;
  r->n_walls = r->n_wmono = r->n_kinds = r->n_wrunq = 0;
  r->prunq = 0;
  r->kinds[0] = '\0';
  r->dropped = 0;
  r->cpu_ns = 0;
  r->ipsv = 0;
  r->n_marks = r->n_mnames = r->mnames_len = 0;
  r->mdropped = r->munbalanced = 0;
  p->depth = 0;
  p->top_seen = 0;
  p->mute = 0;
  p->pending = P_NONE;
  p->vdtype = V_OTHER;
  p->nvp = 0;
  p->to_tail = 0;
  p->extract = 0;
  p->dr_msg = 0;
}

static int parse_line(ips__parser_t *p, const char *line, size_t len,
                      const ips__rec_t **rec, char *err, size_t errlen);

/* Our parent's own records are matched first (slog_fast.c); anything else
 * goes to yajl.  A line the skipping path refuses is parsed again without skipping before it
 * is reported: a tail anchor found inside a payload (a record whose time
 * is not last, as some writers do) must not make a valid line "not JSON".
 * Refusals are rare, so this costs nothing on a good file. */
int ips__slog_parse(ips__parser_t *p, const char *line, size_t len,
                    const ips__rec_t **rec, char *err, size_t errlen) {
  int rc;
  if (p->fast) {
    reset(p);
    *rec = &p->rec;
    if (ips__slog_fast(&p->rec, line, len))
      return 0;
  }
  rc = parse_line(p, line, len, rec, err, errlen);
  if (rc < 0 && !p->strict) {
    p->noskip = 1;
    rc = parse_line(p, line, len, rec, err, errlen);
    p->noskip = 0;
  }
  return rc;
}

static int parse_line(ips__parser_t *p, const char *line, size_t len,
                      const ips__rec_t **rec, char *err, size_t errlen) {
  size_t pos = 0;
  yajl_handle h;
  yajl_status st;
  reset(p);
  *rec = &p->rec;
  p->line = line;
  p->len = len;
  p->used = 0;
  find_anchor(p);
  pos = skip_ws(line, len, 0);
  if (pos == len) {
    snprintf(err, errlen, "empty line");
    return -1;
  }
  if (line[pos] != '{') {
    snprintf(err, errlen, "starts with '%c', not '{'",
             (unsigned char)line[pos] >= 0x20 ? line[pos] : '?');
    return -1;
  }
  h = new_handle(p);
  if (!h) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (;;) {
    st = yajl_parse(h, (const unsigned char *)line + pos, len - pos);
    if (st == yajl_status_ok) {
      st = yajl_complete_parse(h);
      if (st == yajl_status_ok) {
        yajl_free(h);
        if (!(p->top_seen & (1u << K_TYPE))) {
          snprintf(err, errlen, "the record has no type");
          return -2;
        }
        return 0;
      }
      if (st == yajl_status_error) {
        snprintf(err, errlen, "the line ends inside a JSON value (byte %zu)",
                 len);
        yajl_free(h);
        return -1;
      }
    }
    if (st == yajl_status_client_canceled) {
      size_t at = pos + yajl_get_bytes_consumed(h);
      int what = p->pending;
      long e;
      yajl_free(h);
      h = NULL;
      p->pending = P_NONE;
      if (what == P_STOP)
        return 0;
      if (what == P_ERR) {
        snprintf(err, errlen, "%s", p->err);
        return -2;
      }
      pos = skip_ws(line, len, at);
      if (what != P_SKIP_REST) {
        char sep = what == P_SKIP_KEYVAL ? ':' : ',';
        size_t from;
        if (pos >= len || line[pos] != sep) {
          if (what == P_SKIP_ELEM && pos < len && line[pos] == ']')
            goto resume; /* nothing to skip: the array ended */
          snprintf(err, errlen, "expected '%c' at byte %zu", sep,
                   pos + 1);
          return -1;
        }
        from = skip_ws(line, len, pos + 1);
        e = -1;
        if (p->to_tail && tail_ok(p, from, p->extract ? ']' : 0)) {
          if (p->extract) {
            ips__desc_method(p->rec.descbuf, line + from,
                             (size_t)p->anchor - from);
            p->depth = 1; /* the rest of vd closes before the anchor */
          }
          e = p->anchor;
        }
        if (e < 0) {
          e = ips__json_skip(line, len, from, 0);
          if (e < 0) {
            snprintf(err, errlen,
                     "the value at byte %zu is cut or unbalanced",
                     from + 1);
            return -1;
          }
          if (p->extract)
            ips__desc_method(p->rec.descbuf, line + from, (size_t)e - from);
        }
        p->extract = 0;
        p->to_tail = 0;
        /* An error's message may say which meter killed the worker: read
         * as the fast path reads it (a string without escapes). */
        if (p->dr_msg && line[from] == '"' && (size_t)e - from >= 2 &&
            !memchr(line + from + 1, '\\', (size_t)e - from - 2) &&
            ips__meter_killed(line + from + 1, (size_t)e - from - 2))
          p->rec.have |= IPS__F_METERKILL;
        p->dr_msg = 0;
        if (what == P_SKIP_ELEM)
          elem_done(p);
      } else {
        if (p->to_tail && tail_ok(p, pos, ']')) {
          e = p->anchor;
          p->depth = 1;
        } else {
          e = ips__json_skip(line, len, pos, 1);
          if (e < 0) {
            snprintf(err, errlen,
                     "the value at byte %zu is cut or unbalanced",
                     pos + 1);
            return -1;
          }
          pop(p);
        }
        p->to_tail = 0;
      }
      pos = skip_ws(line, len, (size_t)e);
    resume:
      if (pos < len && line[pos] == ',') {
        size_t nx = skip_ws(line, len, pos + 1);
        if (nx >= len || line[nx] == '}' || line[nx] == ']') {
          snprintf(err, errlen, "stray ',' at byte %zu", pos + 1);
          return -1;
        }
        pos++;
      }
      {
        /* Reopen the enclosing containers, muted: the parser's own stack
         * already knows where it is. */
        char prefix[MAXD * 4];
        size_t pl = 0;
        int d;
        if (p->depth <= 0 || p->depth >= MAXD) {
          snprintf(err, errlen, "trailing bytes at byte %zu", pos + 1);
          return -1;
        }
        for (d = 1; d <= p->depth; d++) {
          prefix[pl++] = p->stk[d] == 'm' ? '{' : '[';
          if (d < p->depth && p->stk[d] == 'm') {
            memcpy(prefix + pl, "\"\":", 3);
            pl += 3;
          }
        }
        h = new_handle(p);
        if (!h) {
          snprintf(err, errlen, "out of memory");
          return -1;
        }
        p->mute = 1;
        yajl_parse(h, (const unsigned char *)prefix, pl);
        p->mute = 0;
      }
      continue;
    }
    {
      unsigned char *m = yajl_get_error(h, 0, (const unsigned char *)line + pos,
                                        len - pos);
      size_t at = pos + yajl_get_bytes_consumed(h);
      char *nl;
      if (m && (nl = strchr((char *)m, '\n')))
        *nl = '\0';
      snprintf(err, errlen, "%s near byte %zu",
               m ? (const char *)m : "parse error", at + 1);
      if (m)
        yajl_free_error(h, m);
      yajl_free(h);
      return -1;
    }
  }
}
