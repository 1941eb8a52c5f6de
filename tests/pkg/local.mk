# tests/pkg/: what a machine installs to run ipcstamp as a service (dist/,
# debian/): the systemd unit verified by systemd-analyze (systemd, a test
# peer: skipped without it).
TESTS += tests/pkg/unit.test
EXTRA_DIST += tests/pkg/unit.test
