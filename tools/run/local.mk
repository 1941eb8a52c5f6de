# tools/run/: `ipcstamp run` (driver, kernel, workload, demo) and `make demo`.
tools_ipcstamp_SOURCES += \
	tools/run/cmd_run.c \
	tools/run/kernel.c \
	tools/run/kernel.h \
	tools/run/json.c \
	tools/run/json.h \
	tools/run/workload.c \
	tools/run/demo.h \
	tools/run/demo_vats.c
tools_ipcstamp_LDADD += parent/libipcstamp-parent.la proto/libipcstamp-proto.la

# README command 1: several JavaScript workers doing real work with
# upcalls, one slogfile, and the run summary.
DEMO_WORKER = worker/ipcstamp-worker-js
DEMO_VATS = 3
PHONY_TARGETS += demo
demo: tools/ipcstamp $(DEMO_WORKER)
	./tools/ipcstamp run --worker '$(abs_builddir)/$(DEMO_WORKER)' --vats $(DEMO_VATS) --demo --slog demo.slog --force
	./tools/ipcstamp report demo.slog
CLEANFILES += demo.slog

# make bench: peak RSS of `ipcstamp run` at 10k and 1M deliveries (issue 6).
EXTRA_PROGRAMS += tests/bench/bench_memory
BENCH_PROGS += tests/bench/bench_memory
tests_bench_bench_memory_SOURCES = tests/bench/bench_memory.c
