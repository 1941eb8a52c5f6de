# dist/: what a machine that runs the recorder as a service installs
# (docs/operators.md): its systemd unit, made from its template with this
# build's paths, into systemd's unit directory (configure
# --with-systemdsystemunitdir), and its settings,
# $(sysconfdir)/default/ipcstamp-recorder, which an upgrade never
# overwrites once the operator changed them (make install: only when
# absent; the Debian package: a conffile).
EXTRA_DIST += dist/ipcstamp-recorder.service.in dist/ipcstamp-recorder.default
CLEANFILES += dist/ipcstamp-recorder.service
if HAVE_SYSTEMD_UNITDIR
systemdsystemunit_DATA = dist/ipcstamp-recorder.service
endif
noinst_DATA = dist/ipcstamp-recorder.service
dist/ipcstamp-recorder.service: dist/ipcstamp-recorder.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) dist && \
	sed -e 's|@bindir[@]|$(bindir)|g' -e 's|@sysconfdir[@]|$(sysconfdir)|g' \
		-e 's|@docdir[@]|$(docdir)|g' \
		$(srcdir)/dist/ipcstamp-recorder.service.in >$@.tmp && mv $@.tmp $@

install-data-local: install-recorder-default
uninstall-local: uninstall-recorder-default
install-recorder-default:
	$(MKDIR_P) '$(DESTDIR)$(sysconfdir)/default'
	test -f '$(DESTDIR)$(sysconfdir)/default/ipcstamp-recorder' || \
		$(INSTALL_DATA) $(srcdir)/dist/ipcstamp-recorder.default \
			'$(DESTDIR)$(sysconfdir)/default/ipcstamp-recorder'
uninstall-recorder-default:
	-cmp -s $(srcdir)/dist/ipcstamp-recorder.default \
		'$(DESTDIR)$(sysconfdir)/default/ipcstamp-recorder' && \
		rm -f '$(DESTDIR)$(sysconfdir)/default/ipcstamp-recorder'
PHONY_TARGETS += install-recorder-default uninstall-recorder-default
# The Debian packaging (dpkg-buildpackage -us -uc -b in the tree;
# tests/pkg/deb.test), in the tarball too.
EXTRA_DIST += debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/ipcstamp.install debian/libipcstamp-dev.install \
	debian/libipcstamp-proto0.install debian/libipcstamp-worker1.install \
	debian/libipcstamp-parent0.install debian/libipcstamp-analyze0.install
