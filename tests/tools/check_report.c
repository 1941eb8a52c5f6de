/* check_report.c — `ipcstamp report` and `latency` against golden outputs,
 * the exact sums, gzip and stdin input, bad input and bad usage. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "tools_suites.h"

static void assert_same(const char *got_path, const char *want_name) {
  char *got = tt_read(got_path, NULL), *want = tt_read(tt_data(want_name), NULL);
  ck_assert_msg(!strcmp(got, want), "%s differs from %s:\n%s", got_path,
                want_name, got);
  free(got);
  free(want);
}

/* Runs cmd (a shell command line; $IPS, $DATA and $TMP are set) with its
 * stdout to a file, expects exit 0 and that output to be the golden file. */
static void expect_golden(const char *cmd, const char *golden) {
  char line[1024];
  snprintf(line, sizeof line, "%s >\"$TMP/golden.out\"", cmd);
  ck_assert_msg(tt_sh(line) == 0, "failed: %s", cmd);
  assert_same(tt_tmp("golden.out"), golden);
}

/* The run-queue delay on Agoric's own kernel:
 * tests/data/xs-rundelay.slog.gz is the start of a slogfile SwingSet wrote
 * (tests/interop/swingset/gen-slog.mjs, its bundles cut), its xsnap vats
 * run by ipcstamp-worker-xs with IPCSTAMP_RUN_DELAY=1.  The worker's waits
 * before d and each r are split out of the send and reply segments; the
 * kernel's side, which wrote no runDelayNs, is "not measured"; and the
 * summary says what pipe is on such a file. */
START_TEST(test_swingset_run_delay) {
  char *s;
  ck_assert_int_eq(tt_sh("\"$IPS\" report --summary \"$DATA/xs-rundelay.slog.gz\" "
                         ">\"$TMP/x.txt\""), 0);
  s = tt_read(tt_tmp("x.txt"), NULL);
  ck_assert_msg(strstr(s, "pipe over 56 deliveries with run-queue delays: "
                          "1476593.266 = transit 113916.259 (7.7%) + waiting "
                          "for a CPU 579163.490 (39.2%: worker 579163.490, "
                          "kernel 0.000) + not measured 783513.517 (53.1%)\n"),
                "%s", s);
  ck_assert_msg(strstr(s, "\npipe on this file: the kernel's stamps are the "
                          "times it wrote its deliver, syscall and result "
                          "records"), "%s", s);
  free(s);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --format json \"$DATA/xs-rundelay.slog.gz\" "
                         "| tail -n 1 | grep -q '\"kernel_stamps\":\"records\"'"), 0);
  /* Our own parent's files say nothing of the kind. */
  ck_assert_int_ne(tt_sh("\"$IPS\" report --summary \"$DATA/rundelay.slog\" "
                         "| grep -q 'pipe on this file'"), 0);
}
END_TEST

START_TEST(test_golden_ours) {
  expect_golden("\"$IPS\" report \"$DATA/ours.slog\"", "ours.report.txt");
  expect_golden("\"$IPS\" report --strict \"$DATA/ours.slog\"", "ours.report.txt");
  expect_golden("\"$IPS\" report --format json \"$DATA/ours.slog\"", "ours.report.json");
}
END_TEST

START_TEST(test_golden_xsnap) {
  expect_golden("\"$IPS\" report \"$DATA/xsnap.slog\"", "xsnap.report.txt");
  expect_golden("\"$IPS\" report --format csv \"$DATA/xsnap.slog\"", "xsnap.report.csv");
}
END_TEST

/* Written by `ipcstamp run` (branch parent) with the JavaScript worker:
 * `--vats 2 --demo --rounds 2`. */
START_TEST(test_golden_run) {
  expect_golden("\"$IPS\" report \"$DATA/run.slog\"", "run.report.txt");
  expect_golden("\"$IPS\" latency --what upcall \"$DATA/run.slog\"", "run.latency.txt");
}
END_TEST

/* Marks and spans: written by `ipcstamp run --worker
 * worker/ipcstamp-worker-js --vats 2 --demo --rounds 1`, whose vats measure
 * "deserialize" and "sieve" with performance.measure; evaluations in the
 * same slog are v1, deliveries v2. */
START_TEST(test_golden_marks) {
  expect_golden("\"$IPS\" report \"$DATA/marks.slog.gz\"", "marks.report.txt");
  expect_golden("\"$IPS\" report --strict \"$DATA/marks.slog.gz\"",
                "marks.report.txt");
  expect_golden("\"$IPS\" report --format json \"$DATA/marks.slog.gz\"",
                "marks.report.json");
  expect_golden("\"$IPS\" latency --what span:sieve \"$DATA/marks.slog.gz\"",
                "marks.latency.txt");
  expect_golden("\"$IPS\" latency --json --what span:deserialize "
                "\"$DATA/marks.slog.gz\"", "marks.latency.json");
  /* A slog without marks keeps its summary: no marks table. */
  ck_assert_int_eq(tt_sh("\"$IPS\" report --summary \"$DATA/run.slog\" | "
                         "grep -q 'marks and spans'"), 1);
  /* A span name is required. */
  ck_assert_int_eq(tt_sh("\"$IPS\" latency --what span: \"$DATA/marks.slog.gz\" "
                         "2>\"$TMP/err\""), 2);
  ck_assert_int_eq(tt_sh("grep -q 'span:NAME needs a name' \"$TMP/err\""), 0);
}
END_TEST

/* Lines are read ahead on a second thread in blocks of 1 MiB: a 3 MB
 * payload (a line longer than a block) must come through whole, and the
 * report must not change, since payloads carry no figures. */
START_TEST(test_line_longer_than_a_block) {
  size_t n, i;
  char *in = tt_read(tt_data("run.slog"), &n), *p = in;
  FILE *f = fopen(tt_tmp("big.slog"), "w");
  int done = 0;
  ck_assert_ptr_nonnull(f);
  while (p < in + n) {
    char *nl = memchr(p, '\n', (size_t)(in + n - p)), *vsc;
    size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(in + n - p);
    if (!done && (vsc = strstr(p, "\"vsc\":")) != NULL && vsc < p + len) {
      char *t = strstr(vsc, ",\"time\":");
      fwrite(p, 1, (size_t)(vsc - p) + 6, f);
      fputs("[\"log\",\"", f);
      for (i = 0; i < 3000000; i++)
        fputc('x', f);
      fputs("\"]", f);
      fwrite(t, 1, (size_t)(p + len - t), f);
      done = 1;
    } else {
      fwrite(p, 1, len, f);
    }
    p += len;
  }
  ck_assert_int_eq(fclose(f), 0);
  free(in);
  ck_assert(done);
  expect_golden("\"$IPS\" report \"$TMP/big.slog\"", "run.report.txt");
}
END_TEST

START_TEST(test_golden_latency) {
  expect_golden("\"$IPS\" latency \"$DATA/ours.slog\"", "ours.latency.txt");
}
END_TEST

START_TEST(test_gzip_and_stdin) {
  ck_assert_int_eq(tt_sh("gzip -c \"$DATA/ours.slog\" >\"$TMP/o.slog.gz\""), 0);
  expect_golden("\"$IPS\" report \"$TMP/o.slog.gz\"", "ours.report.txt");
  expect_golden("\"$IPS\" report - <\"$TMP/o.slog.gz\"", "ours.report.txt");
  expect_golden("cat \"$DATA/ours.slog\" | \"$IPS\" report -", "ours.report.txt");
}
END_TEST

static long long num(yajl_val o, const char *key) {
  const char *path[] = {key, NULL};
  yajl_val v = yajl_tree_get(o, path, yajl_t_number);
  ck_assert_msg(v && YAJL_IS_INTEGER(v), "no integer %s", key);
  return YAJL_GET_INTEGER(v);
}

/* pipe + worker + kernel == total, and the segments add up to it, exactly. */
static void check_sums(const char *file) {
  char cmd[512], *text, *line, *nl;
  int deliveries = 0;
  snprintf(cmd, sizeof cmd,
           "\"$IPS\" report --format json \"$DATA/%s\" >\"$TMP/sum.json\" "
           "2>/dev/null; test $? -le 3",
           file);
  ck_assert_int_eq(tt_sh(cmd), 0);
  text = tt_read(tt_tmp("sum.json"), NULL);
  for (line = text; *line; line = nl + 1) {
    char eb[256];
    yajl_val o, segs;
    const char *sp[] = {"segments", NULL};
    long long sum = 0;
    size_t i;
    nl = strchr(line, '\n');
    ck_assert_ptr_nonnull(nl);
    *nl = '\0';
    o = yajl_tree_parse(line, eb, sizeof eb);
    ck_assert_msg(o != NULL, "output is not JSON: %s", eb);
    segs = yajl_tree_get(o, sp, yajl_t_array);
    if (segs) {
      deliveries++;
      ck_assert_int_eq(num(o, "pipe_ns") + num(o, "worker_ns") + num(o, "kernel_ns"),
                       num(o, "total_ns"));
      for (i = 0; i < YAJL_GET_ARRAY(segs)->len; i++) {
        yajl_val s = YAJL_GET_ARRAY(segs)->values[i];
        sum += YAJL_GET_INTEGER(YAJL_GET_ARRAY(s)->values[1]);
      }
      ck_assert_int_eq(sum, num(o, "total_ns"));
    }
    yajl_tree_free(o);
  }
  ck_assert_int_gt(deliveries, 0);
  free(text);
}

START_TEST(test_sums_exact) {
  check_sums("ours.slog");
  check_sums("xsnap.slog");
  check_sums("bad.slog");
  check_sums("run.slog");
}
END_TEST

START_TEST(test_help) {
  ck_assert_int_eq(tt_sh("\"$IPS\" report --help | grep -q 'usage: ipcstamp report'"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" trace --help | grep -q 'usage: ipcstamp trace'"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" latency --help | grep -q 'usage: ipcstamp latency'"), 0);
}
END_TEST

/* `ipcstamp help SUB` is `SUB --help`; -V and --version. */
START_TEST(test_help_sub_and_version) {
  const char *subs[] = {"run", "report", "trace", "latency"};
  char cmd[512];
  size_t i;
  for (i = 0; i < sizeof subs / sizeof subs[0]; i++) {
    snprintf(cmd, sizeof cmd,
             "\"$IPS\" help %s >\"$TMP/a\" && \"$IPS\" %s --help >\"$TMP/b\" && "
             "cmp -s \"$TMP/a\" \"$TMP/b\" && grep -q 'usage: ipcstamp %s' \"$TMP/a\"",
             subs[i], subs[i], subs[i]);
    ck_assert_msg(tt_sh(cmd) == 0, "help %s", subs[i]);
  }
  ck_assert_int_eq(tt_sh("\"$IPS\" help bogus 2>/dev/null"), 2);
  ck_assert_int_eq(tt_sh("\"$IPS\" -V | grep -qx 'ipcstamp [0-9].*'"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" --version | grep -qx 'ipcstamp [0-9].*'"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" -x 2>/dev/null"), 2);
}
END_TEST

/* The text report in colour on a terminal (a pty from script(1)), never
 * with NO_COLOR set, into a pipe or into a file. */
START_TEST(test_colour) {
  if (tt_sh("command -v script >/dev/null") != 0)
    return; /* util-linux's script is part of Debian's base system */
  ck_assert_int_eq(tt_sh("script -qec '\"$IPS\" report --summary \"$DATA/ours.slog\"' "
                         "/dev/null >\"$TMP/c\" && grep -q \"$(printf '\\033')\\[3[234]m\" \"$TMP/c\""), 0);
  ck_assert_int_eq(tt_sh("NO_COLOR=1 script -qec '\"$IPS\" report --summary \"$DATA/ours.slog\"' "
                         "/dev/null >\"$TMP/c\" && grep -q vat \"$TMP/c\" && "
                         "! grep -q \"$(printf '\\033')\" \"$TMP/c\""), 0);
  ck_assert_int_eq(tt_sh("script -qec '\"$IPS\" report --summary \"$DATA/ours.slog\" -o \"$TMP/f\"' "
                         "/dev/null >/dev/null && grep -q vat \"$TMP/f\" && "
                         "! grep -q \"$(printf '\\033')\" \"$TMP/f\""), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --summary \"$DATA/ours.slog\" | "
                         "grep -c \"$(printf '\\033')\" | grep -qx 0"), 0);
}
END_TEST

/* -o writes what stdout would have had, in every format. */
START_TEST(test_output_file) {
  const char *fmts[] = {"text", "json", "csv"};
  char cmd[512];
  size_t i;
  for (i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
    snprintf(cmd, sizeof cmd,
             "\"$IPS\" report --format %s \"$DATA/ours.slog\" >\"$TMP/a\" && "
             "\"$IPS\" report --format %s \"$DATA/ours.slog\" -o \"$TMP/b\" >\"$TMP/c\" && "
             "cmp -s \"$TMP/a\" \"$TMP/b\" && ! test -s \"$TMP/c\"",
             fmts[i], fmts[i]);
    ck_assert_msg(tt_sh(cmd) == 0, "-o with --format %s", fmts[i]);
  }
  ck_assert_int_eq(tt_sh("\"$IPS\" report --format html \"$DATA/ours.slog\" --output \"$TMP/r.html\" && "
                         "grep -q '^<!DOCTYPE html>' \"$TMP/r.html\" && "
                         "! grep -q '@DATA@' \"$TMP/r.html\" && ! grep -qi 'src=\\|href=\\|url(' \"$TMP/r.html\" && "
                         "grep -o 'https\\{0,1\\}://[^\\\"'\\'' ]*' \"$TMP/r.html\" | "
                         "grep -cv '^http://www.w3.org/2000/svg$' | grep -qx 0"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" report \"$DATA/ours.slog\" -o /nonexistent/r.txt 2>\"$TMP/e\""), 4);
  ck_assert_int_eq(tt_sh("grep -q 'ipcstamp report: cannot write /nonexistent/r.txt' \"$TMP/e\""), 0);
}
END_TEST

/* ---- Limits ---- */

START_TEST(test_vat_filter_and_summary) {
  ck_assert_int_eq(
      tt_sh("\"$IPS\" report --vat v2 --top 1 \"$DATA/ours.slog\" >\"$TMP/v.txt\""), 0);
  ck_assert_int_eq(tt_sh("grep -c '^crank ' \"$TMP/v.txt\" | grep -qx 2"), 0);
  ck_assert_int_eq(tt_sh("grep -q '^v1 ' \"$TMP/v.txt\""), 1);
  ck_assert_int_eq(tt_sh("grep -A1 '^slowest' \"$TMP/v.txt\" | grep -q bringOutYourDead"), 0);
  ck_assert_int_eq(
      tt_sh("\"$IPS\" report --summary \"$DATA/ours.slog\" >\"$TMP/s.txt\""), 0);
  ck_assert_int_eq(tt_sh("grep -q '^crank ' \"$TMP/s.txt\""), 1);
  ck_assert_int_eq(tt_sh("grep -q '^all  *5 ' \"$TMP/s.txt\""), 0);
}
END_TEST

/* --since/--until, --crank and --limit on every analysis command: the
 * deliveries outside are neither printed nor counted. */
START_TEST(test_time_and_crank_windows) {
  /* run.slog: 28 deliveries, 14 in its first 50 ms. */
  ck_assert_int_eq(tt_sh("test $(\"$IPS\" report --since 0 --until 0.05 \"$DATA/run.slog\" "
                         "| grep -c '^crank ') = 14"), 0);
  ck_assert_int_eq(tt_sh("test $(\"$IPS\" report --since 0.05 \"$DATA/run.slog\" "
                         "| grep -c '^crank ') = 14"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --crank 5..7 \"$DATA/run.slog\" | grep '^crank ' "
                         "| cut -d' ' -f2 | tr '\\n' ' ' | grep -qx '5 6 7 '"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --crank 27.. --summary \"$DATA/run.slog\" "
                         "| grep -q '^all  *2 '"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --limit 3 --summary \"$DATA/run.slog\" "
                         "| grep -q '^all  *3 '"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" latency --limit 3 \"$DATA/run.slog\" "
                         "| grep -q ', 3 values'"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" trace --crank 1..2 \"$DATA/run.slog\" -o - "
                         "| grep -o '\"crank\":[0-9]*' | sort -u | tr '\\n' ' ' "
                         "| grep -qx '\"crank\":1 \"crank\":2 '"), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --crank 9..3 \"$DATA/run.slog\" 2>/dev/null"), 2);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --since x \"$DATA/run.slog\" 2>/dev/null"), 2);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --limit 0 \"$DATA/run.slog\" 2>/dev/null"), 2);
}
END_TEST

START_TEST(test_clock_choice) {
  /* The xsnap-style file has no worker mono clock: forcing it skips all. */
  ck_assert_int_eq(
      tt_sh("\"$IPS\" report --clock mono \"$DATA/xsnap.slog\" >\"$TMP/m.txt\" 2>\"$TMP/m.err\""),
      3);
  ck_assert_int_eq(tt_sh("grep -q 'deliveries: 0 attributed' \"$TMP/m.txt\""), 0);
  ck_assert_int_eq(tt_sh("grep -q 'no ipcstamp.mono' \"$TMP/m.err\""), 0);
  /* Forcing wall on ours uses the offset estimate (same machine: small). */
  ck_assert_int_eq(
      tt_sh("\"$IPS\" report --clock wall \"$DATA/ours.slog\" >\"$TMP/w.txt\""), 0);
  ck_assert_int_eq(tt_sh("grep -q '0 on the mono clock, 5 on wall' \"$TMP/w.txt\""), 0);
  ck_assert_int_eq(tt_sh("grep -q 'TIMEQUAKE' \"$DATA/xsnap.report.txt\""), 0);
}
END_TEST

START_TEST(test_long_line_option) {
  ck_assert_int_eq(
      tt_sh("\"$IPS\" report --max-line 1024 \"$DATA/ours.slog\" >/dev/null 2>\"$TMP/e\""), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --max-line 10 \"$DATA/ours.slog\" 2>/dev/null"), 2);
}
END_TEST

/* ---- Bad input ---- */

START_TEST(test_bad_slog) {
  ck_assert_int_eq(tt_sh("\"$IPS\" report - <\"$DATA/bad.slog\" >\"$TMP/b.txt\" 2>\"$TMP/b.err\""),
                   3);
  assert_same(tt_tmp("b.txt"), "bad.report.txt");
  assert_same(tt_tmp("b.err"), "bad.stderr.txt");
  ck_assert_int_eq(tt_sh("\"$IPS\" latency \"$DATA/bad.slog\" >/dev/null 2>&1"), 3);
}
END_TEST

START_TEST(test_bad_usage) {
  ck_assert_int_eq(tt_sh("\"$IPS\" report 2>/dev/null"), 2);
  ck_assert_int_eq(tt_sh("\"$IPS\" report a b 2>/dev/null"), 2);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --format xml \"$DATA/ours.slog\" 2>\"$TMP/u\""), 2);
  ck_assert_int_eq(tt_sh("grep -q xml \"$TMP/u\""), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --clock tai \"$DATA/ours.slog\" 2>/dev/null"), 2);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --top -1 \"$DATA/ours.slog\" 2>/dev/null"), 2);
  ck_assert_int_eq(tt_sh("\"$IPS\" report --bogus \"$DATA/ours.slog\" 2>/dev/null"), 2);
  ck_assert_int_eq(tt_sh("\"$IPS\" latency --what cpu \"$DATA/ours.slog\" 2>/dev/null"), 2);
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/ours.slog\" 2>/dev/null"), 2);
}
END_TEST

/* Every option error names the program and the subcommand, in every
 * subcommand: getopt's own messages would name only the subcommand. */
START_TEST(test_option_errors_named) {
  const char *cases[] = {
      "report --bogus x.slog", "report --vat", "report -q x.slog",
      "trace --bogus x.slog", "trace x.slog -o", "latency --what",
      "latency --json=1 x.slog", "run --bogus", "run --vats", "run --vats 0",
      "report --format xml x.slog", "trace x.slog", "run"};
  char cmd[512];
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *sub = cases[i];
    size_t n = strcspn(sub, " ");
    snprintf(cmd, sizeof cmd,
             "\"$IPS\" %s >/dev/null 2>\"$TMP/e\"; rc=$?; test $rc = 2 && "
             "head -n 1 \"$TMP/e\" | grep -q '^ipcstamp %.*s: .*(try .ipcstamp %.*s --help.)$' && "
             "test $(wc -l <\"$TMP/e\") = 1",
             sub, (int)n, sub, (int)n, sub);
    ck_assert_msg(tt_sh(cmd) == 0, "ipcstamp %s", sub);
  }
}
END_TEST

START_TEST(test_unreadable) {
  ck_assert_int_eq(tt_sh("\"$IPS\" report /nonexistent.slog 2>\"$TMP/e\""), 4);
  ck_assert_int_eq(tt_sh("grep -q 'cannot open /nonexistent.slog' \"$TMP/e\""), 0);
  ck_assert_int_eq(tt_sh("gzip -c \"$DATA/ours.slog\" | head -c 300 >\"$TMP/cut.gz\""), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" report \"$TMP/cut.gz\" >/dev/null 2>\"$TMP/e\""), 4);
  ck_assert_int_eq(tt_sh("grep -q 'truncated' \"$TMP/e\""), 0);
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/ours.slog\" -o /nonexistent/t.json 2>/dev/null"), 4);
}
END_TEST

Suite *report_suite(void) {
  Suite *s = suite_create("report");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_golden_ours);
  tcase_add_test(tc, test_swingset_run_delay);
  tcase_add_test(tc, test_golden_xsnap);
  tcase_add_test(tc, test_golden_latency);
  tcase_add_test(tc, test_golden_run);
  tcase_add_test(tc, test_golden_marks);
  tcase_add_test(tc, test_line_longer_than_a_block);
  tcase_add_test(tc, test_gzip_and_stdin);
  tcase_add_test(tc, test_sums_exact);
  tcase_add_test(tc, test_help);
  tcase_add_test(tc, test_help_sub_and_version);
  tcase_add_test(tc, test_colour);
  tcase_add_test(tc, test_output_file);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_vat_filter_and_summary);
  tcase_add_test(tc, test_clock_choice);
  tcase_add_test(tc, test_time_and_crank_windows);
  tcase_add_test(tc, test_long_line_option);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_test(tc, test_bad_slog);
  tcase_add_test(tc, test_bad_usage);
  tcase_add_test(tc, test_option_errors_named);
  tcase_add_test(tc, test_unreadable);
  suite_add_tcase(s, tc);
  return s;
}
