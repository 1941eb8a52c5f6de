# tests/ of `ipcstamp otel`: the encoder, ids and settings in C (no
# network), and the whole command against a real OTLP receiver from npm
# (tests/otel/package.json; skipped without node unless
# IPCSTAMP_REQUIRE_INTEROP=1).
check_PROGRAMS += tests/check_otel
TESTS += tests/check_otel
tests_check_otel_SOURCES = tests/check_otel.c \
	tools/otel/ids.c tools/otel/otlp_json.c tools/otel/config.c \
	tools/otel/causes.c tools/otel/metrics.c
tests_check_otel_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze -I$(top_srcdir)/tools
tests_check_otel_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS)
tests_check_otel_LDADD = analyze/libanalyze-core.la $(CHECK_LIBS) $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread

TESTS += tests/otel.test tests/otel-ring.test tests/otel-exec.test tests/otel-hostile.test
EXTRA_DIST += tests/otel.test tests/otel-ring.test tests/otel-exec.test tests/otel-hostile.test \
	tests/otel/compare-ring.cjs \
	tests/otel/package.json tests/otel/package-lock.json \
	tests/otel/receiver.cjs tests/otel/compare.cjs tests/otel/join-agoric.cjs \
	tests/otel/compare-metrics.cjs tests/otel/attrs.cjs
