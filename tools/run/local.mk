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

# README command 1: builds what make builds (so every README block after
# it works), then tools/run/demo.sh: several JavaScript workers doing real
# work with upcalls, one slogfile, its summary and what to run next.
PHONY_TARGETS += demo
EXTRA_DIST += tools/run/demo.sh
demo: all
	@$(SHELL) $(srcdir)/tools/run/demo.sh
CLEANFILES += demo.slog demo.report.txt demo.html demo.trace.json

# make bench: peak RSS of `ipcstamp run` at 10k and 1M deliveries (bounded
# whatever the run's length).
EXTRA_PROGRAMS += tests/bench/bench_memory
BENCH_PROGS += tests/bench/bench_memory
tests_bench_bench_memory_SOURCES = tests/bench/bench_memory.c
