# tests/pkg/: what a machine installs to run ipcstamp as a service (dist/,
# debian/): the systemd unit verified by systemd-analyze (systemd, a test
# peer: skipped without it).
TESTS += tests/pkg/unit.test
EXTRA_DIST += tests/pkg/unit.test
# The Debian package built, linted, installed, used and purged: as root
# on Debian; not in a sanitizer build nor make distcheck (the same package).
# (In TESTS first, in Makefile.am.)
EXTRA_DIST += tests/pkg/deb.test
