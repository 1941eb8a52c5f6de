# tests/: Check suites, one binary per module (tests/check_<module>.c).
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

include tests/worker.mk
include tests/parent.mk
include tests/tools.mk

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
endif
EXTRA_PROGRAMS += $(FUZZ_TARGETS)
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

# make bench: a mark against a stamp (issue 14).
EXTRA_PROGRAMS += tests/bench/bench_mark
BENCH_PROGS += tests/bench/bench_mark
tests_bench_bench_mark_SOURCES = tests/bench/bench_mark.c
tests_bench_bench_mark_LDADD = proto/libipcstamp-proto.la
