# Tests of worker/: the library in-process, both worker programs and the
# embedding guide's example as real processes over real pipes, driven by a
# small blocking parent (tests/worker_driver.c).
check_PROGRAMS += tests/check_worker
TESTS += tests/check_worker
tests_check_worker_SOURCES = \
	tests/check_worker.c \
	tests/check_worker_c.c \
	tests/check_worker_js.c \
	tests/check_worker_marks.c \
	tests/check_worker_run_delay.c \
	tests/loaded_cpu.c \
	tests/loaded_cpu.h \
	tests/worker_suites.h \
	tests/worker_driver.c \
	tests/worker_driver.h
tests_check_worker_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_check_worker_LDADD = worker/libipcstamp-worker.la \
	proto/libipcstamp-proto.la $(CHECK_LIBS) $(YAJL_LIBS)

# make bench: one upcall round trip, and stamps on vs off per delivery.
# How a worker can read its own CPU time (cpu_ns), side by side.
EXTRA_PROGRAMS += tests/bench/bench_cputime
BENCH_PROGS += tests/bench/bench_cputime
tests_bench_bench_cputime_SOURCES = tests/bench/bench_cputime.c tests/bench/common.c tests/bench/common.h
tests_bench_bench_cputime_LDADD = proto/libipcstamp-proto.la

# What the run-queue delay costs against cpu_ns (BENCHMARKS.md).
EXTRA_PROGRAMS += tests/bench/bench_rundelay
BENCH_PROGS += tests/bench/bench_rundelay
tests_bench_bench_rundelay_SOURCES = tests/bench/bench_rundelay.c tests/bench/common.c tests/bench/common.h \
	tests/worker_driver.c tests/worker_driver.h
tests_bench_bench_rundelay_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_bench_bench_rundelay_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_bench_bench_rundelay_LDADD = proto/libipcstamp-proto.la $(YAJL_LIBS)

EXTRA_PROGRAMS += tests/bench/bench_upcall
BENCH_PROGS += tests/bench/bench_upcall
tests_bench_bench_upcall_SOURCES = tests/bench/bench_upcall.c tests/bench/common.c tests/bench/common.h \
	tests/worker_driver.c tests/worker_driver.h
tests_bench_bench_upcall_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_bench_bench_upcall_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_bench_bench_upcall_LDADD = proto/libipcstamp-proto.la $(YAJL_LIBS)
