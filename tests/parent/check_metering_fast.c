/* check_metering_fast.c — the metering decoder's fast path
 * (proto/meter_fast.c) against its general reader (meter_read.c, yajl): on
 * meterings our own writer makes (marks included), on the fuzz seeds, and
 * on every one-byte deletion, insertion and substitution of canonical
 * meterings, whenever the fast path accepts, the general reader must
 * accept too and read the same (every field, every stamp, every mark), and
 * yajl's re-serialisation of the bytes must be the bytes (the parent's
 * slogfile copy of a matched metering is its bytes).  The fast path may
 * decline anything; it may never differ.  Built from the decoder's
 * sources (their internals are not exported). */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "ipcstamp-parent.h"
#include "json.h"
#include "meter.h"
#include "../fuzz/meter_same.h"

static int accepted; /* cases the matcher took, over a test */

/* The two paths on buf[0..n), from a copy of exactly n bytes, so that
 * the sanitizer build sees any read past the end (the matcher reads
 * eight bytes at a time). */
static void same_exact(const char *buf, size_t n);
static void same(const char *buf, size_t n) {
  char *c = malloc(n ? n : 1);
  ck_assert_ptr_nonnull(c);
  memcpy(c, buf, n);
  same_exact(c, n);
  free(c);
}

static void same_exact(const char *buf, size_t n) {
  /* kept across cases, as a child and a parser keep them */
  static ips__meter_t f, s;
  char err[256];
  int rc;
  if (!f.walls)
    ck_assert(meter_alloc(&f, 4096) && meter_alloc(&s, 4096));
  /* the first metering with marks: the general reader allocates them */
  if (!f.marks) {
    ck_assert_int_eq(ips__meter_general(&f, "{\"ipcstamp\":{\"marks\":{}}}",
                                        25, 0, err, sizeof err), 0);
  }
  if (!(n && ips__meter_fast(&f, buf, n, 0)))
    return;
  accepted++;
  rc = ips__meter_general(&s, buf, n, 0, err, sizeof err);
  ck_assert_msg(rc == 0, "fast took what the general reader refuses (%s): "
                         "%.*s", err, (int)n, buf);
  ck_assert_msg(meter_same(&f, &s), "the two paths read differently: %.*s",
                (int)n, buf);
  {
    yajl_gen g = yajl_gen_alloc(NULL);
    const unsigned char *b;
    size_t bn;
    ck_assert_ptr_nonnull(g);
    yajl_gen_config(g, yajl_gen_validate_utf8, 1);
    ck_assert_int_eq(ips__json_copy(g, buf, n), 1);
    ck_assert_int_eq(yajl_gen_get_buf(g, &b, &bn), yajl_gen_status_ok);
    ck_assert_msg(bn == n && !memcmp(b, buf, n), "not canonical: %.*s",
                  (int)n, buf);
    yajl_gen_free(g);
  }
}

/* Meterings as our worker library writes them (proto/metering.c). */
static size_t canonical(char *out, size_t cap, int upcalls, int cpu,
                        int counters) {
  ips_stamps_t t;
  ips_meter_field_t f[2];
  ips_meter_t mt;
  size_t n = 0;
  int i;
  ck_assert_int_eq(ips_stamps_init(&t, 64), 0);
  ips_stamps_add(&t, 'd');
  for (i = 0; i < upcalls; i++) {
    ips_stamps_add(&t, 'u');
    ips_stamps_add(&t, 'r');
  }
  ips_stamps_add(&t, 'e');
  /* cpu 2: the run-queue delays too (IPCSTAMP_RUN_DELAY) */
  for (i = 0; cpu == 2 && i < (int)t.n; i++) {
    t.v[i].has_run_delay = 1;
    t.v[i].run_delay_ns = i == 1 ? 0 : 1000 * i + 7;
  }
  f[0].key = "compute";
  f[0].value = 12345;
  f[1].key = "allocate";
  f[1].value = 678;
  mt.fields = f;
  mt.nfields = (size_t)counters;
  mt.has_cpu_ns = cpu != 0;
  mt.cpu_ns = 1530000;
  /* upcalls < 0: a worker with its stamps off (no table) */
  ck_assert_int_eq(ips_metering_write(out, cap, upcalls < 0 ? NULL : &t, &mt, &n), 0);
  ips_stamps_free(&t);
  return n;
}

START_TEST(test_canonical_taken) {
  char buf[8192];
  int u, cpu, k;
  accepted = 0;
  for (u = -1; u < 5; u++)
    for (cpu = 0; cpu < 3; cpu++)
      for (k = 0; k < 3; k++)
        same(buf, canonical(buf, sizeof buf, u, cpu, k));
  ck_assert_int_eq(accepted, 54); /* all of them: the point of it */
}
END_TEST

START_TEST(test_every_one_byte_change) {
  static const char alphabet[] = "0123456789.,:{}[]\"dure-e ";
  char buf[8192], m[8192];
  size_t n, i, j, a;
  int u;
  for (u = -1; u < 3; u += 1 + (u >= 0)) {
    n = canonical(buf, sizeof buf, u, u == 2 ? 2 : 0, u != 0 ? 2 : 0);
    for (i = 0; i < n; i++) {
      /* deletion */
      memcpy(m, buf, i);
      memcpy(m + i, buf + i + 1, n - i - 1);
      same(m, n - 1);
      for (a = 0; a < sizeof alphabet - 1; a++) {
        /* substitution */
        memcpy(m, buf, n);
        m[i] = alphabet[a];
        same(m, n);
        /* insertion */
        memcpy(m, buf, i);
        m[i] = alphabet[a];
        memcpy(m + i + 1, buf + i, n - i);
        same(m, n + 1);
      }
    }
    /* every prefix */
    for (j = 0; j < n; j++)
      same(buf, j);
  }
}
END_TEST

/* Numbers of every length from 0 to 21 digits (a leading zero or not),
 * in every numeric position, and cut at every byte: the eight-byte word
 * reader meets each length against each alignment and the buffer's end. */
START_TEST(test_digit_runs) {
  /* each form: the bytes before the number, and after it */
  static const char *const forms[][2] = {
      {"{\"compute\":", ",\"timestamps\":[1.000001,2.000002],\"ipcstamp\":"
                       "{\"v\":1,\"kinds\":\"de\",\"mono\":[5,6],\"dropped\":0}}"},
      {"{\"timestamps\":[", ".000001,1999999999.000002],\"ipcstamp\":{\"v\":1,"
                          "\"kinds\":\"de\",\"mono\":[5,6],\"dropped\":0}}"},
      {"{\"timestamps\":[1.", ",2.000002],\"ipcstamp\":{\"v\":1,"
                            "\"kinds\":\"de\",\"mono\":[5,6],\"dropped\":0}}"},
      /* ten-digit seconds: the wall's word-test form, then its decimals */
      {"{\"timestamps\":[1795430334.", ",1795430335.000002],\"ipcstamp\":"
       "{\"v\":1,\"kinds\":\"de\",\"mono\":[5,6],\"dropped\":0}}"},
      {"{\"timestamps\":[1.000001,2.000002],\"ipcstamp\":{\"v\":1,"
       "\"kinds\":\"de\",\"mono\":[0,", "],\"dropped\":0}}"},
      {"{\"timestamps\":[1.000001,2.000002],\"ipcstamp\":{\"v\":1,"
       "\"kinds\":\"de\",\"mono\":[5,6],\"dropped\":0,\"cpu_ns\":", "}}"},
      {"{\"timestamps\":[1.000001,2.000002],\"ipcstamp\":{\"v\":1,"
       "\"kinds\":\"de\",\"mono\":[5,6],\"dropped\":", "}}"},
      {"{\"timestamps\":[1.000001,2.000002],\"ipcstamp\":{\"v\":1,"
       "\"kinds\":\"de\",\"mono\":[5,6],\"dropped\":0,\"run_delay_ns\":[3,",
       "]}}"},
  };

  char num[32], buf[512];
  size_t f, len, z, n, j;
  int took = 0;
  for (f = 0; f < sizeof forms / sizeof *forms; f++)
    for (len = 0; len <= 21; len++)
      for (z = 0; z < 2; z++) {
        for (j = 0; j < len; j++)
          num[j] = (char)(z && j == 0 ? '0' : '1' + (j * 7 + len) % 9);
        num[len] = 0;
        n = (size_t)snprintf(buf, sizeof buf, "%s%s%s", forms[f][0], num,
                              forms[f][1]);
        accepted = 0;
        same(buf, n);
        took += accepted;
        for (j = 0; j < n; j++)
          same(buf, j);
        /* the matcher takes what is canonical: 1 to 18 digits (9 for
         * seconds, which fit in int64 ns, and 1 to 9 decimals, which may
         * start with 0), no leading zero */
        if (len >= 1 && (!(z && len > 1) || f == 2 || f == 3) &&
            len <= (f >= 1 && f <= 3 ? 9u : 18u))
          ck_assert_msg(accepted, "declined: %s", buf);
      }
  ck_assert_int_gt(took, 50);
}
END_TEST

/* Eight NUL bytes where a number's first word goes, in a list whose
 * first number was short: the matcher's memory of the last word had "all
 * zero" for "none", so the NULs read as a remembered word of digits (found
 * by fuzz_metering_fast).  In every list, at every place. */
START_TEST(test_nul_word_in_a_list) {
  static const char *const forms[][2] = {
      {"{\"timestamps\":[1.000001,2.000002],\"ipcstamp\":{\"v\":1,"
       "\"kinds\":\"de\",\"mono\":[8012,", "16000],\"dropped\":0}}"},
      {"{\"timestamps\":[1.000001,", "2.000002],\"ipcstamp\":{\"v\":1,"
       "\"kinds\":\"de\",\"mono\":[5,6],\"dropped\":0}}"},
      {"{\"timestamps\":[", "1.000001,2.000002],\"ipcstamp\":{\"v\":1,"
       "\"kinds\":\"de\",\"mono\":[5,6],\"dropped\":0}}"},
      {"{\"timestamps\":[1.000001,2.000002],\"ipcstamp\":{\"v\":1,"
       "\"kinds\":\"de\",\"mono\":[", "5,6],\"dropped\":0}}"},
  };
  char buf[512];
  size_t f, a, b, nul;
  for (f = 0; f < sizeof forms / sizeof *forms; f++)
    for (nul = 1; nul <= 16; nul++) {
      a = strlen(forms[f][0]);
      b = strlen(forms[f][1]);
      memcpy(buf, forms[f][0], a);
      memset(buf + a, 0, nul);
      memcpy(buf + a + nul, forms[f][1], b);
      accepted = 0;
      same(buf, a + nul + b);
      ck_assert_msg(!accepted, "took %zu NUL bytes in form %zu", nul, f);
    }
}
END_TEST

START_TEST(test_fuzz_seeds) {
  const char *s = getenv("IPCSTAMP_SRCDIR");
  char dir[1024], path[2048];
  DIR *d;
  struct dirent *e;
  int files = 0;
  ck_assert_ptr_nonnull(s);
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/metering", s);
  d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d)) != NULL) {
    FILE *f;
    char buf[65536];
    size_t n;
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    same(buf, n);
    files++;
  }
  closedir(d);
  ck_assert_int_gt(files, 3);
}
END_TEST

int main(void) {
  Suite *s = suite_create("metering matcher");
  TCase *tc = tcase_create("Core");
  SRunner *sr;
  int failed;
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_canonical_taken);
  tcase_add_test(tc, test_every_one_byte_change);
  tcase_add_test(tc, test_digit_runs);
  tcase_add_test(tc, test_nul_word_in_a_list);
  tcase_add_test(tc, test_fuzz_seeds);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
