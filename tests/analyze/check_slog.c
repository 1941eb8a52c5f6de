/* check_slog.c — the slog reader: numbers, the skip scan, record parsing in
 * both paths (fast and --strict), lines from plain, gzip and long input. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analyze_suites.h"
#include "decimal.h"
#include "slog.h"

static const ips__rec_t *parse_ok(ips__parser_t *p, const char *line) {
  const ips__rec_t *r;
  char err[256] = "";
  int rc = ips__slog_parse(p, line, strlen(line), &r, err, sizeof err);
  ck_assert_msg(rc == 0, "parse failed (%s): %s", err, line);
  return r;
}

static int parse_fails(int strict, const char *line, char *err, size_t n) {
  ips__parser_t *p = ips__parser_new(strict);
  const ips__rec_t *r;
  int rc = ips__slog_parse(p, line, strlen(line), &r, err, n);
  ips__parser_free(p);
  return rc;
}

START_TEST(test_dec_to_ns) {
  int64_t v;
  ck_assert_int_eq(ips__dec_to_ns("1795300856.504227", 17, &v), 0);
  ck_assert_int_eq(v, 1795300856504227000LL);
  ck_assert_int_eq(ips__dec_to_ns("8123.400117001", 14, &v), 0);
  ck_assert_int_eq(v, 8123400117001LL);
  ck_assert_int_eq(ips__dec_to_ns("12", 2, &v), 0);
  ck_assert_int_eq(v, 12000000000LL);
  ck_assert_int_eq(ips__dec_to_ns("-1.5", 4, &v), 0);
  ck_assert_int_eq(v, -1500000000LL);
  /* Digits past nanoseconds are dropped, not rounded. */
  ck_assert_int_eq(ips__dec_to_ns("0.0000000019", 12, &v), 0);
  ck_assert_int_eq(v, 1);
  ck_assert_int_eq(ips__dec_to_ns("1e9", 3, &v), -1);
  ck_assert_int_eq(ips__dec_to_ns("1.", 2, &v), -1);
  ck_assert_int_eq(ips__dec_to_ns("", 0, &v), -1);
  ck_assert_int_eq(ips__dec_to_ns("99999999999999999999", 20, &v), -1);
}
END_TEST

START_TEST(test_skip) {
  const char *s;
  s = "\"a\\\"b\",1";
  ck_assert_int_eq(ips__json_skip(s, strlen(s), 0, 0), 6);
  s = "\"a\\\\\",1"; /* an escaped backslash, then the closing quote */
  ck_assert_int_eq(ips__json_skip(s, strlen(s), 0, 0), 5);
  s = "  [1,{\"a\":[2,\"]\"]}],3";
  ck_assert_int_eq(ips__json_skip(s, strlen(s), 0, 0), 19);
  s = "123.5e3,";
  ck_assert_int_eq(ips__json_skip(s, strlen(s), 0, 0), 7);
  s = "1,[2]]]";
  ck_assert_int_eq(ips__json_skip(s, strlen(s), 0, 2), 7);
}
END_TEST

START_TEST(test_parse_deliver) {
  int strict;
  for (strict = 0; strict < 2; strict++) {
    ips__parser_t *p = ips__parser_new(strict);
    const ips__rec_t *r = parse_ok(
        p, "{\"type\":\"deliver\",\"crankNum\":7,\"vatID\":\"v12\","
           "\"deliveryNum\":3,\"vd\":[\"message\",\"o+0\",{\"methargs\":"
           "{\"body\":\"#[\\\"deposit\\\",[{\\\"a\\\":1}]]\",\"slots\":[]},"
           "\"result\":\"p-1\"}],\"time\":1795300856.500000,"
           "\"monotime\":8123.400000001}");
    ck_assert_int_eq(r->type, IPS__REC_DELIVER);
    ck_assert_int_eq(r->crank, 7);
    ck_assert_int_eq(r->dnum, 3);
    ck_assert_str_eq(r->vat, "v12");
    ck_assert_str_eq(r->desc, "deposit");
    ck_assert_int_eq(r->time_ns, 1795300856500000000LL);
    ck_assert_int_eq(r->mono_ns, 8123400000001LL);
    r = parse_ok(p, "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v1\","
                    "\"deliveryNum\":0,\"vd\":[\"notify\",[[\"p-1\",{\"s\":1}],"
                    "[\"p-2\",{}]]],\"time\":1.0,\"monotime\":2.0}");
    ck_assert_str_eq(r->desc, "notify p-1 p-2");
    r = parse_ok(p, "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v1\","
                    "\"deliveryNum\":0,\"vd\":[\"message\",\"o+0\",{\"method\":"
                    "\"old\",\"args\":{\"body\":\"[]\"}}],\"time\":1.0}");
    ck_assert_str_eq(r->desc, "old");
    r = parse_ok(p, "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v1\","
                    "\"deliveryNum\":0,\"vd\":[\"dropExports\",[\"o+1\"]],"
                    "\"time\":1.0,\"monotime\":2.0}");
    ck_assert_str_eq(r->desc, "dropExports");
    ips__parser_free(p);
  }
}
END_TEST

START_TEST(test_parse_result) {
  int strict;
  for (strict = 0; strict < 2; strict++) {
    ips__parser_t *p = ips__parser_new(strict);
    const ips__rec_t *r = parse_ok(
        p, "{\"type\":\"deliver-result\",\"crankNum\":7,\"vatID\":\"v1\","
           "\"deliveryNum\":3,\"dr\":[\"ok\",{\"body\":\"#[1,2]\",\"slots\":[]},"
           "{\"compute\":5,\"timestamps\":[1.000001,1.000002,1.000003,1.000004],"
           "\"ipcstamp\":{\"v\":1,\"kinds\":\"dure\",\"mono\":[10,20,30,40],"
           "\"dropped\":0,\"cpu_ns\":15}}],\"seconds\":0.1,\"time\":2.5,"
           "\"monotime\":3.25}");
    ck_assert_int_eq(r->type, IPS__REC_RESULT);
    ck_assert_int_eq(r->ok, 1);
    ck_assert(r->have & IPS__F_METER);
    ck_assert_uint_eq(r->n_walls, 4);
    ck_assert_int_eq(r->walls[2], 1000003000LL);
    ck_assert_uint_eq(r->n_wmono, 4);
    ck_assert_int_eq(r->wmono[3], 40);
    ck_assert_str_eq(r->kinds, "dure");
    ck_assert_int_eq(r->cpu_ns, 15);
    ck_assert_int_eq(r->mono_ns, 3250000000LL);
    r = parse_ok(p, "{\"type\":\"deliver-result\",\"crankNum\":7,\"vatID\":\"v1\","
                    "\"deliveryNum\":3,\"dr\":[\"error\",\"boom\",null],"
                    "\"time\":2.5,\"monotime\":3.25}");
    ck_assert_int_eq(r->ok, 0);
    ck_assert(!(r->have & IPS__F_METER));
    r = parse_ok(p, "{\"type\":\"crank-start\",\"crankNum\":1,\"time\":1.0}");
    ck_assert_int_eq(r->type, IPS__REC_OTHER);
    ips__parser_free(p);
  }
}
END_TEST

/* time first (as other writers do), and a payload that looks like a tail:
 * the fast path is fooled, and the retry without skipping gets it right. */
START_TEST(test_time_first) {
  ips__parser_t *p = ips__parser_new(0);
  const ips__rec_t *r = parse_ok(
      p, "{\"time\":1.5,\"type\":\"syscall\",\"crankNum\":1,\"vatID\":\"v1\","
         "\"deliveryNum\":0,\"syscallNum\":0,\"vsc\":[\"x\",{\"a\":[1],"
         "\"time\":2}],\"monotime\":2.5}");
  ck_assert_int_eq(r->type, IPS__REC_SYSCALL);
  ck_assert_int_eq(r->time_ns, 1500000000LL);
  ck_assert_int_eq(r->mono_ns, 2500000000LL);
  ips__parser_free(p);
}
END_TEST

/* Both paths read the same records from every line of the test files. */
START_TEST(test_fast_equals_strict) {
  static const char *const files[] = {"ours.slog", "xsnap.slog", "bad.slog"};
  size_t i;
  for (i = 0; i < 3; i++) {
    char *text = tt_read(tt_data(files[i]), NULL), *line = text, *nl;
    ips__parser_t *f = ips__parser_new(0), *s = ips__parser_new(1);
    for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
      const ips__rec_t *a, *b;
      char e1[256], e2[256];
      int r1, r2;
      size_t n;
      nl = strchr(line, '\n');
      n = nl ? (size_t)(nl - line) : strlen(line);
      r1 = ips__slog_parse(f, line, n, &a, e1, sizeof e1);
      r2 = ips__slog_parse(s, line, n, &b, e2, sizeof e2);
      ck_assert_int_eq(r1 < 0, r2 < 0);
      if (r1 < 0 || a->type == IPS__REC_OTHER)
        continue;
      ck_assert_int_eq(a->type, b->type);
      ck_assert_uint_eq(a->have, b->have);
      ck_assert_str_eq(a->vat, b->vat);
      ck_assert_str_eq(a->desc, b->desc);
      ck_assert_int_eq(a->time_ns, b->time_ns);
      ck_assert_int_eq(a->mono_ns, b->mono_ns);
      ck_assert_uint_eq(a->n_walls, b->n_walls);
      ck_assert_uint_eq(a->n_wmono, b->n_wmono);
      ck_assert_int_eq(a->ok, b->ok);
      ck_assert_int_eq(memcmp(a->walls, b->walls, a->n_walls * 8), 0);
    }
    ips__parser_free(f);
    ips__parser_free(s);
    free(text);
  }
}
END_TEST

/* The metering is dr[2], never a later element: the skipping path once
 * walked back from the line's end to the last object in dr, so a fourth
 * element's timestamps were read as the worker's (found by fuzz_slog). */
START_TEST(test_metering_is_dr2) {
  static const char line[] =
      "{\"type\":\"deliver-result\",\"crankNum\":1,\"vatID\":\"v1\","
      "\"deliveryNum\":0,\"dr\":[\"ok\",null,{\"meterType\":\"x\"},"
      "{\"timestamps\":[1700000000.0104,1700000000.0108]}],"
      "\"time\":1700000000.0109,\"monotime\":0.0109}";
  ips__parser_t *f = ips__parser_new(0), *s = ips__parser_new(1);
  const ips__rec_t *a, *b;
  char e[256];
  ck_assert_int_eq(ips__slog_parse(f, line, sizeof line - 1, &a, e, sizeof e), 0);
  ck_assert_int_eq(ips__slog_parse(s, line, sizeof line - 1, &b, e, sizeof e), 0);
  ck_assert(b->have & IPS__F_METER);
  ck_assert(!(b->have & IPS__F_WALLS));
  ck_assert_uint_eq(a->have, b->have);
  ck_assert_uint_eq(a->n_walls, 0);
  ips__parser_free(f);
  ips__parser_free(s);
}
END_TEST

static void write_file(const char *path, const char *text, int gz) {
  if (gz) {
    gzFile g = gzopen(path, "wb");
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(gzwrite(g, text, (unsigned)strlen(text)), (int)strlen(text));
    gzclose(g);
  } else {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
  }
}

START_TEST(test_lines_plain_and_gzip) {
  int gz;
  for (gz = 0; gz < 2; gz++) {
    const char *path = tt_tmp(gz ? "l.gz" : "l.txt");
    char err[256];
    const char *line;
    size_t len;
    int flags;
    ips__slog_in_t *in;
    write_file(path, "one\n\ntwo\nthree", gz);
    in = ips__slog_open(path, 1024, err, sizeof err);
    ck_assert_ptr_nonnull(in);
    ck_assert_int_eq(ips__slog_next(in, &line, &len, &flags, err, sizeof err), 1);
    ck_assert_uint_eq(len, 3);
    ck_assert_int_eq(memcmp(line, "one", 3), 0);
    ck_assert_int_eq(ips__slog_next(in, &line, &len, &flags, err, sizeof err), 1);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(ips__slog_next(in, &line, &len, &flags, err, sizeof err), 1);
    ck_assert_int_eq(flags, 0);
    ck_assert_int_eq(ips__slog_next(in, &line, &len, &flags, err, sizeof err), 1);
    ck_assert_int_eq(flags, IPS__LINE_NOEOL);
    ck_assert_uint_eq(len, 5);
    ck_assert_int_eq(ips__slog_lineno(in), 4);
    ck_assert_int_eq(ips__slog_next(in, &line, &len, &flags, err, sizeof err), 0);
    ips__slog_close(in);
  }
}
END_TEST

/* ---- Limits ---- */

START_TEST(test_long_line_dropped) {
  const char *path = tt_tmp("long.txt");
  size_t big = 5u << 20, len;
  char *text = malloc(big + 16), err[256];
  const char *line;
  int flags;
  ips__slog_in_t *in;
  memset(text, 'x', big);
  strcpy(text + big, "\nok\n");
  write_file(path, text, 0);
  free(text);
  in = ips__slog_open(path, 4096, err, sizeof err);
  ck_assert_int_eq(ips__slog_next(in, &line, &len, &flags, err, sizeof err), 1);
  ck_assert_int_eq(flags, IPS__LINE_TOOLONG);
  ck_assert_uint_eq(len, big);
  ck_assert_int_eq(ips__slog_next(in, &line, &len, &flags, err, sizeof err), 1);
  ck_assert_int_eq(flags, 0);
  ck_assert_uint_eq(len, 2);
  ck_assert_int_eq(ips__slog_next(in, &line, &len, &flags, err, sizeof err), 0);
  ips__slog_close(in);
}
END_TEST

START_TEST(test_too_many_stamps) {
  size_t n = IPS__MAX_STAMPS + 1, i;
  char *line = malloc(n * 2 + 200), err[256];
  char *o = line;
  o += sprintf(o, "{\"type\":\"deliver-result\",\"vatID\":\"v1\",\"dr\":[\"ok\",null,"
                  "{\"timestamps\":[");
  for (i = 0; i < n; i++)
    o += sprintf(o, "%s1", i ? "," : "");
  strcpy(o, "]}],\"time\":1.0}");
  ck_assert_int_eq(parse_fails(0, line, err, sizeof err), -2);
  ck_assert_ptr_nonnull(strstr(err, "more than 1048576 stamps"));
  free(line);
}
END_TEST

START_TEST(test_long_vat) {
  char err[256];
  ck_assert_int_eq(
      parse_fails(0, "{\"type\":\"deliver\",\"vatID\":\"v123456789012345678901234"
                     "56789012345678901234567890123456789012345\",\"time\":1.0}",
                  err, sizeof err), -2);
  ck_assert_ptr_nonnull(strstr(err, "vatID"));
}
END_TEST

/* ---- Bad input ---- */

/* Found by fuzz_slog: with "type" given twice the fast path, which stops at
 * the first, and yajl, which read on, took different records.  A field the
 * report reads may appear once. */
START_TEST(test_duplicate_field) {
  static const char *const dup[] = {
      "{\"type\":\"syscalu\",\"crankNum\":2,\"type\":\"syscall\",\"cran\":27}",
      "{\"type\":\"syscall\",\"crankNum\":1,\"crankNum\":2,\"vatID\":\"v1\","
      "\"time\":1.0,\"monotime\":2.0}",
      "{\"type\":\"deliver\",\"time\":1.0,\"monotime\":2.0,\"monotime\":3.0}"};
  size_t i;
  int strict;
  for (strict = 0; strict < 2; strict++)
    for (i = 0; i < sizeof dup / sizeof dup[0]; i++) {
      char err[256] = "";
      if (strict == 0 && i == 0)
        continue; /* an unknown first type: the fast path reads no further */
      ck_assert_msg(parse_fails(strict, dup[i], err, sizeof err) < 0,
                    "accepted (strict=%d): %s", strict, dup[i]);
      ck_assert_msg(strstr(err, "appears twice") != NULL, "%s", err);
    }
}
END_TEST

START_TEST(test_not_json) {
  static const char *const bad[] = {
      "", "hello", "{", "[1]", "{\"type\":\"syscall\",\"vsc\":[1,2",
      "{\"type\":\"syscall\",\"crankNum\":1,\"vatID\":\"v1\",\"vsc\":[\"a\","
      "\"time\":1.0,\"monotime\":2.0}",
      "{\"type\":\"syscall\",\"vatID\":\"v1\",\"vsc\":[1],\"time\":1.0,"
      "\"monotime\":2.0}}",
      "{\"type\":\"deliver\",\"vatID\":\"v1\",\"vd\":[\"message\",\"o\",{"
      "\"methargs\":{\"body\":\"#[\\\"x\\\"]\"}}],\"time\":1.0,\"monotime\":2.0,}",
      "{\"type\":\"deliver-result\",\"vatID\":\"v1\",\"dr\":[\"ok\",,{}],"
      "\"time\":1.0,\"monotime\":2.0}",
      "{\"type\":\"deliver\",\"crankNum\":1x}",
      "{\"type\":\"deliver\",\"time\":1.0} trailing"};
  size_t i;
  int strict;
  for (strict = 0; strict < 2; strict++)
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      char err[256] = "";
      ck_assert_msg(parse_fails(strict, bad[i], err, sizeof err) < 0,
                    "accepted (strict=%d): %s", strict, bad[i]);
      ck_assert(err[0] != '\0');
    }
}
END_TEST

START_TEST(test_bad_numbers) {
  char err[256];
  ck_assert_int_eq(parse_fails(0, "{\"type\":\"deliver\",\"time\":1e9}", err,
                               sizeof err), -2);
  ck_assert_ptr_nonnull(strstr(err, "time"));
  ck_assert_int_eq(parse_fails(0, "{\"type\":\"deliver\",\"crankNum\":-1}", err,
                               sizeof err), -2);
}
END_TEST

START_TEST(test_cut_gzip) {
  const char *path = tt_tmp("cut.gz");
  char cmd[600], err[256];
  const char *line;
  size_t len;
  int flags, r;
  ips__slog_in_t *in;
  char *text = malloc(200000);
  size_t i;
  uint32_t x = 12345; /* random letters: they do not compress away */
  for (i = 0; i < 199999; i++) {
    x = x * 1103515245u + 12345u;
    text[i] = (char)(i % 61 == 60 ? '\n' : 'a' + (char)((x >> 16) % 26));
  }
  text[i] = '\0';
  write_file(path, text, 1);
  free(text);
  snprintf(cmd, sizeof cmd, "truncate -s 2000 '%s'", path);
  ck_assert_int_eq(tt_sh(cmd), 0);
  in = ips__slog_open(path, 1 << 20, err, sizeof err);
  while ((r = ips__slog_next(in, &line, &len, &flags, err, sizeof err)) > 0)
    ;
  ck_assert_int_eq(r, -1);
  ck_assert_ptr_nonnull(strstr(err, "truncated"));
  ips__slog_close(in);
}
END_TEST

START_TEST(test_missing_file) {
  char err[256];
  ck_assert_ptr_null(ips__slog_open("/nonexistent/x.slog", 1024, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.slog"));
}
END_TEST

/* In check_slog_fast.c: the fast path against the yajl path. */
void slog_fast_tests(TCase *core, TCase *bad);
/* In check_slog_map.c: the mapped reader against the read path. */
void slog_map_tests(TCase *core, TCase *bad);

Suite *slog_suite(void) {
  Suite *s = suite_create("slog");
  TCase *tc = tcase_create("Core"), *core = tc;
  tcase_add_test(tc, test_dec_to_ns);
  tcase_add_test(tc, test_skip);
  tcase_add_test(tc, test_parse_deliver);
  tcase_add_test(tc, test_parse_result);
  tcase_add_test(tc, test_fast_equals_strict);
  tcase_add_test(tc, test_metering_is_dr2);
  tcase_add_test(tc, test_time_first);
  tcase_add_test(tc, test_lines_plain_and_gzip);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_long_line_dropped);
  tcase_add_test(tc, test_too_many_stamps);
  tcase_add_test(tc, test_long_vat);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_test(tc, test_not_json);
  tcase_add_test(tc, test_duplicate_field);
  tcase_add_test(tc, test_bad_numbers);
  tcase_add_test(tc, test_cut_gzip);
  tcase_add_test(tc, test_missing_file);
  slog_fast_tests(core, tc);
  slog_map_tests(core, tc);
  suite_add_tcase(s, tc);
  return s;
}
