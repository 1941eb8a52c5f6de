# tests/ of tools/: the slog reader, the histogram, and the three commands
# against golden outputs (tests/data/).
check_PROGRAMS += tests/check_tools
TESTS += tests/check_tools tests/follow.test tests/recompute.test tests/watch.test \
	tests/report_filters.test
tests_check_tools_SOURCES = \
	tests/check_report.h \
	tests/check_report_main.c \
	tests/check_slog.c \
	tests/check_slog_fast.c \
	tests/check_slog_map.c \
	tests/check_hist.c \
	tests/check_report.c \
	tests/check_trace.c \
	tests/check_hostile_slog.c \
	tests/check_flight.c \
	tests/check_swingset_shapes.c \
	tests/check_marks_slog.c
tests_check_tools_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_check_tools_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS)
tests_check_tools_LDADD = analyze/libanalyze-core.la $(CHECK_LIBS) $(YAJL_LIBS) \
	$(ZLIB_LIBS) -lm -lpthread
# The commands are run as programs: build them first.
EXTRA_tests_check_tools_DEPENDENCIES = tools/ipcstamp$(EXEEXT)

EXTRA_DIST += tests/follow.test tests/recompute.test tests/recompute.py \
	tests/report_filters.test \
	tests/watch.test \
	tests/data/swingset-shapes.slog tests/data/xsnap-truncated.slog \
	tests/gen_truncated.py \
	tests/data/ours.slog \
	tests/data/xsnap.slog \
	tests/data/bad.slog \
	tests/data/run.slog \
	tests/data/rundelay.slog \
	tests/data/run.report.txt \
	tests/data/run.latency.txt \
	tests/data/marks.slog.gz \
	tests/data/marks.report.txt \
	tests/data/marks.report.json \
	tests/data/marks.latency.txt \
	tests/data/marks.latency.json \
	tests/data/ours.report.txt \
	tests/data/ours.report.json \
	tests/data/ours.latency.txt \
	tests/data/xsnap.report.txt \
	tests/data/xsnap.report.csv \
	tests/data/bad.report.txt \
	tests/data/bad.stderr.txt \
	tests/bench/gen_slog.py \
	tests/bench/report_baseline.py

# make bench: ipcstamp report against the Python baseline (issue 5).
EXTRA_PROGRAMS += tests/bench/bench_report
BENCH_PROGS += tests/bench/bench_report
tests_bench_bench_report_SOURCES = tests/bench/bench_report.c
tests_bench_bench_report_CPPFLAGS = $(AM_CPPFLAGS) \
	-DIPS_SRCDIR='"$(abs_top_srcdir)"' -DIPS_BUILDDIR='"$(abs_top_builddir)"'
CLEANFILES += tests/bench/bench-100.slog tests/bench/bench-10.slog \
	tests/bench/bench-100-small.slog \
	tests/bench/bench-report-c.out tests/bench/bench-report-py.out

# The command as bench_report runs it: the same program linked with
# -no-install, so that it starts without the libtool wrapper script.  The
# wrapper is a shell that cost 12 ms a run, a sixth of the report's time on
# 100 MB; an installed ipcstamp has no wrapper.
EXTRA_PROGRAMS += tests/bench/ipcstamp-direct
tests_bench_ipcstamp_direct_SOURCES = $(tools_ipcstamp_SOURCES)
tests_bench_ipcstamp_direct_CPPFLAGS = $(tools_ipcstamp_CPPFLAGS)
tests_bench_ipcstamp_direct_CFLAGS = $(tools_ipcstamp_CFLAGS)
tests_bench_ipcstamp_direct_LDADD = $(tools_ipcstamp_LDADD)
tests_bench_ipcstamp_direct_LDFLAGS = -no-install
EXTRA_tests_bench_bench_report_DEPENDENCIES = tests/bench/ipcstamp-direct$(EXEEXT)
CLEANFILES += tests/bench/ipcstamp-direct$(EXEEXT)

# Before/after comparisons: two commands alternately, the ratio of their
# medians (BENCHMARKS.md says which command produced each figure).
EXTRA_PROGRAMS += tests/bench/ab
BENCH_TOOLS += tests/bench/ab tests/bench/ipcstamp-direct
tests_bench_ab_SOURCES = tests/bench/ab.c

# The trace in an offline viewer: speedscope (npm, test-only; see
# tests/viewers/package.json) in headless Chromium.
TESTS += tests/viewers/speedscope.test
EXTRA_DIST += tests/viewers/speedscope.test tests/viewers/speedscope-check.mjs \
	tests/viewers/cdp.mjs tests/viewers/html-check.mjs tests/viewers/package.json \
	tests/viewers/package-lock.json

# The HTML report in headless Chromium; its screenshot is kept.
TESTS += tests/html.test
EXTRA_DIST += tests/html.test
CLEANFILES += tests/html-screenshot.png tests/html-details.png
