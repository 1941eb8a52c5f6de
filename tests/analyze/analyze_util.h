/* analyze_util.h — helpers of the suites that read slogfiles: the
 * analysis library's (tests/analyze/check_analyze) and the commands'
 * (tests/tools/check_tools): a scratch directory, the test data, the
 * built ipcstamp, and one call that analyses a slogfile's text. */
#ifndef IPCSTAMP_TESTS_ANALYZE_UTIL_H
#define IPCSTAMP_TESTS_ANALYZE_UTIL_H

#include <check.h>
#include <stddef.h>

#include "ipcstamp-analyze.h"

/* Runs the suites of sr, removes the scratch directory, and returns main()'s
 * exit status (EXIT_FAILURE when a test failed).  Frees sr.  prog names the
 * binary in messages.  Exits 77 (skipped) outside make check. */
int tt_run(SRunner *sr, const char *prog);
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
