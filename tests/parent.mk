# Tests of parent/ and `ipcstamp run`: the test binaries re-run themselves
# as the worker (`check_parent --peer MODE`) to play good and hostile peers.
check_PROGRAMS += tests/check_parent tests/check_run
TESTS += tests/check_parent tests/check_run
PARENT_TEST_PEER = \
	tests/parent_peer.c \
	tests/parent_util.c \
	tests/parent_suites.h
tests_check_parent_SOURCES = \
	tests/check_parent.c \
	tests/check_parent_metering.c \
	tests/check_parent_slog.c \
	tests/check_parent_worker.c \
	tests/check_parent_real.c \
	$(PARENT_TEST_PEER)
tests_check_parent_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(UV_CFLAGS) $(YAJL_CFLAGS)
tests_check_parent_LDADD = parent/libipcstamp-parent.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(UV_LIBS) $(YAJL_LIBS)
# The parent's metering matcher against its general reader, built from the
# parent's own sources (their internals are not exported).
check_PROGRAMS += tests/check_metering_fast
TESTS += tests/check_metering_fast
tests_check_metering_fast_SOURCES = tests/check_metering_fast.c \
	parent/metering.c parent/metering_fast.c parent/json.c parent/marks_check.c
tests_check_metering_fast_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/parent
tests_check_metering_fast_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_check_metering_fast_LDADD = proto/libipcstamp-proto.la $(CHECK_LIBS) $(YAJL_LIBS)
# The scriptable hostile worker the run tests spawn (see its head comment).
check_PROGRAMS += tests/hostile_worker
tests_hostile_worker_SOURCES = tests/hostile_worker.c
RUN_TEST_UTIL = tests/run_util.c tests/run_suites.h
tests_check_run_SOURCES = tests/check_run.c tests/check_hostile.c \
	tests/check_hostile_faults.c tests/check_run_delay.c \
	tests/loaded_cpu.c tests/loaded_cpu.h \
	$(RUN_TEST_UTIL) $(PARENT_TEST_PEER)
tests_check_run_CFLAGS = $(tests_check_parent_CFLAGS)
tests_check_run_LDADD = $(tests_check_parent_LDADD)

# Helpers every benchmark may share (clock, medians, A/B rounds).
BENCH_UTIL = tests/bench/common.c tests/bench/common.h

# The parent's floor (issue 6): `make bench`.
EXTRA_PROGRAMS += tests/bench_parent
BENCH_PROGS += tests/bench_parent
tests_bench_parent_SOURCES = tests/bench_parent.c $(BENCH_UTIL)
tests_bench_parent_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS)
tests_bench_parent_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/bench
tests_bench_parent_LDADD = parent/libipcstamp-parent.la proto/libipcstamp-proto.la $(UV_LIBS)

# Instrumentation overhead through the real parent (issue 6): make bench.
EXTRA_PROGRAMS += tests/bench/bench_overhead
BENCH_PROGS += tests/bench/bench_overhead
tests_bench_bench_overhead_SOURCES = tests/bench/bench_overhead.c $(BENCH_UTIL)
tests_bench_bench_overhead_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS)
tests_bench_bench_overhead_LDADD = parent/libipcstamp-parent.la \
	proto/libipcstamp-proto.la $(UV_LIBS)

# A worker whose wall clock is an hour behind, and one whose wall clock
# jumps (libfaketime; skipped when it is not installed).
check_PROGRAMS += tests/check_timequake
TESTS += tests/check_timequake
tests_check_timequake_SOURCES = tests/check_timequake.c $(RUN_TEST_UTIL) \
	$(PARENT_TEST_PEER)
tests_check_timequake_CFLAGS = $(tests_check_parent_CFLAGS)
tests_check_timequake_LDADD = $(tests_check_parent_LDADD)
