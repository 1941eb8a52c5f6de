# man/: hand-written roff pages, installed to man1 and man3.  make check
# formats each with every groff warning enabled (any warning fails) and
# checks that ipcstamp(1) and the workers' pages name every option that
# their --help prints.
dist_man1_MANS = man/ipcstamp.1 man/ipcstamp-worker-c.1 man/ipcstamp-worker-js.1
dist_man3_MANS = man/libipcstamp-proto.3 man/libipcstamp-worker.3 \
	man/libipcstamp-parent.3 man/libipcstamp-analyze.3
TESTS += man/man.test
EXTRA_DIST += man/man.test
