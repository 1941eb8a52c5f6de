/* check_report.h — the suites of tests/check_tools and their helpers. */
#ifndef IPCSTAMP_TESTS_CHECK_REPORT_H
#define IPCSTAMP_TESTS_CHECK_REPORT_H

#include <check.h>
#include <stddef.h>

Suite *slog_suite(void);
Suite *hist_suite(void);
Suite *report_suite(void);
Suite *trace_suite(void);
Suite *hostile_slog_suite(void);
Suite *flight_suite(void);
Suite *marks_slog_suite(void);

/* Runs `sh -c cmd` where cmd may use $IPS (the ipcstamp binary), $DATA (the
 * test slogfiles) and $TMP (a scratch directory made for this test).
 * Returns the exit status. */
int tt_sh(const char *cmd);
/* The contents of a file ($TMP/ and $DATA/ prefixes expanded), NUL-ended;
 * the caller frees.  Fails the test if it cannot be read. */
char *tt_read(const char *path, size_t *len);
/* Path of a file under the scratch directory or the data directory. */
const char *tt_tmp(const char *name);
const char *tt_data(const char *name);

#endif
