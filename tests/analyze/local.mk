# Tests of analyze/ (tests/analyze/): the analysis library on slogfiles
# (the reader, its fast and mapped paths, the histogram, hostile slogfiles,
# the flight recorder, SwingSet's record shapes, marks), and the
# attribution itself.  Run one alone: make check TESTS=tests/analyze/check_analyze
ANALYZE_TEST_UTIL = tests/analyze/analyze_util.c tests/analyze/analyze_util.h
check_PROGRAMS += tests/analyze/check_analyze
TESTS += tests/analyze/check_analyze
tests_analyze_check_analyze_SOURCES = \
	tests/analyze/check_analyze.c \
	tests/analyze/analyze_suites.h \
	tests/analyze/check_slog.c \
	tests/analyze/check_slog_fast.c \
	tests/analyze/check_slog_map.c \
	tests/analyze/check_hist.c \
	tests/analyze/check_hostile_slog.c \
	tests/analyze/check_flight.c \
	tests/analyze/check_swingset_shapes.c \
	tests/analyze/check_marks_slog.c \
	tests/analyze/check_ring_meter.c \
	tests/analyze/check_groups.c \
	tests/analyze/check_diff.c \
	tests/analyze/check_live.c \
	tests/analyze/check_causes.c \
	$(ANALYZE_TEST_UTIL)
tests_analyze_check_analyze_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS)
tests_analyze_check_analyze_LDADD = analyze/libanalyze-core.la $(CHECK_LIBS) $(YAJL_LIBS) \
	$(ZLIB_LIBS) -lm -lpthread
# Some suites run the command on what they wrote: build it first.
EXTRA_tests_analyze_check_analyze_DEPENDENCIES = tools/ipcstamp$(EXEEXT)

# The one metering decoder (proto/meter.h) as the parent and the analysis
# each use it: one table of meterings, read by both.
check_PROGRAMS += tests/analyze/check_meter_same
TESTS += tests/analyze/check_meter_same
tests_analyze_check_meter_same_SOURCES = tests/analyze/check_meter_same.c
tests_analyze_check_meter_same_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_analyze_check_meter_same_LDADD = analyze/libanalyze-core.la \
	parent/libipcstamp-parent.la $(CHECK_LIBS) $(YAJL_LIBS) $(ZLIB_LIBS) \
	-lm -lpthread

# The attribution itself: the formula and the stages, from hand-worked
# deliveries.
check_PROGRAMS += tests/analyze/check_attribution
TESTS += tests/analyze/check_attribution
tests_analyze_check_attribution_SOURCES = tests/analyze/check_attribution.c
tests_analyze_check_attribution_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_analyze_check_attribution_LDADD = analyze/libanalyze-core.la $(CHECK_LIBS) \
	$(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread

# docs/ring.md's reader example, compiled from the page itself so that it
# cannot rot, and run on a ring the real producer wrote.
check_PROGRAMS += analyze/ring-example
nodist_analyze_ring_example_SOURCES = analyze/ring-example.c
analyze_ring_example_LDADD = analyze/libipcstamp-analyze.la proto/libipcstamp-proto.la
CLEANFILES += analyze/ring-example.c
analyze/ring-example.c: $(top_srcdir)/docs/ring.md
	$(AM_V_GEN)$(MKDIR_P) analyze && \
	sed -n '/^<!-- ring-example.c: begin/,/^<!-- ring-example.c: end/{/^<!--/d;/^```/d;p;}' \
	  $(top_srcdir)/docs/ring.md > $@.tmp && mv $@.tmp $@
TESTS += tests/analyze/ring-example.test
EXTRA_DIST += tests/analyze/ring-example.test
