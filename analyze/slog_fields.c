/* slog_fields.c — the general reader's tokens (slog_parse.h): yajl's
 * callbacks, which track where each token sits (context, key, index) and
 * keep what the analysis reads of a record in p->rec.  A payload the
 * analysis does not read is handed back to slog_parse.c to skip. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "blocks.h"
#include "ipcstamp-slog.h"
#include "ipcstamp-metering.h"
#include "slog.h"
#include "slog_parse.h"

void ips__parse_elem_done(ips__parser_t *p) {
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

int ips__parse_pop(ips__parser_t *p) {
  int c = cur_ctx(p);
  if (c == C_MEV) {
    if (p->rec.mev_have != 15)
      return fail(p, "an ipcstamp.marks event is not [kind, name, wall, mono]");
    p->rec.n_marks++;
  }
  p->depth--;
  ips__parse_elem_done(p);
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
    return ips__parse_pop(p);
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

static int rec_type(ips__rec_t *r, const char *s, size_t n) {
  static const char *const names[IPS_SLOG_NTYPES] = {
#define X(id, type, status) type,
      IPS_SLOG_RECORDS(X)
#undef X
  };
  int i;
  for (i = 0; i < IPS_SLOG_NTYPES; i++)
    if (strlen(names[i]) == n && !memcmp(names[i], s, n))
      return rec_of(i);
  /* A chain node's block records and SwingSet's heap snapshots. */
  if ((r->sub = ips__block_type(s, n)) != IPS__BLK_NONE)
    return IPS__REC_BLOCK;
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
      else if (is(s, n, "blockHeight")) k = K_HEIGHT;
      else if (is(s, n, "blockTime")) k = K_BTIME;
      else if (is(s, n, "compressSeconds")) k = K_COMPRESS;
      else if (is(s, n, "dbSaveSeconds")) k = K_DBSAVE;
      else if (is(s, n, "vatSourceBundle"))
        skip = 1; /* SwingSet's create-vat: the vat's whole code */
      else if (is(s, n, "vsc") || is(s, n, "vsr"))
        skip = 3; /* last before time, monotime (docs/slogfile.md) */
      else if (is(s, n, "kd") || is(s, n, "ksc") || is(s, n, "ksr"))
        skip = 1; /* SwingSet's: vd, vsc or vsr follow */
      /* A field given twice is ambiguous (JSON leaves it open), and the
       * fast path, which stops early, could read a different copy. */
      if (k != K_NONE && (p->top_seen & (1ull << k))) {
        snprintf(p->err, sizeof p->err, "the field \"%.*s\" appears twice",
                 (int)n, (const char *)s);
        p->pending = P_ERR;
        return 0;
      }
      p->top_seen |= 1ull << k;
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
      if (is(s, n, IPS_MK_TIMESTAMPS)) k = K_TIMESTAMPS;
      else if (is(s, n, IPS_MK_IPCSTAMP)) k = K_IPCSTAMP;
      else if (is(s, n, "meterType")) p->rec.have |= IPS__F_XSMETER;
      else if (is(s, n, "compute")) k = K_COMPUTE;
      break;
    case C_IPS:
      if (is(s, n, IPS_MK_V)) k = K_V;
      else if (is(s, n, IPS_MK_KINDS)) k = K_KINDS;
      else if (is(s, n, IPS_MK_MONO)) k = K_WMONO;
      else if (is(s, n, IPS_MK_DROPPED)) k = K_DROPPED;
      else if (is(s, n, IPS_MK_CPU_NS)) k = K_CPU;
      else if (is(s, n, IPS_MK_RUN_DELAY_NS)) k = K_WRUNQ;
      else if (is(s, n, IPS_MK_MARKS)) k = K_MARKS;
      break;
    case C_MARKS:
      if (is(s, n, IPS_MK_NAMES)) k = K_MNAMES;
      else if (is(s, n, IPS_MK_EVENTS)) k = K_MEVENTS;
      else if (is(s, n, IPS_MK_DROPPED)) k = K_DROPPED;
      else if (is(s, n, IPS_MK_UNBALANCED)) k = K_MUNBAL;
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
        r->type = rec_type(r, (const char *)s, n);
        if (r->type == IPS__REC_OTHER && !p->noskip) {
          p->pending = P_STOP; /* other SwingSet records: not read */
          return 0;
        }
      } else if ((k == K_HEIGHT || k == K_BTIME) &&
                 p->rec.type == IPS__REC_BLOCK) {
        return fail(p, k == K_HEIGHT ? "blockHeight is not a count"
                                     : "blockTime is not integer seconds");
      } else if (k == K_VAT) {
        if (n >= IPS__VAT_MAX)
          return fail(p, "vatID is longer than 63 bytes");
        p->rec.vat_len = (unsigned)ips__text_clean(p->rec.vatbuf, s, n);
        p->rec.vatbuf[p->rec.vat_len] = '\0';
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
          ips__parse_elem_done(p);
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
          ips__parse_elem_done(p);
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
          ips__parse_elem_done(p);
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
  ips__parse_elem_done(p);
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
        case K_HEIGHT: /* a block record's; another's is not read */
        case K_BTIME: {
          int h = cur_key(p) == K_HEIGHT;
          if (r->type != IPS__REC_BLOCK)
            break;
          if (to_ll(u, n, h ? &r->height : &r->btime))
            return fail(p, h ? "blockHeight is not a count"
                             : "blockTime is not integer seconds");
          r->have |= h ? IPS__F_HEIGHT : IPS__F_BTIME;
          break;
        }
        /* Figures SwingSet measured, shown as they are: one it wrote with
         * an exponent (a float below 1e-6 s) is left out, not an error. */
        case K_COMPRESS:
          if (!ips__dec_to_ns(s, n, &r->compress_ns))
            r->have |= IPS__F_COMPRESS;
          break;
        case K_DBSAVE:
          if (!ips__dec_to_ns(s, n, &r->dbsave_ns))
            r->have |= IPS__F_DBSAVE;
          break;
      }
      break;
    case C_METER:
      /* computrons: xsnap's compute count; another form is left out */
      if (cur_key(p) == K_COMPUTE && !to_ll(u, n, &r->compute))
        r->have |= IPS__F_COMPUTE;
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
  ips__parse_elem_done(p);
  return 1;
}

static int cb_scalar(void *ctx) {
  ips__parser_t *p = ctx;
  if (type_not_string(p))
    return 0;
  if (!p->mute)
    ips__parse_elem_done(p);
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

void ips__parse_callbacks(yajl_callbacks *cb) {
  cb->yajl_null = cb_null;
  cb->yajl_boolean = cb_bool;
  cb->yajl_number = cb_number;
  cb->yajl_string = cb_string;
  cb->yajl_start_map = cb_start_map;
  cb->yajl_map_key = cb_key;
  cb->yajl_end_map = cb_end;
  cb->yajl_start_array = cb_start_array;
  cb->yajl_end_array = cb_end;
}
