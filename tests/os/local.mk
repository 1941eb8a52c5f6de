# tests/os/: ipcstamp record and report --os (docs/os.md), as root where
# BPF works (skipped elsewhere, failed where IPCSTAMP_REQUIRE_INTEROP=1).
TESTS += tests/os/record.test tests/os/swingset.test tests/os/causes.test
EXTRA_DIST += tests/os/record.test tests/os/swingset.test tests/os/os_check.py \
	tests/os/causes.test tests/os/causes_check.py tests/os/stallfs.c

# make bench-os: what ipcstamp record costs `ipcstamp run` (BENCHMARKS.md),
# under the bench lock so that no two benchmarks run at once.
EXTRA_DIST += tests/os/os-cost.sh
PHONY_TARGETS += bench-os
bench-os: all $(BENCH_TOOLS)
	flock /tmp/ipcstamp-bench.lock sh $(srcdir)/tests/os/os-cost.sh
