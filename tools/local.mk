# tools/: the `ipcstamp` command — the command line only.  main.c
# dispatches; tools/input/ holds what the analysis commands share: the
# options (options.c), the reading into an analysis (read.c) and the live
# rings as input (rings.c), the recording of --os (os_file.c); the output
# formats are in tools/output/ (the report's in tools/output/report/), and
# `run` (driver, kernel, workload, demo) in tools/run/.
bin_PROGRAMS += tools/ipcstamp
noinst_HEADERS += tools/cli.h tools/output/output.h tools/output/format.h tools/otel/otel.h
tools_ipcstamp_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze -I$(top_srcdir)/tools \
	-I$(top_builddir)/tools/output \
	-DIPS_OTEL_PROGRAM='"$(pkglibexecdir)/ipcstamp-otel"' \
	-DIPS_XS_WORKER='"$(bindir)/ipcstamp-worker-xs"'
tools_ipcstamp_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS) $(YAJL_CFLAGS)
tools_ipcstamp_SOURCES = \
	tools/main.c \
	tools/input/options.c \
	tools/input/read.c \
	tools/output/skip.c \
	tools/outfile.c \
	tools/input/rings.c \
	tools/input/os_file.c \
	tools/cmd_report.c \
	tools/cmd_blocks.c \
	tools/cmd_diff.c \
	tools/cmd_trace.c \
	tools/cmd_latency.c \
	tools/cmd_top.c \
	tools/cmd_watch.c \
	tools/cmd_metrics.c \
	tools/metrics/metrics.h \
	tools/metrics/registry.h \
	tools/metrics/registry.c \
	tools/metrics/expose.c \
	tools/metrics/http.c \
	tools/metrics/request.c \
	tools/cmd_xsnap.c \
	tools/xsnap/xsnap.h \
	tools/xsnap/files.c \
	tools/xsnap/binary.c \
	tools/top/top.h \
	tools/top/model.c \
	tools/otel/exec.c \
	tools/output/json.c \
	tools/output/report/delivery_text.c \
	tools/output/report/delivery_json.c \
	tools/output/report/summary_text.c \
	tools/output/report/summary_json.c \
	tools/output/os.c \
	tools/output/formats.c \
	tools/output/blocks.c \
	tools/output/blocks_html.c \
	tools/output/blocks_os.c \
	tools/output/keep.c \
	tools/output/trace.c \
	tools/output/latency.c \
	tools/output/html/html.h \
	tools/output/html/collect.c \
	tools/output/html/page.c \
	tools/output/diff_text.c \
	tools/output/diff_json.c \
	tools/output/diff_csv.c \
	tools/output/diff_os.c \
	tools/output/diff_html.c
tools_ipcstamp_LDADD = analyze/libipcstamp-analyze.la $(ZLIB_LIBS)

# The HTML report's page is a template (an HTML file is easier to edit and
# to check than C strings) with its style and script in files of their
# own, made into C strings at build time: the program carries it, and the
# page it writes needs no other file.
BUILT_SOURCES = tools/output/report_html.h
CLEANFILES += tools/output/report_html.h
EXTRA_DIST += tools/output/report.html.in tools/output/report.css \
	tools/output/report.js tools/output/html_in.awk
# BUILT_SOURCES are made first only by all, check and install: a target
# such as `make demo` or `make tools/ipcstamp` needs the dependency itself.
tools/output/html/ipcstamp-page.$(OBJEXT): tools/output/report_html.h
tools/output/html/tests_bench_ipcstamp_direct-page.$(OBJEXT): tools/output/report_html.h
tools/output/report_html.h: tools/output/report.html.in tools/output/report.css \
		tools/output/report.js tools/output/html_in.awk
	$(AM_V_GEN)$(MKDIR_P) tools/output && \
	$(AWK) -v dir=$(srcdir)/tools/output -f $(srcdir)/tools/output/html_in.awk \
		$(srcdir)/tools/output/report.html.in >$@.tmp && \
	mv $@.tmp $@

# `ipcstamp otel` is this program, which ipcstamp runs in its place: only
# it links libcurl, whose two dozen libraries made every other
# subcommand's start 3 ms slower (tools/otel/exec.c).
# --ring's deliveries come joined from the analysis library
# (ips_ring_join_*), as a slogfile's do.
pkglibexec_PROGRAMS = tools/ipcstamp-otel
tools_ipcstamp_otel_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze -I$(top_srcdir)/tools
tools_ipcstamp_otel_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS) $(CURL_CFLAGS)
tools_ipcstamp_otel_SOURCES = \
	tools/otel/main.c \
	tools/input/options.c \
	tools/input/read.c \
	tools/output/skip.c \
	tools/input/os_file.c \
	tools/outfile.c \
	tools/input/rings.c \
	tools/cmd_otel.c \
	tools/otel/export.h \
	tools/otel/export.c \
	tools/otel/ids.c \
	tools/otel/otlp_json.c \
	tools/otel/names.c \
	tools/otel/config.c \
	tools/otel/send.c \
	tools/otel/metrics.c
tools_ipcstamp_otel_LDADD = analyze/libipcstamp-analyze.la \
	proto/libipcstamp-proto.la $(CURL_LIBS) \
	$(YAJL_LIBS) $(ZLIB_LIBS) $(UV_LIBS) -lm

include tools/run/local.mk
dist_docs_DATA += docs/operators.md

# Last, so that every library above finds them.
tools_ipcstamp_LDADD += $(YAJL_LIBS) $(UV_LIBS) -lm -lpthread

