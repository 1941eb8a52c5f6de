# tests/os/: ipcstamp record and report --os (docs/os.md), as root where
# BPF works (skipped elsewhere, failed where IPCSTAMP_REQUIRE_INTEROP=1).
TESTS += tests/os/record.test tests/os/swingset.test tests/os/causes.test \
	tests/os/record-hostile.test \
	tests/os/commands.test tests/os/always.test
# tests/os/always-swingset.test too, listed first in Makefile.am.
EXTRA_DIST += tests/os/record.test tests/os/swingset.test tests/os/os_check.py \
	tests/os/agree47.py \
	tests/os/record-hostile.test \
	tests/os/causes.test tests/os/causes_check.py tests/os/stallfs.c \
	tests/os/majflt.py \
	tests/os/commands.test tests/os/by_calls.py \
	tests/os/always.test tests/os/always-swingset.test

# make bench-os: what ipcstamp record costs `ipcstamp run` (BENCHMARKS.md),
# under the bench lock so that no two benchmarks run at once; os-progs.sh,
# each BPF program's own time in a recorded run; soak.sh, the always-on
# recorder left on a SwingSet workload for 30 minutes (by hand, as root).
EXTRA_DIST += tests/os/os-cost.sh tests/os/os-progs.sh tests/os/soak.sh
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

# The join on recorded SwingSet runs, on any machine (no BPF): one block on
# the vanilla xsnap-worker, the first deliveries of one on
# ipcstamp-worker-xs.  Made with (as root, in a copy of
# tests/interop/swingset with its node_modules; for xs, after
# `ipcstamp xsnap install --worker worker/ipcstamp-worker-xs .` there):
#   nice -n -20 ipcstamp record -o run.os -- node gen-slog.mjs run.slog --rounds 2 --blocks
#   node cut-os.mjs run.slog run.os 1 os-swingset-vanilla.slog os-swingset-vanilla.os
#   node cut-os.mjs run.slog run.os 1 os-swingset-xs.slog os-swingset-xs.os --first 8
# then gzip -9n each (520 KB in all, most of it the vanilla block's waits;
# made on a busy 2-core machine: 14,000 of its 27,000 waits are
# preemptions).
TESTS += tests/os/fixtures.test tests/os/diff.test tests/os/contradict.test
EXTRA_DIST += tests/os/fixtures.test tests/os/diff.test tests/os/diff_page.js \
	tests/os/contradict.test tests/os/os_doctor.py \
	tests/data/os-swingset-vanilla.slog.gz tests/data/os-swingset-vanilla.os.gz \
	tests/data/os-swingset-xs.slog.gz tests/data/os-swingset-xs.os.gz

# The always-on recorder's window and triggers on records made by hand
# (no root, no BPF): bounded by bytes and time, read back whole, a
# delivery's stall and an exit found (docs/always-on.md).
check_PROGRAMS += tests/os/check_window
TESTS += tests/os/check_window
tests_os_check_window_SOURCES = tests/os/check_window.c record/window.c \
	record/triggers.c record/os_write.c record/summary.c
tests_os_check_window_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/record \
	-I$(top_srcdir)/analyze
tests_os_check_window_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_os_check_window_LDADD = analyze/libanalyze-core.la $(CHECK_LIBS) \
	$(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
