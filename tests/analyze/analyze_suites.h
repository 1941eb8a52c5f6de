/* analyze_suites.h — the suites of tests/analyze/check_analyze: the
 * analysis library on slogfiles (the reader and its fast paths, the
 * histogram, hostile input, the flight recorder, SwingSet's shapes, marks). */
#ifndef IPCSTAMP_TESTS_ANALYZE_SUITES_H
#define IPCSTAMP_TESTS_ANALYZE_SUITES_H

#include "analyze_util.h"

Suite *slog_suite(void);
Suite *hist_suite(void);
Suite *hostile_slog_suite(void);
Suite *flight_suite(void);
Suite *swingset_shapes_suite(void);
Suite *marks_slog_suite(void);
Suite *ring_meter_suite(void);
Suite *groups_suite(void);
Suite *diff_suite(void);
Suite *live_suite(void);
Suite *causes_suite(void);

#endif
