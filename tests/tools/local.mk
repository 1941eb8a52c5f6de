# Tests of the ipcstamp commands (tools/, tests/tools/): `ipcstamp run` end
# to end with real and hostile workers, report, latency and trace against
# golden outputs (tests/data/), otel's parts and the whole command against
# a real OTLP receiver, top's model, and the shell scripts of every command
# (report, follow, watch, top, otel, html, blocks, recompute, utf8 ...).
# Run one alone: make check TESTS=tests/tools/check_run

# `ipcstamp run`: the test binaries re-run themselves as the worker
# (`check_run --peer MODE`, the peer of tests/parent/), or spawn the
# scriptable tests/tools/hostile_worker.
RUN_TEST_UTIL = tests/tools/run_util.c tests/tools/run_suites.h
RUN_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/parent -I$(top_srcdir)/tests/worker
check_PROGRAMS += tests/tools/check_run
TESTS += tests/tools/check_run
tests_tools_check_run_SOURCES = tests/tools/check_run.c tests/tools/check_hostile.c \
	tests/tools/check_hostile_faults.c tests/tools/check_run_delay.c \
	$(LOADED_CPU) $(RUN_TEST_UTIL) $(PARENT_TEST_PEER)
tests_tools_check_run_CPPFLAGS = $(RUN_TEST_CPPFLAGS)
tests_tools_check_run_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(UV_CFLAGS) $(YAJL_CFLAGS)
tests_tools_check_run_LDADD = parent/libipcstamp-parent.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(UV_LIBS) $(YAJL_LIBS)
# The scriptable hostile worker the run tests spawn (see its head comment).
check_PROGRAMS += tests/tools/hostile_worker
tests_tools_hostile_worker_SOURCES = tests/tools/hostile_worker.c

# A worker whose wall clock is an hour behind, and one whose wall clock
# jumps (libfaketime; skipped when it is not installed): `ipcstamp run`,
# then the report's clock and timequakes.
check_PROGRAMS += tests/tools/check_timequake
TESTS += tests/tools/check_timequake
tests_tools_check_timequake_SOURCES = tests/tools/check_timequake.c $(RUN_TEST_UTIL) \
	$(PARENT_TEST_PEER)
tests_tools_check_timequake_CPPFLAGS = $(RUN_TEST_CPPFLAGS)
tests_tools_check_timequake_CFLAGS = $(tests_tools_check_run_CFLAGS)
tests_tools_check_timequake_LDADD = $(tests_tools_check_run_LDADD)

# report, latency and trace against golden outputs (the helpers of
# tests/analyze/).
check_PROGRAMS += tests/tools/check_tools
TESTS += tests/tools/check_tools
tests_tools_check_tools_SOURCES = \
	tests/tools/check_tools.c \
	tests/tools/tools_suites.h \
	tests/tools/check_report.c \
	tests/tools/check_trace.c \
	$(ANALYZE_TEST_UTIL)
tests_tools_check_tools_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -I$(top_srcdir)/tests/analyze
tests_tools_check_tools_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS)
tests_tools_check_tools_LDADD = analyze/libanalyze-core.la $(CHECK_LIBS) $(YAJL_LIBS) \
	$(ZLIB_LIBS) -lm -lpthread
# The commands are run as programs: build them first.
EXTRA_tests_tools_check_tools_DEPENDENCIES = tools/ipcstamp$(EXEEXT)

# `ipcstamp otel`: the encoder, ids and settings in C (no network), and
# the whole command against a real OTLP receiver from npm (its project is
# tests/otel/; skipped without node unless IPCSTAMP_REQUIRE_INTEROP=1).
check_PROGRAMS += tests/tools/check_otel
TESTS += tests/tools/check_otel
tests_tools_check_otel_SOURCES = tests/tools/check_otel.c \
	tools/otel/ids.c tools/otel/otlp_json.c tools/otel/names.c tools/otel/config.c \
	tools/otel/metrics.c
tests_tools_check_otel_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze -I$(top_srcdir)/tools
tests_tools_check_otel_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS)
tests_tools_check_otel_LDADD = analyze/libanalyze-core.la $(CHECK_LIBS) $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread

TESTS += tests/tools/otel.test tests/tools/otel-ring.test tests/tools/otel-exec.test \
	tests/tools/otel-hostile.test
EXTRA_DIST += tests/tools/otel.test tests/tools/otel-ring.test tests/tools/otel-exec.test \
	tests/tools/otel-hostile.test \
	tests/otel/compare-ring.cjs \
	tests/otel/package.json tests/otel/package-lock.json \
	tests/otel/receiver.cjs tests/otel/compare.cjs tests/otel/join-agoric.cjs \
	tests/otel/compare-metrics.cjs tests/otel/attrs.cjs

# top's model: the order of its rows, dead writers, --clean (rings written
# with the helpers of tests/proto/).
check_PROGRAMS += tests/tools/check_top
TESTS += tests/tools/check_top
tests_tools_check_top_SOURCES = tests/tools/check_top.c $(RING_TEST_UTIL) \
	tools/top/model.c tools/top/top.h
tests_tools_check_top_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -I$(top_srcdir)/tests/proto
tests_tools_check_top_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_tools_check_top_LDADD = analyze/libanalyze-core.la proto/libipcstamp-proto.la \
	$(CHECK_LIBS) $(YAJL_LIBS) $(ZLIB_LIBS) -lm -lpthread

# ipcstamp top against a stalled worker: --once, and the full-screen view
# in tmux.
TESTS += tests/tools/top.test
EXTRA_DIST += tests/tools/top.test

# ipcstamp run with rings: the parent's attribution events against the
# report's attribution of the same run.
TESTS += tests/tools/ring-run.test
EXTRA_DIST += tests/tools/ring-run.test

# The rings as a source of the analysis: report --ring and latency --ring
# against the slogfile of the same run, delivery by delivery.
TESTS += tests/tools/ring-analysis.test
EXTRA_DIST += tests/tools/ring-analysis.test

# The live surfaces (top, watch, otel --ring, run --ring) against hostile
# ring directories (the rings written by tests/fuzz/gen_ring_seeds, as a
# worker would).
TESTS += tests/tools/live-hostile.test
EXTRA_DIST += tests/tools/live-hostile.test

# Output that cannot be written (/dev/full) and -o FILE when the input
# cannot be opened (tools/outfile.c).
TESTS += tests/tools/output-hostile.test
EXTRA_DIST += tests/tools/output-hostile.test
# Sums that pass 64 bits, held at the bound and said (ips_sum_add).
TESTS += tests/tools/sums-hostile.test
EXTRA_DIST += tests/tools/sums-hostile.test
# otel's pass over the records against records nested deep or huge.
TESTS += tests/tools/otel-records.test
EXTRA_DIST += tests/tools/otel-records.test
# --since after --until, blocks left out, the stamp capacity's documented
# maximum, --run-delay with a schedstat that is a FIFO.
TESTS += tests/tools/small-hostile.test
EXTRA_DIST += tests/tools/small-hostile.test

# follow, watch, report's filters, every figure recomputed in Decimal, and
# `ipcstamp blocks` on its fixture from Agoric's real block
# loop (the generator's npm project: tests/interop/chain, test-only).
TESTS += tests/tools/follow.test tests/tools/follow-hostile.test \
	tests/tools/recompute.test tests/tools/watch.test tests/tools/report_filters.test \
	tests/tools/blocks.test
dist_docs_DATA += docs/blocks.md docs/blocks.schema.json
EXTRA_DIST += tests/interop/chain/gen-chain.mjs tests/interop/chain/README.md \
	tests/interop/chain/builders-hook.mjs \
	tests/interop/chain/vats/work.js \
	tests/interop/chain/package.json \
	tests/interop/chain/package-lock.json
EXTRA_DIST += tests/tools/blocks.test tests/tools/blocks_recompute.py tests/data/chain.slog.gz \
	tests/data/blocks-shapes.slog tests/data/blocks-shapes.json \
	tests/tools/follow.test tests/tools/follow-hostile.test tests/tools/recompute.test \
	tests/tools/recompute.py \
	tests/tools/report_filters.test \
	tests/tools/watch.test \
	tests/data/swingset-shapes.slog tests/data/xsnap-truncated.slog \
	tests/data/gen_truncated.py \
	tests/data/ours.slog \
	tests/data/xsnap.slog \
	tests/data/bad.slog \
	tests/data/run.slog \
	tests/data/rundelay.slog \
	tests/data/xs-rundelay.slog.gz \
	tests/data/run.report.txt \
	tests/data/run.latency.txt \
	tests/data/marks.slog.gz \
	tests/data/marks.report.txt \
	tests/data/marks.report.json \
	tests/data/marks.latency.txt \
	tests/data/marks.latency.json \
	tests/data/ours.report.txt \
	tests/data/ours.report.json \
	tests/data/ours.latency.txt \
	tests/data/xsnap.report.txt \
	tests/data/xsnap.report.csv \
	tests/data/bad.report.txt \
	tests/data/bad.stderr.txt

# The report's JSON against its schema (docs/report.schema.json).
TESTS += tests/tools/report_schema.test
EXTRA_DIST += tests/tools/report_schema.test tests/tools/schema_check.py

# The HTML report in headless Chromium; its screenshot is kept.
TESTS += tests/tools/html.test
EXTRA_DIST += tests/tools/html.test
CLEANFILES += tests/tools/html-screenshot.png tests/tools/html-details.png

# Every JSON output is valid UTF-8: the test scripts' checker, and the
# outputs made from hostile text (a vatID, a file name, a description cut
# at its width, OTEL_SERVICE_NAME) checked with it.
check_PROGRAMS += tests/tools/utf8_check
tests_tools_utf8_check_SOURCES = tests/tools/utf8_check.c
tests_tools_utf8_check_LDADD = proto/libipcstamp-proto.la
TESTS += tests/tools/utf8.test
EXTRA_DIST += tests/tools/utf8.test

# Real SwingSet slogfiles at xsnap's limits: the 502-stamp cap
# with console lines, replays at the cap, a meter kill, upgrades, a kernel
# SIGKILLed mid-delivery (written by tests/interop/swingset/gen-shapes.mjs).
TESTS += tests/tools/xsnap-limits.test
EXTRA_DIST += tests/tools/xsnap-limits.test \
	tests/data/swingset-cap.slog.gz \
	tests/data/swingset-meter.slog.gz \
	tests/data/swingset-upgrade.slog.gz \
	tests/data/swingset-killed.slog.gz \
	tests/data/swingset-xs.slog.gz

# `ipcstamp diff` (issue 39) on three validators run by Agoric's real block
# loop (tests/interop/chain/gen-diff.sh) and a copy with one delivery's
# computrons edited.
TESTS += tests/tools/diff.test
dist_docs_DATA += docs/diff.md
EXTRA_DIST += tests/tools/diff.test tests/interop/chain/gen-diff.sh \
	tests/bench/repeat_slog.py tests/bench/diff_bench.sh \
	tests/data/diff-a.slog.gz tests/data/diff-b.slog.gz \
	tests/data/diff-c.slog.gz tests/data/diff-div.slog.gz
# One list of a delivery's fields (ipcstamp-analyze-fields.h): the docs'
# table, the JSON schema, and the report's JSON, CSV and text, trace's args
# and otel's attributes of the test slogfiles held to it.
check_PROGRAMS += tests/tools/fields_dump
tests_tools_fields_dump_SOURCES = tests/tools/fields_dump.c
tests_tools_fields_dump_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
TESTS += tests/tools/fields.test tests/tools/blocks_fields.test
EXTRA_DIST += tests/tools/blocks_fields.test tests/tools/blocks_fields_check.py
EXTRA_DIST += tests/tools/fields.test tests/tools/fields_check.py \
	tests/tools/os_inject.py tests/data/os-demo.slog.gz tests/data/os-demo.os.gz

# The Prometheus registry and its server (tools/metrics/): buckets, caps,
# labels, bad arguments (the endpoint against Prometheus: tests/metrics/).
check_PROGRAMS += tests/tools/check_metrics
TESTS += tests/tools/check_metrics
tests_tools_check_metrics_SOURCES = tests/tools/check_metrics.c \
	tools/metrics/metrics.h tools/metrics/registry.h tools/metrics/registry.c \
	tools/metrics/expose.c tools/metrics/http.c tools/metrics/request.c
tests_tools_check_metrics_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_tools_check_metrics_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_tools_check_metrics_LDADD = $(CHECK_LIBS) -lm -lpthread
