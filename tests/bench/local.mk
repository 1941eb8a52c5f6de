# tests/bench/: `make bench` (see BENCHMARKS.md; never run by make check).

# Helpers every benchmark may share (clock, medians, A/B rounds).
BENCH_UTIL = tests/bench/common.c tests/bench/common.h

# The parent's floor: `make bench`.
EXTRA_PROGRAMS += tests/bench/bench_parent
BENCH_PROGS += tests/bench/bench_parent
tests_bench_bench_parent_SOURCES = tests/bench/bench_parent.c $(BENCH_UTIL)
tests_bench_bench_parent_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS)
tests_bench_bench_parent_LDADD = parent/libipcstamp-parent.la proto/libipcstamp-proto.la $(UV_LIBS)

# Instrumentation overhead through the real parent: make bench.
EXTRA_PROGRAMS += tests/bench/bench_overhead
BENCH_PROGS += tests/bench/bench_overhead
tests_bench_bench_overhead_SOURCES = tests/bench/bench_overhead.c $(BENCH_UTIL)
tests_bench_bench_overhead_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS)
tests_bench_bench_overhead_LDADD = parent/libipcstamp-parent.la \
	proto/libipcstamp-proto.la $(UV_LIBS)

# Benchmarks of proto/ (make bench).
EXTRA_PROGRAMS += tests/bench/bench_stamp
BENCH_PROGS += tests/bench/bench_stamp
tests_bench_bench_stamp_SOURCES = tests/bench/bench_stamp.c
tests_bench_bench_stamp_LDADD = proto/libipcstamp-proto.la

# make bench: one upcall round trip, and stamps on vs off per delivery.
# How a worker can read its own CPU time (cpu_ns), side by side.
EXTRA_PROGRAMS += tests/bench/bench_cputime
BENCH_PROGS += tests/bench/bench_cputime
tests_bench_bench_cputime_SOURCES = tests/bench/bench_cputime.c $(BENCH_UTIL)
tests_bench_bench_cputime_LDADD = proto/libipcstamp-proto.la

# What the run-queue delay costs against cpu_ns (BENCHMARKS.md).
EXTRA_PROGRAMS += tests/bench/bench_rundelay
BENCH_PROGS += tests/bench/bench_rundelay
tests_bench_bench_rundelay_SOURCES = tests/bench/bench_rundelay.c $(BENCH_UTIL) $(WORKER_DRIVER)
tests_bench_bench_rundelay_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/worker
tests_bench_bench_rundelay_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_bench_bench_rundelay_LDADD = proto/libipcstamp-proto.la $(YAJL_LIBS)

EXTRA_PROGRAMS += tests/bench/bench_upcall
BENCH_PROGS += tests/bench/bench_upcall
tests_bench_bench_upcall_SOURCES = tests/bench/bench_upcall.c $(BENCH_UTIL) $(WORKER_DRIVER)
tests_bench_bench_upcall_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/worker
tests_bench_bench_upcall_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_bench_bench_upcall_LDADD = proto/libipcstamp-proto.la $(YAJL_LIBS)

# make bench: top's model keeping up with a fast producer.
EXTRA_PROGRAMS += tests/bench/bench_top
BENCH_PROGS += tests/bench/bench_top
tests_bench_bench_top_SOURCES = tests/bench/bench_top.c tools/top/model.c \
	tools/top/top.h
tests_bench_bench_top_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_bench_bench_top_LDADD = analyze/libanalyze-core.la proto/libipcstamp-proto.la \
	$(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread
# make bench: the live ring's cost on a stamp.
EXTRA_PROGRAMS += tests/bench/bench_ring
BENCH_PROGS += tests/bench/bench_ring
tests_bench_bench_ring_SOURCES = tests/bench/bench_ring.c $(BENCH_UTIL)
tests_bench_bench_ring_LDADD = proto/libipcstamp-proto.la
# make bench: a mark against a stamp.
EXTRA_PROGRAMS += tests/bench/bench_mark
BENCH_PROGS += tests/bench/bench_mark
tests_bench_bench_mark_SOURCES = tests/bench/bench_mark.c
tests_bench_bench_mark_LDADD = proto/libipcstamp-proto.la

# make bench: ipcstamp report against the Python baseline, on
# slogfiles gen_slog.py writes.
EXTRA_DIST += tests/bench/gen_slog.py tests/bench/report_baseline.py
EXTRA_PROGRAMS += tests/bench/bench_report
BENCH_PROGS += tests/bench/bench_report
tests_bench_bench_report_SOURCES = tests/bench/bench_report.c
tests_bench_bench_report_CPPFLAGS = $(AM_CPPFLAGS) \
	-DIPS_SRCDIR='"$(abs_top_srcdir)"' -DIPS_BUILDDIR='"$(abs_top_builddir)"'
CLEANFILES += tests/bench/bench-100.slog tests/bench/bench-10.slog \
	tests/bench/bench-100-small.slog \
	tests/bench/bench-report-c.out tests/bench/bench-report-py.out

# The command as bench_report runs it: the same program linked with
# -no-install, so that it starts without the libtool wrapper script.  The
# wrapper is a shell that cost 12 ms a run, a sixth of the report's time on
# 100 MB; an installed ipcstamp has no wrapper.
EXTRA_PROGRAMS += tests/bench/ipcstamp-direct
tests_bench_ipcstamp_direct_SOURCES = $(tools_ipcstamp_SOURCES)
tests_bench_ipcstamp_direct_CPPFLAGS = $(tools_ipcstamp_CPPFLAGS)
tests_bench_ipcstamp_direct_CFLAGS = $(tools_ipcstamp_CFLAGS)
tests_bench_ipcstamp_direct_LDADD = $(tools_ipcstamp_LDADD)
tests_bench_ipcstamp_direct_LDFLAGS = -no-install
EXTRA_tests_bench_bench_report_DEPENDENCIES = tests/bench/ipcstamp-direct$(EXEEXT)
CLEANFILES += tests/bench/ipcstamp-direct$(EXEEXT)

# Before/after comparisons: two commands alternately, the ratio of their
# medians (BENCHMARKS.md says which command produced each figure).
EXTRA_PROGRAMS += tests/bench/ab
BENCH_TOOLS += tests/bench/ab tests/bench/ipcstamp-direct
tests_bench_ab_SOURCES = tests/bench/ab.c

# make bench: the USDT probes' cost on a stamp, compiled in (nobody
# attached) against compiled out, and per hit with bpftrace attached
# (docs/probes.md).  Two builds of the worker library's sources, one
# with IPS_NO_PROBES; bench_probe runs both.
EXTRA_PROGRAMS += tests/bench/bench_probe tests/bench/bench_probe_off
BENCH_PROGS += tests/bench/bench_probe
EXTRA_tests_bench_bench_probe_DEPENDENCIES = tests/bench/bench_probe_off$(EXEEXT)
tests_bench_bench_probe_SOURCES = tests/bench/bench_probe.c $(BENCH_UTIL) \
	$(worker_libipcstamp_worker_la_SOURCES) $(proto_libipcstamp_proto_la_SOURCES)
tests_bench_bench_probe_CPPFLAGS = $(AM_CPPFLAGS)
tests_bench_bench_probe_off_SOURCES = $(tests_bench_bench_probe_SOURCES)
tests_bench_bench_probe_off_CPPFLAGS = $(AM_CPPFLAGS) -DIPS_NO_PROBES
