# tools/: the `ipcstamp` command — the command line only.  main.c
# dispatches; options.c parses what the analysis commands share; the
# output formats are in tools/output/, and `run` (driver, kernel, workload,
# demo) in tools/run/.
bin_PROGRAMS += tools/ipcstamp
noinst_HEADERS += tools/cli.h tools/output/output.h
tools_ipcstamp_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyze -I$(top_srcdir)/tools
tools_ipcstamp_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS) $(YAJL_CFLAGS)
tools_ipcstamp_SOURCES = \
	tools/main.c \
	tools/options.c \
	tools/cmd_report.c \
	tools/cmd_trace.c \
	tools/cmd_latency.c \
	tools/output/json.c \
	tools/output/report.c \
	tools/output/slow_marks.c \
	tools/output/trace.c \
	tools/output/latency.c
tools_ipcstamp_LDADD = analyze/libipcstamp-analyze.la

include tools/run/local.mk

# Last, so that every library above finds them.
tools_ipcstamp_LDADD += $(YAJL_LIBS) $(UV_LIBS) -lm

dist_doc_DATA += docs/report.md
