/* tools_suites.h — the suites of tests/tools/check_tools: `ipcstamp
 * report`, `latency` and `trace` against golden outputs and the formats'
 * rules (helpers: tests/analyze/analyze_util.h). */
#ifndef IPCSTAMP_TESTS_TOOLS_SUITES_H
#define IPCSTAMP_TESTS_TOOLS_SUITES_H

#include "analyze_util.h"

Suite *report_suite(void);
Suite *trace_suite(void);

#endif
