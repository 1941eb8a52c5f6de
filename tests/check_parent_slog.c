/* check_parent_slog.c — the slogfile writer: field order, number formats,
 * untrusted payloads, file creation rules, write errors. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "parent_suites.h"

static char path[512];

static void setup(void) {
  static int n;
  snprintf(path, sizeof path, "%s/slog-%d-%d", parent_tmpdir(), (int)getpid(),
           n++);
}

/* The file's lines, NUL-separated in one buffer. */
static char *read_lines(const char *p, int *nlines) {
  FILE *f = fopen(p, "rb");
  char *buf;
  long len;
  int i;
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)len + 1);
  ck_assert_int_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  buf[len] = 0;
  ck_assert_msg(len == 0 || buf[len - 1] == '\n', "last line incomplete");
  *nlines = 0;
  for (i = 0; i < len; i++)
    if (buf[i] == '\n') {
      buf[i] = 0;
      (*nlines)++;
    }
  return buf;
}

/* Parse one line and check its keys are exactly `keys` (space-separated)
 * in that order. */
static yajl_val check_line(const char *line, const char *keys) {
  char err[200], want[512], *tok, *save;
  yajl_val v = yajl_tree_parse(line, err, sizeof err);
  size_t i = 0;
  ck_assert_msg(v != NULL, "not JSON: %s (%s)", line, err);
  ck_assert(YAJL_IS_OBJECT(v));
  snprintf(want, sizeof want, "%s", keys);
  for (tok = strtok_r(want, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    ck_assert_msg(i < v->u.object.len, "missing %s in %s", tok, line);
    ck_assert_msg(!strcmp(v->u.object.keys[i], tok), "key %zu is %s, not %s",
                  i, v->u.object.keys[i], tok);
    i++;
  }
  ck_assert_msg(i == v->u.object.len, "extra keys in %s", line);
  return v;
}

static const char *field_text(const char *line, const char *key) {
  static char out[64];
  char pat[64];
  const char *p;
  size_t n = 0;
  snprintf(pat, sizeof pat, "\"%s\":", key);
  p = strstr(line, pat);
  ck_assert_ptr_nonnull(p);
  p += strlen(pat);
  while (p[n] && p[n] != ',' && p[n] != '}' && n < sizeof out - 1)
    n++;
  memcpy(out, p, n);
  out[n] = 0;
  return out;
}

static int decimals(const char *num) {
  const char *dot = strchr(num, '.');
  return dot ? (int)strlen(dot + 1) : 0;
}

START_TEST(test_records) {
  ips_slog_t *s;
  ips_stamp_t D = {1795300856504227LL, 8123456789012LL, 'D'};
  ips_stamp_t U = {1795300856504400LL, 8123456800000LL, 'U'};
  ips_stamp_t R = {1795300856504500LL, 8123456900000LL, 'R'};
  ips_stamp_t st[4];
  const char *metering =
      "{\"compute\":3,\"timestamps\":[1795300856.504300,1795300856.504350,"
      "1795300856.504600,1795300856.504700],\"ipcstamp\":{\"v\":1,"
      "\"kinds\":\"dure\",\"mono\":[1,2,3,4],\"dropped\":0}}";
  ips_result_t res;
  char *argv[] = {"ipcstamp", "run", "--x"};
  char *buf, *line;
  int n, i;
  yajl_val v;
  ck_assert_int_eq(ips_slog_open(&s, path, 0, 3, argv), 0);
  ck_assert_int_eq(ips_slog_deliver(s, 7, "v1", 2, "[\"message\",1]", 13, &D),
                   0);
  ck_assert_int_eq(ips_slog_syscall(s, 7, "v1", 2, 0, "[\"vatstoreGet\",\"k\"]",
                                    19, &U),
                   0);
  ck_assert_int_eq(ips_slog_syscall_result(s, 7, "v1", 2, 0, "nope", 4, &R),
                   0);
  st[0] = D;
  st[1] = U;
  st[2] = R;
  st[3] = (ips_stamp_t){1795300856504800LL, 8123457000000LL, 'E'};
  memset(&res, 0, sizeof res);
  res.kind = IPS_RESULT_OK;
  res.message = "";
  res.data = "{\"ok\":true}";
  res.len = 11;
  res.metering_raw = metering;
  res.metering_len = strlen(metering);
  res.stamps = st;
  res.nstamps = 4;
  ck_assert_int_eq(ips_slog_deliver_result(s, 7, "v1", 2, &res), 0);
  ck_assert_int_eq(ips_slog_console(s, "v1", 2, "hi \xff", 4), 0);
  ck_assert_uint_eq(ips_slog_lines(s), 6);
  ck_assert_int_eq(ips_slog_close(s), 0);

  buf = read_lines(path, &n);
  ck_assert_int_eq(n, 6);
  line = buf;
  v = check_line(line, "type ipcstamp version pid argv time monotime");
  ck_assert_str_eq(YAJL_GET_STRING(v->u.object.values[0]), "slog-start");
  yajl_tree_free(v);
  for (i = 0; i < n; i++, line += strlen(line) + 1) {
    ck_assert_int_eq(decimals(field_text(line, "time")), 6);
    ck_assert_int_eq(decimals(field_text(line, "monotime")), 9);
    if (i == 1) {
      v = check_line(line, "type crankNum vatID deliveryNum vd time monotime");
      ck_assert(strstr(line, "\"vd\":[\"message\",1]") != NULL);
      ck_assert_str_eq(field_text(line, "time"), "1795300856.504227");
      ck_assert_str_eq(field_text(line, "monotime"), "8123.456789012");
      yajl_tree_free(v);
    } else if (i == 2) {
      v = check_line(line, "type crankNum vatID deliveryNum syscallNum vsc "
                           "time monotime");
      yajl_tree_free(v);
    } else if (i == 3) {
      v = check_line(line, "type crankNum vatID deliveryNum syscallNum vsr "
                           "time monotime");
      ck_assert(strstr(line, "\"vsr\":{\"base64\":\"bm9wZQ==\"}") != NULL);
      yajl_tree_free(v);
    } else if (i == 4) {
      v = check_line(line, "type crankNum vatID deliveryNum dr seconds time "
                           "monotime");
      /* The worker's list, exactly as it sent it. */
      ck_assert(strstr(line, "\"timestamps\":[1795300856.504300,"
                             "1795300856.504350,1795300856.504600,"
                             "1795300856.504700]") != NULL);
      ck_assert_str_eq(field_text(line, "seconds"), "0.000210988");
      yajl_tree_free(v);
    } else if (i == 5) {
      v = check_line(line, "type vatID fd line time monotime");
      ck_assert(strstr(line, "\"line\":{\"base64\":\"aGkg/w==\"}") != NULL);
      yajl_tree_free(v);
    }
  }
  free(buf);
}
END_TEST

START_TEST(test_hostile_payloads) {
  ips_slog_t *s;
  ips_stamp_t D = {1, 1, 'D'};
  static const char *p[] = {
      "line1\nline2\r\n\"quoted\"",
      "\xff\xfe\xc3\x28",
      "{\"a\":\"\\u0000\\n\"}",
      "{\"a\":",
      "",
      "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
      "[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
      "]]]]]]]]]]]]",
      "1e999999",
      "\"\xed\xa0\x80\"",
  };
  size_t i;
  int n, k;
  char *buf, *line;
  ck_assert_int_eq(ips_slog_open(&s, path, 0, 0, NULL), 0);
  for (i = 0; i < sizeof p / sizeof p[0]; i++)
    ck_assert_int_eq(ips_slog_deliver(s, i, "v\n\"1", i, p[i], strlen(p[i]),
                                      &D),
                     0);
  ck_assert_int_eq(ips_slog_close(s), 0);
  buf = read_lines(path, &n);
  ck_assert_int_eq(n, (int)(sizeof p / sizeof p[0]) + 1);
  line = buf + strlen(buf) + 1;
  for (k = 1; k < n; k++, line += strlen(line) + 1) {
    yajl_val v =
        check_line(line, "type crankNum vatID deliveryNum vd time monotime");
    yajl_tree_free(v);
  }
  /* Valid JSON is embedded, the rest is base64. */
  for (char *q = buf; q < line; q++)
    if (*q == 0)
      *q = '\n';
  ck_assert(strstr(buf, "\"vd\":{\"base64\":\"bGluZTEKbGluZTIN") != NULL);
  ck_assert(strstr(buf, "\"vd\":{\"a\":\"\\u0000\\n\"}") != NULL);
  ck_assert(strstr(buf, "\"vd\":1e999999") != NULL);
  /* A lone surrogate is not UTF-8. */
  ck_assert(strstr(buf, "\"vd\":{\"base64\":\"Iu2ggCI=\"}") != NULL);
  free(buf);
}
END_TEST

START_TEST(test_existing_file) {
  ips_slog_t *s;
  char link[600];
  FILE *f = fopen(path, "w");
  fputs("precious\n", f);
  fclose(f);
  ck_assert_int_eq(ips_slog_open(&s, path, 0, 0, NULL), -EEXIST);
  ck_assert_ptr_null(s);
  snprintf(link, sizeof link, "%s.link", path);
  ck_assert_int_eq(symlink(path, link), 0);
  ck_assert_int_eq(ips_slog_open(&s, link, IPS_SLOG_FORCE, 0, NULL), -ELOOP);
  ck_assert_int_eq(ips_slog_open(&s, path, IPS_SLOG_FORCE, 0, NULL), 0);
  ck_assert_int_eq(ips_slog_close(s), 0);
  unlink(link);
}
END_TEST

START_TEST(test_dev_full) {
  ips_slog_t *s;
  ips_stamp_t D = {1, 1, 'D'};
  int rc;
  if (access("/dev/full", W_OK) != 0)
    return;
  /* The slog-start line is flushed at once: the error shows at open. */
  rc = ips_slog_open(&s, "/dev/full", 0, 0, NULL);
  ck_assert_int_eq(rc, -ENOSPC);
  ck_assert_ptr_null(s);
  (void)D;
}
END_TEST

START_TEST(test_sticky_error) {
  /* A file-size limit makes a write fail halfway through a line: the error
   * sticks, and the file is cut back to whole lines. */
  ips_slog_t *s;
  ips_stamp_t D = {1, 1, 'D'};
  struct rlimit rl = {10000, 10000};
  char payload[300];
  int i, rc = 0, n;
  char *buf;
  signal(SIGXFSZ, SIG_IGN);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
  memset(payload, 'x', sizeof payload);
  ck_assert_int_eq(ips_slog_open(&s, path, 0, 0, NULL), 0);
  for (i = 0; i < 1000 && rc == 0; i++)
    rc = ips_slog_deliver(s, 1, "v1", 1, payload, sizeof payload, &D);
  if (rc == 0)
    rc = ips_slog_flush(s);
  ck_assert_int_eq(rc, -EFBIG);
  ck_assert_int_eq(ips_slog_error(s), -EFBIG);
  ck_assert_int_eq(ips_slog_deliver(s, 1, "v1", 1, "1", 1, &D), -EFBIG);
  ck_assert_int_eq(ips_slog_close(s), -EFBIG);
  buf = read_lines(path, &n);
  ck_assert_int_gt(n, 1);
  free(buf);
}
END_TEST

Suite *slog_suite(void) {
  Suite *s = suite_create("slog");
  TCase *tc = tcase_create("Core");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_records);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_test(tc, test_sticky_error);
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_hostile_payloads);
  tcase_add_test(tc, test_existing_file);
  tcase_add_test(tc, test_dev_full);
  suite_add_tcase(s, tc);
  return s;
}
