"""The client against a real ligatured with TLS and a token file: each role gets exactly
its rights on calls and streams (Watch, Interact and scene queries included), a missing or
unknown token is refused, a client that does not trust the server's CA or (for mutual TLS)
has no certificate cannot connect. Certificates are made by tests/security/make_certs.sh."""

import os
import shutil
import subprocess
import tempfile
import unittest

import grpc

import ligature
from server_process import ServerProcess

MAKE_CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                          "tests", "security", "make_certs.sh")
TOKENS = """# test tokens
viewer-t viewer demo
editor-t editor demo
owner-t owner demo
owner-t owner scratch
expired-t owner * until=2020-01-01T00:00:00Z
"""

DIR = None
TLS = None
MUTUAL = None


def setUpModule():
    global DIR, TLS, MUTUAL
    DIR = tempfile.mkdtemp(prefix="ligature_py_secure_")
    subprocess.run(["/bin/bash", MAKE_CERTS, DIR], check=True, timeout=60)
    with open(path("tokens"), "w") as f:
        f.write(TOKENS)
    paddle = path("paddle.textproto")
    with open(paddle, "w") as f:
        f.write('settings { rate_hz: 60 }\n'
                'bodies { id: "paddle" kind: BODY_KIND_KINEMATIC '
                'shape { box { half_extents { x: 0.3 y: 0.05 z: 0.3 } } } }\n')
    common = ["--world_id=demo", f"--scene={paddle}", f"--tls_cert={path('server.pem')}",
              f"--tls_key={path('server.key')}", f"--token_file={path('tokens')}"]
    TLS = ServerProcess(*common).start()
    MUTUAL = ServerProcess(*common, f"--tls_client_ca={path('ca.pem')}").start()


def tearDownModule():
    codes = [server.stop() for server in (TLS, MUTUAL) if server is not None]
    shutil.rmtree(DIR, ignore_errors=True)
    assert codes == [0, 0], f"ligatured exit codes {codes}"


def path(name):
    return os.path.join(DIR, name)


def connect(server, token=None, **kwargs):
    kwargs.setdefault("tls", True)
    kwargs.setdefault("ca", path("ca.pem"))
    return ligature.connect(server.address, timeout=20, token=token, **kwargs)


class SecurityTest(unittest.TestCase):
    def assertCode(self, code, fn, *args, **kwargs):
        with self.assertRaises(ligature.LigatureError) as caught:
            fn(*args, **kwargs)
        self.assertEqual(caught.exception.code, code, str(caught.exception))
        return caught.exception

    def interact_code(self, client):
        """The code an Interact session on demo ends with after one pose (OK if it ran)."""
        session = client.interact("demo", bodies=["paddle"])
        try:
            session.drive("paddle", (0, 1, 0))
            next(iter(session))
            session.close()
            return grpc.StatusCode.OK
        except ligature.LigatureError as error:
            session.close(raise_errors=False)
            return error.code

    def watch_code(self, client):
        try:
            next(iter(client.watch("demo", duration=20)))
            return grpc.StatusCode.OK
        except ligature.LigatureError as error:
            return error.code

    def query_codes(self, client, world="demo"):
        """The codes of a batch query and of a query stream's first request on `world`
        (OK when answered: a ray down onto the paddle hits it)."""
        codes = []
        try:
            hits = client.raycast(world, (0, 5, 0), (0, -1, 0))
            self.assertEqual([h.body for h in hits], ["paddle"])
            codes.append(grpc.StatusCode.OK)
        except ligature.LigatureError as error:
            codes.append(error.code)
        with client.query_stream(world) as stream:
            try:
                resp = stream.ask([{"ray": {"origin": (0, 5, 0), "direction": (0, -1, 0)}}])
                self.assertEqual(resp.results[0].hits[0].body, "paddle")
                codes.append(grpc.StatusCode.OK)
            except ligature.LigatureError as error:
                codes.append(error.code)
        return codes

    def test_any_role_on_the_world_may_query_it_and_no_other(self):
        ok = [grpc.StatusCode.OK] * 2
        for token in ("viewer-t", "editor-t", "owner-t"):
            with self.subTest(token=token), connect(TLS, token) as client:
                self.assertEqual(self.query_codes(client), ok)
        with connect(TLS, "owner-t") as owner:
            owner.create_world("scratch", scene_name="default")
            try:
                with connect(TLS, "viewer-t") as viewer:
                    self.assertEqual(self.query_codes(viewer, "scratch"),
                                     [grpc.StatusCode.PERMISSION_DENIED] * 2)
            finally:
                owner.delete_world("scratch")

    def test_viewer_reads_and_watches_but_does_not_edit(self):
        with connect(TLS, "viewer-t") as client:
            self.assertEqual(client.get_world("demo").name, "worlds/demo")
            self.assertEqual([w.name for w in client.list_worlds()], ["worlds/demo"])
            self.assertEqual(self.watch_code(client), grpc.StatusCode.OK)
            denied = self.assertCode(grpc.StatusCode.PERMISSION_DENIED, client.create_body,
                                     "demo", {"id": "b", "shape": {"sphere": {"radius": 0.1}}})
            self.assertIn("editor role on world demo", denied.message)
            self.assertEqual(self.interact_code(client), grpc.StatusCode.PERMISSION_DENIED)
            self.assertCode(grpc.StatusCode.PERMISSION_DENIED, client.delete_world, "demo")

    def test_editor_edits_and_interacts_but_does_not_own(self):
        with connect(TLS, "editor-t") as client:
            client.create_body("demo", {"id": "py-ball", "shape": {"sphere": {"radius": 0.1}},
                                        "pose": {"position": (0, 3, 0)}})
            client.delete_body("demo", "py-ball")
            self.assertEqual(self.interact_code(client), grpc.StatusCode.OK)
            self.assertCode(grpc.StatusCode.PERMISSION_DENIED, client.delete_world, "demo")
            self.assertCode(grpc.StatusCode.PERMISSION_DENIED, client.create_world, "scratch",
                            scene_name="default")

    def test_owner_creates_and_deletes_its_worlds(self):
        with connect(TLS, "owner-t") as client:
            client.create_world("scratch", scene_name="default")
            client.delete_world("scratch")
            self.assertCode(grpc.StatusCode.PERMISSION_DENIED, client.create_world,
                            "elsewhere", scene_name="default")

    def test_missing_or_unknown_token_is_unauthenticated(self):
        for token in (None, "forged-t", "viewer-t2", "expired-t"):
            with self.subTest(token=token), connect(TLS, token) as client:
                self.assertCode(grpc.StatusCode.UNAUTHENTICATED, client.get_world, "demo")
                self.assertEqual(self.watch_code(client), grpc.StatusCode.UNAUTHENTICATED)
                self.assertEqual(self.interact_code(client), grpc.StatusCode.UNAUTHENTICATED)
                self.assertEqual(self.query_codes(client),
                                 [grpc.StatusCode.UNAUTHENTICATED] * 2)

    def test_client_without_the_ca_fails_the_handshake(self):
        # The system's roots do not include the test CA.
        with connect(TLS, "viewer-t", ca=None) as client:
            error = self.assertCode(grpc.StatusCode.UNAVAILABLE, client.get_world, "demo")
            self.assertIn("certificate verify failed", error.message)
        with connect(TLS, "viewer-t", tls=False, ca=None) as client:
            self.assertCode(grpc.StatusCode.UNAVAILABLE, client.get_world, "demo")

    def test_mutual_tls_needs_the_client_certificate(self):
        with connect(MUTUAL, "viewer-t") as client:
            self.assertCode(grpc.StatusCode.UNAVAILABLE, client.get_world, "demo")
        with connect(MUTUAL, "viewer-t", cert=path("client.pem"),
                     key=path("client.key")) as client:
            self.assertEqual(client.get_world("demo").name, "worlds/demo")
            self.assertEqual(self.watch_code(client), grpc.StatusCode.OK)

    def test_bad_credentials_are_refused_before_connecting(self):
        bad = [dict(ca=path("missing.pem")), dict(ca=path("tokens")),
               dict(cert=path("client.pem")), dict(tls=False),
               dict(token="two words"), dict(token="line\nbreak"), dict(token=""),
               dict(token=b"bytes"), dict(token="caf\u00e9")]
        for kwargs in bad:
            with self.subTest(**{k: repr(v) for k, v in kwargs.items()}):
                kwargs.setdefault("token", "viewer-t")
                self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, connect, TLS, **kwargs)


if __name__ == "__main__":
    unittest.main()
