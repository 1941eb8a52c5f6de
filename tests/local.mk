# tests/: Check suites, one binary per module (tests/check_<module>.c).

# The test suite's peers (Debian packages, the test-only npm projects),
# which neither the build nor make demo needs: installed by make check
# first, cached (tests/peers.sh).  The stamp changes only when what is
# installed does: a rule building from the npm packages depends on it.
check_DATA += tests/peers.stamp
EXTRA_DIST += tests/peers.sh tests/peers.test
TESTS += tests/peers.test
CLEANFILES += tests/peers.stamp
tests/peers.stamp: FORCE
	@$(MKDIR_P) tests && \
	if test -z "$${IPCSTAMP_INTEROP_DIR-}" && test -n '$(INTEROP_DIR)'; then \
	  IPCSTAMP_INTEROP_DIR='$(INTEROP_DIR)'; export IPCSTAMP_INTEROP_DIR; fi; \
	$(SHELL) $(srcdir)/tests/peers.sh '$(abs_top_srcdir)' $@
FORCE:
PHONY_TARGETS += FORCE
check_PROGRAMS += tests/check_proto
TESTS += tests/check_proto
tests_check_proto_SOURCES = \
	tests/check_proto.c \
	tests/check_netstring.c \
	tests/check_stamps.c \
	tests/check_metering.c \
	tests/check_marks.c \
	tests/suites.h
tests_check_proto_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_check_proto_LDADD = proto/libipcstamp-proto.la $(CHECK_LIBS) $(YAJL_LIBS)

# The public headers together, and what the shared libraries export.
check_PROGRAMS += tests/check_api
TESTS += tests/check_api
tests_check_api_SOURCES = tests/check_api.c
tests_check_api_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(UV_CFLAGS)
tests_check_api_LDADD = analyze/libipcstamp-analyze.la parent/libipcstamp-parent.la \
	worker/libipcstamp-worker.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(UV_LIBS) -ldl

# The tree itself: git tracks no build output (tests/tracked.test).
TESTS += tests/tracked.test
EXTRA_DIST += tests/tracked.test

include tests/worker.mk
include tests/parent.mk
include tests/tools.mk
include tests/otel.mk
include tests/docs.mk
include tests/ring.mk

# Benchmarks of proto/ (make bench).
EXTRA_PROGRAMS += tests/bench/bench_stamp
BENCH_PROGS += tests/bench/bench_stamp
tests_bench_bench_stamp_SOURCES = tests/bench/bench_stamp.c
tests_bench_bench_stamp_LDADD = proto/libipcstamp-proto.la

# libFuzzer targets (./configure CC=clang --enable-fuzzing).  Each target
# tests/fuzz/fuzz_<name> has its seed corpus in tests/fuzz/corpus/<name>/.
FUZZ_TARGETS =
if FUZZING
FUZZ_TARGETS += tests/fuzz/fuzz_netstring
tests_fuzz_fuzz_netstring_SOURCES = tests/fuzz/fuzz_netstring.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_netstring_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_netstring_LDADD = proto/libipcstamp-proto.la
FUZZ_TARGETS += tests/fuzz/fuzz_metering
tests_fuzz_fuzz_metering_SOURCES = tests/fuzz/fuzz_metering.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_metering_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS)
tests_fuzz_fuzz_metering_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_metering_LDADD = parent/libipcstamp-parent.la \
	proto/libipcstamp-proto.la
FUZZ_TARGETS += tests/fuzz/fuzz_slog
tests_fuzz_fuzz_slog_SOURCES = tests/fuzz/fuzz_slog.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_slog_CPPFLAGS = $(AM_CPPFLAGS)
tests_fuzz_fuzz_slog_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_fuzz_fuzz_slog_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_slog_LDADD = analyze/libanalyze-core.la $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
# The block assembler and snapshot clock, through the public analysis.
FUZZ_TARGETS += tests/fuzz/fuzz_blocks
tests_fuzz_fuzz_blocks_SOURCES = tests/fuzz/fuzz_blocks.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_blocks_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze
tests_fuzz_fuzz_blocks_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_blocks_LDADD = analyze/libanalyze-core.la $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
FUZZ_TARGETS += tests/fuzz/fuzz_flight
tests_fuzz_fuzz_flight_SOURCES = tests/fuzz/fuzz_flight.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_flight_CPPFLAGS = $(AM_CPPFLAGS)
tests_fuzz_fuzz_flight_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_fuzz_fuzz_flight_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_flight_LDADD = analyze/libanalyze-core.la $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
FUZZ_TARGETS += tests/fuzz/fuzz_slog_read
tests_fuzz_fuzz_slog_read_SOURCES = tests/fuzz/fuzz_slog_read.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_slog_read_CPPFLAGS = $(AM_CPPFLAGS)
tests_fuzz_fuzz_slog_read_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_fuzz_fuzz_slog_read_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_slog_read_LDADD = analyze/libanalyze-core.la $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
FUZZ_TARGETS += tests/fuzz/fuzz_parent_frames
tests_fuzz_fuzz_parent_frames_SOURCES = tests/fuzz/fuzz_parent_frames.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_parent_frames_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS)
tests_fuzz_fuzz_parent_frames_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_parent_frames_LDADD = parent/libipcstamp-parent.la \
	proto/libipcstamp-proto.la $(UV_LIBS) $(YAJL_LIBS)
# The OpenTelemetry environment's two lists (OTEL_RESOURCE_ATTRIBUTES,
# OTEL_EXPORTER_OTLP_HEADERS: tools/otel/config.c).
FUZZ_TARGETS += tests/fuzz/fuzz_otel_config
tests_fuzz_fuzz_otel_config_SOURCES = tests/fuzz/fuzz_otel_config.c tests/fuzz/fuzz.h \
	tools/otel/config.c
tests_fuzz_fuzz_otel_config_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze -I$(top_srcdir)/tools/otel
tests_fuzz_fuzz_otel_config_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_otel_config_LDADD = proto/libipcstamp-proto.la
FUZZ_TARGETS += tests/fuzz/fuzz_otel_causes
tests_fuzz_fuzz_otel_causes_SOURCES = tests/fuzz/fuzz_otel_causes.c tests/fuzz/fuzz.h \
	tools/otel/causes.c
tests_fuzz_fuzz_otel_causes_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze -I$(top_srcdir)/tools/otel
tests_fuzz_fuzz_otel_causes_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS)
tests_fuzz_fuzz_otel_causes_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_otel_causes_LDADD = $(YAJL_LIBS) $(ZLIB_LIBS)
FUZZ_TARGETS += tests/fuzz/fuzz_metering_fast
tests_fuzz_fuzz_metering_fast_SOURCES = tests/fuzz/fuzz_metering_fast.c tests/fuzz/fuzz.h \
	parent/metering.c parent/metering_fast.c parent/json.c parent/marks_check.c
tests_fuzz_fuzz_metering_fast_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/parent
tests_fuzz_fuzz_metering_fast_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_fuzz_fuzz_metering_fast_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_metering_fast_LDADD = proto/libipcstamp-proto.la $(YAJL_LIBS)
FUZZ_TARGETS += tests/fuzz/fuzz_ring
tests_fuzz_fuzz_ring_SOURCES = tests/fuzz/fuzz_ring.c tests/fuzz/fuzz.h \
	tools/otel/ids.c tools/otel/otlp_json.c tools/otel/config.c \
	tools/top/model.c
tests_fuzz_fuzz_ring_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze -I$(top_srcdir)/tools/otel \
	-I$(top_srcdir)/tools/top
tests_fuzz_fuzz_ring_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_ring_LDADD = analyze/libanalyze-core.la $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
endif
EXTRA_PROGRAMS += $(FUZZ_TARGETS)
# The seed corpus of fuzz_ring comes from the real producer (make
# ring-seeds rewrites tests/fuzz/corpus/ring/); so do the hostile rings of
# tests/live-hostile.test.
check_PROGRAMS += tests/fuzz/gen_ring_seeds
tests_fuzz_gen_ring_seeds_SOURCES = tests/fuzz/gen_ring_seeds.c
tests_fuzz_gen_ring_seeds_LDADD = proto/libipcstamp-proto.la
PHONY_TARGETS += ring-seeds
ring-seeds: tests/fuzz/gen_ring_seeds
	@set -e; d=$$(mktemp -d); for k in fresh wrapped marks; do \
	  p=$$(./tests/fuzz/gen_ring_seeds $$d $$k); \
	  mv $$p $(srcdir)/tests/fuzz/corpus/ring/$$k.ring; done; rmdir $$d
EXTRA_DIST += tests/fuzz/gen_corpus.py
EXTRA_DIST += tests/fuzz/corpus

# A bounded run of every target from its seed corpus (CI runs it).  New
# inputs go to a scratch corpus in the build tree, never into the sources.
FUZZ_SECONDS = 30
PHONY_TARGETS += fuzz-smoke
fuzz-smoke: $(FUZZ_TARGETS)
	@if test -z "$(FUZZ_TARGETS)"; then \
	  echo "fuzz-smoke: configure with CC=clang --enable-fuzzing first" >&2; \
	  exit 2; fi
	@set -e; for t in $(FUZZ_TARGETS); do \
	  name=$${t##*/fuzz_}; work=fuzz-work/$$name; mkdir -p $$work; \
	  echo "== $$t ($(FUZZ_SECONDS) s)"; \
	  ./$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$$work/ $$work $(srcdir)/tests/fuzz/corpus/$$name; \
	done
CLEANFILES += -r fuzz-work

# Interoperability with the real peers: Agoric's xsnap parent and
# xsnap-worker (npm, test-only; see tests/interop/package.json).
TESTS += tests/interop/xsnap-parent.test tests/interop/xsnap-worker.test
EXTRA_DIST += tests/interop/xsnap-parent.test tests/interop/xsnap-parent.mjs \
	tests/interop/xsnap-worker.test \
	tests/interop/package.json tests/interop/package-lock.json

# Real SwingSet data (issue 11): the fixture written by Agoric's kernel on
# xsnap workers, and the node generators and harnesses of
# tests/interop/swingset (their own npm project, test-only).
TESTS += tests/interop/swingset-fixture.test tests/interop/swingset-otel.test \
	tests/interop/swingset-flight.test
# The format of the flight recorder files these tests use (and ipcstamp
# reads); kept beside its fixtures so the generator and the page change
# together.
dist_docs_DATA += docs/flight-recorder.md
EXTRA_DIST += tests/interop/swingset-fixture.test \
	tests/interop/swingset-otel.test \
	tests/interop/swingset-flight.test \
	tests/data/flight-nowrap.bin.gz \
	tests/data/flight-nowrap.jsonl.gz \
	tests/data/flight-wrap.bin.gz \
	tests/data/flight-wrap.jsonl.gz \
	tests/data/flight-bad-end.bin.gz \
	tests/data/flight-bad-len.bin.gz \
	tests/interop/swingset/gen-flight.mjs \
	tests/data/swingset.slog.gz \
	tests/data/otel-min.slog \
	tests/interop/swingset/slog-to-otel.mjs \
	tests/interop/swingset/README.md \
	tests/interop/swingset/package.json \
	tests/interop/swingset/package-lock.json \
	tests/interop/swingset/check-fixture.mjs \
	tests/interop/swingset/gen-slog.mjs \
	tests/interop/swingset/vats/alice.js \
	tests/interop/swingset/vats/bob.js \
	tests/interop/swingset/vats/carol.js \
	tests/interop/swingset/vats/ledger.js \
	tests/interop/swingset/vats/bootstrap.js
# Real SwingSet slogfiles at xsnap's limits (issue 26): the 502-stamp cap
# with console lines, replays at the cap, a meter kill, upgrades, a kernel
# SIGKILLed mid-delivery (tests/interop/swingset/gen-shapes.mjs).
TESTS += tests/xsnap-limits.test
EXTRA_DIST += tests/xsnap-limits.test \
	tests/data/swingset-cap.slog.gz \
	tests/data/swingset-meter.slog.gz \
	tests/data/swingset-upgrade.slog.gz \
	tests/data/swingset-killed.slog.gz \
	tests/data/swingset-xs.slog.gz \
	tests/interop/swingset/cut-slog.mjs \
	tests/interop/swingset/host.mjs \
	tests/interop/swingset/gen-shapes.mjs \
	tests/interop/swingset/shapes/bootstrap.js \
	tests/interop/swingset/shapes/capper.js \
	tests/interop/swingset/shapes/phoenix.js \
	tests/interop/swingset/shapes/sleeper.js \
	tests/interop/swingset/shapes/spinner.js
# make bench: a mark against a stamp (issue 14).
# make bench: top's model keeping up with a fast producer (issue 13).
EXTRA_PROGRAMS += tests/bench/bench_top
BENCH_PROGS += tests/bench/bench_top
tests_bench_bench_top_SOURCES = tests/bench/bench_top.c tools/top/model.c \
	tools/top/top.h
tests_bench_bench_top_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_bench_bench_top_LDADD = analyze/libanalyze-core.la proto/libipcstamp-proto.la \
	$(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
# make bench: the live ring's cost on a stamp (issue 13).
EXTRA_PROGRAMS += tests/bench/bench_ring
BENCH_PROGS += tests/bench/bench_ring
tests_bench_bench_ring_SOURCES = tests/bench/bench_ring.c tests/bench/common.c tests/bench/common.h
tests_bench_bench_ring_LDADD = proto/libipcstamp-proto.la
EXTRA_PROGRAMS += tests/bench/bench_mark
BENCH_PROGS += tests/bench/bench_mark
tests_bench_bench_mark_SOURCES = tests/bench/bench_mark.c
tests_bench_bench_mark_LDADD = proto/libipcstamp-proto.la

# The attribution itself (tests/analyze/): the formula and the stages,
# from hand-worked deliveries.  Run alone: make check TESTS=tests/analyze/check_attribution
check_PROGRAMS += tests/analyze/check_attribution
TESTS += tests/analyze/check_attribution
tests_analyze_check_attribution_SOURCES = tests/analyze/check_attribution.c
tests_analyze_check_attribution_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_analyze_check_attribution_LDADD = analyze/libanalyze-core.la $(CHECK_LIBS) \
	$(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
