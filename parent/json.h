/* json.h — untrusted bytes into a yajl generator (internal).
 *
 * Worker output is never pasted into a slogfile: valid JSON is parsed and
 * re-serialised token by token (numbers keep their exact text), anything
 * else is written as {"base64":"..."}.  Each byte is parsed once: the parse
 * that validates is the one that re-serialises (ips__jcopy_t), and a value
 * found invalid halfway is cut back out of the output (ips__out_t).
 */
#ifndef IPCSTAMP_PARENT_JSON_H
#define IPCSTAMP_PARENT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

#include "ipcstamp-parent.h"

/* An output buffer that generators print into (yajl_gen_print_callback
 * with ips__out_print and the buffer as context), so that output can be
 * cut back to an earlier length.  oom sticks once an append failed. */
typedef struct {
  char *p;
  size_t len, cap;
  int oom;
  /* Optional spilling, for output bound for a regular file, so that a
   * 100 MB record is not held whole: once len would pass spill_at, print
   * hands the buffer to spill (which writes it out) and base counts what
   * left, so that positions (ips__out_pos) stay valid; cutting back behind
   * base asks cut to take written bytes back.  A spill or cut that fails
   * sets oom: the output is lost, and its owner knows why. */
  size_t spill_at;
  int (*spill)(void *ctx, const char *p, size_t n);
  int (*cut)(void *ctx, uint64_t pos);
  void *ctx;
  uint64_t base;
} ips__out_t;

void ips__out_print(void *ctx, const char *s, size_t n);
/* Where the next byte printed goes, counting what was spilled. */
uint64_t ips__out_pos(const ips__out_t *o);
/* Take back everything printed from pos on (pos <= ips__out_pos()). */
void ips__out_cut(ips__out_t *o, uint64_t pos);

/* A re-serialiser: the ips__jcopy_* functions check one token (nesting at
 * most IPS_JSON_MAX_DEPTH, strict UTF-8 in strings and keys, which yajl's
 * parser alone lets through) and write it to g.  Each returns 1 when the
 * token was written, 0 when the value is not acceptable or g failed; then
 * ok is 0 and stays 0 (the output is to be discarded).  ips__jcopy_cbs are
 * the same as yajl parser callbacks (context: the ips__jcopy_t). */
typedef struct {
  yajl_gen g;
  int depth;
  int ok;
} ips__jcopy_t;

void ips__jcopy_init(ips__jcopy_t *c, yajl_gen g);
int ips__jcopy_null(void *c);
int ips__jcopy_bool(void *c, int b);
int ips__jcopy_number(void *c, const char *s, size_t n);
int ips__jcopy_string(void *c, const unsigned char *s, size_t n);
int ips__jcopy_map_open(void *c);
int ips__jcopy_map_close(void *c);
int ips__jcopy_array_open(void *c);
int ips__jcopy_array_close(void *c);
extern const yajl_callbacks ips__jcopy_cbs;

/* Write buf[0..n) as one value into g: re-serialised when it is one valid
 * JSON value, else as {"base64":"..."}, in one parse.  g and eg must print
 * into out (see ips__out_t); eg is a scratch generator (same config) whose
 * state is reset here.  Returns 0 or IPS_ENOMEM / IPS_EPROTO. */
int ips__json_embed(yajl_gen g, yajl_gen eg, ips__out_t *out,
                    const char *buf, size_t n);

/* Write already serialised JSON text (one value, produced by this library)
 * into g as the next value, without parsing it again. */
int ips__json_raw(yajl_gen g, const char *json, size_t n);

/* Write bytes as a JSON string when they are valid UTF-8, else as
 * {"base64":"..."}. */
int ips__json_text(yajl_gen g, const char *buf, size_t n);

/* Write {"base64":"..."} of buf[0..n) into g.  Returns 0 or IPS_ENOMEM /
 * IPS_EPROTO. */
int ips__json_base64(yajl_gen g, const char *buf, size_t n);

/* Strict UTF-8: ips_utf8_valid() (ipcstamp-proto.h). */
#define ips__utf8_valid(s, n) ips_utf8_valid((s), (n))

/* The base64 of buf[0..n) into dst (room for 4 * ((n + 2) / 3) bytes). */
size_t ips__base64(char *dst, const unsigned char *buf, size_t n);

/* buf[0..n) re-serialised into g (a generator at its start state):
 * returns 1 when it was one valid JSON value, copied whole; 0 when not (g
 * then holds part of it: clear it); -1 when out of memory. */
int ips__json_copy(yajl_gen g, const char *buf, size_t n);

#endif
