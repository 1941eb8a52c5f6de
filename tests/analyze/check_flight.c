/* check_flight.c — Agoric's flight recorder file as an input: records
 * oldest first, one wrapping around the arena's end, and damaged files
 * refused with the record's number.  The files are written here by a
 * writer of the format's own (tests/interop/swingset writes real ones with
 * Agoric's recorder). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze_suites.h"
#include "slog.h"

static void put_be64(unsigned char *b, uint64_t v) {
  int i;
  for (i = 7; i >= 0; i--, v >>= 8)
    b[i] = (unsigned char)v;
}

/* A recorder of arena bytes whose oldest record starts at start, holding
 * recs (each stored as "\n" + text) written one after the other, wrapping.
 * end_adjust is added to the header's end (to damage it). */
static const char *write_recorder(const char *name, uint64_t arena,
                                  uint64_t start, const char *const *recs,
                                  int n, int64_t end_adjust) {
  const char *path = tt_tmp(name);
  unsigned char *file = calloc(1, 32 + arena), len[8];
  uint64_t at = start;
  int i, fd;
  size_t k, j;
  ck_assert_ptr_nonnull(file);
  for (i = 0; i < n; i++) {
    size_t l = strlen(recs[i]) + 1;
    put_be64(len, l);
    for (k = 0; k < 8; k++, at = (at + 1) % arena)
      file[32 + at] = len[k];
    for (j = 0; j < l; j++, at = (at + 1) % arena)
      file[32 + at] = j == 0 ? '\n' : (unsigned char)recs[i][j - 1];
  }
  memcpy(file, "AG-SLOG!", 8);
  put_be64(file + 8, arena);
  put_be64(file + 16, start);
  put_be64(file + 24, (uint64_t)((int64_t)at + end_adjust));
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, file, 32 + arena), (ssize_t)(32 + arena));
  close(fd);
  free(file);
  return path;
}

static const char *const recs[] = {
    "{\"type\":\"crank-start\",\"crankNum\":1}",
    "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v1\",\"deliveryNum\":0,\"vd\":[\"x\"],\"monotime\":1.0}",
    "{\"type\":\"deliver-result\",\"crankNum\":1,\"vatID\":\"v1\",\"deliveryNum\":0,\"dr\":[\"ok\",null,{\"ipcstamp\":{\"v\":1,\"kinds\":\"de\",\"mono\":[1000100000,1000400000]}}],\"monotime\":1.0005}",
    "{\"type\":\"crank-finish\",\"crankNum\":1}"};

/* Every line of path, joined with '|'. */
static void read_lines(const char *path, char *out, size_t n, int *rc,
                       char *err, size_t errlen) {
  ips__slog_in_t *in = ips__slog_open(path, 1 << 20, err, errlen);
  const char *line;
  size_t len, o = 0;
  int flags;
  out[0] = '\0';
  if (!in) {
    *rc = -2;
    return;
  }
  while ((*rc = ips__slog_next(in, &line, &len, &flags, err, errlen)) == 1) {
    ck_assert_uint_lt(o + len + 2, n);
    if (o)
      out[o++] = '|';
    memcpy(out + o, line, len);
    o += len;
    out[o] = '\0';
  }
  ips__slog_close(in);
}

START_TEST(test_records_oldest_first_across_the_end) {
  char out[4096], err[256], want[4096] = "";
  int rc, i, start;
  for (i = 0; i < 4; i++) {
    if (i)
      strcat(want, "|");
    strcat(want, recs[i]);
  }
  /* Every start position in a small arena: records and their lengths
   * wrap at every possible byte. */
  for (start = 0; start < 420; start += 7) {
    const char *p = write_recorder("fr.bin", 420, (uint64_t)start, recs, 4, 0);
    read_lines(p, out, sizeof out, &rc, err, sizeof err);
    ck_assert_msg(rc == 0, "start %d: %s", start, err);
    ck_assert_str_eq(out, want);
  }
}
END_TEST

START_TEST(test_report_reads_a_recorder) {
  write_recorder("fr2.bin", 400, 390, recs, 4, 0);
  ck_assert_int_eq(tt_sh("$IPS report $TMP/fr2.bin > $TMP/fr2.out"), 0);
  ck_assert_int_eq(tt_sh("grep -q 'crank 1 v1 #0 x \\[mono\\] total 500.000 = "
                         "pipe 200.000 + worker 300.000' $TMP/fr2.out"),
                   0);
}
END_TEST

START_TEST(test_damaged) {
  char out[4096], err[256];
  int rc;
  const char *p;
  /* The header's end is past the arena. */
  p = write_recorder("bad1.bin", 400, 0, recs, 4, 1000);
  read_lines(p, out, sizeof out, &rc, err, sizeof err);
  ck_assert_int_eq(rc, -2);
  ck_assert_msg(strstr(err, "past the arena") != NULL, "%s", err);
  /* The last record is cut: its length runs past the recorded data. */
  p = write_recorder("bad2.bin", 400, 100, recs, 4, -3);
  read_lines(p, out, sizeof out, &rc, err, sizeof err);
  ck_assert_int_eq(rc, -1);
  ck_assert_msg(strstr(err, "record 4: length") != NULL, "%s", err);
  ck_assert_int_eq(tt_sh("$IPS report $TMP/bad2.bin > /dev/null 2> $TMP/bad2.err; "
                         "test $? = 4 && grep -q 'bad2.bin:4: flight recorder "
                         "record 4' $TMP/bad2.err"),
                   0);
  /* An arena larger than the file. */
  p = write_recorder("bad3.bin", 400, 0, recs, 4, 0);
  ck_assert_int_eq(truncate(p, 300), 0);
  read_lines(p, out, sizeof out, &rc, err, sizeof err);
  ck_assert_int_eq(rc, -2);
  ck_assert_msg(strstr(err, "arena of 400 bytes") != NULL, "%s", err);
}
END_TEST

START_TEST(test_empty_recorder) {
  char out[64], err[256];
  int rc;
  const char *p = write_recorder("empty.bin", 400, 123, recs, 0, 0);
  read_lines(p, out, sizeof out, &rc, err, sizeof err);
  ck_assert_int_eq(rc, 0);
  ck_assert_str_eq(out, "");
}
END_TEST

/* A recorder sent gzipped reads as the file itself; a cut one, and one
 * whose header claims more than is unpacked, are refused by name. */
START_TEST(test_gzipped_recorder) {
  unsigned char h[32] = "AG-SLOG!";
  const char *p;
  int fd;
  write_recorder("frz.bin", 400, 390, recs, 4, 0);
  ck_assert_int_eq(tt_sh("gzip -c $TMP/frz.bin > $TMP/frz.bin.gz && "
                         "$IPS report $TMP/frz.bin > $TMP/frz.want && "
                         "$IPS report $TMP/frz.bin.gz > $TMP/frz.out && "
                         "cmp $TMP/frz.want $TMP/frz.out && "
                         "grep -q 'crank 1 v1 #0 x' $TMP/frz.out"),
                   0);
  ck_assert_int_eq(tt_sh("head -c 40 $TMP/frz.bin.gz > $TMP/frz-cut.gz; "
                         "$IPS report $TMP/frz-cut.gz > /dev/null "
                         "2> $TMP/frz-cut.err; test $? = 4 && grep -q "
                         "'frz-cut.gz: gzip input is truncated after' "
                         "$TMP/frz-cut.err"),
                   0);
  /* A header naming an 8 GiB arena, in a file of a few bytes. */
  put_be64(h + 8, (uint64_t)8 << 30);
  p = tt_tmp("frz-big.bin");
  fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert_int_eq(write(fd, h, sizeof h), (ssize_t)sizeof h);
  close(fd);
  ck_assert_int_eq(tt_sh("gzip -f $TMP/frz-big.bin; $IPS report "
                         "$TMP/frz-big.bin.gz > /dev/null 2> $TMP/frz-big.err; "
                         "test $? = 4 && grep -q 'arena of 8589934592 bytes: "
                         "more than' $TMP/frz-big.err"),
                   0);
  /* On a pipe, plain or gzipped (ssh node cat flight-recorder.bin |
   * ipcstamp report -): copied first, then read as the file. */
  ck_assert_int_eq(tt_sh("cat $TMP/frz.bin | $IPS report - > $TMP/frz-p1 && "
                         "cat $TMP/frz.bin.gz | $IPS report - > $TMP/frz-p2 && "
                         "cmp $TMP/frz.want $TMP/frz-p1 && "
                         "cmp $TMP/frz.want $TMP/frz-p2"),
                   0);
  ck_assert_int_eq(tt_sh("printf 'AG-SLOG!abc' | $IPS report - > /dev/null "
                         "2> $TMP/frz-p3.err; test $? = 4 && grep -q "
                         "'ends after 11 bytes, inside its 32-byte header' "
                         "$TMP/frz-p3.err"),
                   0);
  ck_assert_int_eq(tt_sh("head -c 40 $TMP/frz.bin.gz | $IPS report - "
                         "> /dev/null 2> $TMP/frz-p4.err; test $? = 4 && "
                         "grep -q 'standard input: gzip input is truncated' "
                         "$TMP/frz-p4.err"),
                   0);
  /* Gzipped, the header cut inside. */
  ck_assert_int_eq(tt_sh("printf 'AG-SLOG!abc' | gzip > $TMP/frz-hdr.gz; "
                         "$IPS report $TMP/frz-hdr.gz > /dev/null "
                         "2> $TMP/frz-hdr.err; test $? = 4 && grep -q "
                         "'header ends after 11 of 32 bytes' $TMP/frz-hdr.err"),
                   0);
}
END_TEST

/* Record N is line N, whatever a record holds: a raw newline inside one
 * (between tokens: valid JSON) shifted every later line number, so the
 * fault in record 4 was reported at line 5. */
START_TEST(test_raw_newline_keeps_numbers) {
  static const char *const nl[] = {
      "{\"type\":\"crank-start\",\n\"crankNum\":1}",
      "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v1\",\"deliveryNum\":0,\"vd\":[\"x\"],\"monotime\":1.0}",
      "{\"type\":\"deliver-result\",\"crankNum\":1,\"vatID\":\"v1\",\"deliveryNum\":0,\"dr\":[\"ok\",null,{\"ipcstamp\":{\"v\":1,\"kinds\":\"de\",\"mono\":[1000100000,1000400000]}}],\"monotime\":1.0005}",
      "{\"type\":\"crank-finish\",\"crankNum\":1}"};
  char out[4096], err[256];
  int rc;
  const char *p = write_recorder("nl.bin", 600, 0, nl, 4, 0);
  read_lines(p, out, sizeof out, &rc, err, sizeof err);
  ck_assert_int_eq(rc, 0);
  ck_assert_ptr_nonnull(strstr(out, "\"crank-start\",\r\"crankNum\":1}|"));
  /* The delivery is read (the CR is whitespace to JSON), and a cut last
   * record is reported at its own number. */
  ck_assert_int_eq(tt_sh("$IPS report $TMP/nl.bin | grep -q 'crank 1 v1 #0 x'"),
                   0);
  write_recorder("nl2.bin", 600, 100, nl, 4, -3);
  ck_assert_int_eq(tt_sh("$IPS report $TMP/nl2.bin > /dev/null 2> $TMP/nl2.err; "
                         "test $? = 4 && grep -q 'nl2.bin:4: flight recorder "
                         "record 4' $TMP/nl2.err"),
                   0);
}
END_TEST

/* A recorder cannot be followed (its records wrap around its arena): said,
 * exit 4, nothing leaked on the way out (the sanitizer build checks). */
START_TEST(test_follow_refused) {
  write_recorder("ff.bin", 400, 0, recs, 4, 0);
  ck_assert_int_eq(tt_sh("$IPS report --follow $TMP/ff.bin > /dev/null "
                         "2> $TMP/ff.err; test $? = 4 && grep -q 'cannot "
                         "follow a flight recorder' $TMP/ff.err"),
                   0);
}
END_TEST

Suite *flight_suite(void) {
  Suite *s = suite_create("flight");
  TCase *tc = tcase_create("Core");
  TCase *bad = tcase_create("Bad input");
  tcase_add_test(tc, test_records_oldest_first_across_the_end);
  tcase_add_test(tc, test_report_reads_a_recorder);
  tcase_add_test(tc, test_empty_recorder);
  tcase_add_test(tc, test_raw_newline_keeps_numbers);
  tcase_add_test(bad, test_damaged);
  tcase_add_test(bad, test_gzipped_recorder);
  tcase_add_test(bad, test_follow_refused);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, bad);
  return s;
}
