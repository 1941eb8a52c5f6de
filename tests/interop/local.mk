# tests/interop/: ipcstamp against software nobody here wrote (Agoric's
# npm packages, test-only; see tests/peers.sh).

# Interoperability with the real peers: Agoric's xsnap parent and
# xsnap-worker (npm, test-only; see tests/interop/package.json).
TESTS += tests/interop/xsnap-parent.test tests/interop/xsnap-worker.test
EXTRA_DIST += tests/interop/xsnap-parent.test tests/interop/xsnap-parent.mjs \
	tests/interop/xsnap-worker.test \
	tests/interop/package.json tests/interop/package-lock.json

# Real SwingSet data: the fixture written by Agoric's kernel on
# xsnap workers, and the node generators and harnesses of
# tests/interop/swingset (their own npm project, test-only).
TESTS += tests/interop/swingset-fixture.test tests/interop/swingset-otel.test \
	tests/interop/swingset-flight.test
# The format of the flight recorder files these tests use (and ipcstamp
# reads); kept beside its fixtures so the generator and the page change
# together.
dist_docs_DATA += docs/flight-recorder.md
EXTRA_DIST += tests/interop/swingset-fixture.test \
	tests/interop/swingset-otel.test \
	tests/interop/swingset-flight.test \
	tests/data/flight-nowrap.bin.gz \
	tests/data/flight-nowrap.jsonl.gz \
	tests/data/flight-wrap.bin.gz \
	tests/data/flight-wrap.jsonl.gz \
	tests/data/flight-bad-end.bin.gz \
	tests/data/flight-bad-len.bin.gz \
	tests/interop/swingset/gen-flight.mjs \
	tests/data/swingset.slog.gz \
	tests/data/otel-min.slog \
	tests/interop/swingset/slog-to-otel.mjs \
	tests/interop/swingset/README.md \
	tests/interop/swingset/package.json \
	tests/interop/swingset/package-lock.json \
	tests/interop/swingset/check-fixture.mjs \
	tests/interop/swingset/gen-slog.mjs \
	tests/interop/swingset/vats/alice.js \
	tests/interop/swingset/vats/bob.js \
	tests/interop/swingset/vats/carol.js \
	tests/interop/swingset/vats/ledger.js \
	tests/interop/swingset/vats/bootstrap.js
# The generator of the slogfiles at xsnap's limits (tests/tools/xsnap-limits.test
# reads them): Agoric's kernel driving the shapes' vats.
EXTRA_DIST += tests/interop/swingset/copy.sh tests/interop/swingset/cut-slog.mjs \
	tests/interop/swingset/cut-os.mjs \
	tests/interop/swingset/host.mjs \
	tests/interop/swingset/gen-shapes.mjs \
	tests/interop/swingset/shapes/bootstrap.js \
	tests/interop/swingset/shapes/capper.js \
	tests/interop/swingset/shapes/phoenix.js \
	tests/interop/swingset/shapes/sleeper.js \
	tests/interop/swingset/shapes/spinner.js
