/* crank.c — crank-start's "message" from the start of a delivery.
 *
 * SwingSet frames every delivery with crank-start/crank-finish, and
 * Agoric's slog readers (the OpenTelemetry converter) build one span per
 * crank from crank-start's message, refusing a message.type that is not a
 * run-queue item type.  ipcstamp's kernels have no run queue: the message
 * is derived from the delivery itself, looking only at its first tokens. */
#include "config.h"

#include <string.h>
#include <yajl/yajl_parse.h>

#include "crank.h"
#include "ipcstamp-slog.h"
#include "json.h"

/* How much of vd is looked at: enough for ["type","name", in all shapes
 * ipcstamp's kernels and SwingSet use, and bounded whatever vd is. */
#define SCAN_BYTES 256
#define MAX_LEVELS 4

typedef struct {
  int depth;
  int idx[MAX_LEVELS]; /* index of the next element at each level */
  int is_array;        /* vd is an array */
  int top_string;      /* vd is a string (then s1 holds it) */
  char s0[24];         /* vd[0], when a short string */
  char s1[IPS_SLOG_METHOD_MAX + 1]; /* vd[1], or notify's first vpid */
  int has0, has1;
} scan_t;

static void keep(char *dst, size_t cap, int *has, const unsigned char *s,
                 size_t n) {
  if (n < cap && ips__utf8_valid(s, n) && !memchr(s, 0, n)) {
    memcpy(dst, s, n);
    dst[n] = 0;
    *has = 1;
  }
}

/* After a value at the current level: the next index; stop once vd[1]
 * is past (nothing after it matters). */
static int next(scan_t *c) {
  if (c->depth == 0)
    return 0;
  c->idx[c->depth - 1]++;
  return !(c->depth == 1 && c->idx[0] >= 2);
}

static int s_scalar(void *ctx) { return next(ctx); }
static int s_bool(void *ctx, int b) { (void)b; return next(ctx); }
static int s_num(void *ctx, const char *s, size_t n) {
  (void)s, (void)n;
  return next(ctx);
}

static int s_str(void *ctx, const unsigned char *s, size_t n) {
  scan_t *c = ctx;
  if (c->depth == 0) {
    c->top_string = 1;
    keep(c->s1, sizeof c->s1, &c->has1, s, n);
    return 0;
  }
  if (c->depth == 1 && c->idx[0] == 0)
    keep(c->s0, sizeof c->s0, &c->has0, s, n);
  else if (c->depth == 1 && c->idx[0] == 1)
    keep(c->s1, sizeof c->s1, &c->has1, s, n);
  else if (c->depth == 3 && c->idx[0] == 1 && c->idx[1] == 0 &&
           c->idx[2] == 0 && c->has0 && !strcmp(c->s0, "notify"))
    keep(c->s1, sizeof c->s1, &c->has1, s, n);
  return next(c);
}

static int s_open_arr(void *ctx) {
  scan_t *c = ctx;
  if (c->depth == 0)
    c->is_array = 1;
  if (c->depth == MAX_LEVELS)
    return 0;
  c->idx[c->depth++] = 0;
  return 1;
}

static int s_open_map(void *ctx) {
  scan_t *c = ctx;
  if (c->depth == 0 || c->depth == MAX_LEVELS)
    return 0; /* an object is no run-queue shape */
  c->idx[c->depth++] = 0;
  return 1;
}

static int s_close(void *ctx) {
  scan_t *c = ctx;
  c->depth--;
  return next(c);
}

static int s_key(void *ctx, const unsigned char *s, size_t n) {
  (void)ctx, (void)s, (void)n;
  return 1;
}

static const yajl_callbacks scan_cbs = {s_scalar, s_bool,     NULL,    NULL,
                                        s_num,    s_str,      s_open_map,
                                        s_key,    s_close,    s_open_arr,
                                        s_close};

#define OK(call) ((call) == yajl_gen_status_ok)

/* A vat's reference to an object or promise ("o+0", "p-12"): SwingSet's
 * ["message", target, {methargs, result}]. */
static int is_vref(const char *s) {
  return (s[0] == 'o' || s[0] == 'p') && (s[1] == '+' || s[1] == '-') &&
         s[2] >= '0' && s[2] <= '9';
}

static int gen_s(yajl_gen g, const char *s) {
  return OK(yajl_gen_string(g, (const unsigned char *)s, strlen(s)));
}

/* vd[0] values that name a run-queue item of SwingSet's that concerns
 * only the vat. */
static int vat_item(const char *t) {
  static const char *const items[] = {"startVat",      "stopVat",
                                      "bringOutYourDead", "dropExports",
                                      "retireExports", "retireImports",
                                      NULL};
  int i;
  for (i = 0; items[i]; i++)
    if (!strcmp(t, items[i]))
      return 1;
  return 0;
}

/* "#[<method>,[]]": smallcaps capdata of [method, args] with the args
 * left out (they are in the deliver record's vd).  Smallcaps quotes a
 * string that starts with one of !"#$%&'()*+,- with a '!'. */
static size_t methargs_body(char *dst, const char *m) {
  size_t o = 0;
  const unsigned char *p;
  static const char hex[] = "0123456789abcdef";
  memcpy(dst, "#[", 2);
  o = 2;
  if (!m) {
    memcpy(dst + o, "null", 4);
    o += 4;
  } else {
    dst[o++] = '"';
    if ((unsigned char)m[0] >= '!' && (unsigned char)m[0] <= '-')
      dst[o++] = '!';
    for (p = (const unsigned char *)m; *p; p++) {
      if (*p == '"' || *p == '\\') {
        dst[o++] = '\\';
        dst[o++] = (char)*p;
      } else if (*p < 0x20) {
        memcpy(dst + o, "\\u00", 4);
        o += 4;
        dst[o++] = hex[*p >> 4];
        dst[o++] = hex[*p & 15];
      } else {
        dst[o++] = (char)*p;
      }
    }
    dst[o++] = '"';
  }
  memcpy(dst + o, ",[]]", 4);
  return o + 4;
}

int ips__crank_message(yajl_gen g, const char *vat, const char *vd,
                       size_t n) {
  scan_t c;
  yajl_handle h;
  const char *method = NULL, *target = vat;
  /* "#[" + '"' + '!' + 6 bytes per byte of the name + '"' + ",[]]" */
  char body[2 + 2 + 6 * IPS_SLOG_METHOD_MAX + 1 + 4 + 1];
  size_t blen;
  memset(&c, 0, sizeof c);
  h = yajl_alloc(&scan_cbs, NULL, &c);
  if (!h)
    return 0;
  /* A prefix: what is cut off mid-token is simply not seen. */
  (void)yajl_parse(h, (const unsigned char *)vd, n < SCAN_BYTES ? n : SCAN_BYTES);
  yajl_free(h);
  if (c.is_array && c.has0 &&
      (!strcmp(c.s0, "evaluate") || vat_item(c.s0)))
    return OK(yajl_gen_map_open(g)) && gen_s(g, "type") &&
           gen_s(g, strcmp(c.s0, "evaluate") ? c.s0 : "startVat") &&
           gen_s(g, "vatID") && ips__json_text(g, vat, strlen(vat)) == 0 &&
           OK(yajl_gen_map_close(g));
  if (c.is_array && c.has0 && !strcmp(c.s0, "notify"))
    return OK(yajl_gen_map_open(g)) && gen_s(g, "type") &&
           gen_s(g, "notify") && gen_s(g, "vatID") &&
           ips__json_text(g, vat, strlen(vat)) == 0 && gen_s(g, "kpid") &&
           gen_s(g, c.has1 ? c.s1 : "") && OK(yajl_gen_map_close(g));
  if (c.is_array && c.has0 && !strcmp(c.s0, "message") && c.has1 &&
      is_vref(c.s1))
    target = c.s1; /* SwingSet's shape: the name is inside methargs */
  else if (c.is_array && c.has0 && !strcmp(c.s0, "message") && c.has1)
    method = c.s1;
  else if (c.is_array && c.has0)
    method = c.s0;
  else if (c.top_string && c.has1)
    method = c.s1;
  blen = methargs_body(body, method);
  return OK(yajl_gen_map_open(g)) && gen_s(g, "type") && gen_s(g, "send") &&
         gen_s(g, "target") &&
         ips__json_text(g, target, strlen(target)) == 0 &&
         gen_s(g, "msg") && OK(yajl_gen_map_open(g)) &&
         gen_s(g, "methargs") && OK(yajl_gen_map_open(g)) &&
         gen_s(g, "body") &&
         OK(yajl_gen_string(g, (const unsigned char *)body, blen)) &&
         gen_s(g, "slots") && OK(yajl_gen_array_open(g)) &&
         OK(yajl_gen_array_close(g)) && OK(yajl_gen_map_close(g)) &&
         gen_s(g, "result") && OK(yajl_gen_null(g)) &&
         OK(yajl_gen_map_close(g)) && OK(yajl_gen_map_close(g));
}
