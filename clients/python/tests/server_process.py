"""A real ligatured (or another of the project's servers) on a free loopback port, for the
tests and the examples' smoke test.

The binary comes from the LIGATURED environment variable (ctest sets it) unless given. The
server is started with --listen 127.0.0.1:0 and reports the port it bound on stderr."""

import os
import re
import signal
import socket
import subprocess
import tempfile
import time

_PORT_LINE = re.compile(r"serving on \S+ \(port (\d+)\)")


def free_port():
    """A loopback port free just now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """Starts ligatured with `args` (no start-up world unless a --scene is given), or the
    server `binary` with `args` alone, and stops it with SIGINT. Use as a context manager;
    `address` is host:port."""

    def __init__(self, *args, start_timeout=20.0, binary=None):
        self.ligatured = binary is None
        self.binary = os.environ.get("LIGATURED") if self.ligatured else binary
        if not self.binary or not os.access(self.binary, os.X_OK):
            raise RuntimeError(f"no server binary to run (got {self.binary!r}; ligatured's "
                               "comes from LIGATURED)")
        self.args = list(args)
        self.start_timeout = start_timeout
        self.process = None
        self.port = None
        self._log = None
        self._final_log = ""

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def start(self):
        self._log = tempfile.TemporaryFile(mode="w+")
        argv = [self.binary, "--listen=127.0.0.1:0"]
        if self.ligatured and not any(a.startswith("--scene") for a in self.args):
            argv.append("--scene=")
        self.process = subprocess.Popen(argv + self.args, stdout=self._log,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            match = _PORT_LINE.search(self.log())
            if match:
                self.port = int(match.group(1))
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"{os.path.basename(self.binary)} did not start:\n{self.log()}")

    def log(self):
        """Everything the server printed so far."""
        if self._log is None or self._log.closed:
            return self._final_log
        self._log.seek(0)
        return self._log.read()

    def stop(self, sig=signal.SIGINT):
        """`sig`, then SIGKILL if it has not exited within 10 s; returns the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log is not None and not self._log.closed:
            self._final_log = self.log()
            self._log.close()
        return self.process.returncode

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
