/* check_causes.c — what the analysis keeps of a slogfile's deliver
 * records when asked (ips_analysis_keep_causes): a delivery's kind, and
 * its causes from the kernel's kd and ksc, fed by the analysis's own
 * reader, line by line, a followed file's too. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze_suites.h"
#include "ipcstamp-analyze.h"

  static const char *recs[] = {
      /* 1: v1 sends to v2 with result kp40, and resolves kp7 */
      "{\"type\":\"deliver\",\"crankNum\":4,\"vatID\":\"v1\","
      "\"deliveryNum\":2,\"kd\":[\"message\",\"ko1\",{\"methargs\":{},"
      "\"result\":\"kp1\"}],\"vd\":[\"message\"]}",
      "{\"type\":\"syscall\",\"crankNum\":4,\"vatID\":\"v1\","
      "\"deliveryNum\":2,\"ksc\":[\"send\",\"ko9\",{\"methargs\":{},"
      "\"result\":\"kp40\"}]}",
      "{\"type\":\"syscall\",\"crankNum\":4,\"vatID\":\"v1\","
      "\"deliveryNum\":2,\"ksc\":[\"resolve\",\"v1\",[[\"kp7\",false,{}]]]}",
      /* 4: not JSON, and a syscall of no delivery being run: ignored */
      "{\"type\":\"syscall\",",
      "{\"type\":\"syscall\",\"vatID\":\"v9\",\"deliveryNum\":1,"
      "\"ksc\":[\"send\",\"ko9\",{\"result\":\"kp41\"}]}",
      /* 6: the message's delivery to v2 */
      "{\"type\":\"deliver\",\"crankNum\":5,\"vatID\":\"v2\","
      "\"deliveryNum\":3,\"kd\":[\"message\",\"ko9\",{\"methargs\":{},"
      "\"result\":\"kp40\"}],\"vd\":[\"message\"]}",
      /* 7: v2 resolves kp40 */
      "{\"type\":\"syscall\",\"crankNum\":5,\"vatID\":\"v2\","
      "\"deliveryNum\":3,\"ksc\":[\"resolve\",\"v2\",[[\"kp40\",false,{}]]]}",
      /* 8: v1 told of kp40 (sent by line 1, resolved by line 6) and of
       * kp7 (resolved by line 1, sent by no delivery of the file) */
      "{\"type\":\"deliver\",\"crankNum\":6,\"vatID\":\"v1\","
      "\"deliveryNum\":3,\"kd\":[\"notify\",[[\"kp40\",{\"state\":"
      "\"fulfilled\"}],[\"kp7\",{}]]],\"vd\":[\"notify\"]}",
      /* 9: a replay: a kind, no causes, not a cause itself */
      "{\"type\":\"deliver\",\"vatID\":\"v2\",\"deliveryNum\":1,"
      "\"replay\":true,\"vd\":[\"bringOutYourDead\"]}",
  };
/* An analysis that keeps causes (or not), on a source of path (followed
 * or not). */
static ips_analysis_t *open_causes(const char *path, int follow, int keep,
                                   ips_source_t **src) {
  ips_source_options_t so;
  ips_analysis_options_t ao;
  ips_analysis_t *a;
  char err[256];
  ips_source_options_init(&so);
  so.follow = follow;
  ck_assert_int_eq(ips_source_open(src, path, &so, err, sizeof err), 0);
  ips_analysis_options_init(&ao);
  ck_assert_int_eq(ips_analysis_new(&a, &ao), 0);
  if (keep)
    ck_assert_int_eq(ips_analysis_keep_causes(a), 0);
  return a;
}

/* Followed: read until the analysis has read n lines (the reader runs on
 * a thread of its own: a read may find nothing yet), waiting up to 20 s. */
static void read_lines(ips_analysis_t *a, ips_source_t *src, uint64_t n) {
  char err[256];
  int i;
  for (i = 0; i < 2000 && ips_analysis_stats(a)->lines < n; i++) {
    long r = ips_analysis_read(a, src, 0, err, sizeof err);
    ck_assert_msg(r > 0 || r == -EAGAIN, "analysis: %s", err);
    if (r == -EAGAIN)
      nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  ck_assert_uint_ge(ips_analysis_stats(a)->lines, n);
}

/* Everything there is. */
static void read_all(ips_analysis_t *a, ips_source_t *src) {
  char err[256];
  long n;
  while ((n = ips_analysis_read(a, src, 0, err, sizeof err)) > 0)
    ;
  ck_assert_msg(n == 0 || n == -EAGAIN, "analysis: %s", err);
}

START_TEST(causes_from_records) {
  ips_delivery_causes_t f;
  ips_analysis_t *a;
  ips_source_t *src;
  const char *path = tt_tmp("causes.slog");
  FILE *fp = fopen(path, "w");
  size_t i;
  ck_assert_ptr_nonnull(fp);
  for (i = 0; i < sizeof recs / sizeof recs[0]; i++)
    fprintf(fp, "%s\n", recs[i]);
  ck_assert_int_eq(fclose(fp), 0);
  a = open_causes(path, 0, 1, &src);
  read_all(a, src);
  ck_assert_int_eq(ips_analysis_causes(a, 1, &f), 1);
  ck_assert_str_eq(f.kind, "message");
  ck_assert_uint_eq(f.n, 0); /* kp1: sent by no delivery of the file */
  ck_assert_int_eq(ips_analysis_causes(a, 2, &f), 0); /* not a deliver record */
  ck_assert_int_eq(ips_analysis_causes(a, 6, &f), 1);
  ck_assert_uint_eq(f.n, 1);
  ck_assert_int_eq(f.c[0].why, 's');
  ck_assert_str_eq(f.c[0].vat, "v1");
  ck_assert_int_eq(f.c[0].crank, 4);
  ck_assert_int_eq(f.c[0].dnum, 2);
  ck_assert_int_eq(f.c[0].line, 1);
  ck_assert_str_eq(f.c[0].kpid, "kp40");
  ck_assert_int_eq(ips_analysis_causes(a, 8, &f), 1);
  ck_assert_str_eq(f.kind, "notify");
  ck_assert_uint_eq(f.n, 3);
  ck_assert_int_eq(f.c[0].why, 'r'); /* kp40 resolved by v2's delivery */
  ck_assert_int_eq(f.c[0].line, 6);
  ck_assert_int_eq(f.c[1].why, 's'); /* kp40 sent by v1's */
  ck_assert_int_eq(f.c[1].line, 1);
  ck_assert_int_eq(f.c[2].why, 'r'); /* kp7 resolved by v1's */
  ck_assert_int_eq(f.c[2].line, 1);
  ck_assert_str_eq(f.c[2].kpid, "kp7");
  ck_assert_int_eq(ips_analysis_causes(a, 9, &f), 1);
  ck_assert_str_eq(f.kind, "bringOutYourDead");
  ck_assert_uint_eq(f.n, 0);
  ck_assert_uint_eq(ips_analysis_causes_forgotten(a), 0);
  /* Asked too late: after the first read. */
  ck_assert_int_eq(ips_analysis_keep_causes(a), IPS_EINVAL);
  ips_analysis_free(a);
  ips_source_close(src);
  /* Not asked: nothing kept. */
  a = open_causes(path, 0, 0, &src);
  read_all(a, src);
  ck_assert_int_eq(ips_analysis_causes(a, 1, &f), 0);
  ips_analysis_free(a);
  ips_source_close(src);
}
END_TEST

/* A followed file that grows: its last line read when it is whole. */
START_TEST(causes_followed) {
  ips_delivery_causes_t f;
  ips_analysis_t *a;
  ips_source_t *src;
  const char *path = tt_tmp("grows.slog");
  FILE *fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp, "%s\n%s\n\n%s\n%s\n%s\n%s", recs[0], recs[1], recs[2], recs[3],
          recs[4], "{\"type\":\"deliver\",\"vatID\":\"v2\",\"deliveryNum\"");
  ck_assert_int_eq(fflush(fp), 0);
  a = open_causes(path, 1, 1, &src);
  read_lines(a, src, 6);
  ck_assert_int_eq(ips_analysis_causes(a, 1, &f), 1);
  ck_assert_int_eq(ips_analysis_causes(a, 7, &f), 0); /* not whole yet */
  fprintf(fp, ":3,\"kd\":[\"message\",\"ko9\",{\"result\":\"kp40\"}]}\n");
  ck_assert_int_eq(fflush(fp), 0);
  read_lines(a, src, 7);
  ck_assert_int_eq(ips_analysis_causes(a, 7, &f), 1);
  ck_assert_uint_eq(f.n, 1);
  ck_assert_int_eq(f.c[0].line, 1);
  fprintf(fp, "%s\n", recs[5]);
  ck_assert_int_eq(fclose(fp), 0);
  read_lines(a, src, 8);
  ck_assert_int_eq(ips_analysis_causes(a, 8, &f), 1);
  ck_assert_str_eq(f.kind, "message");
  ips_analysis_free(a);
  ips_source_close(src);
}
END_TEST

Suite *causes_suite(void) {
  Suite *s = suite_create("Causes");
  TCase *c = tcase_create("Core");
  tcase_add_test(c, causes_from_records);
  tcase_add_test(c, causes_followed);
  suite_add_tcase(s, c);
  return s;
}
