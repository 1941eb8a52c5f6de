/* check_netstring.c — the netstring encoder and incremental decoder. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-proto.h"
#include "suites.h"

/* Feed all of in[0..n) one byte at a time (or whole when bytewise is 0) and
 * collect the frames, each followed by '|', into out.  Returns the last
 * negative code, or the number of frames. */
static int decode_all(ips_ns_decoder_t *d, const char *in, size_t n,
                      int bytewise, char *out, size_t outcap) {
  size_t i = 0, o = 0;
  int frames = 0;
  while (i < n) {
    const char *f;
    size_t flen;
    size_t chunk = bytewise ? 1 : n - i;
    ssize_t used = ips_ns_feed(d, in + i, chunk, &f, &flen);
    if (used < 0)
      return (int)used;
    i += (size_t)used;
    if (f != NULL) {
      ck_assert_uint_lt(o + flen + 1, outcap);
      memcpy(out + o, f, flen);
      o += flen;
      out[o++] = '|';
      frames++;
    }
  }
  out[o] = '\0';
  return frames;
}

START_TEST(test_encode) {
  char buf[32];
  size_t n;
  ck_assert_int_eq(ips_ns_encode(buf, sizeof buf, "hello", 5, &n), 0);
  ck_assert_uint_eq(n, 8);
  ck_assert(memcmp(buf, "5:hello,", 8) == 0);
  ck_assert_int_eq(ips_ns_encode(buf, sizeof buf, "", 0, &n), 0);
  ck_assert(memcmp(buf, "0:,", 3) == 0 && n == 3);
  ck_assert_uint_eq(ips_ns_frame_size(1234567), 7 + 1234567 + 2);
  ck_assert_int_eq(ips_ns_encode(buf, 7, "hello", 5, &n), IPS_ENOBUFS);
}
END_TEST

START_TEST(test_iov) {
  struct iovec iov[3];
  char hdr[IPS_NS_HEADER_MAX], whole[64];
  size_t k = 0, i;
  ck_assert_int_eq(ips_ns_iov(iov, hdr, '?', "{\"a\":1}", 7), 0);
  for (i = 0; i < 3; i++) {
    memcpy(whole + k, iov[i].iov_base, iov[i].iov_len);
    k += iov[i].iov_len;
  }
  whole[k] = '\0';
  ck_assert_str_eq(whole, "8:?{\"a\":1},");
  ck_assert_int_eq(ips_ns_iov(iov, hdr, 'R', NULL, 0), 0);
  ck_assert_uint_eq(iov[0].iov_len, 3);
  ck_assert(memcmp(hdr, "1:R", 3) == 0);
  ck_assert_int_eq(ips_ns_iov(iov, hdr, '?', "x", IPS_NS_LEN_MAX), IPS_EINVAL);
}
END_TEST

START_TEST(test_decode_frames) {
  static const char in[] = "5:hello,0:,3:a,b,1::,";
  char out[64];
  int bytewise;
  for (bytewise = 0; bytewise <= 1; bytewise++) {
    ips_ns_decoder_t d;
    int frames;
    ips_ns_decoder_init(&d, 0);
    frames = decode_all(&d, in, sizeof in - 1, bytewise, out, sizeof out);
    ck_assert_int_eq(frames, 4);
    ck_assert_str_eq(out, "hello||a,b|:|");
    ck_assert_int_eq(ips_ns_finish(&d), 0);
    ck_assert(ips_ns_idle(&d));
    ck_assert_uint_eq(ips_ns_offset(&d), sizeof in - 1);
    ips_ns_decoder_free(&d);
  }
}
END_TEST

START_TEST(test_empty_frame_is_zero_colon_comma) {
  ips_ns_decoder_t d;
  const char *f;
  size_t flen;
  ips_ns_decoder_init(&d, 0);
  ck_assert_int_eq(ips_ns_feed(&d, "0:,", 3, &f, &flen), 3);
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(flen, 0);
  ips_ns_decoder_free(&d);
}
END_TEST

/* Random payloads from 0 bytes to 1 MiB, framed back to back and fed in
 * random chunks: every payload comes back intact and in order. */
START_TEST(test_random_round_trips) {
  uint64_t seed = 0x1f2e3d4c5b6a7988ULL + (uint64_t)_i, st = seed;
  enum { N = 24 };
  size_t lens[N], total = 0, pos = 0, i, k, next = 0;
  char *stream, *payloads[N];
  ips_ns_decoder_t d;

  for (i = 0; i < N; i++) {
    uint64_t r = test_rand(&st);
    /* Mostly small, some up to 1 MiB, and the edges themselves. */
    lens[i] = i == 0 ? 0 : i == 1 ? 1024 * 1024
            : (r & 3) == 0 ? (size_t)(r >> 8) % (1024 * 1024 + 1)
                           : (size_t)(r >> 8) % 300;
    payloads[i] = malloc(lens[i] + 1);
    for (k = 0; k < lens[i]; k++)
      payloads[i][k] = (char)test_rand(&st);
    total += ips_ns_frame_size(lens[i]);
  }
  stream = malloc(total);
  for (i = 0; i < N; i++) {
    size_t w;
    ck_assert_int_eq(ips_ns_encode(stream + pos, total - pos, payloads[i],
                                   lens[i], &w), 0);
    pos += w;
  }
  ck_assert_uint_eq(pos, total);

  ips_ns_decoder_init(&d, 2 * 1024 * 1024);
  pos = 0;
  while (pos < total) {
    /* Chunks of 1 byte up to 256 KiB. */
    uint64_t r = test_rand(&st);
    size_t chunk = (r & 1) ? 1 + (size_t)(r >> 40) % 16
                           : 1 + (size_t)(r >> 20) % (256 * 1024);
    size_t end = pos + chunk > total ? total : pos + chunk;
    while (pos < end) {
      const char *f;
      size_t flen;
      ssize_t used = ips_ns_feed(&d, stream + pos, end - pos, &f, &flen);
      ck_assert_msg(used >= 0, "seed %llx: %s", (unsigned long long)seed,
                    ips_strerror((int)used));
      pos += (size_t)used;
      if (f != NULL) {
        ck_assert_uint_lt(next, N);
        ck_assert_msg(flen == lens[next] &&
                          memcmp(f, payloads[next], flen) == 0,
                      "seed %llx: frame %zu differs",
                      (unsigned long long)seed, next);
        next++;
      }
    }
  }
  ck_assert_uint_eq(next, N);
  ck_assert_int_eq(ips_ns_finish(&d), 0);
  ips_ns_decoder_free(&d);
  for (i = 0; i < N; i++)
    free(payloads[i]);
  free(stream);
}
END_TEST

START_TEST(test_max_frame_exactly) {
  /* A frame of exactly the maximum is fine; one byte more is not. */
  ips_ns_decoder_t d;
  const char *f;
  size_t flen;
  ips_ns_decoder_init(&d, 5);
  ck_assert_int_eq(ips_ns_feed(&d, "5:abcde,", 8, &f, &flen), 8);
  ck_assert_uint_eq(flen, 5);
  ck_assert_int_eq(ips_ns_feed(&d, "6:abcdef,", 9, &f, &flen),
                   IPS_ENS_TOO_LONG);
  ck_assert_uint_eq(ips_ns_error_offset(&d), 8);
  ips_ns_decoder_free(&d);
}
END_TEST

START_TEST(test_nine_digits_over_max_allocates_nothing) {
  ips_ns_decoder_t d;
  const char *f;
  size_t flen;
  char msg[128];
  ips_ns_decoder_init(&d, 0); /* 64 MiB */
  /* 900 MB: refused at the 8th digit, since 90,000,000 already exceeds
   * 64 MiB; the 9th digit is never read. */
  ck_assert_int_eq(ips_ns_feed(&d, "900000000:", 10, &f, &flen),
                   IPS_ENS_TOO_LONG);
  ck_assert_uint_eq(ips_ns_error_offset(&d), 7);
  ck_assert_uint_eq(ips_ns_offset(&d), 7);
  ck_assert_ptr_null(d.buf);
  ck_assert_uint_eq(d.cap, 0);
  ips_ns_describe(&d, msg, sizeof msg);
  ck_assert_str_eq(msg, "netstring: declared length over the maximum frame "
                        "size at byte 7");
  ips_ns_decoder_free(&d);
}
END_TEST

/* Issue 12: a header alone reserves nothing near the declared length; the
 * buffer grows with the bytes that arrive (doubling, capped at the
 * declared length) and the frame comes out whole. */
START_TEST(test_grows_as_bytes_arrive) {
  ips_ns_decoder_t d;
  const char *f;
  size_t flen, i, n = 60000000, sent = 0;
  static char chunk[1 << 16];
  ips_ns_decoder_init(&d, 0);
  ck_assert_int_eq(ips_ns_feed(&d, "60000000:.ab", 12, &f, &flen), 12);
  ck_assert_ptr_null(f);
  ck_assert_uint_le(d.cap, 4096);
  sent = 3;
  memset(chunk, 'x', sizeof chunk);
  while (sent < n) {
    size_t k = n - sent < sizeof chunk ? n - sent : sizeof chunk;
    ck_assert_int_eq(ips_ns_feed(&d, chunk, k, &f, &flen), (ssize_t)k);
    sent += k;
    /* never more than twice what arrived, never more than the frame */
    ck_assert_uint_le(d.cap, 2 * sent);
    ck_assert_uint_le(d.cap, n);
  }
  ck_assert_int_eq(ips_ns_feed(&d, ",", 1, &f, &flen), 1);
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(flen, n);
  ck_assert_uint_eq(d.cap, n);
  ck_assert(f[0] == '.' && f[1] == 'a' && f[2] == 'b');
  for (i = 3; i < n; i += 4999)
    ck_assert_int_eq(f[i], 'x');
  ips_ns_decoder_free(&d);
}
END_TEST

START_TEST(test_max_clamped) {
  ips_ns_decoder_t d;
  const char *f;
  size_t flen;
  ips_ns_decoder_init(&d, (size_t)-1);
  ck_assert_uint_eq(d.max_frame, IPS_NS_LEN_MAX);
  ck_assert_int_eq(ips_ns_feed(&d, "999999999", 9, &f, &flen), 9);
  ck_assert_int_eq(ips_ns_feed(&d, "9", 1, &f, &flen),
                   IPS_ENS_TOO_MANY_DIGITS);
  ips_ns_decoder_free(&d);
}
END_TEST

/* Each broken rule: its code and the offset of the byte that broke it. */
static const struct {
  const char *in;
  int err;
  uint64_t offset;
} bad[] = {
    {"x:,", IPS_ENS_DIGIT, 0},
    {"5:hello,1x:a,", IPS_ENS_DIGIT, 9},
    {"-1:a,", IPS_ENS_DIGIT, 0},
    {" 1:a,", IPS_ENS_DIGIT, 0},
    {":,", IPS_ENS_EMPTY_LEN, 0},
    {"3:abc,:", IPS_ENS_EMPTY_LEN, 6},
    {"01:a,", IPS_ENS_LEADING_ZERO, 0},
    {"3:abc,00:,", IPS_ENS_LEADING_ZERO, 6},
    {"1234567890:", IPS_ENS_TOO_MANY_DIGITS, 9},
    {"0x", IPS_ENS_NO_COLON, 1},
    {"123456789x", IPS_ENS_NO_COLON, 9},
    {"3:abcd", IPS_ENS_NO_COMMA, 5},
    {"0:x", IPS_ENS_NO_COMMA, 2},
    {"3:abc;", IPS_ENS_NO_COMMA, 5},
};

START_TEST(test_bad_frames) {
  char out[64];
  int bytewise;
  for (bytewise = 0; bytewise <= 1; bytewise++) {
    ips_ns_decoder_t d;
    const char *f;
    size_t flen;
    int r;
    ips_ns_decoder_init(&d, (size_t)-1);
    r = decode_all(&d, bad[_i].in, strlen(bad[_i].in), bytewise, out,
                   sizeof out);
    ck_assert_msg(r == bad[_i].err, "'%s': got %s, want %s", bad[_i].in,
                  ips_err_name(r), ips_err_name(bad[_i].err));
    ck_assert_int_eq(ips_ns_error(&d), bad[_i].err);
    ck_assert_msg(ips_ns_error_offset(&d) == bad[_i].offset,
                  "'%s' bytewise=%d: offset %llu, want %llu", bad[_i].in,
                  bytewise, (unsigned long long)ips_ns_error_offset(&d),
                  (unsigned long long)bad[_i].offset);
    /* The decoder stays failed, whatever comes next. */
    ck_assert_int_eq(ips_ns_feed(&d, "1:a,", 4, &f, &flen), bad[_i].err);
    ck_assert_int_eq(ips_ns_finish(&d), bad[_i].err);
    ips_ns_decoder_free(&d);
  }
}
END_TEST

START_TEST(test_eof_inside_frame) {
  static const char *const cut[] = {"1", "12:", "3:ab", "3:abc"};
  size_t i;
  for (i = 0; i < sizeof cut / sizeof cut[0]; i++) {
    ips_ns_decoder_t d;
    const char *f;
    size_t flen, n = strlen(cut[i]);
    char msg[128], want[128];
    ips_ns_decoder_init(&d, 0);
    ck_assert_int_eq(ips_ns_feed(&d, cut[i], n, &f, &flen), (ssize_t)n);
    ck_assert(!ips_ns_idle(&d));
    ck_assert_int_eq(ips_ns_finish(&d), IPS_ENS_EOF);
    ck_assert_uint_eq(ips_ns_error_offset(&d), n);
    ips_ns_describe(&d, msg, sizeof msg);
    snprintf(want, sizeof want,
             "netstring: end of input inside a frame at byte %zu", n);
    ck_assert_str_eq(msg, want);
    ips_ns_decoder_free(&d);
  }
}
END_TEST

Suite *netstring_suite(void) {
  Suite *s = suite_create("netstring");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_encode);
  tcase_add_test(tc, test_iov);
  tcase_add_test(tc, test_decode_frames);
  tcase_add_test(tc, test_empty_frame_is_zero_colon_comma);
  tcase_add_loop_test(tc, test_random_round_trips, 0, 4);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_max_frame_exactly);
  tcase_add_test(tc, test_nine_digits_over_max_allocates_nothing);
  tcase_add_test(tc, test_max_clamped);
  tcase_add_test(tc, test_grows_as_bytes_arrive);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_loop_test(tc, test_bad_frames, 0, sizeof bad / sizeof bad[0]);
  tcase_add_test(tc, test_eof_inside_frame);
  suite_add_tcase(s, tc);
  return s;
}
