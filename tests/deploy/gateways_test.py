"""Viewer gateways as real processes: nats-server, one ligatured publishing a world's frames
(--nats_url, --nats_worlds) and three ligature-gateway. Viewers on every gateway see the
same ticks, byte for byte, as viewers of the world's own server. A gateway killed with
SIGKILL sends its viewers to another (their channel names all three), and the world goes on
at its rate. A broker restart is a gap in the viewers' frames, not the end of their streams;
the gateways subscribe again by themselves."""

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import unittest

import ligature
from ligature.errors import LigatureError
from server_process import ServerProcess, free_port

NATS = shutil.which("nats-server")
GATEWAY = os.environ.get("LIGATURE_GATEWAY")
RATE_HZ = 60
SCENE = {"settings": {"rate_hz": RATE_HZ},
         "bodies": [{"id": "ground", "kind": "static", "shape": {"plane": {}}},
                    {"id": "ball", "shape": {"sphere": {"radius": 0.1}},
                     "pose": {"position": (0, 50, 0)}},
                    {"id": "post", "kind": "kinematic", "shape": {"sphere": {"radius": 0.2}},
                     "pose": {"position": (5, 1, 0)}}]}


def wait_for_port(port, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.02)
    return False


class Broker:
    """nats-server on a fixed loopback port."""

    def __init__(self, port):
        self.port = port
        self.process = None

    @property
    def url(self):
        return f"nats://127.0.0.1:{self.port}"

    def start(self):
        self.process = subprocess.Popen([NATS, "-a", "127.0.0.1", "-p", str(self.port)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_for_port(self.port):
            raise RuntimeError("nats-server did not start")
        return self

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def gateway_process(url):
    """ligature-gateway on a free port, taking frames from `url`."""
    return ServerProcess(f"--nats_url={url}", binary=GATEWAY)


def frames_by_tick(clients, n, world="crowd"):
    """For each client, the bytes of `n` frames of a whole-frame stream, by tick; the
    streams read side by side."""
    streams = [c.watch(world, duration=20) for c in clients]
    out = [{} for _ in clients]

    def read(stream, frames):
        with stream:
            for frame in stream:
                frames[frame.tick] = frame.SerializeToString()
                if len(frames) == n:
                    break

    readers = [threading.Thread(target=read, args=(s, f)) for s, f in zip(streams, out)]
    for r in readers:
        r.start()
    for r in readers:
        r.join()
    return out


class GatewaysTest(unittest.TestCase):
    def setUp(self):
        if not (NATS and GATEWAY):
            why = "needs nats-server on PATH and LIGATURE_GATEWAY naming ligature-gateway"
            if os.environ.get("LIGATURE_REQUIRE_ALL"):
                self.fail(why)
            self.skipTest(why)
        self.broker = Broker(free_port()).start()
        self.addCleanup(self.broker.kill)
        self.server = ServerProcess(f"--nats_url={self.broker.url}", "--nats_worlds=crowd").start()
        self.addCleanup(self.server.stop)
        self.gateways = []
        for _ in range(3):
            gateway = gateway_process(self.broker.url)
            self.addCleanup(gateway.stop)
            self.gateways.append(gateway.start())
        self.direct = ligature.connect(self.server.address)
        self.addCleanup(self.direct.close)
        self.direct.create_world("crowd", scene=SCENE)
        self.viewers = [ligature.connect(g.address) for g in self.gateways]
        for viewer in self.viewers:
            self.addCleanup(viewer.close)
            self.wait_until_served(viewer)

    def wait_until_served(self, client):
        """Waits until `client`'s gateway has frames of the world."""
        deadline = time.monotonic() + 20
        while True:
            try:
                with client.watch("crowd", duration=5) as frames:
                    next(frames)
                return
            except LigatureError as error:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the gateway never served the world: {error}")
                time.sleep(0.05)

    def test_viewers_on_every_gateway_see_the_servers_ticks(self):
        direct, *on_gateways = frames_by_tick([self.direct, *self.viewers], 60)
        for i, frames in enumerate(on_gateways):
            common = set(frames) & set(direct)
            self.assertGreaterEqual(len(common), 20, f"gateway {i}")
            for tick in common:
                self.assertEqual(frames[tick], direct[tick], f"gateway {i}, tick {tick}")

    def test_a_killed_gateways_viewers_go_to_another_and_the_world_goes_on(self):
        # A channel over every gateway's address (as a DNS name of several would give):
        # gRPC picks one, and another after that one fails.
        everyone = ligature.connect("ipv4:" + ",".join(g.address for g in self.gateways))
        self.addCleanup(everyone.close)
        start = self.direct.get_world("crowd").tick
        began = time.monotonic()
        # A plain stream ends with its gateway.
        stream = everyone.watch("crowd", duration=10)
        last = next(stream).tick
        # A resuming one goes on through another.
        resuming = everyone.watch("crowd", duration=30, resume=True)
        resumed_from = next(resuming).tick
        # With every gateway up, the channel takes the first address.
        self.gateways[0].stop(signal.SIGKILL)
        with self.assertRaises(LigatureError) as ended:
            for frame in stream:
                self.assertGreater(frame.tick, last)
                last = frame.tick
        self.assertEqual(ended.exception.code.name, "UNAVAILABLE", ended.exception)
        ticks = [resumed_from]
        for frame in resuming:
            self.assertGreater(frame.tick, ticks[-1])  # in order, none twice
            ticks.append(frame.tick)
            if frame.tick >= last + RATE_HZ:  # a second past the plain stream's end
                break
        resuming.close()
        self.assertGreaterEqual(ticks[-1], last + RATE_HZ)
        # Watching again reaches a gateway still up, and the world's frames go on.
        with everyone.watch("crowd", duration=10) as frames:
            self.assertGreaterEqual(next(frames).tick, ticks[-1])
        # The world never waited for a gateway: it kept its rate (half of it at least, on
        # a loaded machine).
        elapsed = time.monotonic() - began
        ticks_run = self.direct.get_world("crowd").tick - start
        self.assertGreater(ticks_run, 0.5 * RATE_HZ * elapsed)

    def test_a_broker_restart_is_a_gap_then_frames(self):
        stream = self.viewers[0].watch("crowd", duration=60)
        before = next(stream).tick
        self.broker.kill()
        time.sleep(1.0)
        gone = self.direct.get_world("crowd").tick
        self.assertGreater(gone, before + RATE_HZ // 2)  # the world went on meanwhile
        self.broker.start()
        # The same stream: a few frames already in flight, then the world as it is now.
        for frame in stream:
            if frame.tick >= gone:
                break
            self.assertLess(frame.tick, before + RATE_HZ // 2, "a frame from the gap")
        self.assertGreaterEqual(frame.tick, gone)
        stream.close()


if __name__ == "__main__":
    unittest.main()
