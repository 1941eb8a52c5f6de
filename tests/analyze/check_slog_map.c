/* check_slog_map.c — the mapped reader (ips__slog_map) against the read
 * path, line for line, and a file truncated under the mapping. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze_suites.h"
#include "slog.h"

void slog_map_tests(TCase *core, TCase *bad);

static void write_bytes(const char *path, const char *p, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(p, 1, n, f), n);
  ck_assert_int_eq(fclose(f), 0);
}

/* Every line of path, mapped and read, with max_line: the same bytes,
 * lengths, flags and numbers, the same end.  Returns the lines seen. */
static long same_lines(const char *path, size_t max_line) {
  char err[256], e2[256];
  ips__slog_in_t *m = ips__slog_open(path, max_line, err, sizeof err);
  ips__slog_in_t *r = ips__slog_open(path, max_line, e2, sizeof e2);
  long n = 0;
  ck_assert_ptr_nonnull(m);
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(ips__slog_map(m, path), 1);
  for (;;) {
    const char *lm, *lr;
    size_t nm, nr;
    int fm, fr, rm = ips__slog_next(m, &lm, &nm, &fm, err, sizeof err);
    int rr = ips__slog_next(r, &lr, &nr, &fr, e2, sizeof e2);
    ck_assert_int_eq(rm, rr);
    if (rm != 1)
      break;
    n++;
    ck_assert_uint_eq(nm, nr);
    ck_assert_int_eq(fm, fr);
    ck_assert_int_eq(ips__slog_lineno(m), ips__slog_lineno(r));
    if (!(fm & IPS__LINE_TOOLONG))
      ck_assert(memcmp(lm, lr, nm) == 0);
  }
  /* And again at the end. */
  {
    const char *l;
    size_t len;
    int fl;
    ck_assert_int_eq(ips__slog_next(m, &l, &len, &fl, err, sizeof err), 0);
  }
  ips__slog_close(m);
  ips__slog_close(r);
  return n;
}

/* Random lines of random bytes (NULs included), of lengths around and
 * across max_line, empty ones, with and without a last newline. */
START_TEST(test_map_same_lines) {
  const char *path = tt_tmp("map.slog");
  uint32_t x = 2463534242u;
  int round;
  for (round = 0; round < 60; round++) {
    size_t n = 0, cap = 1u << 20, max_line = 64 + (size_t)round * 37;
    char *p = malloc(cap);
    ck_assert_ptr_nonnull(p);
    while (n < cap - 3 * max_line) {
      size_t len, k;
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      len = x % 4 == 0 ? 0 : x % 3 == 0 ? max_line + (x >> 8) % 3 - 1
                                        : (x >> 8) % (2 * max_line);
      for (k = 0; k < len; k++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        p[n++] = (char)(x % 5 == 0 ? '\0' : 'a' + x % 26);
      }
      p[n++] = '\n';
      if (round > 0 && n > (size_t)round * 9000)
        break; /* small files too */
    }
    if (round % 2)
      n -= p[n - 1] == '\n'; /* a last line without its end */
    write_bytes(path, p, n);
    ck_assert_int_gt(same_lines(path, max_line), 0);
    free(p);
  }
}
END_TEST

/* Files of a few bytes, with and without a newline: the read path once
 * took a read of 2 or 3 bytes for "no room" or "nothing yet" (the codes
 * IPS__SLOG_FULL and IPS__SLOG_AGAIN) and stopped there. */
START_TEST(test_map_tiny_files) {
  static const char *const tiny[] = {"{", "{}", "ty{", "{}\n", "\n\n",
                                     "a\nb", "{}\n{", "abcd"};
  static const long lines[] = {1, 1, 1, 1, 2, 2, 2, 1};
  const char *path = tt_tmp("map-tiny.slog");
  size_t i;
  for (i = 0; i < sizeof tiny / sizeof *tiny; i++) {
    write_bytes(path, tiny[i], strlen(tiny[i]));
    ck_assert_int_eq(same_lines(path, 1024), lines[i]);
  }
}
END_TEST

/* What is not mapped: a gzip file, stdin, a followed file, an empty one;
 * and a mapped file is not followed. */
START_TEST(test_map_not_when) {
  const char *path = tt_tmp("map-not.slog"), *gz = tt_tmp("map-not.slog.gz");
  char err[256], cmd[512];
  ips__slog_in_t *in;
  write_bytes(path, "{\"type\":\"x\"}\n", 13);
  snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", path, gz);
  ck_assert_int_eq(tt_sh(cmd), 0);
  in = ips__slog_open(gz, 1024, err, sizeof err);
  ck_assert_int_eq(ips__slog_map(in, gz), 0);
  ips__slog_close(in);
  in = ips__slog_open(path, 1024, err, sizeof err);
  ck_assert_int_eq(ips__slog_follow(in, path), 0);
  ck_assert_int_eq(ips__slog_map(in, path), 0);
  ips__slog_close(in);
  in = ips__slog_open(path, 1024, err, sizeof err);
  ck_assert_int_eq(ips__slog_map(in, path), 1);
  ck_assert_int_eq(ips__slog_follow(in, path), -1);
  ips__slog_close(in);
  in = ips__slog_open("-", 1024, err, sizeof err);
  ck_assert_int_eq(ips__slog_map(in, "-"), 0);
  ips__slog_close(in);
  write_bytes(path, "", 0);
  in = ips__slog_open(path, 1024, err, sizeof err);
  ck_assert_int_eq(ips__slog_map(in, path), 0);
  ips__slog_close(in);
}
END_TEST

/* A file cut short while it is mapped: reading past its new end would
 * raise SIGBUS.  The reader says what happened (which file, which byte,
 * its new size) and keeps saying it; nothing crashes.  Whichever thread
 * touches the lost pages first (the reader cutting the next range, its
 * parsing ahead, or the caller's parsing of the head block, which is
 * always its own), the caller gets the error: the head block's lines run
 * far past the first page. */
START_TEST(test_map_truncated_under_us) {
  const char *path = tt_tmp("map-cut.slog");
  const char *rec = "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v1\","
                    "\"deliveryNum\":2,\"kd\":[\"message\"],"
                    "\"time\":1700000000.25,\"monotime\":3.5}\n";
  size_t rl = strlen(rec), n = 100000, i;
  char *p = malloc(rl * n), err[512];
  ips__slog_ahead_t *a;
  ips__slog_item_t it;
  int r;
  long good = 0;
  ck_assert_ptr_nonnull(p);
  for (i = 0; i < n; i++)
    memcpy(p + i * rl, rec, rl);
  write_bytes(path, p, rl * n);
  free(p);
  a = ips__slog_ahead_open(path, 1 << 20, 0, 0, err, sizeof err);
  ck_assert_ptr_nonnull(a);
  ck_assert_int_eq(ips__slog_ahead_next(a, &it, err, sizeof err), 1);
  ck_assert_int_eq(truncate(path, 4096), 0);
  while ((r = ips__slog_ahead_next(a, &it, err, sizeof err)) == 1)
    good++;
  ck_assert_int_eq(r, -1);
  ck_assert_int_lt(good, 4096 / (long)rl + 1);
  ck_assert_msg(strstr(err, "map-cut.slog was truncated while being read") &&
                    strstr(err, "now 4096 bytes"),
                "%s", err);
  ck_assert_int_eq(ips__slog_ahead_next(a, &it, err, sizeof err), -1);
  ips__slog_ahead_close(a);
}
END_TEST

void slog_map_tests(TCase *core, TCase *bad) {
  tcase_add_test(core, test_map_same_lines);
  tcase_add_test(core, test_map_not_when);
  tcase_add_test(core, test_map_tiny_files);
  tcase_add_test(bad, test_map_truncated_under_us);
}
