# Sourced by the tests that run Agoric's kernel (tests/os/swingset.test,
# always-swingset.test, soak.sh, tests/interop/xs-swingset*.test).
#
# swingset_copy PROJ SRC DIR: a project to run gen-slog.mjs in, at DIR:
# PROJ's node_modules (the npm project make check installed), hard-linked
# where the file system allows (copied elsewhere), and SRC's generator,
# package.json and vats (this tree's, beside the packages).  Returns
# non-zero when a copy failed.
swingset_copy() {
    mkdir -p "$3" || return 1
    cp -al "$1/node_modules" "$3/node_modules" 2>/dev/null ||
        { rm -rf "$3/node_modules"; cp -a "$1/node_modules" "$3/node_modules"; } ||
        return 1
    cp "$1/package.json" "$2"/tests/interop/swingset/*.mjs "$3/" &&
        cp -R "$2/tests/interop/swingset/vats" "$3/"
}
