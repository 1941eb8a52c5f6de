# `ipcstamp run` and `make demo` (parent issue).
tools_ipcstamp_SOURCES += \
	tools/cmd_run.c \
	tools/kernel.c \
	tools/kernel.h \
	tools/run_json.c \
	tools/run_json.h \
	tools/run_workload.c \
	tools/run_demo.h \
	tools/demo/vat_js.c
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
