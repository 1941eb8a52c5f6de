/* check_diff.c — the diff (ipcstamp-analyze-diff.h) on the fixtures of
 * Agoric's real block loop run as validators (tests/data/diff-*.slog.gz):
 * the join's contract, what it hands out and in which order, the
 * divergence, and a window far smaller than the lag between two files. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_suites.h"
#include "ipcstamp-analyze-diff.h"

typedef struct {
  uint64_t n, blocks, parts_none;
  long long last_block;
  int block_order_ok;
  long long last_crank;
  int crank_order_ok;
} seen_t;

static void on_delivery(void *arg, const ips_diff_delivery_t *x) {
  seen_t *s = arg;
  s->n++;
  if (x->n_present > 1 && x->part == -1)
    s->parts_none++;
  if (!x->replay && x->n_present == 2) {
    if (x->crank < s->last_crank)
      s->crank_order_ok = 0;
    s->last_crank = x->crank;
  }
}

static void on_block(void *arg, const ips_diff_block_t *b) {
  seen_t *s = arg;
  if (s->blocks && b->height <= s->last_block)
    s->block_order_ok = 0;
  s->last_block = b->height;
  s->blocks++;
}

/* A diff of the given files (NAME=path pairs) with window w, read. */
static ips_diff_t *diff_of(const char *const *names, const char *const *paths,
                           size_t n, size_t w, seen_t *s) {
  ips_diff_options_t o;
  ips_diff_t *d;
  char err[512];
  size_t i;
  ips_diff_options_init(&o);
  o.window = w;
  o.on_delivery = on_delivery;
  o.on_block = on_block;
  o.arg = s;
  memset(s, 0, sizeof *s);
  s->block_order_ok = s->crank_order_ok = 1;
  s->last_crank = -1;
  ck_assert_int_eq(ips_diff_new(&d, &o), 0);
  for (i = 0; i < n; i++)
    ck_assert_msg(ips_diff_add(d, names[i], paths[i], err, sizeof err) == 0,
                  "%s", err);
  ck_assert_msg(ips_diff_run(d, err, sizeof err) == 0, "%s", err);
  return d;
}

START_TEST(test_contract) {
  ips_diff_options_t o;
  ips_diff_t *d;
  char err[512], a[4096];
  ips_diff_options_init(&o);
  o.window = 8;
  ck_assert_int_eq(ips_diff_new(&d, &o), IPS_EINVAL);
  o.window = 0;
  o.src.follow = 1;
  ck_assert_int_eq(ips_diff_new(&d, &o), IPS_EINVAL);
  o.src.follow = 0;
  ck_assert_int_eq(ips_diff_new(&d, &o), 0);
  snprintf(a, sizeof a, "%s", tt_data("diff-a.slog.gz"));
  ck_assert_int_eq(ips_diff_add(d, "a", a, err, sizeof err), 0);
  /* one file: nothing to compare */
  ck_assert_int_eq(ips_diff_run(d, err, sizeof err), IPS_EINVAL);
  ips_diff_free(d);
  ck_assert_int_eq(ips_diff_new(&d, &o), 0);
  ck_assert_int_eq(ips_diff_add(d, "a", a, err, sizeof err), 0);
  ck_assert_int_eq(ips_diff_add(d, "b", a, err, sizeof err), IPS_EINVAL);
  ck_assert_ptr_nonnull(strstr(err, "is given twice (as a and as b)"));
  ck_assert_int_eq(ips_diff_add(d, "a", tt_data("diff-b.slog.gz"), err,
                                sizeof err), IPS_EINVAL);
  ck_assert_ptr_nonnull(strstr(err, "the name a is taken"));
  ck_assert_int_lt(ips_diff_add(d, "c", tt_tmp("none.slog"), err, sizeof err),
                   0);
  ips_diff_free(d);
  ips_diff_free(NULL);
  ck_assert_str_eq(ips_diff_part_name(-1), "-");
  ck_assert_str_eq(ips_diff_part_name(IPS_DIFF_WORKER), "worker");
  ck_assert_str_eq(ips_diff_part_name(9), "?");
}
END_TEST

/* A file against a copy of itself: every delivery joined, the same on
 * both, no node slower on any; the deliveries in crank order and the
 * blocks in height order, as the join promises. */
START_TEST(test_copy) {
  const char *names[2] = {"a", "copy"};
  const char *paths[2];
  const ips_diff_stats_t *st;
  seen_t s;
  ips_diff_t *d;
  char a[4096];
  snprintf(a, sizeof a, "%s", tt_data("diff-a.slog.gz"));
  ck_assert_int_eq(tt_sh("gzip -dc \"$DATA/diff-a.slog.gz\" >\"$TMP/copy.slog\""), 0);
  paths[0] = a;
  paths[1] = tt_tmp("copy.slog");
  d = diff_of(names, paths, 2, 0, &s);
  st = ips_diff_stats(d);
  ck_assert_uint_gt(st->common, 100);
  ck_assert_uint_eq(st->common, st->joined);
  ck_assert_uint_eq(st->agree, st->joined);
  ck_assert_uint_eq(st->divergences, 0);
  ck_assert_uint_eq(s.n, st->joined);
  ck_assert_uint_eq(s.parts_none, st->joined);
  ck_assert_uint_eq(s.blocks, st->blocks);
  ck_assert_uint_eq(st->blocks, 11);
  ck_assert(s.block_order_ok);
  ck_assert(s.crank_order_ok);
  ck_assert_int_eq(ips_diff_node(d, 0)->over, 0);
  ck_assert_int_eq(ips_diff_node(d, 0)->total, ips_diff_node(d, 1)->total);
  ck_assert_int_eq(ips_diff_node(d, 1)->part_max, -1);
  ips_diff_free(d);
}
END_TEST

/* The edited delivery: one divergence, compute differing by one, the
 * same line in both files. */
START_TEST(test_divergence) {
  const char *names[2] = {"a", "div"};
  const char *paths[2];
  const ips_diff_delivery_t *x;
  seen_t s;
  ips_diff_t *d;
  char a[4096], b[4096];
  snprintf(a, sizeof a, "%s", tt_data("diff-a.slog.gz"));
  snprintf(b, sizeof b, "%s", tt_data("diff-div.slog.gz"));
  paths[0] = a;
  paths[1] = b;
  d = diff_of(names, paths, 2, 0, &s);
  ck_assert_uint_eq(ips_diff_stats(d)->divergences, 1);
  ck_assert_uint_eq(ips_diff_divergences(d, &x), 1);
  ck_assert_int_eq(x->diverged, IPS_DIFF_DIV_COMPUTE);
  ck_assert_str_eq(x->method, "work");
  ck_assert_int_eq(x->side[1].compute, x->side[0].compute + 1);
  ck_assert_int_eq(x->side[0].line, x->side[1].line);
  ck_assert(x->has_block);
  ips_diff_free(d);
}
END_TEST

/* The same join with a window of 16 as with the default, for a node
 * that started later (the first file from its 100th crank on: the first
 * file's deliveries before wait for none, and the late file's first waits
 * for the first file to reach it without holding back the others), and
 * for one that numbers its cranks apart (1000 more, as another run might:
 * the join learns the offset from the deliveries it joins). */
static void same_join(const char *second, int offset) {
  const char *names[2] = {"a", "x"};
  const char *paths[2];
  const ips_diff_stats_t *st;
  seen_t s;
  ips_diff_t *d;
  char a[4096], x[4096];
  uint64_t common;
  snprintf(a, sizeof a, "%s", tt_data("diff-a.slog.gz"));
  snprintf(x, sizeof x, "%s", tt_tmp(second));
  paths[0] = a;
  paths[1] = x;
  d = diff_of(names, paths, 2, 0, &s);
  common = ips_diff_stats(d)->common;
  ck_assert_uint_gt(common, 30);
  ips_diff_free(d);
  d = diff_of(names, paths, 2, 16, &s);
  st = ips_diff_stats(d);
  ck_assert_uint_eq(st->common, common);
  ck_assert_uint_eq(st->crank_differs, offset ? common : 0);
  ck_assert_uint_eq(st->window_full, 0);
  ck_assert_uint_eq(st->divergences, 0);
  ck_assert_uint_eq(st->blocks, 11);
  ips_diff_free(d);
}

START_TEST(test_small_window) {
  ck_assert_int_eq(tt_sh("gzip -dc \"$DATA/diff-a.slog.gz\" >\"$TMP/a.slog\" && "
                         "n=$(grep -n '\"type\":\"crank-start\"' \"$TMP/a.slog\" "
                         "| sed -n 100p | cut -d: -f1) && "
                         "tail -n +$n \"$TMP/a.slog\" >\"$TMP/late.slog\" && "
                         "perl -pe "
                         "'s/\"crankNum\":(\\d+)/\"\\\"crankNum\\\":\".($1+1000)/ge' "
                         "\"$TMP/a.slog\" >\"$TMP/apart.slog\""), 0);
  same_join("late.slog", 0);
  same_join("apart.slog", 1);
}
END_TEST

Suite *diff_suite(void) {
  Suite *s = suite_create("Diff");
  TCase *tc = tcase_create("Core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_contract);
  tcase_add_test(tc, test_copy);
  tcase_add_test(tc, test_divergence);
  tcase_add_test(tc, test_small_window);
  suite_add_tcase(s, tc);
  return s;
}
