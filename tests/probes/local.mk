# tests/probes/: the USDT probes (docs/probes.md): their one list against
# the docs and the binaries, a bpftrace script's hits against a run's
# slogfile, the page's bpftrace examples run as written, and the refused
# frames of both sides.  As root with
# bpftrace (tests/peers.sh installs it); skipped otherwise, failed where
# IPCSTAMP_REQUIRE_INTEROP=1.
TESTS += tests/probes/probes-list.test tests/probes/probes-run.test \
	tests/probes/probes-examples.test tests/probes/probes-refused.test
EXTRA_DIST += tests/probes/probes-list.test tests/probes/probes-run.test \
	tests/probes/probes-examples.test tests/probes/probes-refused.test \
	tests/probes/probes-need.sh \
	tests/probes/probes_check.py tests/probes/examples_check.py
dist_docs_DATA += docs/probes.md
