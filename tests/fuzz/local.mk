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
	analyze/causes.c
tests_fuzz_fuzz_otel_causes_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze
tests_fuzz_fuzz_otel_causes_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_fuzz_fuzz_otel_causes_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_otel_causes_LDADD = proto/libipcstamp-proto.la $(YAJL_LIBS)
FUZZ_TARGETS += tests/fuzz/fuzz_metering_fast
tests_fuzz_fuzz_metering_fast_SOURCES = tests/fuzz/fuzz_metering_fast.c tests/fuzz/fuzz.h \
	tests/fuzz/meter_same.h \
	$(METER_SOURCES)
tests_fuzz_fuzz_metering_fast_CPPFLAGS = $(AM_CPPFLAGS)
tests_fuzz_fuzz_metering_fast_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_fuzz_fuzz_metering_fast_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_metering_fast_LDADD = proto/libipcstamp-proto.la $(YAJL_LIBS)
FUZZ_TARGETS += tests/fuzz/fuzz_ring
tests_fuzz_fuzz_ring_SOURCES = tests/fuzz/fuzz_ring.c tests/fuzz/fuzz.h \
	tools/otel/ids.c tools/otel/otlp_json.c tools/otel/names.c tools/otel/config.c \
	tools/top/model.c
tests_fuzz_fuzz_ring_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze -I$(top_srcdir)/tools/otel \
	-I$(top_srcdir)/tools/top
tests_fuzz_fuzz_ring_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_ring_LDADD = analyze/libanalyze-core.la $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
# What `ipcstamp xsnap` reads from a node's tree (tools/xsnap/binary.c).
FUZZ_TARGETS += tests/fuzz/fuzz_xsnap
tests_fuzz_fuzz_xsnap_SOURCES = tests/fuzz/fuzz_xsnap.c tests/fuzz/fuzz.h \
	tools/xsnap/binary.c
tests_fuzz_fuzz_xsnap_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/xsnap
tests_fuzz_fuzz_xsnap_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_xsnap_LDADD = $(ZLIB_LIBS)
endif
EXTRA_PROGRAMS += $(FUZZ_TARGETS)
# The seed corpus of fuzz_ring comes from the real producer (make
# ring-seeds rewrites tests/fuzz/corpus/ring/); so do the hostile rings of
# tests/tools/live-hostile.test.
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
# FUZZ_JOBS targets run at once (libFuzzer uses one core each): on CI's
# two cores that halves the step's time for the same fuzzing per target.
# Each target's output goes to fuzz-work/NAME.log, shown whole when it
# fails; the others run on, and the step fails at the end.
FUZZ_SECONDS = 30
FUZZ_JOBS = 2
PHONY_TARGETS += fuzz-smoke
fuzz-smoke: $(FUZZ_TARGETS)
	@if test -z "$(FUZZ_TARGETS)"; then \
	  echo "fuzz-smoke: configure with CC=clang --enable-fuzzing first" >&2; \
	  exit 2; fi
	@mkdir -p fuzz-work; printf '%s\n' $(FUZZ_TARGETS) | \
	  xargs -n 1 -P $(FUZZ_JOBS) sh -c 't=$$0; name=$${t##*/fuzz_}; \
	    work=fuzz-work/$$name; mkdir -p $$work; \
	    if ./$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	      -artifact_prefix=$$work/ $$work $(srcdir)/tests/fuzz/corpus/$$name \
	      >$$work.log 2>&1; then \
	      echo "== $$t ($(FUZZ_SECONDS) s): no crash, $$(sed -n "s/^stat::number_of_executed_units: *//p" $$work.log) runs"; \
	    else echo "== $$t FAILED ($$work.log):"; cat $$work.log; exit 1; fi'
CLEANFILES += -r fuzz-work
# What ipcstamp metrics' endpoint answers to a request's head
# (tools/metrics/request.c): bytes from the network.
FUZZ_TARGETS += tests/fuzz/fuzz_metrics_request
tests_fuzz_fuzz_metrics_request_SOURCES = tests/fuzz/fuzz_metrics_request.c \
	tests/fuzz/fuzz.h tools/metrics/request.c
tests_fuzz_fuzz_metrics_request_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_fuzz_fuzz_metrics_request_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
# The reader of ipcstamp record's file and its join with a delivery.
FUZZ_TARGETS += tests/fuzz/fuzz_os
tests_fuzz_fuzz_os_SOURCES = tests/fuzz/fuzz_os.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_os_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze
tests_fuzz_fuzz_os_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_os_LDADD = analyze/libanalyze-core.la $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
