/* check_tools.c — runs the suites of the commands that read slogfiles. */
#include "config.h"

#include "tools_suites.h"

int main(void) {
  SRunner *sr = srunner_create(report_suite());
  srunner_add_suite(sr, trace_suite());
  return tt_run(sr, "check_tools");
}
