/* check_report.h — the suites of tests/check_tools and their helpers. */
#ifndef IPCSTAMP_TESTS_CHECK_REPORT_H
#define IPCSTAMP_TESTS_CHECK_REPORT_H

#include <check.h>
#include <stddef.h>

#include "ipcstamp-analyze.h"

Suite *slog_suite(void);
Suite *hist_suite(void);
Suite *report_suite(void);
Suite *trace_suite(void);
Suite *hostile_slog_suite(void);
Suite *flight_suite(void);
Suite *swingset_shapes_suite(void);
Suite *marks_slog_suite(void);

/* Runs `sh -c cmd` where cmd may use $IPS (the ipcstamp binary), $DATA (the
 * test slogfiles) and $TMP (a scratch directory made for this test).
 * Returns the exit status. */
int tt_sh(const char *cmd);
/* The contents of the file at path (a plain path: build it with tt_tmp()
 * or tt_data(); no $TMP or $DATA is expanded here), NUL-ended; the caller
 * frees.  Fails the test if it cannot be read. */
char *tt_read(const char *path, size_t *len);
/* Path of a file under the scratch directory or the data directory. */
const char *tt_tmp(const char *name);
const char *tt_data(const char *name);
/* Analyses text (written to $TMP/in.slog) with lines up to max_line (0:
 * the default), calling o's callbacks (o may be NULL: defaults), reads to
 * the end, finishes, and returns the analysis for the caller to inspect
 * and free.  Fails the test on any error. */
ips_analysis_t *tt_analyse(const char *text, size_t max_line,
                           const ips_analysis_options_t *o);
/* The same with the source's options given (so may be NULL: defaults). */
ips_analysis_t *tt_analyse_src(const char *text,
                               const ips_source_options_t *so,
                               const ips_analysis_options_t *o);

#endif
