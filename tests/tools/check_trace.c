/* check_trace.c — `ipcstamp trace`: the Chrome Trace Event format's rules,
 * checked on the parsed trace.  Timestamps are compared as integers of ns
 * parsed from their decimal text, never as doubles: a check in floating
 * point would hide the very ulp that makes viewers draw staircases. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "tools_suites.h"

#define MAXEV 65536
#define MAXDEPTH 64
#define MAXTHR 256

static const char *str_of(yajl_val o, const char *key) {
  const char *p[] = {key, NULL};
  yajl_val v = yajl_tree_get(o, p, yajl_t_string);
  return v ? YAJL_GET_STRING(v) : NULL;
}

static yajl_val val_of(yajl_val o, const char *key) {
  const char *p[] = {key, NULL};
  return yajl_tree_get(o, p, yajl_t_any);
}

/* A JSON number of microseconds, as written, into integer ns: digits, an
 * optional point and at most three decimals.  Anything else fails. */
static int64_t ns_of(yajl_val e, const char *key) {
  yajl_val v = val_of(e, key);
  const char *s, *p;
  int64_t us = 0, frac = 0, sign = 1;
  int nd = 0;
  ck_assert_msg(v && YAJL_IS_NUMBER(v), "no number %s", key);
  s = YAJL_GET_NUMBER(v);
  p = s;
  if (*p == '-') {
    sign = -1;
    p++;
  }
  ck_assert_msg(*p >= '0' && *p <= '9', "%s: %s", key, s);
  while (*p >= '0' && *p <= '9')
    us = us * 10 + (*p++ - '0');
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++, nd++)
      frac = frac * 10 + (*p - '0');
  ck_assert_msg(!*p && nd <= 3, "%s is not exact microseconds: %s", key, s);
  while (nd++ < 3)
    frac *= 10;
  return sign * (us * 1000 + frac);
}

typedef struct {
  int pid, tid;
  int depth;
  const char *name[MAXDEPTH];
  int64_t start[MAXDEPTH];
  int64_t last_end[MAXDEPTH + 1]; /* end of the last closed slice per depth */
  int has_end[MAXDEPTH + 1];
  int64_t now;                    /* latest timestamp on the thread */
} thr_t;

typedef struct {
  int pid, tid;
  int64_t ts;
  const char *cat;
} start_t;

typedef struct {
  int slices, instants, flows, workers, kernel;
} trace_counts_t;

static thr_t *thread_of(thr_t *th, int *n, int pid, int tid) {
  int i;
  for (i = 0; i < *n; i++)
    if (th[i].pid == pid && th[i].tid == tid)
      return &th[i];
  ck_assert_int_lt(*n, MAXTHR);
  memset(&th[*n], 0, sizeof th[*n]);
  th[*n].pid = pid;
  th[*n].tid = tid;
  th[*n].now = INT64_MIN;
  return &th[(*n)++];
}

/* Parses the trace and checks, per thread: every B has its E with the same
 * name, in stack order; timestamps never go back; sibling slices never
 * overlap (each starts at or after the previous one's end) and children lie
 * within their parent.  Every flow has one s and one f sharing id and
 * category, and each is bound: a slice of its category starts at its exact
 * timestamp on its thread.  Counts what it saw into *c. */
static void check_trace(const char *path, trace_counts_t *c) {
  char eb[256], *text = tt_read(path, NULL);
  yajl_val root = yajl_tree_parse(text, eb, sizeof eb), ev;
  static thr_t th[MAXTHR];
  static start_t starts[MAXEV];
  static const char *fcat[MAXEV];
  static int fs[MAXEV], ff[MAXEV];
  int nth = 0, nst = 0, i, pass;
  size_t k, nev;
  memset(c, 0, sizeof *c);
  memset(fs, 0, sizeof fs);
  memset(ff, 0, sizeof ff);
  memset(fcat, 0, sizeof fcat);
  ck_assert_msg(root != NULL, "trace is not JSON: %s", eb);
  ck_assert_msg(!val_of(root, "displayTimeUnit"), "displayTimeUnit is back");
  ev = val_of(root, "traceEvents");
  ck_assert(ev && YAJL_IS_ARRAY(ev));
  nev = YAJL_GET_ARRAY(ev)->len;
  /* Two passes: the slices first (their starts), then the flows. */
  for (pass = 0; pass < 2; pass++) {
    for (k = 0; k < nev; k++) {
      yajl_val e = YAJL_GET_ARRAY(ev)->values[k];
      const char *ph = str_of(e, "ph"), *name = str_of(e, "name");
      int pid, tid;
      ck_assert_ptr_nonnull(ph);
      ck_assert_ptr_nonnull(name);
      ck_assert(val_of(e, "pid") && YAJL_IS_INTEGER(val_of(e, "pid")));
      ck_assert(val_of(e, "tid") && YAJL_IS_INTEGER(val_of(e, "tid")));
      pid = (int)YAJL_GET_INTEGER(val_of(e, "pid"));
      tid = (int)YAJL_GET_INTEGER(val_of(e, "tid"));
      if (!strcmp(ph, "M")) {
        const char *p[] = {"args", NULL};
        ck_assert(yajl_tree_get(e, p, yajl_t_object));
        if (pass == 0 && !strcmp(name, "process_name")) {
          const char *pn = str_of(val_of(e, "args"), "name");
          ck_assert_msg(pn != NULL, "process_name without a name");
          if (!strcmp(pn, "kernel"))
            c->kernel++;
          else if (!strncmp(pn, "worker ", 7))
            c->workers++;
        }
        continue;
      }
      if (!strcmp(ph, "B") || !strcmp(ph, "E")) {
        thr_t *t;
        int64_t ts = ns_of(e, "ts");
        if (pass)
          continue;
        t = thread_of(th, &nth, pid, tid);
        ck_assert_msg(ts >= t->now, "pid %d tid %d goes back at event %zu",
                      pid, tid, k);
        t->now = ts;
        ck_assert_ptr_nonnull(str_of(e, "cat"));
        if (ph[0] == 'B') {
          ck_assert_int_lt(t->depth, MAXDEPTH);
          ck_assert_msg(!t->has_end[t->depth] || ts >= t->last_end[t->depth],
                        "%s overlaps its previous sibling (event %zu)", name, k);
          t->name[t->depth] = name;
          t->start[t->depth] = ts;
          /* a new parent: its children start afresh */
          t->has_end[t->depth + 1] = 0;
          t->depth++;
          ck_assert_int_lt(nst, MAXEV);
          starts[nst].pid = pid;
          starts[nst].tid = tid;
          starts[nst].ts = ts;
          starts[nst++].cat = str_of(e, "cat");
          c->slices++;
        } else {
          ck_assert_msg(t->depth > 0, "E %s without its B (event %zu)", name, k);
          t->depth--;
          ck_assert_str_eq(name, t->name[t->depth]);
          ck_assert(ts >= t->start[t->depth]);
          ck_assert_msg(!t->has_end[t->depth + 1] ||
                            t->last_end[t->depth + 1] <= ts,
                        "a child of %s ends after it", name);
          t->last_end[t->depth] = ts;
          t->has_end[t->depth] = 1;
        }
      } else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
        long long id;
        int64_t ts = ns_of(e, "ts");
        const char *cat = str_of(e, "cat");
        int bound = 0;
        if (!pass)
          continue;
        ck_assert(val_of(e, "id") && YAJL_IS_INTEGER(val_of(e, "id")));
        id = YAJL_GET_INTEGER(val_of(e, "id"));
        ck_assert(id > 0 && id < MAXEV);
        ck_assert_ptr_nonnull(cat);
        if (fcat[id])
          ck_assert_str_eq(cat, fcat[id]);
        fcat[id] = cat;
        if (ph[0] == 's') {
          fs[id]++;
        } else {
          ck_assert_str_eq(str_of(e, "bp"), "e");
          ff[id]++;
        }
        for (i = 0; i < nst && !bound; i++)
          bound = starts[i].pid == pid && starts[i].tid == tid &&
                  starts[i].ts == ts && !strcmp(starts[i].cat, cat);
        ck_assert_msg(bound, "flow %lld (%s %s) starts no slice of pid %d tid "
                      "%d", id, ph, name, pid, tid);
        c->flows += ph[0] == 's';
      } else if (!strcmp(ph, "i")) {
        const char *s = str_of(e, "s");
        if (!pass) {
          ns_of(e, "ts");
          ck_assert_msg(s && (!strcmp(s, "t") || !strcmp(s, "p") ||
                              !strcmp(s, "g")), "instant without a scope");
          c->instants++;
        }
      } else {
        ck_abort_msg("unexpected phase %s", ph);
      }
    }
  }
  for (i = 0; i < nth; i++)
    ck_assert_msg(th[i].depth == 0, "pid %d tid %d: %d slices never end",
                  th[i].pid, th[i].tid, th[i].depth);
  for (i = 0; i < MAXEV; i++)
    ck_assert_msg(fs[i] == ff[i] && fs[i] <= 1,
                  "flow %d: %d starts, %d ends", i, fs[i], ff[i]);
  yajl_tree_free(root);
  free(text);
}

START_TEST(test_trace_ours) {
  trace_counts_t c;
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/ours.slog\" -o \"$TMP/t.json\""), 0);
  check_trace(tt_tmp("t.json"), &c);
  /* 5 deliveries, 3 upcalls: per delivery on each side the delivery, a
   * zero-length result and one more slice than upcalls (waits or runs),
   * then each upcall; flows: send and result, an upcall and a reply each. */
  ck_assert_int_eq(c.slices, 2 * (5 * 3 + 3 * 2));
  ck_assert_int_eq(c.flows, 5 * 2 + 3 * 2);
  ck_assert_int_eq(c.workers, 2);
  ck_assert_int_eq(c.kernel, 1);
  /* one "delivery" instant each, with the details the names leave out */
  ck_assert_int_eq(c.instants, 5);
  ck_assert_int_eq(tt_sh("test \"$(grep -o '\"name\":\"v1 getBalance\",\"cat\":\"ipc\",\"ph\":\"B\"' "
                         "\"$TMP/t.json\" | wc -l)\" = 2"), 0);
  ck_assert_int_eq(tt_sh("grep -q '\"name\":\"delivery\",.*\"args\":{\"crank\":2,\"vat\":\"v1\","
                         "\"deliveryNum\":1,\"method\":\"getBalance\"' \"$TMP/t.json\""), 0);
}
END_TEST

START_TEST(test_trace_xsnap_stdout) {
  trace_counts_t c;
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/xsnap.slog\" -o - >\"$TMP/x.json\""), 0);
  check_trace(tt_tmp("x.json"), &c);
  ck_assert_int_eq(c.workers, 1);
  /* the report counts one timequake in this file, besides a details
   * instant per delivery */
  ck_assert_int_eq(c.instants, 1 + 4);
  ck_assert_int_eq(tt_sh("grep -c '\"ph\":\"i\",\"s\":\"t\"' \"$TMP/x.json\" >/dev/null"), 0);
}
END_TEST

/* The VM's spans as B/E slices nested in the worker's runs, its marks as
 * instants: marks.slog.gz has 12 "deserialize" and 5 "sieve" spans and 5
 * marks; the checker holds them to the same nesting rules. */
START_TEST(test_trace_marks) {
  trace_counts_t c;
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/marks.slog.gz\" -o \"$TMP/m.json\""), 0);
  check_trace(tt_tmp("m.json"), &c);
  ck_assert_int_eq(
      tt_sh("test \"$(grep -o '\"cat\":\"span\",\"ph\":\"B\"' \"$TMP/m.json\" | wc -l)\" = 17"), 0);
  ck_assert_int_eq(
      tt_sh("test \"$(grep -o '\"cat\":\"mark\"' \"$TMP/m.json\" | wc -l)\" = 5"), 0);
  ck_assert_int_eq(tt_sh("grep -q '\"name\":\"sieve\",\"cat\":\"span\"' \"$TMP/m.json\""), 0);
}
END_TEST

/* The run-queue delay: the receivers' waits for a CPU as slices nested in
 * the kernel's "awaiting" slices, held by the checker to the nesting rules;
 * rundelay.slog (a loaded run) has both sides' waits. */
START_TEST(test_trace_run_delay) {
  trace_counts_t c;
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/rundelay.slog\" -o \"$TMP/q.json\""), 0);
  check_trace(tt_tmp("q.json"), &c);
  ck_assert_int_eq(tt_sh("grep -q '\"name\":\"worker waiting for a CPU\",\"cat\":\"ipc\",\"ph\":\"B\"' \"$TMP/q.json\""), 0);
  ck_assert_int_eq(tt_sh("grep -q '\"name\":\"kernel waiting for a CPU\",\"cat\":\"ipc\",\"ph\":\"B\"' \"$TMP/q.json\""), 0);
  /* none without the delays */
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/run.slog\" -o \"$TMP/r.json\""), 0);
  ck_assert_int_ne(tt_sh("grep -q 'waiting for a CPU' \"$TMP/r.json\""), 0);
}
END_TEST

START_TEST(test_trace_run) {
  trace_counts_t c;
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/run.slog\" -o \"$TMP/r.json\""), 0);
  check_trace(tt_tmp("r.json"), &c);
  ck_assert_int_eq(c.workers, 2);
}
END_TEST

/* Two vats in flight at once: each has its own thread of the kernel. */
START_TEST(test_trace_overlap) {
  trace_counts_t c;
  ck_assert_int_eq(tt_sh("\"$IPS\" trace \"$DATA/ours.slog\" -o \"$TMP/t.json\" && "
                         "grep -o '\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,' "
                         "\"$TMP/t.json\" | wc -l | grep -qx ' *2'"), 0);
  check_trace(tt_tmp("t.json"), &c);
}
END_TEST

/* A restart (monotime back to where the file began): the deliveries after
 * it go on a second lane of each vat, never over the first ones. */
START_TEST(test_trace_restart_lanes) {
  trace_counts_t c;
  ck_assert_int_eq(tt_sh("cat \"$DATA/ours.slog\" \"$DATA/ours.slog\" >\"$TMP/2.slog\" && "
                         "\"$IPS\" trace \"$TMP/2.slog\" -o \"$TMP/2.json\""), 0);
  check_trace(tt_tmp("2.json"), &c);
  ck_assert_int_eq(c.slices, 2 * 2 * (5 * 3 + 3 * 2));
  ck_assert_int_eq(tt_sh("grep -q '\"name\":\"v1 (lane 2)\"' \"$TMP/2.json\" && "
                         "grep -q '\"name\":\"v2 (lane 2)\"' \"$TMP/2.json\""), 0);
}
END_TEST

/* More restarts than lanes: the rest is left out, said on stderr, and the
 * trace stays valid. */
START_TEST(test_trace_lanes_full) {
  trace_counts_t c;
  ck_assert_int_eq(tt_sh("for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do "
                         "cat \"$DATA/ours.slog\"; done >\"$TMP/18.slog\" && "
                         "\"$IPS\" trace \"$TMP/18.slog\" -o \"$TMP/18.json\" 2>\"$TMP/e\""), 0);
  check_trace(tt_tmp("18.json"), &c);
  ck_assert_int_eq(c.slices, 16 * 2 * (5 * 3 + 3 * 2));
  ck_assert_int_eq(tt_sh("grep -q '^ipcstamp trace: 10 deliveries left out' \"$TMP/e\""), 0);
}
END_TEST

START_TEST(test_trace_vat) {
  trace_counts_t c;
  ck_assert_int_eq(
      tt_sh("\"$IPS\" trace --vat v2 \"$DATA/ours.slog\" -o \"$TMP/v.json\""), 0);
  check_trace(tt_tmp("v.json"), &c);
  ck_assert_int_eq(c.workers, 1);
  ck_assert_int_eq(c.flows, 2 * 2 + 1 * 2); /* 2 deliveries, 1 upcall */
}
END_TEST

START_TEST(test_trace_bad) {
  trace_counts_t c;
  ck_assert_int_eq(
      tt_sh("\"$IPS\" trace \"$DATA/bad.slog\" -o \"$TMP/b.json\" 2>/dev/null"), 3);
  check_trace(tt_tmp("b.json"), &c);
  ck_assert_int_eq(c.workers, 3);
}
END_TEST

Suite *trace_suite(void) {
  Suite *s = suite_create("trace");
  TCase *tc = tcase_create("Core");
  tcase_add_test(tc, test_trace_ours);
  tcase_add_test(tc, test_trace_xsnap_stdout);
  tcase_add_test(tc, test_trace_run);
  tcase_add_test(tc, test_trace_run_delay);
  tcase_add_test(tc, test_trace_marks);
  tcase_add_test(tc, test_trace_overlap);
  suite_add_tcase(s, tc);
  tc = tcase_create("Limits");
  tcase_add_test(tc, test_trace_vat);
  tcase_add_test(tc, test_trace_restart_lanes);
  tcase_add_test(tc, test_trace_lanes_full);
  suite_add_tcase(s, tc);
  tc = tcase_create("Bad input");
  tcase_add_test(tc, test_trace_bad);
  suite_add_tcase(s, tc);
  return s;
}
