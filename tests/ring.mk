# Tests of the live ring: the producer (proto/ring.c) against the reader
# (analyze/ring_read.c), and a real worker writing its stamps into one.
check_PROGRAMS += tests/check_ring
TESTS += tests/check_ring
tests_check_ring_SOURCES = \
	tests/check_ring.c \
	tests/ring_util.c \
	tests/ring_util.h \
	tests/worker_driver.c \
	tests/worker_driver.h
tests_check_ring_CFLAGS = $(AM_CFLAGS) -pthread $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_check_ring_LDADD = analyze/libanalyze-core.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(YAJL_LIBS) -lpthread

# top's model: the order of its rows, dead writers, --clean.
check_PROGRAMS += tests/check_top
TESTS += tests/check_top
tests_check_top_SOURCES = tests/check_top.c tests/ring_util.c tests/ring_util.h \
	tools/top/model.c tools/top/top.h
tests_check_top_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_check_top_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_top_LDADD = analyze/libanalyze-core.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread

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
TESTS += tests/ring-example.test
EXTRA_DIST += tests/ring-example.test

# ipcstamp top against a stalled worker: --once, and the full-screen view
# in tmux.
TESTS += tests/top.test
EXTRA_DIST += tests/top.test

# ipcstamp run with rings: the parent's attribution events against the
# report's attribution of the same run.
TESTS += tests/ring-run.test
EXTRA_DIST += tests/ring-run.test

# The rings as a source of the analysis: report --ring and latency --ring
# against the slogfile of the same run, delivery by delivery.
TESTS += tests/ring-analysis.test
EXTRA_DIST += tests/ring-analysis.test

# The ring against whoever else can write its directory or its file:
# planted names, a full filesystem, FIFOs and devices, truncation under a
# reader, stamps going back (issue 27).
check_PROGRAMS += tests/check_ring_hostile
TESTS += tests/check_ring_hostile
tests_check_ring_hostile_SOURCES = \
	tests/check_ring_hostile.c \
	tests/ring_util.c \
	tests/ring_util.h \
	tests/worker_driver.c \
	tests/worker_driver.h
tests_check_ring_hostile_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_check_ring_hostile_LDADD = analyze/libanalyze-core.la \
	proto/libipcstamp-proto.la $(CHECK_LIBS) $(YAJL_LIBS) -lpthread

# The live surfaces (top, watch, otel --ring, run --ring) against hostile
# ring directories (the rings written by tests/fuzz/gen_ring_seeds, as a
# worker would).
TESTS += tests/live-hostile.test
EXTRA_DIST += tests/live-hostile.test
