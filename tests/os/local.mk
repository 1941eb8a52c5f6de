# tests/os/: ipcstamp record and report --os (docs/os.md), as root where
# BPF works (skipped elsewhere, failed where IPCSTAMP_REQUIRE_INTEROP=1).
TESTS += tests/os/record.test
EXTRA_DIST += tests/os/record.test tests/os/check_os.py
