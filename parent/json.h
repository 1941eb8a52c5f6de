/* json.h — untrusted bytes into a yajl generator (internal).
 *
 * Worker output is never pasted into a slogfile: valid JSON is parsed and
 * re-serialised token by token (numbers keep their exact text), anything
 * else is written as {"base64":"..."}.
 */
#ifndef IPCSTAMP_PARENT_JSON_H
#define IPCSTAMP_PARENT_JSON_H

#include <stddef.h>
#include <yajl/yajl_gen.h>

/* 1 when buf[0..n) is one JSON value (valid UTF-8, nesting at most
 * IPS_JSON_MAX_DEPTH), else 0.  Allocates nothing the caller sees. */
int ips__json_valid(const char *buf, size_t n);

/* Write buf[0..n) into g: re-serialised when valid, else as
 * {"base64":"..."}.  Returns 0 or IPS_ENOMEM / IPS_EPROTO. */
int ips__json_embed(yajl_gen g, const char *buf, size_t n);

/* Write bytes as a JSON string when they are valid UTF-8, else as
 * {"base64":"..."}. */
int ips__json_text(yajl_gen g, const char *buf, size_t n);

/* Streaming the {"base64":...} form of a large value instead of holding
 * its base64 whole (1.33 times the value).  A generator whose print
 * callback knows this: the _s functions below put the value here and emit
 * the one-byte token ips__json_raw_mark through yajl_gen_number (so yajl
 * places commas and colons); the print callback, seeing that very pointer,
 * calls ips__json_stream_base64 instead of printing it. */
typedef struct {
  const unsigned char *p; /* the value whose base64 is due, or NULL */
  size_t n;
} ips__json_stream_t;
extern const char ips__json_raw_mark[1];
int ips__json_embed_s(yajl_gen g, ips__json_stream_t *st, const char *buf,
                      size_t n);
int ips__json_text_s(yajl_gen g, ips__json_stream_t *st, const char *buf,
                     size_t n);
/* Write "<base64 of st's value>" through put, 4 KiB at a time. */
void ips__json_stream_base64(const ips__json_stream_t *st,
                             void (*put)(void *ctx, const char *p, size_t n),
                             void *ctx);

/* The base64 of buf[0..n) into dst (room for 4 * ((n + 2) / 3) bytes). */
size_t ips__base64(char *dst, const unsigned char *buf, size_t n);

#endif
