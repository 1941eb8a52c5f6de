# tests/os/: ipcstamp record and report --os (docs/os.md), as root where
# BPF works (skipped elsewhere, failed where IPCSTAMP_REQUIRE_INTEROP=1).
TESTS += tests/os/record.test tests/os/swingset.test tests/os/commands.test
EXTRA_DIST += tests/os/record.test tests/os/swingset.test tests/os/os_check.py \
	tests/os/commands.test

# make bench-os: what ipcstamp record costs `ipcstamp run` (BENCHMARKS.md),
# under the bench lock so that no two benchmarks run at once.
EXTRA_DIST += tests/os/os-cost.sh
PHONY_TARGETS += bench-os
bench-os: all $(BENCH_TOOLS)
	flock /tmp/ipcstamp-bench.lock sh $(srcdir)/tests/os/os-cost.sh

# The join itself on recordings written by hand (no root, no BPF): two
# workers whose frames interleave, each delivery matched to its own.
check_PROGRAMS += tests/os/check_os_join
TESTS += tests/os/check_os_join
tests_os_check_os_join_SOURCES = tests/os/check_os_join.c
tests_os_check_os_join_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS)
tests_os_check_os_join_LDADD = analyze/libanalyze-core.la $(CHECK_LIBS) \
	$(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
