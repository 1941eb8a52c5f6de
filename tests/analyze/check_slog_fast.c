/* check_slog_fast.c — the fast path for our parent's records (slog_fast.c)
 * against the yajl path: it must be used on canonical lines, and on every
 * line it sees, canonical, almost canonical or broken, the parser must give
 * the same record (or the same error) with it as without it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze_suites.h"
#include "decimal.h"
#include "slog.h"

void slog_fast_tests(TCase *core, TCase *bad);

/* One of each record shape parent/slog.c writes (and one it does not). */
static const char *const canon[] = {
    "{\"type\":\"syscall\",\"crankNum\":12,\"vatID\":\"v3\",\"deliveryNum\":4,"
    "\"syscallNum\":0,\"vsc\":[\"vatstoreGet\",\"balance\"],"
    "\"time\":1795302712.484968,\"monotime\":1298.033970111}",
    "{\"type\":\"syscall-result\",\"crankNum\":12,\"vatID\":\"v3\","
    "\"deliveryNum\":4,\"syscallNum\":10,\"vsr\":[\"ok\",\"1000\"],"
    "\"time\":1795302712.485001,\"monotime\":1298.034000999}",
    "{\"type\":\"deliver\",\"crankNum\":2,\"vatID\":\"v1\",\"deliveryNum\":1,"
    "\"vd\":[\"message\",\"o+0\",{\"methargs\":{\"body\":\"#[\\\"getBalance\\\","
    "[]]\",\"slots\":[\"o-5\"]},\"result\":\"p-2\"}],"
    "\"time\":1795300856.501000,\"monotime\":8123.401000000}",
    "{\"type\":\"deliver\",\"crankNum\":4,\"vatID\":\"v2\",\"deliveryNum\":3,"
    "\"vd\":[\"message\",\"receive\",{\"from\":\"v1\",\"amount\":10,\"hops\":0,"
    "\"work\":2000}],\"time\":1795302712.484405,\"monotime\":1298.033406829}",
    "{\"type\":\"deliver\",\"crankNum\":5,\"vatID\":\"v2\",\"deliveryNum\":4,"
    "\"vd\":[\"notify\",[[\"p+1\",{\"state\":\"fulfilled\",\"data\":{\"body\":"
    "\"#[\\\"]\\\"]\",\"slots\":[]}}],[\"p+2\",false,[]],[\"p+3\"],[\"p+4\"],"
    "[\"p+5\"],[\"p+6\"]]],\"time\":1795300856.502000,\"monotime\":8123.402000000}",
    "{\"type\":\"deliver\",\"crankNum\":9,\"vatID\":\"v2\",\"deliveryNum\":0,"
    "\"vd\":[\"bringOutYourDead\"],\"time\":1795300856.502000,"
    "\"monotime\":8123.402000000}",
    "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v1\",\"deliveryNum\":1,"
    "\"vd\":[\"evaluate\",\"var a = [1];\\n\"],\"time\":1795302712.469007,"
    "\"monotime\":1298.018008989}",
    "{\"type\":\"deliver-result\",\"crankNum\":1,\"vatID\":\"v1\","
    "\"deliveryNum\":1,\"dr\":[\"ok\",{\"base64\":\"\"},{\"allocate\":104868,"
    "\"allocCount\":481,\"timestamps\":[1795302712.483353,1795302712.484287],"
    "\"ipcstamp\":{\"v\":1,\"kinds\":\"de\",\"mono\":[1298032356052,"
    "1298033288262],\"dropped\":0,\"cpu_ns\":610330}}],\"seconds\":0.015326932,"
    "\"time\":1795302712.484334,\"monotime\":1298.033335921}",
    "{\"type\":\"deliver-result\",\"crankNum\":3,\"vatID\":\"v2\","
    "\"deliveryNum\":2,\"dr\":[\"error\",\"boom\",{\"compute\":1,\"timestamps\":"
    "[1.000001,1.000002,1.000003,1.000004],\"ipcstamp\":{\"v\":1,\"kinds\":"
    "\"dure\",\"mono\":[10,20,30,40],\"dropped\":2}}],\"seconds\":0.1,"
    "\"time\":2.5,\"monotime\":3.25}",
    /* SwingSet 0.33's own records (slogger.js): replay, dispatch, the
     * kernel's side of payloads, seconds after monotime. */
    "{\"type\":\"deliver\",\"crankNum\":9,\"vatID\":\"v1\",\"deliveryNum\":1,\"replay\":false,\"dispatch\":\"startVat\",\"kd\":[\"startVat\",{\"body\":\"#{\\\"argv\\\":[]}\",\"slots\":[]}],\"vd\":[\"startVat\",{\"body\":\"#{\\\"argv\\\":[]}\",\"slots\":[]}],\"time\":1795421047.904521,\"monotime\":20.715187661}",
    "{\"type\":\"deliver\",\"vatID\":\"v1\",\"deliveryNum\":5,\"replay\":true,\"dispatch\":\"message\",\"vd\":[\"message\",\"o+0\",{\"methargs\":{\"body\":\"#[\\\"go\\\",[]]\",\"slots\":[]},\"result\":\"p-1\"}],\"time\":1795421053.549552,\"monotime\":26.360214396}",
    "{\"type\":\"syscall\",\"crankNum\":9,\"vatID\":\"v1\",\"deliveryNum\":1,\"syscallNum\":0,\"replay\":false,\"syscall\":\"vatstoreGet\",\"ksc\":[\"vatstoreGet\",\"v1\",\"idCounters\"],\"vsc\":[\"vatstoreGet\",\"idCounters\"],\"time\":1795421047.906607,\"monotime\":20.717274839}",
    "{\"type\":\"syscall-result\",\"crankNum\":9,\"vatID\":\"v1\",\"deliveryNum\":1,\"syscallNum\":0,\"replay\":false,\"syscall\":\"vatstoreGet\",\"ksr\":[\"ok\",null],\"vsr\":[\"ok\",null],\"time\":1795421047.907116,\"monotime\":20.717778165,\"seconds\":0.0003910810000015772}",
    "{\"type\":\"deliver-result\",\"crankNum\":9,\"vatID\":\"v1\",\"deliveryNum\":1,\"replay\":false,\"dispatch\":\"startVat\",\"dr\":[\"ok\",null,{\"meterType\":\"xs-meter-36\",\"currentHeapCount\":152225,\"compute\":12027832,\"allocate\":42074144,\"timestamps\":[1795421047.905385,1795421047.905551,1795421047.907472,1795421047.90843]}],\"time\":1795421047.908534,\"monotime\":20.719198063,\"seconds\":0.004012468999996}",
    "{\"type\":\"deliver-result\",\"crankNum\":12,\"vatID\":\"v8\",\"deliveryNum\":3,\"replay\":true,\"dispatch\":\"notify\",\"dr\":[\"ok\",null,null],\"time\":1795421047.908534,\"monotime\":20.719198063,\"seconds\":0.004012468999996}",
    /* An error result without metering (the worker's '!'). */
    "{\"type\":\"deliver-result\",\"crankNum\":1,\"vatID\":\"v1\","
    "\"deliveryNum\":1,\"dr\":[\"error\",\"nope\",null],"
    "\"seconds\":0.009777617,\"time\":1795420106.269052,"
    "\"monotime\":12125.737747215}",
    /* With the run-queue delays: the parent's on U and E, the
     * worker's in its metering. */
    "{\"type\":\"syscall\",\"crankNum\":2,\"vatID\":\"v1\",\"deliveryNum\":2,"
    "\"syscallNum\":0,\"runDelayNs\":1389534,\"vsc\":[\"vatstoreSet\","
    "\"balance\",1000],\"time\":1795665294.638589,\"monotime\":631.304547233}",
    "{\"type\":\"deliver-result\",\"crankNum\":3,\"vatID\":\"v2\","
    "\"deliveryNum\":1,\"dr\":[\"ok\",{\"base64\":\"\"},{\"allocate\":1,"
    "\"timestamps\":[1.000001,1.000002,1.000003,1.000004],\"ipcstamp\":{"
    "\"v\":1,\"kinds\":\"dure\",\"mono\":[10,20,30,40],\"dropped\":0,"
    "\"cpu_ns\":7,\"run_delay_ns\":[5351136,0,24657,0]}}],"
    "\"seconds\":0.001728981,\"runDelayNs\":0,\"time\":1795665294.640382,"
    "\"monotime\":631.306339959}",
    "{\"type\":\"crank-start\",\"crankType\":\"delivery\",\"crankNum\":1,"
    "\"time\":1795300856.499995,\"monotime\":8123.399995000}",
};
#define NCANON (sizeof canon / sizeof canon[0])

static void same_rec(const ips__rec_t *a, const ips__rec_t *b,
                     const char *line) {
  unsigned h = a->have;
  ck_assert_msg(a->type == b->type && a->have == b->have,
                "type/have %d/%x vs %d/%x: %s", a->type, a->have, b->type,
                b->have, line);
  ck_assert_msg(!(h & IPS__F_CRANK) || a->crank == b->crank, "crank: %s", line);
  ck_assert_msg(!(h & IPS__F_DNUM) || a->dnum == b->dnum, "dnum: %s", line);
  ck_assert_msg(!(h & IPS__F_SNUM) || a->snum == b->snum, "snum: %s", line);
  ck_assert_msg(!(h & IPS__F_TIME) || a->time_ns == b->time_ns, "time: %s",
                line);
  ck_assert_msg(!(h & IPS__F_MONO) || a->mono_ns == b->mono_ns, "mono: %s",
                line);
  ck_assert_msg(!strcmp(a->vat, b->vat) && a->vat_len == b->vat_len &&
                    strlen(a->vat) == a->vat_len,
                "vat: %s", line);
  ck_assert_msg(!strcmp(a->desc, b->desc), "desc %s vs %s: %s", a->desc,
                b->desc, line);
  ck_assert_msg(a->ok == b->ok && a->ipsv == b->ipsv &&
                    a->cpu_ns == b->cpu_ns && a->dropped == b->dropped,
                "ok/v/cpu/dropped: %s", line);
  ck_assert_msg(a->n_walls == b->n_walls && a->n_wmono == b->n_wmono &&
                    a->n_kinds == b->n_kinds,
                "counts: %s", line);
  ck_assert_msg(a->prunq == b->prunq && a->n_wrunq == b->n_wrunq &&
                    !memcmp(a->wrunq, b->wrunq, a->n_wrunq * sizeof *a->wrunq),
                "run delays: %s", line);
  ck_assert_msg(!memcmp(a->walls, b->walls, a->n_walls * sizeof *a->walls) &&
                    !memcmp(a->wmono, b->wmono, a->n_wmono * sizeof *a->wmono) &&
                    !strcmp(a->kinds, b->kinds),
                "stamps: %s", line);
  ck_assert_msg(!(h & IPS__F_MARKS) ||
                    (a->n_marks == b->n_marks && a->n_mnames == b->n_mnames &&
                     a->mnames_len == b->mnames_len &&
                     a->mdropped == b->mdropped &&
                     a->munbalanced == b->munbalanced),
                "marks' counts: %s", line);
  if (h & IPS__F_MARKS) {
    size_t i;
    for (i = 0; i < a->n_marks; i++)
      ck_assert_msg(a->marks[i].wall == b->marks[i].wall &&
                        a->marks[i].mono == b->marks[i].mono &&
                        a->marks[i].name == b->marks[i].name &&
                        a->marks[i].kind == b->marks[i].kind,
                    "mark %zu: %s", i, line);
    ck_assert_msg(!memcmp(a->mname_off, b->mname_off,
                          a->n_mnames * sizeof *a->mname_off) &&
                      !memcmp(a->mnames, b->mnames, a->mnames_len),
                  "mark names: %s", line);
  }
}

/* A record with room for the most stamps, as ips__slog_fast() wants. */
static void rec_new(ips__rec_t *r) {
  memset(r, 0, sizeof *r);
  r->walls = malloc(IPS__MAX_STAMPS * sizeof *r->walls);
  r->wmono = malloc(IPS__MAX_STAMPS * sizeof *r->wmono);
  r->wrunq = malloc(IPS__MAX_STAMPS * sizeof *r->wrunq);
  r->kinds = malloc(IPS__MAX_STAMPS + 1);
  ck_assert(r->walls && r->wmono && r->wrunq && r->kinds);
}

static void rec_free(ips__rec_t *r) {
  free(r->walls);
  free(r->wmono);
  free(r->wrunq);
  free(r->kinds);
}

/* Parses line with the fast path on (f) and off (y): same answer. */
static void same(ips__parser_t *f, ips__parser_t *y, const char *line,
                 size_t n) {
  const ips__rec_t *a, *b;
  char e1[256] = "", e2[256] = "", shown[400];
  int r1 = ips__slog_parse(f, line, n, &a, e1, sizeof e1);
  int r2 = ips__slog_parse(y, line, n, &b, e2, sizeof e2);
  snprintf(shown, sizeof shown, "%.*s", (int)(n < 390 ? n : 390), line);
  ck_assert_msg(r1 == r2, "rc %d vs %d: %s", r1, r2, shown);
  if (r1 < 0)
    ck_assert_msg(!strcmp(e1, e2), "%s vs %s: %s", e1, e2, shown);
  else
    same_rec(a, b, shown);
}

/* xsnap's meter kill, ["error","Compute meter exceeded",null], is known
 * the same on every path (fast, yajl skipping the message, strict); an
 * "ok" result or another message is not; xsnap's meterType is seen. */
START_TEST(test_meter_kill) {
  static const struct {
    const char *line;
    unsigned want;
  } cases[] = {
      {"{\"type\":\"deliver-result\",\"crankNum\":9,\"vatID\":\"v8\","
       "\"deliveryNum\":2,\"dr\":[\"error\",\"Compute meter exceeded\",null],"
       "\"seconds\":0.1,\"time\":2.5,\"monotime\":3.25}",
       IPS__F_METERKILL},
      {"{\"type\":\"deliver-result\",\"crankNum\":9,\"vatID\":\"v8\","
       "\"deliveryNum\":2,\"replay\":false,\"dispatch\":\"message\","
       "\"dr\":[\"error\",\"Allocate meter exceeded\",null],"
       "\"time\":2.5,\"monotime\":3.25}",
       IPS__F_METERKILL},
      {"{\"type\":\"deliver-result\",\"crankNum\":9,\"vatID\":\"v8\","
       "\"deliveryNum\":2,\"dr\":[\"ok\",\"Compute meter exceeded\",null],"
       "\"seconds\":0.1,\"time\":2.5,\"monotime\":3.25}",
       0},
      {"{\"type\":\"deliver-result\",\"crankNum\":9,\"vatID\":\"v8\","
       "\"deliveryNum\":2,\"dr\":[\"error\",\"oom\",null],"
       "\"seconds\":0.1,\"time\":2.5,\"monotime\":3.25}",
       0},
      {"{\"type\":\"deliver-result\",\"crankNum\":9,\"vatID\":\"v8\","
       "\"deliveryNum\":2,\"dr\":[\"ok\",null,{\"meterType\":\"xs-meter-36\","
       "\"compute\":5,\"timestamps\":[1.000001,1.000002]}],"
       "\"seconds\":0.1,\"time\":2.5,\"monotime\":3.25}",
       IPS__F_XSMETER},
  };
  ips__parser_t *f = ips__parser_new(0), *y = ips__parser_new(IPS__PARSE_NOFAST),
                *st = ips__parser_new(IPS__PARSE_STRICT);
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *l = cases[i].line;
    const ips__rec_t *r;
    char e[256];
    unsigned bits = IPS__F_METERKILL | IPS__F_XSMETER;
    same(f, y, l, strlen(l));
    ck_assert_int_eq(ips__slog_parse(f, l, strlen(l), &r, e, sizeof e), 0);
    ck_assert_uint_eq(r->have & bits, cases[i].want);
    ck_assert_int_eq(ips__slog_parse(st, l, strlen(l), &r, e, sizeof e), 0);
    ck_assert_uint_eq(r->have & bits, cases[i].want);
  }
  ips__parser_free(f);
  ips__parser_free(y);
  ips__parser_free(st);
}
END_TEST

/* The fast path takes every canonical line (so the tests below test it). */
START_TEST(test_fast_used) {
  ips__parser_t *f = ips__parser_new(0), *y = ips__parser_new(IPS__PARSE_NOFAST);
  ips__rec_t r;
  size_t i;
  rec_new(&r);
  for (i = 0; i < NCANON; i++) {
    r.type = IPS__REC_OTHER;
    r.have = 0;
    r.n_walls = r.n_wmono = r.n_kinds = r.n_wrunq = 0;
    ck_assert_msg(ips__slog_fast(&r, canon[i], strlen(canon[i])) == 1,
                  "refused: %s", canon[i]);
    same(f, y, canon[i], strlen(canon[i]));
  }
  rec_free(&r);
  ips__parser_free(f);
  ips__parser_free(y);
}
END_TEST

/* Every line of every test file, and how many the fast path took in the
 * one our parent wrote (tests/data/run.slog). */
START_TEST(test_fast_data_files) {
  static const char *const files[] = {"ours.slog", "xsnap.slog", "bad.slog",
                                      "rundelay.slog", "run.slog"};
  ips__parser_t *f = ips__parser_new(0), *y = ips__parser_new(IPS__PARSE_NOFAST);
  ips__rec_t r;
  size_t i, taken = 0, lines = 0;
  rec_new(&r);
  for (i = 0; i < 5; i++) {
    char *text = tt_read(tt_data(files[i]), NULL), *line = text, *nl;
    for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
      size_t n;
      nl = strchr(line, '\n');
      n = nl ? (size_t)(nl - line) : strlen(line);
      same(f, y, line, n);
      if (i == 4) {
        r.type = IPS__REC_OTHER;
        r.have = 0;
        r.n_walls = r.n_wmono = r.n_kinds = r.n_wrunq = 0;
        taken += (size_t)ips__slog_fast(&r, line, n);
        lines++;
      }
    }
    free(text);
  }
  /* All but slog-start and the two worker-start, which go to yajl. */
  ck_assert_uint_eq(taken, lines - 3);
  rec_free(&r);
  ips__parser_free(f);
  ips__parser_free(y);
}
END_TEST

/* Almost canonical: every byte deleted, replaced by each of a set of
 * troublemakers, or preceded by a space; every prefix.  Whatever the fast
 * path does with these, the result must be the yajl path's. */
START_TEST(test_fast_mutations) {
  static const char subst[] = "x\"\\0 9}]{[,:.-e\x01\x7f";
  ips__parser_t *f = ips__parser_new(0), *y = ips__parser_new(IPS__PARSE_NOFAST);
  size_t i, j, k;
  for (i = 0; i < NCANON; i++) {
    size_t n = strlen(canon[i]);
    char *m = malloc(n + 2);
    for (j = 0; j <= n; j++) {
      same(f, y, canon[i], j); /* cut */
      memcpy(m, canon[i], j); /* a space before byte j */
      m[j] = ' ';
      memcpy(m + j + 1, canon[i] + j, n - j);
      same(f, y, m, n + 1);
      if (j == n)
        break;
      memcpy(m, canon[i], n); /* byte j deleted */
      memmove(m + j, m + j + 1, n - j - 1);
      same(f, y, m, n - 1);
      for (k = 0; k < sizeof subst - 1; k++) { /* byte j replaced */
        memcpy(m, canon[i], n);
        m[j] = subst[k];
        same(f, y, m, n);
      }
    }
    free(m);
  }
  ips__parser_free(f);
  ips__parser_free(y);
}
END_TEST

/* Strings of every length to 20, with a byte of each class the fast
 * path's string reader tells apart (it looks at eight at a time where
 * eight are left) at every place in them, in a vatID and a syscall's
 * name: the same answer as the yajl path's. */
START_TEST(test_fast_strings) {
  static const unsigned char odd[] = {0x1f, 0x20, 0x21, '"', '\\', 0x7f,
                                      0x80, 0xc3, 0xff, 0x00, 0x01, '#'};
  static const char *const parts[2][3] = {
      {"{\"type\":\"syscall\",\"crankNum\":9,\"vatID\":\"",
       "\",\"deliveryNum\":1,\"syscallNum\":0,\"replay\":false,"
       "\"syscall\":\"vatstoreGet", ""},
      {"{\"type\":\"syscall\",\"crankNum\":9,\"vatID\":\"v1\","
       "\"deliveryNum\":1,\"syscallNum\":0,\"replay\":false,\"syscall\":\"",
       "", ""}};
  static const char tail[] = "\",\"ksc\":[\"x\"],\"vsc\":[\"x\"],"
                             "\"time\":1795421047.906607,"
                             "\"monotime\":20.717274839}";
  ips__parser_t *f = ips__parser_new(0), *y = ips__parser_new(IPS__PARSE_NOFAST);
  char line[400];
  size_t len, at, k, field;
  for (field = 0; field < 2; field++)
    for (len = 0; len <= 20; len++)
      for (at = 0; at <= len; at++)
        for (k = 0; k < sizeof odd; k++) {
          size_t n = 0, i;
          const char *p0 = parts[field][0], *p1 = parts[field][1];
          memcpy(line, p0, strlen(p0));
          n += strlen(p0);
          for (i = 0; i < len; i++) /* the string, odd at at */
            line[n++] = i == at ? (char)odd[k] : 'a';
          memcpy(line + n, p1, strlen(p1));
          n += strlen(p1);
          memcpy(line + n, tail, sizeof tail - 1);
          n += sizeof tail - 1;
          same(f, y, line, n);
          if (at == len)
            break; /* nothing odd in it: once */
        }
  ips__parser_free(f);
  ips__parser_free(y);
}
END_TEST

/* Numbers of every length in every numeric field (the fast path converts
 * up to eight digits at once): the same values as yajl's path. */
START_TEST(test_fast_numbers) {
  static const char digits[] = "98765432109876543210987";
  ips__parser_t *f = ips__parser_new(0), *y = ips__parser_new(IPS__PARSE_NOFAST);
  char line[600];
  int a, b;
  for (a = 1; a <= 21; a++)
    for (b = 0; b <= 21; b++) {
      int n = snprintf(
          line, sizeof line,
          "{\"type\":\"deliver-result\",\"crankNum\":%.*s,\"vatID\":\"v1\","
          "\"deliveryNum\":%.*s0,\"dr\":[\"ok\",null,{\"timestamps\":[%.*s.%.*s,"
          "%.*s],\"ipcstamp\":{\"v\":1,\"kinds\":\"de\",\"mono\":[%.*s,1],"
          "\"dropped\":0,\"cpu_ns\":%.*s}}],\"seconds\":0.1,\"time\":%.*s.%.*s,"
          "\"monotime\":%.*s%s%.*s}",
          a, digits, a > 1 ? a - 1 : 1, digits, a, digits, b ? b : 1, digits, a,
          digits, a, digits, a, digits, a, digits, b ? b : 1, digits, a, digits,
          b ? "." : "", b, digits + 3);
      same(f, y, line, (size_t)n);
    }
  ips__parser_free(f);
  ips__parser_free(y);
}
END_TEST

/* ips__decimal's straight path for xsnap's wall times (ten digits, a
 * point, one to seven more) against the general one, on the text
 * s[i..n): the same end and the same value, or both refuse. */
static void same_decimal(const char *s, size_t i, size_t n) {
  int64_t a = 0, b = 0;
  size_t ea = ips__decimal(s, i, n, &a), eb = ips__decimal_any(s, i, n, &b);
  ck_assert_msg(ea == eb, "end %zu != %zu on '%.*s'", ea, eb, (int)(n - i),
                s + i);
  if (ea != IPS__DECIMAL_BAD)
    ck_assert_msg(a == b, "%lld != %lld on '%.*s'", (long long)a,
                  (long long)b, (int)(n - i), s + i);
}

/* Every shape around the two straight ones (xsnap's wall times,
 * SwingSet's monotime): 1 to 12 integer digits (leading 0, 1, 9; values
 * past the limit), with or without a point, 0 to 20 fraction digits, then
 * each byte that can end a number or break one, cut at every length, and
 * random bytes from a number's alphabet. */
START_TEST(test_decimal_paths) {
  static const char ends[] = ",]}e.-0 \"\n";
  static const char alpha[] = "0123456789.-,]e";
  char buf[64];
  uint32_t x = 88172645u;
  int ni, nf, e, lead, pt, k;
  for (ni = 1; ni <= 12; ni++)
    for (nf = 0; nf <= 20; nf++)
      for (pt = 0; pt <= 1; pt++)
        for (lead = 0; lead < 4; lead++)
          for (e = 0; e < (int)sizeof ends; e++) {
            size_t n = 0, i, cut;
            buf[n++] = 'x'; /* so that i is not always 0 */
            for (k = 0; k < ni; k++) {
              x ^= x << 13, x ^= x >> 17, x ^= x << 5;
              buf[n++] = (char)('0' + x % 10);
            }
            buf[1] = "0199"[lead];
            if (lead == 3) /* the largest values, around the limit */
              memcpy(buf + 1, "9223372035999", (size_t)ni < 13 ? (size_t)ni : 13);
            if (pt)
              buf[n++] = '.';
            for (k = 0; k < nf; k++) {
              x ^= x << 13, x ^= x >> 17, x ^= x << 5;
              buf[n++] = (char)('0' + x % 10);
            }
            if (e < (int)sizeof ends - 1)
              buf[n++] = ends[e];
            for (i = n; i < 48; i++)
              buf[i] = ',';
            for (cut = 1; cut <= 48; cut++)
              same_decimal(buf, 1, cut);
          }
  for (k = 0; k < 2000000; k++) {
    size_t n, j;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    n = x % 32;
    for (j = 0; j < n; j++) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      /* Mostly digits, with a point near the tenth or the third: near
       * the shapes. */
      buf[j] = j == (k & 1 ? 10 : 2) && x % 3 ? '.'
                                             : alpha[x % 8 ? x % 10 : x % 15];
    }
    same_decimal(buf, 0, n);
  }
}
END_TEST

/* Shapes the fast path leaves to yajl on purpose. */
START_TEST(test_fast_refuses) {
  static const char *const other[] = {
      /* a fault: an extra field after seconds */
      "{\"type\":\"deliver-result\",\"crankNum\":3,\"vatID\":\"v2\","
      "\"deliveryNum\":2,\"dr\":[\"error\",\"killed\",null],\"seconds\":0.1,"
      "\"fault\":\"IPS_EPIPE\",\"time\":2.5,\"monotime\":3.25}",
      /* a notify without a promise id, an escaped vatID, a leading zero,
       * time not last */
      "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v1\",\"deliveryNum\":0,"
      "\"vd\":[\"notify\",[[1,{}]]],\"time\":1.0,\"monotime\":2.0}",
      "{\"type\":\"syscall\",\"crankNum\":1,\"vatID\":\"v\\u0031\","
      "\"deliveryNum\":0,\"syscallNum\":0,\"vsc\":[1],\"time\":1.0,"
      "\"monotime\":2.0}",
      "{\"type\":\"syscall\",\"crankNum\":01,\"vatID\":\"v1\","
      "\"deliveryNum\":0,\"syscallNum\":0,\"vsc\":[1],\"time\":1.0,"
      "\"monotime\":2.0}",
      "{\"type\":\"syscall\",\"crankNum\":1,\"vatID\":\"v1\",\"deliveryNum\":0,"
      "\"syscallNum\":0,\"time\":1.0,\"vsc\":[1],\"monotime\":2.0}",
      /* message arguments that name the method, or are not flat */
      "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v1\",\"deliveryNum\":0,"
      "\"vd\":[\"message\",\"o+0\",{\"a\":1,\"method\":\"m\"}],\"time\":1.0,"
      "\"monotime\":2.0}",
      "{\"type\":\"deliver\",\"crankNum\":1,\"vatID\":\"v1\",\"deliveryNum\":0,"
      "\"vd\":[\"message\",\"o+0\",{\"a\":[1]}],\"time\":1.0,\"monotime\":2.0}"};
  /* A metering that is not the worker's exact form (an unknown nested
   * field) is no reason to leave the line: the one metering decoder reads
   * it with its general reader, in either path. */
  static const char meter[] =
      "{\"type\":\"deliver-result\",\"crankNum\":1,\"vatID\":\"v1\","
      "\"deliveryNum\":1,\"dr\":[\"ok\",null,{\"x\":{\"timestamps\":[1]},"
      "\"timestamps\":[1.5,2.5]}],\"seconds\":1,\"time\":2.5,\"monotime\":3.25}";
  ips__parser_t *f = ips__parser_new(0), *y = ips__parser_new(IPS__PARSE_NOFAST);
  ips__rec_t r;
  size_t i;
  rec_new(&r);
  for (i = 0; i < sizeof other / sizeof other[0]; i++) {
    r.have = 0;
    r.n_walls = r.n_wmono = r.n_kinds = r.n_wrunq = 0;
    ck_assert_msg(ips__slog_fast(&r, other[i], strlen(other[i])) == 0,
                  "taken: %s", other[i]);
    same(f, y, other[i], strlen(other[i]));
  }
  r.have = 0;
  r.n_walls = r.n_wmono = r.n_kinds = r.n_wrunq = 0;
  ck_assert_int_eq(ips__slog_fast(&r, meter, strlen(meter)), 1);
  ck_assert_uint_eq(r.n_walls, 2);
  same(f, y, meter, strlen(meter));
  rec_free(&r);
  ips__parser_free(f);
  ips__parser_free(y);
}
END_TEST

/* The next item of a matches what the plain reader and a parser of its
 * own give for the same line.  Returns the reader's result. */
static int same_item(ips__slog_ahead_t *a, ips__slog_in_t *in,
                     ips__parser_t *p, int *toolong) {
  ips__slog_item_t it;
  const char *line;
  const ips__rec_t *r;
  char err[256], e2[256];
  size_t len;
  int flags, ra = ips__slog_ahead_next(a, &it, err, sizeof err);
  int rp = ips__slog_next(in, &line, &len, &flags, e2, sizeof e2);
  ck_assert_int_eq(ra, rp);
  if (ra <= 0)
    return ra;
  ck_assert_uint_eq(it.len, len);
  ck_assert_int_eq(it.flags, flags);
  ck_assert_int_eq(ips__slog_ahead_lineno(a), ips__slog_lineno(in));
  if (flags & IPS__LINE_TOOLONG) {
    (*toolong)++;
    return 1;
  }
  ck_assert_int_eq(it.parsed, ips__slog_parse(p, line, len, &r, e2, sizeof e2));
  if (it.parsed < 0)
    ck_assert_str_eq(it.err, e2);
  else
    same_rec(it.rec, r, "a line of many.slog");
  return 1;
}

/* ips__slog_ahead hands out, line for line, what the plain reader and
 * ips__slog_parse() give, whichever thread parsed the block: the caller
 * parses the first (the head block is always left to it), the reader
 * those it parses ahead while the caller is away. */
START_TEST(test_ahead_both_threads) {
  size_t nrun, nbad, nmarks, written = 0;
  char *run = tt_read(tt_data("run.slog"), &nrun);
  char *bad = tt_read(tt_data("bad.slog"), &nbad);
  char *marks; /* every delivery with its VM's marks */
  const char *path = tt_tmp("many.slog");
  FILE *f = fopen(path, "w");
  char err[256];
  ips__slog_ahead_t *a;
  ips__slog_in_t *in;
  ips__parser_t *p = ips__parser_new(0);
  long by_reader = 0, by_caller = 0;
  int i, toolong = 0;
  ck_assert_int_eq(tt_sh("gzip -dc \"$DATA/marks.slog.gz\" >\"$TMP/marks.slog\""),
                   0);
  marks = tt_read(tt_tmp("marks.slog"), &nmarks);
  ck_assert_ptr_nonnull(f);
  while (written < (6u << 20)) { /* many blocks, with bad lines in them */
    fwrite(run, 1, nrun, f);
    fwrite(marks, 1, nmarks, f);
    written += nmarks;
    fwrite(bad, 1, nbad, f);
    fputc('\n', f);
    written += nrun + nbad + 1;
    if (written > (3u << 20) && written < (3u << 20) + nrun + nbad + 2) {
      /* A line longer than a block's buffer, and one dropped as too long. */
      size_t k;
      for (k = 2u << 20; k <= (5u << 20); k += 3u << 20) {
        size_t j;
        fputs("{\"type\":\"syscall\",\"vsc\":[\"", f);
        for (j = 0; j < k; j++)
          fputc('x', f);
        fputs("\"],\"time\":1.5}\n", f);
      }
    }
  }
  fputs("{\"type\":\"cut", f); /* and a last line without its end */
  ck_assert_int_eq(fclose(f), 0);
  a = ips__slog_ahead_open(path, 4u << 20, 0, 0, err, sizeof err);
  in = ips__slog_open(path, 4u << 20, err, sizeof err);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(in);
  ck_assert_int_eq(same_item(a, in, p, &toolong), 1);
  for (i = 0; i < 1000 && by_reader == 0; i++) {
    usleep(10000);
    ips__slog_ahead_parsed(a, &by_reader, &by_caller);
  }
  ck_assert_int_gt(by_reader, 0);
  while (same_item(a, in, p, &toolong) > 0)
    ;
  ck_assert_int_eq(same_item(a, in, p, &toolong), 0); /* again at the end */
  ck_assert_int_eq(toolong, 1);
  ips__slog_ahead_parsed(a, &by_reader, &by_caller);
  ck_assert_int_gt(by_caller, 0);
  ips__slog_ahead_close(a);
  ips__slog_close(in);
  ips__parser_free(p);
  free(run);
  free(bad);
  free(marks);
}
END_TEST

void slog_fast_tests(TCase *core, TCase *bad) {
  tcase_add_test(core, test_fast_used);
  tcase_add_test(core, test_meter_kill);
  tcase_add_test(core, test_fast_data_files);
  tcase_add_test(core, test_fast_numbers);
  tcase_add_test(core, test_fast_strings);
  tcase_add_test(core, test_decimal_paths);
  tcase_add_test(core, test_ahead_both_threads);
  tcase_add_test(bad, test_fast_refuses);
  tcase_add_test(bad, test_fast_mutations);
}
