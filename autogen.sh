#!/bin/sh
# Regenerate the build system (autoreconf), and nothing else: it installs
# no package.  The build's dependencies are installed on purpose by
# ./install-deps.sh (the README's commands run it first); configure says
# what is missing.
set -eu
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --install --force
