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

#include "ipcstamp-slog.h"
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

/* "type k1 k2 ... time monotime" for record id, from the schema
 * (ipcstamp-slog.h), optional fields left out. */
static const char *schema_keys(int id) {
  static char out[512];
  static const struct {
    int id;
    const char *key;
    int presence;
  } f[] = {
#define X(rid, key, kind, presence) {IPS_SLOG_##rid, key, presence},
      IPS_SLOG_FIELDS(X)
#undef X
  };
  size_t i;
  snprintf(out, sizeof out, "type");
  for (i = 0; i < sizeof f / sizeof *f; i++)
    if (f[i].id == id && f[i].presence != IPS_SLOG_OPT)
      snprintf(out + strlen(out), sizeof out - strlen(out), " %s", f[i].key);
  snprintf(out + strlen(out), sizeof out - strlen(out), " time monotime");
  return out;
}

static const char *type_of(int id) {
  switch (id) {
#define X(rid, type, status)                                                 \
  case IPS_SLOG_##rid:                                                       \
    return type;
    IPS_SLOG_RECORDS(X)
#undef X
  }
  return "?";
}

START_TEST(test_records) {
  ips_slog_t *s;
  ips_stamp_t D = {1795300856504227LL, 8123456789012LL, 'D', 0, 0};
  ips_stamp_t U = {1795300856504400LL, 8123456800000LL, 'U', 0, 0};
  ips_stamp_t R = {1795300856504500LL, 8123456900000LL, 'R', 0, 0};
  ips_stamp_t st[4];
  const char *metering =
      "{\"compute\":3,\"timestamps\":[1795300856.504300,1795300856.504350,"
      "1795300856.504600,1795300856.504700],\"ipcstamp\":{\"v\":1,"
      "\"kinds\":\"dure\",\"mono\":[1,2,3,4],\"dropped\":0}}";
  static const int order[] = {
      IPS_SLOG_KERNEL_INIT_START, IPS_SLOG_KERNEL_INIT_FINISH,
      IPS_SLOG_CREATE_VAT,        IPS_SLOG_CRANK_START,
      IPS_SLOG_DELIVER,           IPS_SLOG_SYSCALL,
      IPS_SLOG_SYSCALL_RESULT,    IPS_SLOG_DELIVER_RESULT,
      IPS_SLOG_CRANK_FINISH,      IPS_SLOG_CONSOLE,
      IPS_SLOG_TERMINATE};
  ips_result_t res;
  char *argv[] = {"ipcstamp", "run", "--x"};
  char *buf, *line;
  int n, i, nrec = (int)(sizeof order / sizeof *order);
  yajl_val v;
  ck_assert_int_eq(ips_slog_open(&s, path, 0, 3, argv), 0);
  ck_assert_int_eq(ips_slog_worker_start(s, "v1", 4242), 0);
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
  st[3] = (ips_stamp_t){1795300856504800LL, 8123457000000LL, 'E', 0, 0};
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
  ck_assert_int_eq(ips_slog_worker_exit(s, "v1", 0, 9), 0);
  ck_assert_uint_eq(ips_slog_lines(s), (uint64_t)nrec);
  ck_assert_int_eq(ips_slog_close(s), 0);

  buf = read_lines(path, &n);
  ck_assert_int_eq(n, nrec);
  line = buf;
  for (i = 0; i < n; i++, line += strlen(line) + 1) {
    /* Every record: a SwingSet type, the schema's fields in order (a
     * process's terminate has its optional exitStatus and signal). */
    if (order[i] == IPS_SLOG_TERMINATE) {
      char keys[512];
      size_t k = strlen(schema_keys(order[i])) - strlen(" time monotime");
      snprintf(keys, sizeof keys, "%.*s exitStatus signal time monotime",
               (int)k, schema_keys(order[i]));
      v = check_line(line, keys);
    } else {
      v = check_line(line, schema_keys(order[i]));
    }
    ck_assert_str_eq(YAJL_GET_STRING(v->u.object.values[0]),
                     type_of(order[i]));
    yajl_tree_free(v);
    ck_assert_int_eq(decimals(field_text(line, "time")), 6);
    ck_assert_int_eq(decimals(field_text(line, "monotime")), 9);
    switch (order[i]) {
    case IPS_SLOG_KERNEL_INIT_START:
      ck_assert(strstr(line, "\"ipcstamp\":{\"v\":1,\"slog\":2}") != NULL);
      ck_assert(strstr(line, "\"argv\":[\"ipcstamp\",\"run\",\"--x\"]"));
      break;
    case IPS_SLOG_CREATE_VAT:
      ck_assert(strstr(line, "\"vatID\":\"v1\",\"dynamic\":false,") != NULL);
      ck_assert(strstr(line, "\"pid\":4242,") != NULL);
      break;
    case IPS_SLOG_CRANK_START:
      /* At D, like the deliver it frames. */
      ck_assert(strstr(line, "\"crankType\":\"delivery\",\"crankNum\":7,") !=
                NULL);
      ck_assert_str_eq(field_text(line, "monotime"), "8123.456789012");
      break;
    case IPS_SLOG_DELIVER:
      ck_assert(strstr(line, "\"vd\":[\"message\",1]") != NULL);
      ck_assert_str_eq(field_text(line, "time"), "1795300856.504227");
      ck_assert_str_eq(field_text(line, "monotime"), "8123.456789012");
      break;
    case IPS_SLOG_SYSCALL_RESULT:
      ck_assert(strstr(line, "\"vsr\":{\"base64\":\"bm9wZQ==\"}") != NULL);
      break;
    case IPS_SLOG_DELIVER_RESULT:
      /* The worker's list, exactly as it sent it. */
      ck_assert(strstr(line, "\"timestamps\":[1795300856.504300,"
                             "1795300856.504350,1795300856.504600,"
                             "1795300856.504700]") != NULL);
      ck_assert_str_eq(field_text(line, "seconds"), "0.000210988");
      break;
    case IPS_SLOG_CRANK_FINISH:
      ck_assert(strstr(line, "\"crankNum\":7,") != NULL);
      ck_assert_str_eq(field_text(line, "monotime"), "8123.457000000");
      break;
    case IPS_SLOG_CONSOLE:
      ck_assert(strstr(line, "\"level\":\"error\",\"args\":[{\"base64\":"
                             "\"aGkg/w==\"}],\"fd\":2,") != NULL);
      break;
    case IPS_SLOG_TERMINATE:
      ck_assert(strstr(line, "\"shouldReject\":true,\"info\":{\"body\":"
                             "\"#\\\"worker killed by signal 9\\\"\","
                             "\"slots\":[]},\"exitStatus\":0,\"signal\":9,") !=
                NULL);
      break;
    }
  }
  free(buf);
}
END_TEST

/* The parent's wait for a CPU (ips_child_options_t.run_delay) rides on
 * the records stamped on arrival, U and E, in the schema's place; a stamp
 * without it writes nothing (test_records holds that). */
START_TEST(test_run_delay_fields) {
  ips_slog_t *s;
  ips_stamp_t D = {1795300856504227LL, 8123456789012LL, 'D', 1, 5};
  ips_stamp_t U = {1795300856504400LL, 8123456800000LL, 'U', 1, 4321};
  ips_stamp_t R = {1795300856504500LL, 8123456900000LL, 'R', 1, 6};
  ips_stamp_t st[4];
  ips_result_t res;
  char *buf, *line, keys[512];
  int n, i, seen = 0;
  ck_assert_int_eq(ips_slog_open(&s, path, 0, 0, NULL), 0);
  ck_assert_int_eq(ips_slog_deliver(s, 1, "v1", 1, "[]", 2, &D), 0);
  ck_assert_int_eq(ips_slog_syscall(s, 1, "v1", 1, 0, "[]", 2, &U), 0);
  ck_assert_int_eq(ips_slog_syscall_result(s, 1, "v1", 1, 0, "1", 1, &R), 0);
  st[0] = D;
  st[1] = U;
  st[2] = R;
  st[3] = (ips_stamp_t){1795300856504800LL, 8123457000000LL, 'E', 1, 99};
  memset(&res, 0, sizeof res);
  res.kind = IPS_RESULT_OK;
  res.message = "";
  res.data = "1";
  res.len = 1;
  res.stamps = st;
  res.nstamps = 4;
  ck_assert_int_eq(ips_slog_deliver_result(s, 1, "v1", 1, &res), 0);
  ck_assert_int_eq(ips_slog_close(s), 0);
  buf = read_lines(path, &n);
  for (line = buf, i = 0; i < n; i++, line += strlen(line) + 1) {
    if (strstr(line, "\"type\":\"syscall\"")) {
      /* before vsc: the reader skips from vsc to the record's time */
      yajl_tree_free(check_line(
          line, "type crankNum vatID deliveryNum syscallNum runDelayNs vsc "
                "time monotime"));
      ck_assert_str_eq(field_text(line, "runDelayNs"), "4321");
      seen++;
    } else if (strstr(line, "\"type\":\"deliver-result\"")) {
      ck_assert(strstr(line, "\"seconds\":0.000210988,\"runDelayNs\":99,"));
      seen++;
    } else {
      ck_assert(!strstr(line, "runDelayNs"));
    }
  }
  ck_assert_int_eq(seen, 2);
  free(buf);
}
END_TEST

/* crank-start's message: a run-queue item type Agoric's readers know,
 * derived from the start of vd; names are smallcaps-quoted; nothing from vd
 * beyond its first tokens. */
START_TEST(test_crank_message) {
  static const struct {
    const char *vd, *want;
  } c[] = {
      {"[\"evaluate\",\"1+1\"]", "\"message\":{\"type\":\"startVat\","
                                 "\"vatID\":\"v1\"}"},
      {"[\"bringOutYourDead\"]", "\"message\":{\"type\":\"bringOutYourDead\","
                                 "\"vatID\":\"v1\"}"},
      {"[\"notify\",[[\"p-7\",{\"state\":\"fulfilled\"}]]]",
       "\"message\":{\"type\":\"notify\",\"vatID\":\"v1\",\"kpid\":\"p-7\"}"},
      {"[\"message\",\"pay\",{\"a\":1}]",
       "\"target\":\"v1\",\"msg\":{\"methargs\":{\"body\":\"#[\\\"pay\\\",[]]\","
       "\"slots\":[]},\"result\":null}"},
      {"[\"message\",\"o+0\",{\"methargs\":{}}]",
       "\"target\":\"o+0\",\"msg\":{\"methargs\":{\"body\":\"#[null,[]]\""},
      {"[\"message\",\"-x\\\"\"]", "\"body\":\"#[\\\"!-x\\\\\\\"\\\",[]]\""},
      {"\"up:2\"", "\"body\":\"#[\\\"up:2\\\",[]]\""},
      {"{\"upcalls\":1}", "\"body\":\"#[null,[]]\""},
      {"[\"message\",\"\\udead\"]", "\"body\":\"#[\\\"message\\\",[]]\""},
      {"not json", "\"body\":\"#[null,[]]\""},
  };
  char big[1000];
  ips_slog_t *s;
  ips_stamp_t D = {1, 1, 'D', 0, 0};
  size_t i, nc = sizeof c / sizeof *c;
  int n;
  char *buf, *line;
  /* The name past the first 256 bytes is not looked at. */
  snprintf(big, sizeof big, "[\"message\",\"%0600d\"]", 0);
  ck_assert_int_eq(ips_slog_open(&s, path, 0, 0, NULL), 0);
  for (i = 0; i < nc; i++)
    ck_assert_int_eq(ips_slog_deliver(s, i, "v1", i, c[i].vd,
                                      strlen(c[i].vd), &D),
                     0);
  ck_assert_int_eq(ips_slog_deliver(s, nc, "v1", nc, big, strlen(big), &D),
                   0);
  ck_assert_int_eq(ips_slog_close(s), 0);
  buf = read_lines(path, &n);
  ck_assert_int_eq(n, 2 + 2 * ((int)nc + 1));
  line = buf;
  line += strlen(line) + 1;
  line += strlen(line) + 1;
  for (i = 0; i <= nc; i++) {
    yajl_val v = check_line(line, schema_keys(IPS_SLOG_CRANK_START));
    yajl_tree_free(v);
    ck_assert_msg(strstr(line, i < nc ? c[i].want : "\"#[\\\"message\\\",[]]\""),
                  "case %zu: %s", i, line);
    line += strlen(line) + 1;
    line += strlen(line) + 1;
  }
  free(buf);
}
END_TEST

START_TEST(test_vat_limit) {
  /* A vatID no reader would take is refused; the writer goes on. */
  ips_slog_t *s;
  ips_stamp_t D = {1, 1, 'D', 0, 0};
  char vat[IPS_SLOG_VAT_MAX + 2];
  memset(vat, 'v', sizeof vat - 1);
  vat[sizeof vat - 1] = 0;
  ck_assert_int_eq(ips_slog_open(&s, path, 0, 0, NULL), 0);
  ck_assert_int_eq(ips_slog_deliver(s, 1, vat, 1, "1", 1, &D), IPS_EINVAL);
  ck_assert_int_eq(ips_slog_worker_start(s, vat, 1), IPS_EINVAL);
  vat[IPS_SLOG_VAT_MAX] = 0;
  ck_assert_int_eq(ips_slog_deliver(s, 1, vat, 1, "1", 1, &D), 0);
  ck_assert_int_eq(ips_slog_error(s), 0);
  ck_assert_int_eq(ips_slog_close(s), 0);
}
END_TEST

START_TEST(test_hostile_payloads) {
  ips_slog_t *s;
  ips_stamp_t D = {1, 1, 'D', 0, 0};
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
  /* kernel-init-start and -finish, then crank-start and deliver each. */
  ck_assert_int_eq(n, 2 * (int)(sizeof p / sizeof p[0]) + 2);
  line = buf + strlen(buf) + 1;
  line += strlen(line) + 1;
  for (k = 2; k < n; k++, line += strlen(line) + 1) {
    yajl_val v = check_line(line, schema_keys(k % 2 ? IPS_SLOG_DELIVER
                                                    : IPS_SLOG_CRANK_START));
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
  ips_stamp_t D = {1, 1, 'D', 0, 0};
  int rc;
  if (access("/dev/full", W_OK) != 0)
    return;
  /* The kernel-init lines are flushed at once: the error shows at open. */
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
  ips_stamp_t D = {1, 1, 'D', 0, 0};
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
  tcase_add_test(tc, test_run_delay_fields);
  tcase_add_test(tc, test_crank_message);
  tcase_add_test(tc, test_vat_limit);
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
