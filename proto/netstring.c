/* netstring.c — netstring framing: encoder and incremental decoder.
 *
 * The decoder is a small state machine so that it resumes across partial
 * reads, which is what both a blocking worker and a libuv read callback
 * need.  Each rule of docs/protocol.md fails with its own code at the offset of
 * the byte that broke it.
 *
 * Keep that when changing this file: a peer that breaks the framing is
 * told which rule and where (IPS_ENS_* and the offset), never just "bad
 * frame"; it is what makes a hostile or buggy worker diagnosable from one
 * line of the parent's log. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-proto.h"

enum { S_LEN, S_PAYLOAD, S_COMMA, S_FAILED };

/* Write the decimal digits of n (n <= IPS_NS_LEN_MAX) to dst; returns how
 * many.  dst needs 9 bytes. */
static size_t put_digits(char *dst, size_t n) {
  char tmp[10];
  size_t k = 0, i;
  do {
    tmp[k++] = (char)('0' + n % 10);
    n /= 10;
  } while (n > 0);
  for (i = 0; i < k; i++)
    dst[i] = tmp[k - 1 - i];
  return k;
}

static size_t count_digits(size_t n) {
  size_t k = 1;
  while (n >= 10) {
    n /= 10;
    k++;
  }
  return k;
}

size_t ips_ns_frame_size(size_t n) { return count_digits(n) + n + 2; }

int ips_ns_encode(char *dst, size_t cap, const void *payload, size_t n,
                  size_t *written) {
  size_t k;
  if (n > IPS_NS_LEN_MAX)
    return IPS_EINVAL;
  if (cap < ips_ns_frame_size(n))
    return IPS_ENOBUFS;
  k = put_digits(dst, n);
  dst[k++] = ':';
  if (n > 0)
    memcpy(dst + k, payload, n);
  k += n;
  dst[k++] = ',';
  if (written != NULL)
    *written = k;
  return 0;
}

int ips_ns_iov(struct iovec iov[3], char hdr[IPS_NS_HEADER_MAX], char tag,
               const void *payload, size_t n) {
  size_t k;
  if (n >= IPS_NS_LEN_MAX)
    return IPS_EINVAL;
  k = put_digits(hdr, n + 1);
  hdr[k++] = ':';
  hdr[k++] = tag;
  iov[0].iov_base = hdr;
  iov[0].iov_len = k;
  /* writev() does not write through iov_base, so dropping const is safe. */
  iov[1].iov_base = (void *)(uintptr_t)payload;
  iov[1].iov_len = n;
  iov[2].iov_base = (void *)(uintptr_t)",";
  iov[2].iov_len = 1;
  return 0;
}

void ips_ns_decoder_init(ips_ns_decoder_t *d, size_t max_frame) {
  memset(d, 0, sizeof *d);
  if (max_frame == 0)
    max_frame = IPS_DEFAULT_MAX_FRAME;
  if (max_frame > IPS_NS_LEN_MAX)
    max_frame = IPS_NS_LEN_MAX;
  d->max_frame = max_frame;
  d->state = S_LEN;
}

void ips_ns_decoder_free(ips_ns_decoder_t *d) {
  free(d->buf);
  d->buf = NULL;
  d->cap = 0;
}

static ssize_t fail(ips_ns_decoder_t *d, int err, uint64_t offset) {
  d->state = S_FAILED;
  d->err = err;
  d->err_offset = offset;
  return err;
}

static void next_frame(ips_ns_decoder_t *d) {
  d->state = S_LEN;
  d->len = d->got = d->digits = 0;
}

/* One byte of the length.  Returns 0 or a framing error. */
static int length_byte(ips_ns_decoder_t *d, unsigned char c) {
  /* After a lone "0" or nine digits the length is complete: only ':' may
   * follow. */
  int complete = d->digits == 9 || (d->digits == 1 && d->len == 0);
  if (c >= '0' && c <= '9') {
    if (d->digits == 1 && d->len == 0) /* the '0' before us broke the rule */
      return (int)fail(d, IPS_ENS_LEADING_ZERO, d->offset - 1);
    if (d->digits == 9)
      return (int)fail(d, IPS_ENS_TOO_MANY_DIGITS, d->offset);
    d->len = d->len * 10 + (size_t)(c - '0');
    d->digits++;
    /* Digits only make it larger: refuse now, before reading further. */
    if (d->len > d->max_frame)
      return (int)fail(d, IPS_ENS_TOO_LONG, d->offset);
    return 0;
  }
  if (c == ':') {
    if (d->digits == 0)
      return (int)fail(d, IPS_ENS_EMPTY_LEN, d->offset);
    d->state = S_PAYLOAD;
    return 0;
  }
  return (int)fail(d, complete ? IPS_ENS_NO_COLON : IPS_ENS_DIGIT, d->offset);
}

ssize_t ips_ns_feed(ips_ns_decoder_t *d, const char *data, size_t n,
                    const char **frame, size_t *frame_len) {
  size_t i = 0;
  *frame = NULL;
  *frame_len = 0;
  if (d->state == S_FAILED)
    return d->err;
  while (i < n) {
    if (d->state == S_LEN) {
      int err = length_byte(d, (unsigned char)data[i]);
      if (err < 0)
        return err;
      i++;
      d->offset++;
    } else if (d->state == S_PAYLOAD) {
      size_t want = d->len - d->got, avail = n - i, take;
      if (d->got == 0 && avail > want) {
        /* The whole payload and its comma are here: hand out a pointer into
         * the caller's input instead of copying it. */
        if (data[i + want] != ',')
          return fail(d, IPS_ENS_NO_COMMA, d->offset + want);
        *frame = data + i;
        *frame_len = want;
        i += want + 1;
        d->offset += want + 1;
        next_frame(d);
        return (ssize_t)i;
      }
      take = want < avail ? want : avail;
      if (d->got + take > d->cap) {
        /* Grow as bytes arrive, never by the declared length at once: a
         * 10-byte header must not reserve 64 MiB.  Doubling keeps the
         * copies linear; the declared length caps it, so the buffer never
         * exceeds the frame. */
        size_t nc = d->cap ? d->cap : 4096;
        char *p;
        while (nc < d->got + take)
          nc = nc > d->len / 2 ? d->len : nc * 2;
        if (nc > d->len)
          nc = d->len;
        p = realloc(d->buf, nc);
        if (p == NULL)
          return fail(d, IPS_ENOMEM, d->offset);
        d->buf = p;
        d->cap = nc;
      }
      memcpy(d->buf + d->got, data + i, take);
      d->got += take;
      i += take;
      d->offset += take;
      if (d->got == d->len)
        d->state = S_COMMA;
    } else { /* S_COMMA */
      if (data[i] != ',')
        return fail(d, IPS_ENS_NO_COMMA, d->offset);
      i++;
      d->offset++;
      *frame = d->buf;
      *frame_len = d->len;
      next_frame(d);
      return (ssize_t)i;
    }
  }
  return (ssize_t)i;
}

int ips_ns_finish(ips_ns_decoder_t *d) {
  if (d->state == S_FAILED)
    return d->err;
  if (d->state == S_LEN && d->digits == 0)
    return 0;
  return (int)fail(d, IPS_ENS_EOF, d->offset);
}

int ips_ns_error(const ips_ns_decoder_t *d) {
  return d->state == S_FAILED ? d->err : 0;
}

uint64_t ips_ns_error_offset(const ips_ns_decoder_t *d) {
  return d->err_offset;
}

uint64_t ips_ns_offset(const ips_ns_decoder_t *d) { return d->offset; }

int ips_ns_idle(const ips_ns_decoder_t *d) {
  return d->state == S_LEN && d->digits == 0;
}

int ips_ns_describe(const ips_ns_decoder_t *d, char *buf, size_t size) {
  if (d->state != S_FAILED)
    return snprintf(buf, size, "no error");
  return snprintf(buf, size, "%s at byte %llu", ips_strerror(d->err),
                  (unsigned long long)d->err_offset);
}
