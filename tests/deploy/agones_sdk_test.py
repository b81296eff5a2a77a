"""A real ligatured under a stand-in Agones SDK sidecar (AGONES_SDK_HTTP_PORT set): it posts
/ready once serving, /health from then on, and /shutdown when SIGTERM stops it."""

import http.server
import os
import signal
import threading
import time
import unittest
from unittest import mock

from server_process import ServerProcess


class Sidecar(http.server.ThreadingHTTPServer):
    """Records (path, content type, body) of each POST and answers 200 {}."""

    def __init__(self):
        self.posts = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), SidecarHandler)

    def paths(self):
        with self.lock:
            return [p for p, _, _ in self.posts]

    def wait_for(self, path, count, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.paths().count(path) < count:
            time.sleep(0.02)
        return self.paths().count(path)


class SidecarHandler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        with self.server.lock:
            self.server.posts.append((self.path, self.headers.get("Content-Type"), body))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


class AgonesSdkTest(unittest.TestCase):
    def test_ready_health_and_shutdown_reach_the_sidecar(self):
        sidecar = Sidecar()
        thread = threading.Thread(target=sidecar.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(sidecar.server_close)
        self.addCleanup(sidecar.shutdown)
        port = str(sidecar.server_address[1])
        with mock.patch.dict(os.environ, {"AGONES_SDK_HTTP_PORT": port}):
            server = ServerProcess().start()
        try:
            self.assertEqual(sidecar.wait_for("/ready", 1), 1, server.log())
            # The first ping goes at once, the second one period (2 s) later.
            self.assertGreaterEqual(sidecar.wait_for("/health", 2), 2, server.log())
            self.assertNotIn("/shutdown", sidecar.paths())
            server.process.send_signal(signal.SIGTERM)
            self.assertEqual(server.process.wait(timeout=20), 0)
        finally:
            server.stop()
        paths = sidecar.paths()
        self.assertEqual(paths[0], "/ready")
        self.assertEqual(paths[-1], "/shutdown")
        self.assertEqual(paths.count("/shutdown"), 1)
        with sidecar.lock:
            for path, content_type, body in sidecar.posts:
                self.assertEqual(content_type, "application/json", path)
                self.assertEqual(body, "{}", path)

    def test_malformed_port_stops_the_server(self):
        with mock.patch.dict(os.environ, {"AGONES_SDK_HTTP_PORT": "sidecar"}):
            with self.assertRaises(RuntimeError) as raised:
                ServerProcess(start_timeout=10).start()
        self.assertIn("AGONES_SDK_HTTP_PORT", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
