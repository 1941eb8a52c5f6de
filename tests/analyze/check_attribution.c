/* check_attribution.c — the formula (proto/attribution.c) and the stages
 * of the analysis that feed it (analyze/attribute.c), tested directly:
 * hand-worked deliveries, not golden reports.
 *
 * The figures: docs/report.md, "Formulas".  Each test below has its
 * stamps small enough to check by hand; "sum" checks the identity total =
 * pipe + worker + kernel + unmatched and that the segments add up. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"
#include "attribute.h"

/* ---- the formula ---------------------------------------------------- */

static ips__attr_in_t in_of(const int64_t *P, const int64_t *W, size_t n) {
  ips__attr_in_t in;
  memset(&in, 0, sizeof in);
  in.P = P;
  in.W = W;
  in.n_up = n;
  return in;
}

/* The segments' kinds and lengths, against want (kinds as letters: s w u k
 * r R x for send worker upcall kernel reply result unmatched). */
static void check_segments(const ips__attr_in_t *in, const char *kinds,
                           const int64_t *want) {
  static const char letter[] = "swukrRx";
  size_t ns = ips__attr_nsegments(in), j, got;
  int64_t len[64], sum = 0;
  unsigned char kind[64];
  int k;
  ck_assert_uint_eq(ns, strlen(kinds));
  for (j = 0; j < ns; j++) {
    int64_t v = ips__attr_segment(in, j, &k);
    ck_assert_msg(letter[k] == kinds[j], "segment %zu is %s", j,
                  ips__attr_seg_name(k));
    ck_assert_int_eq(v, want[j]);
    sum += v;
  }
  ck_assert_int_eq(sum, in->P[1 + 2 * in->n_up] - in->P[0]);
  /* in runs, from anywhere: the same */
  got = ips__attr_segments(in, 1, 3, len, kind);
  ck_assert_uint_eq(got, ns - 1 < 3 ? ns - 1 : 3);
  for (j = 0; j < got; j++) {
    ck_assert_int_eq(len[j], want[1 + j]);
    ck_assert_int_eq(letter[kind[j]], kinds[1 + j]);
  }
  ck_assert_uint_eq(ips__attr_segments(in, ns, 64, len, kind), 0);
}

static void check_sums(const ips__attr_out_t *o) {
  ck_assert_int_eq(o->total, o->pipe + o->worker + o->kernel + o->unmatched);
}

START_TEST(test_no_upcall) {
  const int64_t P[] = {0, 1000}, W[] = {10, 900};
  const int64_t seg[] = {10, 890, 100};
  ips__attr_in_t in = in_of(P, W, 0);
  ips__attr_out_t o;
  ck_assert_int_eq(ips__attribute(&in, &o), 0);
  ck_assert_int_eq(o.total, 1000);
  ck_assert_int_eq(o.pipe, 110); /* (d - D) + (E - e) */
  ck_assert_int_eq(o.worker, 890);
  ck_assert_int_eq(o.kernel, 0);
  ck_assert_int_eq(o.unmatched, 0);
  check_sums(&o);
  check_segments(&in, "swR", seg);
}
END_TEST

START_TEST(test_one_upcall) {
  /* D 0, U 100, R 300, E 1000; d 10, u 60, r 320, e 900 */
  const int64_t P[] = {0, 100, 300, 1000}, W[] = {10, 60, 320, 900};
  const int64_t seg[] = {10, 50, 40, 200, 20, 580, 100};
  ips__attr_in_t in = in_of(P, W, 1);
  ips__attr_out_t o;
  ck_assert_int_eq(ips__attribute(&in, &o), 0);
  ck_assert_int_eq(o.pipe, 10 + 40 + 20 + 100);
  ck_assert_int_eq(o.worker, 50 + 580);
  ck_assert_int_eq(o.kernel, 200);
  check_sums(&o);
  check_segments(&in, "swukrwR", seg);
  ck_assert_uint_eq(ips__attr_stamped(&in), 1);
  ck_assert_int_eq(ips__attr_upcall_wait(&in, 0), 320 - 60);
}
END_TEST

START_TEST(test_replay) {
  /* Replayed: the worker made two upcalls (console lines), the kernel
   * recorded one syscall of 50 ns.  P mirrors W between D and E. */
  const int64_t W[] = {10, 100, 200, 300, 450, 900};
  const int64_t P[] = {0, 100, 200, 300, 450, 1000};
  const int64_t seg[] = {10, 90, 100, 100, 150, 450, 100};
  ips__attr_in_t in = in_of(P, W, 2);
  ips__attr_out_t o;
  in.n_unmatched = 2;
  in.kernel_recorded = 50;
  ck_assert_int_eq(ips__attribute(&in, &o), 0);
  ck_assert_int_eq(o.pipe, 10 + 100);
  ck_assert_int_eq(o.worker, 90 + 100 + 450);
  ck_assert_int_eq(o.kernel, 50);
  ck_assert_int_eq(o.unmatched, 100 + 150 - 50);
  check_sums(&o);
  check_segments(&in, "swxwxwR", seg);
  ck_assert_uint_eq(ips__attr_stamped(&in), 2);
}
END_TEST

START_TEST(test_truncated) {
  /* Three upcalls, the worker stamped the first (xsnap's cap); after r1
   * its W mirrors P, E included. */
  const int64_t P[] = {0, 100, 200, 400, 450, 600, 700, 1000};
  const int64_t W[] = {10, 60, 230, 400, 450, 600, 700, 1000};
  const int64_t seg[] = {10, 50, 40, 100, 30, 170, 50, 150, 100, 300};
  ips__attr_in_t in = in_of(P, W, 3);
  ips__attr_out_t o;
  in.truncated = 1;
  in.n_unmatched = 2;
  ck_assert_int_eq(ips__attribute(&in, &o), 0);
  ck_assert_int_eq(o.pipe, 10 + 40 + 30);
  ck_assert_int_eq(o.worker, 50);
  ck_assert_int_eq(o.kernel, 100 + 50 + 100); /* every syscall's */
  ck_assert_int_eq(o.unmatched, 1000 - 80 - 50 - 250);
  check_sums(&o);
  check_segments(&in, "swukrxkxkx", seg);
  ck_assert_uint_eq(ips__attr_stamped(&in), 1);
  ck_assert_int_eq(ips__attr_upcall_wait(&in, 0), 230 - 60);
}
END_TEST

START_TEST(test_replay_cap) {
  /* A replay at xsnap's cap: two upcalls of the worker's own (P mirrors W
   * there), its last stamp unused (W mirrors E), the kernel's recorded
   * syscalls 40 ns; from r2 (450) to E all unmatched. */
  const int64_t W[] = {10, 100, 200, 300, 450, 1000};
  const int64_t P[] = {0, 100, 200, 300, 450, 1000};
  const int64_t seg[] = {10, 90, 100, 100, 150, 550};
  ips__attr_in_t in = in_of(P, W, 2);
  ips__attr_out_t o;
  in.truncated = 1;
  in.n_unmatched = 2;
  in.kernel_recorded = 40;
  ck_assert_int_eq(ips__attribute(&in, &o), 0);
  ck_assert_int_eq(o.pipe, 10); /* the send only: no result stamp */
  ck_assert_int_eq(o.worker, 90 + 100);
  ck_assert_int_eq(o.kernel, 40);
  ck_assert_int_eq(o.unmatched, 100 + 150 + 550 - 40);
  check_sums(&o);
  check_segments(&in, "swxwxx", seg);
  ck_assert_uint_eq(ips__attr_stamped(&in), 2);
  ck_assert_int_eq(ips__attr_upcall_wait(&in, 1), 450 - 300);
}
END_TEST

START_TEST(test_overflow) {
  /* Every stamp in range, every difference fits; the worker's two runs
   * together do not. */
  const int64_t L = IPS__ATTR_LIMIT - 1;
  const int64_t P[] = {0, 0, 0, 0}, W[] = {-L, L, -L, L};
  ips__attr_in_t in = in_of(P, W, 1);
  ips__attr_out_t o;
  ck_assert_int_eq(ips__attribute(&in, &o), -1);
  in.truncated = 1; /* and in each shape */
  in.n_unmatched = 0;
  ck_assert_int_eq(ips__attribute(&in, &o), -1);
  ck_assert(ips__attr_in_range(W, 4));
  {
    const int64_t bad[] = {0, IPS__ATTR_LIMIT};
    ck_assert(!ips__attr_in_range(bad, 2));
  }
}
END_TEST

START_TEST(test_names) {
  ck_assert_str_eq(ips__attr_seg_name(IPS__SEG_SEND), "send");
  ck_assert_str_eq(ips__attr_seg_name(IPS__SEG_UNMATCHED), "unmatched");
  ck_assert_str_eq(ips__attr_seg_name(IPS__SEG_N), "?");
  ck_assert_str_eq(ips__attr_seg_name(-1), "?");
}
END_TEST

/* ---- the stages, from records --------------------------------------- */

typedef struct {
  ips_delivery_t d[4];
  int64_t P[4][16], W[4][16];
  int n;
  int skips[IPS_SKIP_N];
} got_t;

static void on_delivery(void *arg, const ips_delivery_t *d) {
  got_t *g = arg;
  size_t k = 2 + 2 * d->n_up;
  ck_assert_int_lt(g->n, 4);
  g->d[g->n] = *d;
  if (k <= 16) { /* the stamps of the small ones */
    memcpy(g->P[g->n], d->P, k * sizeof *d->P);
    memcpy(g->W[g->n], d->W, k * sizeof *d->W);
  }
  g->n++;
}

static void on_skip(void *arg, const ips_skip_t *s) {
  got_t *g = arg;
  g->skips[s->reason]++;
}

static ips_analysis_t *an;
static got_t got;
static long line;

static void setup(void) {
  ips_analysis_options_t o;
  memset(&got, 0, sizeof got);
  line = 0;
  ips_analysis_options_init(&o);
  o.on_delivery = on_delivery;
  o.on_skip = on_skip;
  o.arg = &got;
  ck_assert_int_eq(ips_analysis_new(&an, &o), 0);
}

static void teardown(void) { ips_analysis_free(an); }

/* A record of vat v1, delivery 1, crank 7, at kernel time t (wall and
 * mono the same: one machine). */
static ips__rec_t rec(int type, int64_t t) {
  ips__rec_t r;
  memset(&r, 0, sizeof r);
  r.type = type;
  r.have = IPS__F_VAT | IPS__F_DNUM | IPS__F_CRANK | IPS__F_TIME | IPS__F_MONO;
  r.vat = "v1";
  r.vat_len = 2;
  r.desc = "message foo";
  r.dnum = 1;
  r.crank = 7;
  r.time_ns = t;
  r.mono_ns = t;
  r.ok = 1;
  return r;
}

static void feed(const ips__rec_t *r) { ips__attr_feed(an, r, ++line); }

/* A deliver-result with the worker's mono (and wall) stamps w[0..n). */
static void result(int64_t t, int64_t *w, size_t n, int replay) {
  ips__rec_t r = rec(IPS__REC_RESULT, t);
  r.have |= IPS__F_DR | IPS__F_METER | IPS__F_WMONO | IPS__F_WALLS;
  if (replay) {
    r.have |= IPS__F_REPLAY;
    r.have &= ~(unsigned)IPS__F_CRANK;
  }
  r.wmono = w;
  r.walls = w;
  r.n_wmono = r.n_walls = n;
  feed(&r);
}

START_TEST(test_stage_matched) {
  int64_t w[] = {10, 60, 320, 900};
  ips__rec_t r = rec(IPS__REC_DELIVER, 0);
  feed(&r);
  feed((r = rec(IPS__REC_SYSCALL, 100), &r));
  feed((r = rec(IPS__REC_SYSCALL_RESULT, 300), &r));
  result(1000, w, 4, 0);
  ck_assert_int_eq(got.n, 1);
  ck_assert_int_eq(got.d[0].clock, 'm'); /* causal on the shared clock */
  ck_assert_int_eq(got.d[0].pipe, 170);
  ck_assert_int_eq(got.d[0].worker, 630);
  ck_assert_int_eq(got.d[0].kernel, 200);
  ck_assert_int_eq(got.d[0].line, 1);
}
END_TEST

START_TEST(test_stage_console_upcall) {
  /* A console line in a delivery is an upcall: the kernel's record is
   * both its arrival and its answer (U = R). */
  int64_t w[] = {10, 60, 140, 900};
  ips__rec_t r = rec(IPS__REC_DELIVER, 0);
  feed(&r);
  feed((r = rec(IPS__REC_CONSOLE, 100), &r));
  result(1000, w, 4, 0);
  ck_assert_int_eq(got.n, 1);
  ck_assert_uint_eq(got.d[0].n_up, 1);
  ck_assert_int_eq(got.d[0].kernel, 0);
  ck_assert_int_eq(got.d[0].pipe, 10 + 40 + 40 + 100);
  ck_assert_int_eq(got.d[0].worker, 50 + 760);
}
END_TEST

START_TEST(test_stage_console_not_upcall) {
  /* A worker whose console lines are not upcalls stamps the syscall
   * alone: the console record is set aside, and counted as another. */
  int64_t w[] = {10, 150, 320, 900};
  ips__rec_t r = rec(IPS__REC_DELIVER, 0);
  feed(&r);
  feed((r = rec(IPS__REC_CONSOLE, 50), &r));
  feed((r = rec(IPS__REC_SYSCALL, 200), &r));
  feed((r = rec(IPS__REC_SYSCALL_RESULT, 300), &r));
  result(1000, w, 4, 0);
  ck_assert_int_eq(got.n, 1);
  ck_assert_uint_eq(got.d[0].n_up, 1);
  ck_assert_int_eq(got.d[0].kernel, 100);
  ck_assert_uint_eq(ips_analysis_stats(an)->other, 1);
}
END_TEST

START_TEST(test_stage_replay) {
  /* Replayed: two worker upcalls, one kernel record (50 ns). */
  int64_t w[] = {10, 100, 200, 300, 450, 900};
  ips__rec_t r = rec(IPS__REC_DELIVER, 0);
  r.have |= IPS__F_REPLAY;
  r.have &= ~(unsigned)IPS__F_CRANK;
  feed(&r);
  r = rec(IPS__REC_SYSCALL, 120);
  r.have &= ~(unsigned)IPS__F_CRANK;
  feed(&r);
  r = rec(IPS__REC_SYSCALL_RESULT, 170);
  r.have &= ~(unsigned)IPS__F_CRANK;
  feed(&r);
  result(1000, w, 6, 1);
  ck_assert_int_eq(got.n, 1);
  ck_assert(got.d[0].replay);
  ck_assert_uint_eq(got.d[0].n_up, 2);
  ck_assert_uint_eq(got.d[0].n_unmatched, 2);
  ck_assert_int_eq(got.d[0].kernel, 50);
  ck_assert_int_eq(got.d[0].unmatched, 200);
  ck_assert_int_eq(got.d[0].pipe, 110);
  ck_assert_int_eq(got.P[0][1], 100); /* P mirrors W */
}
END_TEST

START_TEST(test_stage_truncated) {
  /* xsnap: 251 syscalls, 502 wall stamps (d and 250 pairs, no e), no
   * mono, no kinds.  The worker's clock runs 1000 ns ahead. */
  enum { N = 251 };
  static int64_t w[IPS__XSNAP_MAX_STAMPS];
  ips__rec_t r = rec(IPS__REC_DELIVER, 0);
  size_t i;
  feed(&r);
  w[0] = 1000 + 10;
  for (i = 0; i < N; i++) {
    int64_t u = 100 + 1000 * (int64_t)i;
    feed((r = rec(IPS__REC_SYSCALL, u), &r));
    feed((r = rec(IPS__REC_SYSCALL_RESULT, u + 100), &r));
    if (1 + 2 * i + 1 < IPS__XSNAP_MAX_STAMPS) {
      w[1 + 2 * i] = 1000 + u - 20;  /* u, 20 ns before U */
      w[2 + 2 * i] = 1000 + u + 130; /* r, 30 ns after R */
    } else {
      w[1 + 2 * i] = 1000 + u - 20;  /* the 502nd: u of the last */
    }
  }
  r = rec(IPS__REC_RESULT, 1000 * N + 500);
  r.have |= IPS__F_DR | IPS__F_METER | IPS__F_WALLS;
  r.walls = w;
  r.n_walls = IPS__XSNAP_MAX_STAMPS;
  feed(&r);
  /* Offset from the stamped round trips: ((-20) + 30) / 2 + 1000. */
  ck_assert_int_eq(got.n, 1);
  ck_assert_int_eq(got.d[0].clock, 'w');
  ck_assert_int_eq(got.d[0].offset_ns, 1005);
  ck_assert(got.d[0].truncated);
  ck_assert_uint_eq(got.d[0].n_up, N);
  ck_assert_uint_eq(got.d[0].n_unmatched, 1); /* 250 stamped */
  ck_assert_int_eq(got.d[0].total, 1000 * N + 500);
  ck_assert_int_eq(got.d[0].kernel, 100 * N);
  ck_assert_int_eq(got.d[0].pipe, 5 + 250 * 50);
  ck_assert_int_eq(got.d[0].worker, 70 + 249 * 850);
  /* after r250: up to U251 (875), its kernel (100), then to E (1300) */
  ck_assert_int_eq(got.d[0].unmatched, 875 + 1300);
  ck_assert_uint_eq(ips_analysis_stats(an)->all.n_truncated, 1);
}
END_TEST

START_TEST(test_stage_cap_console) {
  /* xsnap at its cap with a console line: 250 syscalls, then 1 console
   * line, 251 calls.  It keeps 502 stamps: d, 250 pairs, and the console
   * line's send; no e.  That count matches 250 syscalls without the
   * console line, but the records need 504: truncated. */
  enum { N = 250 };
  static int64_t w[IPS__XSNAP_MAX_STAMPS];
  ips__rec_t r = rec(IPS__REC_DELIVER, 0);
  size_t i;
  feed(&r);
  w[0] = 1000 + 10;
  for (i = 0; i < N; i++) {
    int64_t u = 100 + 1000 * (int64_t)i;
    feed((r = rec(IPS__REC_SYSCALL, u), &r));
    feed((r = rec(IPS__REC_SYSCALL_RESULT, u + 100), &r));
    w[1 + 2 * i] = 1000 + u - 20;
    w[2 + 2 * i] = 1000 + u + 130;
  }
  feed((r = rec(IPS__REC_CONSOLE, 1000 * N + 100), &r));
  w[1 + 2 * N] = 1000 + 1000 * N + 80; /* the console line's send */
  r = rec(IPS__REC_RESULT, 1000 * N + 500);
  r.have |= IPS__F_DR | IPS__F_METER | IPS__F_WALLS;
  r.walls = w;
  r.n_walls = IPS__XSNAP_MAX_STAMPS;
  feed(&r);
  ck_assert_int_eq(got.n, 1);
  ck_assert(got.d[0].truncated);
  ck_assert_uint_eq(got.d[0].n_up, N + 1);
  ck_assert_uint_eq(got.d[0].n_unmatched, 1);
  ck_assert_int_eq(got.d[0].offset_ns, 1005);
  ck_assert_int_eq(got.d[0].kernel, 100 * N); /* the console line's is 0 */
  ck_assert(!got.d[0].offset_mismatch);
}
END_TEST

START_TEST(test_stage_replay_cap) {
  /* A replay with 502 stamps and 2 recorded syscalls (its console lines
   * have no records): possibly cut, split on its own stamps. */
  static int64_t w[IPS__XSNAP_MAX_STAMPS];
  ips__rec_t r = rec(IPS__REC_DELIVER, 0);
  size_t i;
  r.have = (r.have | IPS__F_REPLAY) & ~(unsigned)IPS__F_CRANK;
  feed(&r);
  for (i = 0; i < 2; i++) {
    r = rec(IPS__REC_SYSCALL, 100 + 1000 * (int64_t)i);
    r.have &= ~(unsigned)IPS__F_CRANK;
    feed(&r);
    r = rec(IPS__REC_SYSCALL_RESULT, 150 + 1000 * (int64_t)i);
    r.have &= ~(unsigned)IPS__F_CRANK;
    feed(&r);
  }
  for (i = 0; i < IPS__XSNAP_MAX_STAMPS; i++)
    w[i] = 10 + 100 * (int64_t)i; /* d at 10, then every 100 ns */
  r = rec(IPS__REC_RESULT, 60000);
  r.have = (r.have | IPS__F_DR | IPS__F_METER | IPS__F_WALLS | IPS__F_REPLAY) &
           ~(unsigned)IPS__F_CRANK;
  r.walls = w;
  r.n_walls = IPS__XSNAP_MAX_STAMPS;
  feed(&r);
  ck_assert_int_eq(got.n, 1);
  ck_assert(got.d[0].truncated && got.d[0].replay);
  ck_assert_uint_eq(got.d[0].n_up, 250);
  ck_assert_uint_eq(got.d[0].n_unmatched, 250);
  ck_assert_int_eq(got.d[0].kernel, 100); /* the 2 records' 50 each */
  ck_assert_int_eq(got.d[0].worker, 250 * 100);
  ck_assert_int_eq(got.d[0].total, 60000);
  ck_assert_uint_eq(ips_delivery_nsegments(&got.d[0]), 2 + 2 * 250);
}
END_TEST

START_TEST(test_stage_counted) {
  /* A meter kill, and a delivery the kernel's restart cut: counted by
   * reason, not skipped. */
  ips__rec_t r = rec(IPS__REC_DELIVER, 5000000);
  feed(&r);
  r = rec(IPS__REC_RESULT, 6000000);
  r.have |= IPS__F_DR | IPS__F_DRNULL | IPS__F_METERKILL;
  r.ok = 0;
  feed(&r);
  r = rec(IPS__REC_DELIVER, 7000000);
  r.dnum = 2;
  feed(&r);
  r = rec(IPS__REC_OTHER, 1000); /* monotime back: the kernel restarted */
  feed(&r);
  ck_assert_int_eq(got.n, 0);
  ck_assert_uint_eq(ips_analysis_stats(an)->n_meter_kill, 1);
  ck_assert_uint_eq(ips_analysis_stats(an)->n_restart_cut, 1);
  ck_assert_uint_eq(ips_analysis_stats(an)->skipped_deliveries, 0);
}
END_TEST

Suite *attribution_suite(void) {
  Suite *s = suite_create("attribution");
  TCase *tc = tcase_create("Formula");
  tcase_add_test(tc, test_no_upcall);
  tcase_add_test(tc, test_one_upcall);
  tcase_add_test(tc, test_replay);
  tcase_add_test(tc, test_truncated);
  tcase_add_test(tc, test_replay_cap);
  tcase_add_test(tc, test_overflow);
  tcase_add_test(tc, test_names);
  suite_add_tcase(s, tc);
  tc = tcase_create("Stages");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_stage_matched);
  tcase_add_test(tc, test_stage_console_upcall);
  tcase_add_test(tc, test_stage_console_not_upcall);
  tcase_add_test(tc, test_stage_replay);
  tcase_add_test(tc, test_stage_truncated);
  tcase_add_test(tc, test_stage_cap_console);
  tcase_add_test(tc, test_stage_replay_cap);
  tcase_add_test(tc, test_stage_counted);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(attribution_suite());
  int failed;
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
