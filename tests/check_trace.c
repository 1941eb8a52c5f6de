/* check_trace.c — `ipcstamp trace`: valid Chrome Trace JSON, every flow
 * arrow has both ends, slices are well formed. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "check_report.h"

#define MAXFLOW 4096

static const char *str_of(yajl_val o, const char *key) {
  const char *p[] = {key, NULL};
  yajl_val v = yajl_tree_get(o, p, yajl_t_string);
  return v ? YAJL_GET_STRING(v) : NULL;
}

static yajl_val val_of(yajl_val o, const char *key) {
  const char *p[] = {key, NULL};
  return yajl_tree_get(o, p, yajl_t_any);
}

/* Instants (the VM's marks) and "span" slices seen by the last check. */
static int n_instants, n_spans;

/* Parses the trace and checks it; returns the number of X slices. */
static int check_trace(const char *path, int want_workers) {
  char eb[256], *text = tt_read(path, NULL);
  yajl_val root = yajl_tree_parse(text, eb, sizeof eb), ev;
  static int s_seen[MAXFLOW], f_seen[MAXFLOW];
  int nx = 0, workers = 0, kernel = 0;
  size_t i;
  long long id;
  ck_assert_msg(root != NULL, "trace is not JSON: %s", eb);
  ev = val_of(root, "traceEvents");
  ck_assert(ev && YAJL_IS_ARRAY(ev));
  memset(s_seen, 0, sizeof s_seen);
  memset(f_seen, 0, sizeof f_seen);
  n_instants = n_spans = 0;
  for (i = 0; i < YAJL_GET_ARRAY(ev)->len; i++) {
    yajl_val e = YAJL_GET_ARRAY(ev)->values[i];
    const char *ph = str_of(e, "ph");
    ck_assert_ptr_nonnull(ph);
    ck_assert(val_of(e, "pid") && YAJL_IS_INTEGER(val_of(e, "pid")));
    if (!strcmp(ph, "X")) {
      yajl_val d = val_of(e, "dur");
      ck_assert(d && YAJL_IS_NUMBER(d));
      ck_assert(YAJL_GET_DOUBLE(d) >= 0);
      ck_assert(val_of(e, "ts") && YAJL_IS_NUMBER(val_of(e, "ts")));
      nx++;
      n_spans += !strcmp(str_of(e, "cat"), "span");
    } else if (!strcmp(ph, "i")) {
      ck_assert(val_of(e, "ts") && YAJL_IS_NUMBER(val_of(e, "ts")));
      ck_assert_str_eq(str_of(e, "s"), "t");
      ck_assert_ptr_nonnull(str_of(e, "name"));
      n_instants++;
    } else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
      id = YAJL_GET_INTEGER(val_of(e, "id"));
      ck_assert(id > 0 && id < MAXFLOW);
      if (ph[0] == 's')
        s_seen[id]++;
      else
        f_seen[id]++;
    } else if (!strcmp(ph, "M")) {
      const char *p[] = {"args", "name", NULL};
      yajl_val n = yajl_tree_get(e, p, yajl_t_string);
      const char *s = n ? YAJL_GET_STRING(n) : NULL;
      ck_assert_ptr_nonnull(s);
      if (!strcmp(str_of(e, "name"), "process_name")) {
        if (!strcmp(s, "kernel"))
          kernel++;
        else if (!strncmp(s, "worker ", 7))
          workers++;
      }
    } else {
      ck_abort_msg("unexpected phase %s", ph);
    }
  }
  for (id = 0; id < MAXFLOW; id++)
    ck_assert_msg(s_seen[id] == f_seen[id] && s_seen[id] <= 1,
                  "flow %lld: %d starts, %d ends", id, s_seen[id], f_seen[id]);
  ck_assert_int_eq(kernel, 1);
  ck_assert_int_eq(workers, want_workers);
  yajl_tree_free(root);
  free(text);
  return nx;
}

START_TEST(test_trace_ours) {
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/ours.slog\" -o \"$TMP/t.json\""), 0);
  /* 5 deliveries, 3 upcalls: 2 delivery slices each, a worker slice per
   * run (5 + 3), an upcall and a kernel slice per upcall. */
  ck_assert_int_eq(check_trace(tt_tmp("t.json"), 2), 10 + 8 + 6);
  ck_assert_int_eq(tt_sh("grep -c '\"ph\":\"s\"' \"$TMP/t.json\" >/dev/null"), 0);
}
END_TEST

START_TEST(test_trace_xsnap_stdout) {
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/xsnap.slog\" -o - >\"$TMP/x.json\""), 0);
  check_trace(tt_tmp("x.json"), 1);
}
END_TEST

/* The VM's spans as slices on the worker's thread, its marks as instants:
 * marks.slog.gz has 12 "deserialize" and 5 "sieve" spans, 5 marks. */
START_TEST(test_trace_marks) {
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/marks.slog.gz\" -o \"$TMP/m.json\""), 0);
  check_trace(tt_tmp("m.json"), 2);
  ck_assert_int_eq(n_spans, 17);
  ck_assert_int_eq(n_instants, 5);
  ck_assert_int_eq(tt_sh("grep -q '\"name\":\"sieve\",\"cat\":\"span\"' \"$TMP/m.json\""), 0);
}
END_TEST

START_TEST(test_trace_run) {
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/run.slog\" -o \"$TMP/r.json\""), 0);
  check_trace(tt_tmp("r.json"), 2);
}
END_TEST

START_TEST(test_trace_vat) {
  ck_assert_int_eq(
      tt_sh("\"$IPS\" trace --vat v2 \"$DATA/ours.slog\" -o \"$TMP/v.json\""), 0);
  ck_assert_int_eq(check_trace(tt_tmp("v.json"), 1), 4 + 3 + 2);
}
END_TEST

START_TEST(test_trace_bad) {
  ck_assert_int_eq(
      tt_sh("\"$IPS\" trace \"$DATA/bad.slog\" -o \"$TMP/b.json\" 2>/dev/null"), 3);
  check_trace(tt_tmp("b.json"), 3);
}
END_TEST

Suite *trace_suite(void) {
  Suite *s = suite_create("trace");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_trace_ours);
  tcase_add_test(tc, test_trace_xsnap_stdout);
  tcase_add_test(tc, test_trace_run);
  tcase_add_test(tc, test_trace_marks);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_trace_vat);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_test(tc, test_trace_bad);
  suite_add_tcase(s, tc);
  return s;
}
