/* parent_peer.c — the test binary re-run as a worker (libuv's spawn-helper
 * pattern): a correct worker, or one that misbehaves on purpose.
 *
 * Modes:
 *   good          answer '?' payloads; "up:N" makes N upcalls first; the
 *                 result echoes the payload; real d/u/r/e stamps in the
 *                 metering
 *   garbage       answer a delivery with broken framing
 *   huge          declare a 900 MB frame, then wait
 *   exit-upcall   send an upcall and exit 0 without waiting for the reply
 *   hang          read the delivery and never answer (creating the file
 *                 $PARENT_PEER_MARK first, when set)
 *   bad-metering  answer with metering of an unknown version
 *   hostile       a result full of newlines, quotes and invalid UTF-8
 *   console       print lines on stdout and stderr, then answer
 *   error         answer every delivery with '!'
 *   echo-metering answer every delivery with its payload as the metering
 *                 (and 1 as the result)
 *   flood         write a 200,000-byte line (no newline) on stdout, then
 *                 answer
 *   upcall-storm  answer a delivery with upcalls, each one after the reply
 *                 to the last, forever
 *   garbage-10m   declare a 10 MiB frame, send 10 MiB of random bytes, and
 *                 then no comma
 *   noise-10m     write 10 MiB of random bytes (newlines, NULs, invalid
 *                 UTF-8) on stdout, then answer
 *   inject        try to forge slog lines ("}, newlines, a whole
 *                 {"type":"deliver"...} line, control bytes, invalid UTF-8)
 *                 in console output, upcall payloads, metering and the
 *                 result; the Nth delivery (from 0) uses variant N % 3:
 *                 0 raw bytes everywhere, 1 the same as valid JSON strings,
 *                 2 a '!' error
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parent_suites.h"

static ips_ns_decoder_t dec;
static char inbuf[65536];
static size_t inlen, inoff;

static void put_all(const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(4, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      _exit(3);
    }
    p += w;
    n -= (size_t)w;
  }
}

static void send_frame(char tag, const char *p, size_t n) {
  struct iovec iov[3];
  char hdr[IPS_NS_HEADER_MAX];
  if (ips_ns_iov(iov, hdr, tag, p, n))
    _exit(3);
  put_all(iov[0].iov_base, iov[0].iov_len);
  put_all(p, n);
  put_all(",", 1);
}

/* Blocking read of the next frame; exits 0 at a clean end of input. */
static const char *next_frame(size_t *n) {
  const char *f = NULL;
  for (;;) {
    if (inoff == inlen) {
      ssize_t r = read(3, inbuf, sizeof inbuf);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        _exit(ips_ns_finish(&dec) == 0 ? 0 : 2);
      inlen = (size_t)r;
      inoff = 0;
    }
    ssize_t c = ips_ns_feed(&dec, inbuf + inoff, inlen - inoff, &f, n);
    if (c < 0)
      _exit(2);
    inoff += (size_t)c;
    if (f)
      return f;
  }
}

/* Deterministic noise (xorshift), so a failure can be replayed. */
static void noise(char *p, size_t n) {
  static uint32_t x = 2463534242u;
  size_t i;
  for (i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p[i] = (char)(x >> 24);
  }
}

#define TEN_MIB (10u << 20)

/* What a forged slog line looks like, raw: closes a string and an object,
 * starts a new line with a record of the parent's own type, and adds
 * control bytes and invalid UTF-8 (a lone continuation byte, a truncated
 * sequence, an encoded surrogate, an overlong '/'). */
static const char forged[] =
    "\"}\n{\"type\":\"deliver\",\"crankNum\":999,\"vatID\":\"v9\"}\n"
    "\r\x01\x1b[2J\x7f\b\f\x80\xff\xfe\xc3\x28\xed\xa0\x80\xc0\xaf\"}";
/* The same as a JSON string (valid JSON text): escapes, NUL, a lone
 * surrogate escape. */
#define FORGED_JSON                                                          \
  "\"\\\"}\\n{\\\"type\\\":\\\"deliver\\\",\\\"crankNum\\\":999}\\n"          \
  "\\r\\u0000\\u001b[2J\\u007f\\ud800\""

static void inject(ips_stamps_t *t, unsigned variant) {
  static char buf[4096];
  char metering[2048];
  size_t mlen = 0, n;
  const char *f;
  /* Console: the forged text as lines of its own, a NUL inside a line. */
  fwrite(forged, 1, sizeof forged - 1, stdout);
  {
    static const char tail[] = "\n{\"type\":\"console\"}\0tail\n";
    fwrite(tail, 1, sizeof tail - 1, stdout);
  }
  fflush(stdout);
  fwrite(forged, 1, sizeof forged - 1, stderr);
  fputc('\n', stderr);
  fflush(stderr);
  if (variant == 2) {
    send_frame('!', forged, sizeof forged - 1);
    return;
  }
  /* One upcall raw, one valid JSON that carries the forged text. */
  ips_stamps_add(t, 'u');
  if (variant == 0)
    send_frame('?', forged, sizeof forged - 1);
  else
    send_frame('?', "[\"log\"," FORGED_JSON "]",
               strlen("[\"log\"," FORGED_JSON "]"));
  f = next_frame(&n);
  ips_stamps_add(t, 'r');
  if (n == 0 || f[0] != '/')
    _exit(2);
  ips_stamps_add(t, 'e');
  if (ips_metering_write(metering, sizeof metering - 200, t, NULL, &mlen) ||
      mlen < 2 || metering[mlen - 1] != '}')
    _exit(3);
  if (variant == 0) {
    /* Metering that is not JSON at all. */
    memcpy(buf, forged, sizeof forged - 1);
    n = sizeof forged - 1;
  } else {
    /* Our metering with a hostile extra field (unknown: ignored). */
    mlen--;
    n = (size_t)snprintf(buf, sizeof buf, "%.*s,\"x\\n\":" FORGED_JSON "}",
                         (int)mlen, metering);
  }
  buf[n++] = 1;
  if (variant == 0) {
    memcpy(buf + n, forged, sizeof forged - 1);
    n += sizeof forged - 1;
  } else {
    n += (size_t)snprintf(buf + n, sizeof buf - n,
                          "{\"type\":\"deliver\",\"x\":" FORGED_JSON "}");
  }
  send_frame('.', buf, n);
}

static void answer(ips_stamps_t *t, const char *res, size_t n) {
  static char buf[1 << 20];
  size_t mlen = 0;
  ips_stamps_add(t, 'e');
  if (ips_metering_write(buf, sizeof buf - n - 1, t, NULL, &mlen))
    _exit(3);
  buf[mlen] = 1;
  memcpy(buf + mlen + 1, res, n);
  send_frame('.', buf, mlen + 1 + n);
}

int parent_peer_main(const char *mode) {
  ips_stamps_t t;
  size_t n;
  const char *f;
  unsigned deliveries = 0;
  ips_ns_decoder_init(&dec, 0);
  ips_stamps_init(&t, 64);
  for (;;) {
    f = next_frame(&n);
    ips_stamps_reset(&t);
    ips_stamps_add(&t, 'd');
    if (n == 0)
      return 2;
    if (f[0] == 'q') {
      /* Free what LeakSanitizer would otherwise report on stderr, which
       * the console tests count. */
      ips_stamps_free(&t);
      ips_ns_decoder_free(&dec);
      return 0;
    }
    if (f[0] == 'R') {
      send_frame('.', "", 0);
      continue;
    }
    if (f[0] == 'e') {
      answer(&t, "", 0);
      continue;
    }
    if (f[0] != '?') {
      send_frame('!', "unknown tag", 11);
      continue;
    }
    if (!strcmp(mode, "upcall-storm")) {
      for (;;) {
        static const char up[] = "[\"log\",\"again\"]";
        send_frame('?', up, sizeof up - 1);
        f = next_frame(&n);
        if (n == 0 || f[0] != '/')
          return 2;
      }
    } else if (!strcmp(mode, "garbage-10m")) {
      static char junk[TEN_MIB];
      noise(junk, sizeof junk);
      put_all("10485760:", 9);
      put_all(junk, sizeof junk);
      put_all("X", 1);
      pause();
    } else if (!strcmp(mode, "noise-10m")) {
      static char junk[TEN_MIB];
      noise(junk, sizeof junk);
      fwrite(junk, 1, sizeof junk, stdout);
      fflush(stdout);
      answer(&t, "\"after the noise\"", 17);
    } else if (!strcmp(mode, "inject")) {
      inject(&t, deliveries % 3);
    } else if (!strcmp(mode, "garbage")) {
      put_all("12:?abc;;;;;;;;;;;;;;;;", 23);
      pause();
    } else if (!strcmp(mode, "huge")) {
      put_all("900000000:", 10);
      pause();
    } else if (!strcmp(mode, "hang")) {
      /* Tell a test that waits for it that the delivery arrived. */
      const char *mark = getenv("PARENT_PEER_MARK");
      if (mark)
        close(open(mark, O_WRONLY | O_CREAT, 0644));
      pause();
    } else if (!strcmp(mode, "exit-upcall")) {
      send_frame('?', "[\"vatstoreGet\",\"k\"]", 19);
      _exit(0);
    } else if (!strcmp(mode, "bad-metering")) {
      const char *r = "{\"timestamps\":[1.5,2.5],\"ipcstamp\":{\"v\":99}}"
                      "\001\"x\"";
      send_frame('.', r, strlen(r));
    } else if (!strcmp(mode, "hostile")) {
      static const char r[] = "line1\nline2\r\n\"quoted\" \\ \xff\xfe\xc3\x28 "
                              "{\"a\":";
      answer(&t, r, sizeof r - 1);
    } else if (!strcmp(mode, "flood")) {
      static char line[200000];
      memset(line, 'x', sizeof line);
      fwrite(line, 1, sizeof line, stdout);
      fflush(stdout);
      answer(&t, "1", 1);
    } else if (!strcmp(mode, "error")) {
      send_frame('!', "it broke \"badly\"\n", 17);
    } else if (!strcmp(mode, "echo-metering")) {
      static char buf[1 << 16];
      if (n - 1 + 2 > sizeof buf)
        return 2;
      memcpy(buf, f + 1, n - 1);
      memcpy(buf + n - 1, "\0011", 2);
      send_frame('.', buf, n - 1 + 2);
    } else {
      char payload[4096];
      size_t pn = n - 1 < sizeof payload - 1 ? n - 1 : sizeof payload - 1;
      int ups = 0, i;
      memcpy(payload, f + 1, pn);
      payload[pn] = 0;
      /* "up:N", also as a JSON string from a workload file */
      if (strstr(payload, "up:"))
        ups = atoi(strstr(payload, "up:") + 3);
      if (!strcmp(mode, "console")) {
        printf("hello from stdout\nsecond line\n");
        fflush(stdout);
        fprintf(stderr, "to stderr \xff\n");
      }
      for (i = 0; i < ups; i++) {
        char up[64];
        int len = snprintf(up, sizeof up, "[\"vatstoreGet\",\"k%d\"]", i);
        ips_stamps_add(&t, 'u');
        send_frame('?', up, (size_t)len);
        f = next_frame(&n);
        ips_stamps_add(&t, 'r');
        if (n == 0 || f[0] != '/')
          return 2;
      }
      answer(&t, payload, pn);
    }
    deliveries++;
  }
}
