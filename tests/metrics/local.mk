# tests/metrics/: `ipcstamp metrics` (tools/metrics/, docs/operators.md)
# scraped by the real Prometheus server and checked by its promtool
# (Debian's prometheus, a test peer: skipped without it), and the
# endpoint's bounds (slow and many scrapers, deadlines, bad requests).
TESTS += tests/metrics/prometheus.test tests/metrics/bounds.test
EXTRA_DIST += tests/metrics/prometheus.test tests/metrics/bounds.test \
	tests/metrics/common.py
