#!/bin/sh
# usage: tools/run/demo.sh   (from the top of the build tree; make demo)
#
# The README's first command ends here: three JavaScript workers run the
# demo into demo.slog; the whole report (every delivery, segment by
# segment: thousands of lines) goes to demo.report.txt, and the terminal
# gets what matters (the run, the summary, the three slowest deliveries)
# and what to run next.  tests/readme.test runs this same script and
# checks that the README's copy of its output has the same shape.
set -e
show() { echo "\$ $*"; "$@"; }
show tools/ipcstamp run --worker worker/ipcstamp-worker-js --vats 3 --demo --slog demo.slog --force
show tools/ipcstamp report demo.slog -o demo.report.txt
show tools/ipcstamp report demo.slog --summary --top 3
cat <<'EOF'

Every delivery, segment by segment: demo.report.txt (docs/report.md says
what each field is).  Next:
  tools/ipcstamp report demo.slog --format html -o demo.html  # open it: charts
  tools/ipcstamp trace demo.slog -o demo.trace.json  # https://ui.perfetto.dev opens it
  tools/ipcstamp latency demo.slog --what pipe       # percentiles of the pipe's time
EOF
