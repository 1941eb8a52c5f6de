# analyze/: the analysis library.  Sources (slogfiles) -> records ->
# attribution -> callbacks and statistics; no command-line concerns.
#
# The code is built once, as a convenience library that the tests and the
# fuzz targets link whole (they reach the internal reader and parser), and
# installed as libipcstamp-analyze, which exports only ipcstamp-analyze.h.
noinst_LTLIBRARIES += analyze/libanalyze-core.la
analyze_libanalyze_core_la_CFLAGS = $(AM_CFLAGS) -pthread $(YAJL_CFLAGS) $(ZLIB_CFLAGS)
analyze_libanalyze_core_la_SOURCES = \
	analyze/slog.h \
	analyze/slog_read.c \
	analyze/bus_guard.h \
	analyze/bus_guard.c \
	analyze/flight.c \
	analyze/flight_spool.h \
	analyze/flight_spool.c \
	analyze/slog_ahead.c \
	analyze/slog_block.h \
	analyze/slog_block.c \
	analyze/slog_parse.h \
	analyze/slog_parse.c \
	analyze/slog_fields.c \
	analyze/slog_meter.c \
	$(METER_SOURCES) \
	analyze/desc.c \
	analyze/slog_fast.h \
	analyze/slog_fast.c \
	analyze/slog_fast_meter.c \
	analyze/json_skip.c \
	analyze/attribute.h \
	analyze/vat.h \
	analyze/vats.c \
	analyze/assemble.c \
	analyze/result.h \
	analyze/attribute.c \
	analyze/clock_offset.c \
	analyze/annotate.c \
	analyze/stats.c \
	analyze/delivery.c \
	analyze/slowest.c \
	analyze/slow_marks.c \
	analyze/groups.c \
	proto/attribution.h \
	proto/attribution.c \
	analyze/blocks.h \
	analyze/blocks.c \
	analyze/marks.h \
	analyze/marks.c \
	analyze/mark_pair.h \
	analyze/mark_pair.c \
	analyze/analysis.c \
	analyze/hist.c \
	analyze/ring_read.h \
	analyze/regular.h \
	analyze/regular.c \
	analyze/ring_meter.h \
	analyze/ring_meter.c \
	analyze/ring_open.c \
	analyze/ring_decode.h \
	analyze/ring_decode.c \
	analyze/ring_read.c \
	analyze/ring_join.c \
	analyze/os_between.c \
	analyze/ring_dir.c \
	analyze/live.c \
	analyze/causes.c analyze/causes.h \
	analyze/ring_files.c \
	analyze/ring_source.c \
	analyze/os.h \
	analyze/os_read.c \
	analyze/os_bin.c \
	analyze/os_store.c \
	analyze/os_split.c \
	analyze/os_join.c \
	analyze/os_other.c \
	analyze/os_launch.c \
	analyze/diff.h \
	analyze/diff.c \
	analyze/diff_join.c \
	analyze/diff_stats.c \
	analyze/diff_os.c
analyze_libanalyze_core_la_LIBADD = proto/libipcstamp-proto.la \
	$(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread

lib_LTLIBRARIES += analyze/libipcstamp-analyze.la
include_HEADERS += analyze/ipcstamp-analyze.h analyze/ipcstamp-analyze-blocks.h \
	analyze/ipcstamp-analyze-causes.h \
	analyze/ipcstamp-analyze-rings.h analyze/ipcstamp-ring-read.h \
	analyze/ipcstamp-analyze-os.h analyze/ipcstamp-analyze-fields.h \
	analyze/ipcstamp-analyze-keepers.h analyze/ipcstamp-analyze-diff.h \
	analyze/ipcstamp-analyze-files.h
pkgconfig_DATA += analyze/ipcstamp-analyze.pc
analyze_libipcstamp_analyze_la_SOURCES =
analyze_libipcstamp_analyze_la_LIBADD = analyze/libanalyze-core.la
analyze_libipcstamp_analyze_la_LDFLAGS = $(AM_LDFLAGS) -no-undefined -version-info 1:0:1

dist_docs_DATA += docs/analyze.md
