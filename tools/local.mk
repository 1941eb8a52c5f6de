# tools/: the `ipcstamp` command.  main.c dispatches; each group of
# subcommands adds its sources from its own fragment.
bin_PROGRAMS += tools/ipcstamp
noinst_HEADERS += tools/commands.h
tools_ipcstamp_SOURCES = tools/main.c
tools_ipcstamp_CFLAGS = $(AM_CFLAGS) $(UV_CFLAGS) $(YAJL_CFLAGS) $(ZLIB_CFLAGS)
tools_ipcstamp_LDADD =

include tools/run.mk
include tools/analyze.mk

# Last, so that every library above finds them.
tools_ipcstamp_LDADD += $(YAJL_LIBS) $(ZLIB_LIBS) $(UV_LIBS) -lm -lpthread
