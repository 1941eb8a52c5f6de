# record/: `ipcstamp record`, the eBPF collector (docs/os.md).  The BPF
# program os.bpf.c is compiled with clang for the BPF target against
# vmlinux.h, which bpftool makes from the running kernel's BTF at build
# time (never kept in the tree: it is the build machine's kernel); bpftool
# then makes the skeleton os.skel.h that the loader includes.  Without
# libbpf, bpftool or clang (configure says which), none of this is built
# and `ipcstamp record` says so.
noinst_HEADERS += record/record.h record/os_event.h record/always.h \
	proto/os-format.h
tools_ipcstamp_SOURCES += tools/cmd_record.c
tools_ipcstamp_CPPFLAGS += -I$(top_srcdir)/record
EXTRA_DIST += record/os.bpf.c record/os_frame.bpf.h
dist_docs_DATA += docs/os.md docs/always-on.md
if HAVE_BPF
tools_ipcstamp_CPPFLAGS += -I$(top_builddir)/record
tools_ipcstamp_CFLAGS += $(BPF_CFLAGS)
tools_ipcstamp_SOURCES += record/loader.c record/record.c record/os_write.c \
	record/follow.c record/always.c record/window.c record/triggers.c record/summary.c \
	record/dumps.c record/slogwatch.c record/metrics.c
tools_ipcstamp_LDADD += $(BPF_LIBS)
BUILT_SOURCES += record/os.skel.h
CLEANFILES += record/vmlinux.h record/os.bpf.o record/os.skel.h
record/vmlinux.h:
	$(AM_V_GEN)$(MKDIR_P) record && \
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c >$@.tmp && \
	mv $@.tmp $@
record/os.bpf.o: record/os.bpf.c record/os_frame.bpf.h record/os_event.h proto/os-format.h record/vmlinux.h
	$(AM_V_GEN)$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
		-I$(top_builddir)/record -I$(top_srcdir)/record -I$(top_srcdir)/proto \
		-c $(srcdir)/record/os.bpf.c -o $@
record/os.skel.h: record/os.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton record/os.bpf.o name os >$@.tmp && \
	mv $@.tmp $@
record/tools_ipcstamp-record.$(OBJEXT) record/tools_ipcstamp-loader.$(OBJEXT) record/tools_ipcstamp-always.$(OBJEXT) record/tools_ipcstamp-follow.$(OBJEXT): record/os.skel.h
endif
