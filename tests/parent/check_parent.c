/* check_parent.c — runs the parent/ suites.  Run as
 * `check_parent --peer MODE` it is instead the worker the tests spawn. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parent_suites.h"

int main(int argc, char **argv) {
  SRunner *sr;
  int failed;
  if (argc == 3 && !strcmp(argv[1], "--peer"))
    return parent_peer_main(argv[2]);
  sr = srunner_create(parent_metering_suite());
  srunner_add_suite(sr, slog_suite());
  srunner_add_suite(sr, worker_suite());
  srunner_add_suite(sr, real_worker_suite());
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
