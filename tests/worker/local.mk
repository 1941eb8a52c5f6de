# Tests of worker/ (tests/worker/): the library in-process, both worker
# programs and the embedding guide's example as real processes over real
# pipes, driven by a small blocking parent (tests/worker/worker_driver.c,
# which the ring tests and benchmarks borrow).
# Run one alone: make check TESTS=tests/worker/check_worker
WORKER_DRIVER = tests/worker/worker_driver.c tests/worker/worker_driver.h
# A CPU taken by a busier process (the run-queue delay's tests here and in
# tests/tools/check_run).
LOADED_CPU = tests/worker/loaded_cpu.c tests/worker/loaded_cpu.h
check_PROGRAMS += tests/worker/check_worker
TESTS += tests/worker/check_worker
tests_worker_check_worker_SOURCES = \
	tests/worker/check_worker.c \
	tests/worker/check_worker_c.c \
	tests/worker/check_worker_js.c \
	tests/worker/check_worker_marks.c \
	tests/worker/check_worker_run_delay.c \
	tests/worker/worker_suites.h \
	$(LOADED_CPU) $(WORKER_DRIVER)
tests_worker_check_worker_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_worker_check_worker_LDADD = worker/libipcstamp-worker.la \
	proto/libipcstamp-proto.la $(CHECK_LIBS) $(YAJL_LIBS)

# The worker structs' layout is recorded with the -version-info it was
# released under (docs/embedding.md, "ABI").
check_PROGRAMS += tests/worker/abi_layout
tests_worker_abi_layout_SOURCES = tests/worker/abi_layout.c
TESTS += tests/worker/abi_layout.test
EXTRA_DIST += tests/worker/abi_layout.test tests/data/worker-abi.txt
