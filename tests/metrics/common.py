"""What the tests of `ipcstamp metrics` share: the built command, a temp
directory, a server started and its address read from its stderr, scrapes,
and waits for a condition with a generous bound (never a fixed sleep)."""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

B = os.path.abspath(os.environ.get("IPCSTAMP_BUILDDIR", "."))
IPS = os.path.join(B, "tools", "ipcstamp")
WORKER = os.path.join(B, "worker", "ipcstamp-worker-js")
BOUND = float(os.environ.get("IPCSTAMP_TEST_WAIT", "180"))  # seconds


def skip(name, why):
    print(f"{name}: SKIP: {why}")
    sys.exit(77)


def fail(name, why):
    print(f"{name}: FAIL: {why}", file=sys.stderr)
    sys.exit(1)


def wait(name, what, cond, bound=BOUND):
    """cond() until it is true (returns it), polling every 0.1 s for up to
    bound seconds; else the test fails saying what it waited for."""
    end = time.monotonic() + bound
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > end:
            fail(name, f"waited {bound:.0f} s for {what}")
        time.sleep(0.1)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """`ipcstamp metrics ARGS`, its address read from its stderr."""

    def __init__(self, name, tmp, args, tag="metrics"):
        self.name = name
        self.err = os.path.join(tmp, f"{tag}.err")
        with open(self.err, "w") as e:
            self.p = subprocess.Popen([IPS, "metrics"] + args,
                                      stdout=subprocess.DEVNULL, stderr=e)
        m = wait(name, "ipcstamp metrics to listen", self._listening)
        self.addr = m.group(1)

    def _listening(self):
        if self.p.poll() is not None:
            fail(self.name, f"ipcstamp metrics exited {self.p.returncode}: "
                            + open(self.err).read())
        return re.search(r"serving http://([^/]+)/metrics", open(self.err).read())

    def url(self, path="/metrics"):
        return f"http://{self.addr}{path}"

    def scrape(self):
        with urllib.request.urlopen(self.url(), timeout=60) as r:
            return r.read().decode()

    def value(self, sample):
        """The value of the sample line that starts with sample, or None."""
        for line in self.scrape().splitlines():
            if line.startswith(sample + " "):
                return float(line.split()[-1])
        return None

    def stop(self):
        """SIGTERM: it must end, exit 0."""
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(timeout=BOUND)
        if rc != 0:
            fail(self.name, f"ipcstamp metrics exited {rc} after SIGTERM: "
                            + open(self.err).read())

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def demo(tmp, slog):
    """The README's demo workload, its slogfile at slog; its deliveries'
    count (report's summary)."""
    subprocess.run([IPS, "run", "--worker", WORKER, "--vats", "3", "--demo",
                    "--slog", slog, "--force"], check=True,
                   stdout=subprocess.DEVNULL, cwd=tmp)
    return attributed(slog)


def attributed(slog):
    out = subprocess.run([IPS, "report", slog, "--summary"], check=True,
                         capture_output=True, text=True).stdout
    return int(re.search(r"^deliveries: (\d+) attributed", out, re.M).group(1))


def tmpdir():
    return tempfile.TemporaryDirectory(prefix="ipcstamp-metrics-")
