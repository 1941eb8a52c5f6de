# `ipcstamp report`, `trace`, `latency` (tools issue): the slog reader, the
# attribution, the histogram, and the three commands.
ips_analyze_sources = \
	tools/slog.h \
	tools/slog_read.c \
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
tools_ipcstamp_SOURCES += $(ips_analyze_sources) \
	tools/cmd_report.c \
	tools/cmd_trace.c \
	tools/cmd_latency.c

dist_doc_DATA += docs/report.md
