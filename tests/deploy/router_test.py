"""deploy/nginx/ligature-router.conf.template with Debian's nginx in front of three real
ligatured instances: each world's calls, through the router, reach the instance that holds
the world; an instance killed with SIGKILL and restarted on its data directory brings its
worlds back, and the router reaches them as before. With security on, TLS ends at the
router (pods in plaintext) or goes on to the pods (re-encrypted), and bearer tokens reach
ligatured, which grants each role its rights."""

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

import grpc

import ligature
from server_process import ServerProcess, free_port

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy",
                        "nginx", "ligature-router.conf.template")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
WORLDS = [f"w{i}" for i in range(12)]


def fill(template, **values):
    """The template with every @NAME@ replaced; fails on a placeholder left unfilled."""
    for name, value in values.items():
        template = template.replace(f"@{name}@", value)
    left = re.findall(r"@[A-Z_0-9]+@", template)
    if left:
        raise ValueError(f"unfilled placeholders {left}")
    return template


PLAINTEXT = {"LISTEN_TLS": "", "TLS": "", "UPSTREAM": "grpc", "UPSTREAM_TLS": ""}


class Router:
    """nginx from the template on a free port, routing to `backends`; `tls` fills the
    template's TLS placeholders (plaintext by default)."""

    def __init__(self, backends, tls=None):
        self.prefix = tempfile.mkdtemp(prefix="ligature-router-")
        os.chmod(self.prefix, 0o755)  # nginx workers may run as another user
        self.backends = backends
        self.tls = tls or PLAINTEXT
        self.process = None
        self.port = None

    def start(self):
        with open(TEMPLATE) as f:
            template = f.read()
        for _ in range(3):  # the free port may be taken between the probe and nginx
            self.port = free_port()
            conf = os.path.join(self.prefix, "nginx.conf")
            with open(conf, "w") as f:
                f.write(fill(template, LISTEN=f"127.0.0.1:{self.port}", PREFIX=self.prefix,
                             **self.tls,
                             **{f"BACKEND_{i}": b for i, b in enumerate(self.backends)}))
            subprocess.run([NGINX, "-t", "-q", "-p", self.prefix, "-c", conf], check=True)
            self.process = subprocess.Popen([NGINX, "-p", self.prefix, "-c", conf,
                                             "-g", "daemon off;"])
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.process.poll() is None:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                    return self
                except OSError:
                    time.sleep(0.05)
            self.stop()
        raise RuntimeError(f"nginx did not start:\n{self.error_log()}")

    def error_log(self):
        path = os.path.join(self.prefix, "error.log")
        return open(path).read() if os.path.exists(path) else ""

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: finish open requests
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class RouterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Cleanups run even when a later start fails.
        cls.servers = []
        cls.data_dirs = []
        # Stops whichever servers the list holds then (a test may replace one).
        cls.addClassCleanup(cls.servers_stop)
        for _ in range(3):
            data_dir = tempfile.mkdtemp(prefix="ligature-data-")
            cls.addClassCleanup(shutil.rmtree, data_dir, ignore_errors=True)
            cls.data_dirs.append(data_dir)
            cls.servers.append(ServerProcess(*cls.server_args(data_dir)).start())
        cls.router = Router([s.address for s in cls.servers])
        cls.addClassCleanup(shutil.rmtree, cls.router.prefix, ignore_errors=True)
        cls.addClassCleanup(cls.router.stop)
        cls.router.start()
        cls.client = ligature.connect(f"127.0.0.1:{cls.router.port}")
        cls.direct = [ligature.connect(s.address) for s in cls.servers]
        for c in [cls.client, *cls.direct]:
            cls.addClassCleanup(c.close)

    @staticmethod
    def server_args(data_dir, port=None):
        args = [f"--data_dir={data_dir}", "--snapshot_interval_s=0.2"]
        if port is not None:
            args.append(f"--listen=127.0.0.1:{port}")  # the last --listen wins
        return args

    @classmethod
    def servers_stop(cls):
        for server in cls.servers:
            server.stop()

    def owner(self, world):
        """Indices of the instances that hold `world`, asked directly."""
        return [i for i, c in enumerate(self.direct)
                if f"worlds/{world}" in [w.name for w in c.list_worlds()]]

    def test_each_world_lives_on_one_instance_and_its_calls_reach_it(self):
        scene = {"settings": {"rate_hz": 100, "paused": True},
                 "bodies": [{"id": "ball", "shape": {"sphere": {"radius": 0.1}},
                             "pose": {"position": (0, 5, 0)}}]}
        for world in WORLDS:
            self.client.create_world(world, scene=scene)
        owners = {}
        for world in WORLDS:
            held_by = self.owner(world)
            self.assertEqual(len(held_by), 1, f"{world} is on instances {held_by}")
            owners[world] = held_by[0]
        # The hash spreads the worlds: more than one instance holds some.
        self.assertGreater(len(set(owners.values())), 1, owners)

        for n, world in enumerate(WORLDS):
            # Edits and steps through the router change the owner's world ...
            self.client.create_body(world, {"id": "extra", "shape": {"sphere": {"radius": 0.1}},
                                            "pose": {"position": (n, 1, 0)}})
            frame = self.client.step_world(world, n + 1)
            self.assertEqual((frame.world, frame.tick), (f"worlds/{world}", n + 1))
            owner = self.direct[owners[world]]
            self.assertEqual(owner.get_world(world).tick, n + 1)
            self.assertEqual(owner.get_world(world).body_count, 2)
            # ... and streams through the router come from the owner.
            with self.client.watch(world) as frames:
                self.assertEqual(next(frames).tick, n + 1)

        # Interact through the router drives a kinematic body on the owner.
        world = WORLDS[0]
        self.client.create_body(world, {"id": "hand", "kind": "kinematic",
                                        "shape": {"sphere": {"radius": 0.05}}})
        self.client.set_paused(world, False)
        with self.client.interact(world, bodies=["hand"]) as session:
            session.drive("hand", (0.25, 0.5, 0.75))
            for frame in session:
                p = ligature.body_state(frame, "hand").pose.position
                if abs(p.x - 0.25) < 1e-9 and abs(p.z - 0.75) < 1e-9:
                    break
        self.direct[owners[world]].set_paused(world, True)
        exported = self.direct[owners[world]].export_scene(world)
        hand = next(b for b in exported.bodies if b.id == "hand")
        self.assertAlmostEqual(hand.pose.position.y, 0.5, delta=1e-9)

        for world in WORLDS:
            self.client.delete_world(world)
        self.assertEqual([self.owner(w) for w in WORLDS], [[]] * len(WORLDS))

    def test_a_killed_instance_restarts_on_its_data_directory(self):
        scene = {"settings": {"rate_hz": 100, "paused": True},
                 "bodies": [{"id": "ball", "shape": {"sphere": {"radius": 0.1}},
                             "pose": {"position": (0, 5, 0)}}]}
        worlds = [f"k{i}" for i in range(9)]
        for n, world in enumerate(worlds):
            self.client.create_world(world, scene=scene)
            self.client.step_world(world, n + 1)
        victim = self.owner(worlds[0])[0]
        held = [w for w in worlds if self.owner(w) == [victim]]
        # Wait until the victim's snapshots hold each of its worlds at its tick
        # (<world>.<tick, 20 digits>.snap).
        data_dir = self.data_dirs[victim]
        expected = [os.path.join(data_dir, f"{w}.{worlds.index(w) + 1:020d}.snap") for w in held]
        deadline = time.monotonic() + 20
        while not all(os.path.exists(f) for f in expected):
            self.assertLess(time.monotonic(), deadline,
                            f"snapshots {expected} not written: {os.listdir(data_dir)}")
            time.sleep(0.05)

        old = self.servers[victim]
        port = old.port
        old.process.send_signal(signal.SIGKILL)
        old.process.wait()
        old.stop()
        restarted = ServerProcess(*self.server_args(data_dir, port)).start()
        self.servers[victim] = restarted
        self.assertEqual(restarted.port, port)
        self.assertIn("restored", restarted.log())

        # Its worlds are back at their ticks, and the router reaches them there.
        for world in held:
            n = worlds.index(world)
            self.assertEqual(self.client.get_world(world).tick, n + 1, world)
            frame = self.client.step_world(world, 1)
            self.assertEqual(frame.tick, n + 2, world)
        for world in worlds:
            self.client.delete_world(world)


MAKE_CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "security",
                          "make_certs.sh")
TOKENS = """owner-t owner *
viewer-t viewer *
"""


class SecureRouterTest(unittest.TestCase):
    """Three ligatured with a token file behind the router with TLS, in both layouts."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="ligature-router-tls-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, ignore_errors=True)
        os.chmod(cls.dir, 0o755)  # nginx workers read the certificates
        subprocess.run(["/bin/bash", MAKE_CERTS, cls.dir], check=True, timeout=60)
        for name in os.listdir(cls.dir):
            os.chmod(os.path.join(cls.dir, name), 0o644)
        with open(cls.path("tokens"), "w") as f:
            f.write(TOKENS)

    @classmethod
    def path(cls, name):
        return os.path.join(cls.dir, name)

    def route(self, pods_tls):
        """Three servers (TLS or plaintext) and a TLS router in front; returns the router's
        address."""
        args = [f"--token_file={self.path('tokens')}"]
        if pods_tls:
            args += [f"--tls_cert={self.path('server.pem')}",
                     f"--tls_key={self.path('server.key')}"]
        servers = []
        for _ in range(3):
            server = ServerProcess(*args).start()
            self.addCleanup(server.stop)
            servers.append(server)
        tls = {"LISTEN_TLS": "ssl",
               "TLS": f"ssl_certificate {self.path('server.pem')}; "
                      f"ssl_certificate_key {self.path('server.key')};",
               "UPSTREAM": "grpcs" if pods_tls else "grpc",
               "UPSTREAM_TLS": (f"grpc_ssl_trusted_certificate {self.path('ca.pem')}; "
                                "grpc_ssl_verify on; grpc_ssl_name localhost;")
                               if pods_tls else ""}
        # The pods' names as the router dials them: localhost, which their certificate names.
        router = Router([s.address.replace("127.0.0.1", "localhost") for s in servers], tls)
        self.addCleanup(shutil.rmtree, router.prefix, ignore_errors=True)
        self.addCleanup(router.stop)
        router.start()
        return f"localhost:{router.port}"

    def check_tokens_reach_ligatured(self, address):
        connect = lambda token: ligature.connect(address, tls=True, ca=self.path("ca.pem"),
                                                 token=token)
        scene = {"settings": {"rate_hz": 100, "paused": True},
                 "bodies": [{"id": "ball", "shape": {"sphere": {"radius": 0.1}}}]}
        with connect("owner-t") as owner, connect("viewer-t") as viewer, \
                connect(None) as anonymous, connect("forged") as forged:
            for n in range(6):
                owner.create_world(f"s{n}", scene=scene)
                self.assertEqual(owner.step_world(f"s{n}", n + 1).tick, n + 1)
                self.assertEqual(viewer.get_world(f"s{n}").tick, n + 1)
                with self.assertRaises(ligature.LigatureError) as denied:
                    viewer.step_world(f"s{n}", 1)
                self.assertEqual(denied.exception.code, grpc.StatusCode.PERMISSION_DENIED)
            for client in (anonymous, forged):
                with self.assertRaises(ligature.LigatureError) as refused:
                    client.get_world("s0")
                self.assertEqual(refused.exception.code, grpc.StatusCode.UNAUTHENTICATED)
            for n in range(6):
                owner.delete_world(f"s{n}")

    def test_tls_ends_at_the_router(self):
        self.check_tokens_reach_ligatured(self.route(pods_tls=False))

    def test_tls_goes_on_to_the_pods(self):
        self.check_tokens_reach_ligatured(self.route(pods_tls=True))


if __name__ == "__main__":
    unittest.main()
