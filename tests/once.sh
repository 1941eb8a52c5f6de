# Sourced by the tests that a tree's own make check runs once and the
# builds made from the same files need not run again: the Debian package
# (tests/pkg/deb.test) and the always-on recorder on Agoric's kernel
# (tests/os/always-swingset.test), each minutes long.
#
# once_elsewhere SRC BUILD: prints why this build is such a second one, or
# nothing.  A sanitizer build (its ipcstamp has ASan's runtime): the same
# sources again, built slower.  make distcheck's build: its source tree is
# read-only (chmod a-w, which root's [ -w ] does not see: the mode says
# it), unpacked from the tree whose make check ran them.
once_elsewhere() {
    for _f in "$2/tools/.libs/ipcstamp" "$2/tools/ipcstamp"; do
        if [ -f "$_f" ] && grep -q __asan_init "$_f" 2>/dev/null; then
            echo "a sanitizer build (the tree's own make check runs it, unsanitized)"
            return
        fi
    done
    [ -n "$(find "$1" -maxdepth 0 -perm -u=w)" ] ||
        echo "a read-only source tree (make distcheck's): the make check of the tree it came from runs it"
}
