/* slog_fields.c — the general reader's tokens (slog_parse.h): yajl's
 * callbacks, which track where each token sits (context, key, index) and
 * keep what the analysis reads of a record in p->rec.  A payload the
 * analysis does not read is handed back to slog_parse.c to skip, and so is
 * a deliver-result's metering, to decode (slog_meter.c). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "blocks.h"
#include "ipcstamp-slog.h"
#include "slog.h"
#include "slog_parse.h"

/* Short at its many call sites below. */
#define fail ips__parse_fail

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
  }
  return C_NONE;
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
  return 1;
}

int ips__parse_pop(ips__parser_t *p) {
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
  if (p->mute)
    return 1;
  /* dr[2]: the metering, whose bytes go to the decoder (slog_parse.c) */
  if (cur_ctx(p) == C_DR && cur_idx(p) == 2) {
    p->pending = P_METER;
    return 0;
  }
  return push(p, 'm');
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
  int k = K_NONE, skip = 0, c;
  if (p->mute)
    return 1;
  switch (c = cur_ctx(p)) {
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
    case C_IPS: /* a slog-start's: its format version */
      if (is(s, n, "v")) k = K_V;
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

/* A string at key k of the record itself: its type, its vatID. */
static int top_string(ips__parser_t *p, int k, const unsigned char *s,
                      size_t n) {
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
  return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t n) {
  ips__parser_t *p = ctx;
  int c, k, i;
  if (p->mute)
    return 1;
  c = cur_ctx(p), k = cur_key(p), i = cur_idx(p);
  switch (c) {
    case C_TOP:
      if (!top_string(p, k, s, n))
        return 0;
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
  }
  ips__parse_elem_done(p);
  return 1;
}

static int cb_number(void *ctx, const char *s, size_t n) {
  ips__parser_t *p = ctx;
  ips__rec_t *r = &p->rec;
  const unsigned char *u = (const unsigned char *)s;
  long long ll;
  int c;
  if (type_not_string(p))
    return 0;
  if (p->mute)
    return 1;
  switch (c = cur_ctx(p)) {
    case C_TOP:
      switch (cur_key(p)) {
        case K_CRANK:
          if (ips__to_ll(u, n, &r->crank)) return fail(p, "crankNum is not a count");
          r->have |= IPS__F_CRANK;
          break;
        case K_DNUM:
          if (ips__to_ll(u, n, &r->dnum)) return fail(p, "deliveryNum is not a count");
          r->have |= IPS__F_DNUM;
          break;
        case K_SNUM:
          if (ips__to_ll(u, n, &r->snum)) return fail(p, "syscallNum is not a count");
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
          if (ips__to_ll(u, n, &r->pid) || r->pid == 0)
            return fail(p, "pid is not a process id (a count from 1)");
          r->have |= IPS__F_PID;
          break;
        case K_PRUNQ:
          if (ips__to_ll(u, n, &ll)) return fail(p, "runDelayNs is not a count");
          r->prunq = ll;
          r->have |= IPS__F_PRUNQ;
          break;
        case K_HEIGHT: /* a block record's; another's is not read */
        case K_BTIME: {
          int h = cur_key(p) == K_HEIGHT;
          if (r->type != IPS__REC_BLOCK)
            break;
          if (ips__to_ll(u, n, h ? &r->height : &r->btime))
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
    case C_IPS:
      if (cur_key(p) == K_V) {
        if (ips__to_ll(u, n, &ll)) return fail(p, "ipcstamp.v is not a number");
        r->ipsv = (long)ll;
        r->have |= IPS__F_IPSV;
      }
      break;
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
