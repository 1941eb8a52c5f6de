# The trace in an offline viewer: speedscope (npm, test-only; see
# tests/viewers/package.json) in headless Chromium.
TESTS += tests/viewers/speedscope.test
EXTRA_DIST += tests/viewers/speedscope.test tests/viewers/speedscope-check.mjs \
	tests/viewers/cdp.mjs tests/viewers/html-check.mjs tests/viewers/package.json \
	tests/viewers/package-lock.json
