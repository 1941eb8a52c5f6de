# `ipcstamp report`, `trace`, `latency`: the slog reader, the attribution,
# the histogram and the report's output, in one convenience library that
# the command, tests/check_tools and the slog fuzz target link.
noinst_LTLIBRARIES += tools/libanalyze.la
tools_libanalyze_la_CFLAGS = $(AM_CFLAGS) -pthread $(YAJL_CFLAGS) $(ZLIB_CFLAGS)
tools_libanalyze_la_SOURCES = \
	tools/slog.h \
	tools/slog_read.c \
	tools/slog_ahead.c \
	tools/slog_parse.c \
	tools/slog_fast.c \
	tools/slog_skip.c \
	tools/slog_drive.c \
	tools/attr.h \
	tools/attr.c \
	tools/hist.h \
	tools/hist.c \
	tools/report.h \
	tools/report_out.c
tools_ipcstamp_SOURCES += \
	tools/cmd_report.c \
	tools/cmd_trace.c \
	tools/cmd_latency.c
tools_ipcstamp_LDADD += tools/libanalyze.la

dist_doc_DATA += docs/report.md
