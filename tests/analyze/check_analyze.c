/* check_analyze.c — runs the analysis library's suites on slogfiles (the
 * attribution's own are in check_attribution.c). */
#include "config.h"

#include "analyze_suites.h"

int main(void) {
  SRunner *sr = srunner_create(slog_suite());
  srunner_add_suite(sr, hist_suite());
  srunner_add_suite(sr, hostile_slog_suite());
  srunner_add_suite(sr, flight_suite());
  srunner_add_suite(sr, swingset_shapes_suite());
  srunner_add_suite(sr, marks_slog_suite());
  srunner_add_suite(sr, ring_meter_suite());
  srunner_add_suite(sr, groups_suite());
  srunner_add_suite(sr, diff_suite());
  srunner_add_suite(sr, live_suite());
  srunner_add_suite(sr, causes_suite());
  return tt_run(sr, "check_analyze");
}
