#!/usr/bin/env python3
"""majflt.py FILE — made to run under `ipcstamp record` (tests/os/record.test):
major page faults on purpose.  It writes a frame to a pipe (so that the
collector records its thread's waits from then on), writes FILE (8 MiB,
on a disk-backed file system), drops its pages from the page cache
(posix_fadvise DONTNEED), and reads one byte of every 16th page through
a mapping with readahead off: each read a major fault, the thread asleep
in it.  Prints the major faults the kernel counted for it meanwhile
(/proc/self/stat), which the recording must show."""
import mmap
import os
import sys
import time


def maj_flt():
    with open("/proc/self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[9])


r, w = os.pipe()
os.write(w, b"3:abc,")
os.read(r, 6)
with open(sys.argv[1], "wb") as f:
    f.write(os.urandom(8 << 20))
    f.flush()
    os.fsync(f.fileno())
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
m.madvise(mmap.MADV_RANDOM)
# A wait carries the count read when the thread leaves its CPU, so a
# sleep before `before` is read and one after `after` is read frame the
# faults whatever else happens: the first wait's count is at most before,
# the last's at least after (a pipe read of bytes already there does not
# sleep, so it cannot be that wait).
time.sleep(0.01)
before = maj_flt()
s = sum(m[off] for off in range(0, len(m), 16 * 4096))
after = maj_flt()
time.sleep(0.01)
os.write(w, b"3:end,")
os.read(r, 6)
print(after - before)
