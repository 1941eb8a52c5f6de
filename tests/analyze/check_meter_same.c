/* check_meter_same.c — the parent and the analysis read a metering the
 * same: one table of meterings, good and malformed, each read by the
 * parent (ips_metering_parse, a worker's reply) and by the analysis (a
 * deliver-result line carrying it as dr[2], through each of the slogfile
 * reader's three modes).  Both go through the one decoder (proto/meter.h),
 * so where the parent accepts, the analysis reads the same stamps and
 * counts; where the decoder refuses, both refuse with the same message;
 * and where only the writer's rules are broken (ips__meter_check), the
 * parent refuses and the analysis reads the metering as it is, for the
 * attribution to skip its delivery with a reason. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-parent.h"
#include "slog.h"

enum { BOTH, NEITHER, ANALYSIS }; /* who accepts */

#define V1(ts, rest)                                                         \
  "{\"timestamps\":" ts ",\"ipcstamp\":{\"v\":1,\"kinds\":\"de\",\"mono\":" \
  "[10,20],\"dropped\":0" rest "}}"
#define V2(marks)                                                            \
  "{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":2,\"kinds\":\"de\",\"mono\":" \
  "[10,20],\"dropped\":0,\"marks\":" marks "}}"

static const struct {
  const char *in;
  int who;
  const char *msg; /* in both messages, when refused */
} cases[] = {
    /* our worker's exact form, and variants only the general reader takes */
    {V1("[1795300856.504227,1795300856.507209]", ""), BOTH, NULL},
    {V1("[1795300856.504227,1795300856.507209]", ",\"cpu_ns\":7,"
        "\"run_delay_ns\":[1,2]"), BOTH, NULL},
    {"{ \"compute\" : 5, \"timestamps\": [1.5, 2.25], \"ipcstamp\": {\"v\": 1,"
     " \"kinds\": \"de\", \"mono\": [1, 2], \"dropped\": 3, \"x\": [[]]}}",
     BOTH, NULL},
    {"{\"meterType\":\"xs-meter-36\",\"compute\":12,\"allocate\":4,"
     "\"timestamps\":[1795665525.484281,1795665525.48444]}", BOTH, NULL},
    {"{\"timestamps\":[1,2,3]}", BOTH, NULL},
    {"{\"compute\":1,\"allocate\":2,\"timestamps\":[]}", BOTH, NULL},
    {V2("{\"names\":[\"x\"],\"events\":[[\"b\",0,1.5,12],[\"e\",0,1.6,15]],"
        "\"dropped\":0,\"unbalanced\":0}"), BOTH, NULL},
    /* the writer's rules broken: the analysis reads it as it is */
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":3,\"kinds\":\"de\","
     "\"mono\":[1,2],\"dropped\":0}}", ANALYSIS, "unknown version"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":1,\"kinds\":\"dx\","
     "\"mono\":[1,2],\"dropped\":0}}", ANALYSIS, "not d(ur)*e"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":1,\"kinds\":\"de\","
     "\"mono\":[5,4],\"dropped\":0}}", ANALYSIS, "backwards"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":1,\"kinds\":\"dre\","
     "\"mono\":[1,2]}}", ANALYSIS, "2 timestamps but 3 kinds"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"kinds\":\"de\",\"mono\":[1,2]}}",
     ANALYSIS, "ipcstamp.v is missing"},
    {V2("{\"names\":[\"x\"],\"events\":[[\"m\",0,1.5,25]]}"), ANALYSIS,
     "outside the command's d..e"},
    {V2("{\"names\":[\"x\"],\"events\":[[\"m\",1,1.5,15]]}"), ANALYSIS,
     "index past the names"},
    /* the form broken: both refuse, with the decoder's one message */
    {"{\"timestamps\":5}", NEITHER, "timestamps is not a list"},
    {"{\"timestamps\":[1,\"x\"]}", NEITHER, "timestamps[1]"},
    {"{\"timestamps\":[-1]}", ANALYSIS, "timestamps[0]"},
    {"{\"timestamps\":[1.5e1]}", NEITHER, "timestamps[0]"},
    {"{\"timestamps\":[9530085652503.5]}", NEITHER, "timestamps[0]"},
    {"{\"timestamps\":[1],\"timestamps\":[2]}", NEITHER, "duplicate"},
    {"{\"ipcstamp\":[]}", NEITHER, "ipcstamp is not an object"},
    {V1("[1,2]", ",\"cpu_ns\":-1"), NEITHER, "cpu_ns"},
    {V1("[1,2]", ",\"run_delay_ns\":[1.5]"), NEITHER, "run_delay_ns[0]"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"v\":\"1\"}}", NEITHER,
     "ipcstamp.v is not a version number"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"kinds\":7}}", NEITHER,
     "ipcstamp.kinds"},
    {"{\"timestamps\":[1,2],\"ipcstamp\":{\"mono\":[1.5]}}", NEITHER,
     "ipcstamp.mono[0]"},
    {V2("{\"names\":[\"x\"],\"events\":[[\"m\",0,1.5]]}"), NEITHER,
     "not [kind, name, wall, mono]"},
    {V2("{\"names\":[\"\"],\"events\":[]}"), NEITHER, "names[0] is not a name"},
    {V2("{\"names\":[\"x\"],\"events\":[[\"q\",0,1.5,15]]}"), NEITHER,
     "[0] is not \"m\""},
    {V2("{\"names\":[\"x\"],\"events\":[],\"dropped\":-1}"), NEITHER,
     "marks.dropped is not a count"},
    {V2("[1]"), NEITHER, "ipcstamp.marks is not an object"},
    {"{\"timestamps\":[\"\xff\"]}", NEITHER, "invalid JSON"},
};

/* The analysis's reading of metering m in a deliver-result line. */
static int analysis(ips__parser_t *p, const char *m, const ips__rec_t **r,
                    char *err, size_t errlen) {
  static char line[4096];
  int n = snprintf(line, sizeof line,
                   "{\"type\":\"deliver-result\",\"crankNum\":1,\"vatID\":"
                   "\"v1\",\"deliveryNum\":0,\"dr\":[\"ok\",null,%s],"
                   "\"time\":1795300856.507260,\"monotime\":8123.459822}",
                   m);
  ck_assert(n > 0 && (size_t)n < sizeof line);
  return ips__slog_parse(p, line, (size_t)n, r, err, errlen);
}

/* What the parent read, against what the analysis read. */
static void same_values(const ips_metering_t *pm, const ips__rec_t *r) {
  uint32_t i;
  ck_assert_uint_eq(pm->n, r->n_walls);
  for (i = 0; i < pm->n; i++)
    ck_assert_int_eq(pm->wall_us[i], r->walls[i] / 1000);
  if (pm->has_ipcstamp) {
    ck_assert_uint_eq(pm->n, r->n_wmono);
    for (i = 0; i < pm->n; i++)
      ck_assert_int_eq(pm->mono_ns[i], r->wmono[i]);
    ck_assert_int_eq(pm->version, r->ipsv);
    ck_assert_str_eq(pm->kinds ? pm->kinds : "", r->kinds);
  }
  ck_assert_int_eq(pm->dropped, r->dropped);
  ck_assert_int_eq(pm->has_cpu_ns, (r->have & IPS__F_CPU) != 0);
  ck_assert_int_eq(pm->cpu_ns, r->cpu_ns);
  ck_assert_int_eq(pm->has_compute, (r->have & IPS__F_COMPUTE) != 0);
  ck_assert_int_eq(pm->compute, r->compute);
}

START_TEST(test_one_table) {
  static const int modes[] = {0, IPS__PARSE_NOFAST, IPS__PARSE_STRICT};
  const char *in = cases[_i].in;
  ips_metering_t pm;
  char perr[200], aerr[300];
  int prc = ips_metering_parse(in, strlen(in), &pm, perr, sizeof perr);
  size_t k;
  ck_assert_msg((prc == 0) == (cases[_i].who == BOTH), "parent: %d (%s): %s",
                prc, perr, in);
  if (prc != 0)
    ck_assert_msg(strstr(perr, cases[_i].msg) != NULL &&
                  strstr(perr, " at byte ") != NULL, "parent: %s", perr);
  for (k = 0; k < sizeof modes / sizeof *modes; k++) {
    ips__parser_t *p = ips__parser_new(modes[k]);
    const ips__rec_t *r;
    int arc;
    ck_assert_ptr_nonnull(p);
    arc = analysis(p, in, &r, aerr, sizeof aerr);
    if (cases[_i].who == NEITHER) {
      ck_assert_msg(arc < 0, "analysis (mode %d) took: %s", modes[k], in);
      /* the decoder's message, word for word, placed in the line */
      ck_assert_msg(strncmp(aerr, perr, strlen(perr)) == 0,
                    "mode %d: '%s' is not the parent's '%s'", modes[k], aerr,
                    perr);
    } else {
      ck_assert_msg(arc == 0, "analysis (mode %d): %s: %s", modes[k], aerr,
                    in);
      ck_assert(r->have & IPS__F_METER);
      if (cases[_i].who == BOTH)
        same_values(&pm, r);
    }
    ips__parser_free(p);
  }
  ips_metering_free(&pm);
}
END_TEST

int main(void) {
  Suite *s = suite_create("one metering decoder");
  TCase *tc = tcase_create("Core");
  SRunner *sr;
  int failed;
  tcase_add_loop_test(tc, test_one_table, 0,
                      (int)(sizeof cases / sizeof *cases));
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
