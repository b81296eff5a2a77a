"""Mesh assets against a real ligatured: upload (named by the geometry's hash, so the same
file twice is one asset), list, get with and without geometry, delete; worlds whose bodies
use assets (a static room mesh and a dynamic mug as a hull) step and export the references;
scene files that name mesh files are imported and uploaded by the client."""

import os
import re
import tempfile
import unittest

import grpc

import ligature
from server_process import ServerProcess
from world_test_case import WorldTestCase

SERVER = None
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
MESHES = os.path.join(REPO, "tests", "data", "meshes")
ASSET_NAME = re.compile(r"assets/[0-9a-f]{64}")


def setUpModule():
    global SERVER
    SERVER = ServerProcess("--max_worlds=8").start()


def tearDownModule():
    code = SERVER.stop()
    assert code == 0, f"ligatured exited with {code}:\n{SERVER.log()}"


def mesh_path(name):
    return os.path.join(MESHES, name)


class AssetsTest(WorldTestCase):
    timeout = 30

    def server(self):
        return SERVER

    def test_upload_list_get_delete(self):
        first = self.client.upload_asset(mesh_path("two_cubes.gltf"))
        self.assertRegex(first.name, ASSET_NAME)
        self.assertEqual(first.display_name, "two_cubes.gltf")
        self.assertEqual((first.vertex_count, first.triangle_count), (16, 24))
        self.assertEqual(len(first.mesh.vertices), 0, "uploads answer without geometry")
        self.assertEqual((first.bounds_min.x, first.bounds_max.x), (-2.5, 2.25))
        # The same geometry again is the same asset, its first display name kept.
        again = self.client.upload_asset(mesh_path("two_cubes.gltf"), display_name="again")
        self.assertEqual(again.name, first.name)
        self.assertEqual(again.display_name, "two_cubes.gltf")

        listed = {a.name: a for a in self.client.list_assets()}
        self.assertIn(first.name, listed)
        self.assertEqual(listed[first.name].triangle_count, 24)
        self.assertEqual(len(listed[first.name].mesh.vertices), 0)
        names = [a.name for a in self.client.list_assets()]
        self.assertEqual(names, sorted(names))

        # With geometry: exactly the mesh that was imported and sent.
        full = self.client.get_asset(first.name)
        self.assertEqual(full.mesh, ligature.load_mesh_file(mesh_path("two_cubes.gltf")))
        bare = self.client.get_asset(first.name[len("assets/"):], skip_geometry=True)
        self.assertEqual(len(bare.mesh.vertices), 0)
        self.assertEqual(bare.vertex_count, 16)

        self.client.delete_asset(first.name)
        self.assertCode(grpc.StatusCode.NOT_FOUND, self.client.get_asset, first.name)
        self.assertNotIn(first.name, [a.name for a in self.client.list_assets()])

    def test_one_geometry_is_one_asset_whatever_the_format(self):
        # The cube files hold the same corners and triangles in the same order.
        names = {self.client.upload_asset(mesh_path(f)).name
                 for f in ("cube.obj", "cube.stl", "cube.ply", "cube.gltf", "cube.glb")}
        self.assertEqual(len(names), 1)
        # Other geometry is another asset.
        self.assertNotIn(self.client.upload_asset(mesh_path("two_cubes.gltf")).name, names)

    def test_upload_a_mesh_message_and_bad_geometry(self):
        mesh = {"vertices": [(0, 0, 0), (1, 0, 0), (0, 0, 1)], "indices": [0, 2, 1]}
        asset = self.client.upload_asset(mesh, display_name="triangle")
        self.assertEqual((asset.display_name, asset.triangle_count), ("triangle", 1))
        bad = {"vertices": [(0, 0, 0), (1, 0, 0), (0, 0, 1)], "indices": [0, 2, 3]}
        self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.upload_asset, bad)
        self.assertCode(grpc.StatusCode.NOT_FOUND, self.client.get_asset, "assets/" + "0" * 64)

    def test_world_with_mesh_assets_steps_and_exports_them(self):
        room = self.client.upload_asset(mesh_path("room.glb"))
        mug = self.client.upload_asset(mesh_path("mug.glb"))
        self.assertEqual(room.triangle_count, 20052)
        scene = {"settings": {"rate_hz": 100, "paused": True}, "bodies": [
            {"id": "room", "kind": "static", "shape": {"mesh_asset": {"asset": room.name}}},
            {"id": "mug", "pose": {"position": (-2, 0.3, 2)},
             "shape": {"mesh_asset": {"asset": mug.name, "as_hull": True}}}]}
        self.create("mug-room", scene=scene)
        # The mug falls onto the floor (its base is at y = 0 in its own frame) and stays.
        frame = self.client.step_world("mug-room", ticks=150)
        y = ligature.body_state(frame, "mug").pose.position.y
        self.assertLess(abs(y), 0.01, f"mug at y = {y}")
        exported = {b.id: b.shape for b in self.client.export_scene("mug-room").bodies}
        self.assertEqual(exported["room"].mesh_asset.asset, room.name)
        self.assertFalse(exported["room"].mesh_asset.as_hull)
        self.assertEqual(exported["mug"].mesh_asset.asset, mug.name)
        self.assertTrue(exported["mug"].mesh_asset.as_hull)
        # Deleting the asset leaves the bodies built from it as they are.
        self.client.delete_asset(mug.name)
        self.client.update_body("mug-room", "mug", {"linear_velocity": (0, 2, 0)})
        frame = self.client.step_world("mug-room", ticks=150)
        y = ligature.body_state(frame, "mug").pose.position.y
        self.assertLess(abs(y), 0.01, f"mug at y = {y} after a hop")
        shapes = {b.id: b.shape for b in self.client.export_scene("mug-room").bodies}
        self.assertEqual(shapes["mug"].mesh_asset.asset, mug.name)

    def test_scene_file_with_mesh_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            # The scene lives elsewhere: its mesh paths are relative to its own folder.
            relative = os.path.relpath(MESHES, tmp)
            path = os.path.join(tmp, "mugs.textproto")
            with open(path, "w") as f:
                f.write(f"""
                    settings {{ rate_hz: 100 paused: true }}
                    bodies {{ id: "floor" kind: BODY_KIND_STATIC shape {{ plane {{}} }} }}
                    bodies {{ id: "a" pose {{ position {{ x: -0.2 y: 0.1 }} }}
                      shape {{ mesh_asset {{ file: "{relative}/mug.glb" as_hull: true }} }} }}
                    bodies {{ id: "b" pose {{ position {{ x: 0.2 y: 0.1 }} }}
                      shape {{ mesh_asset {{ file: "{relative}/mug.glb" as_hull: true
                                            scale {{ x: 2 y: 2 z: 2 }} }} }} }}
                """)
            # Each file is uploaded once, however many shapes name it.
            uploaded = []
            upload = self.client.upload_asset
            self.client.upload_asset = lambda p, **kw: uploaded.append(p) or upload(p, **kw)
            self.create("mug-file", scene_file=path)
            del self.client.upload_asset
            self.assertEqual(uploaded, [os.path.normpath(os.path.join(tmp, relative, "mug.glb"))])
            # A missing mesh file is refused before anything is sent, naming the file.
            bad = os.path.join(tmp, "bad.textproto")
            with open(bad, "w") as f:
                f.write('bodies { id: "x" shape { mesh_asset { file: "nope.glb" } } }\n')
            with self.assertRaises(ligature.LigatureError) as caught:
                self.client.load_scene(bad)
            self.assertEqual(caught.exception.code, grpc.StatusCode.NOT_FOUND)
            self.assertIn("bodies[0].shape.mesh_asset.file: ", caught.exception.message)
            self.assertIn(os.path.join(tmp, "nope.glb"), caught.exception.message)
        mug = self.client.upload_asset(mesh_path("mug.glb"))
        shapes = {b.id: b.shape for b in self.client.export_scene("mug-file").bodies}
        for body in ("a", "b"):
            self.assertEqual(shapes[body].mesh_asset.asset, mug.name)
            self.assertEqual(shapes[body].mesh_asset.file, "")
        self.assertEqual(shapes["b"].mesh_asset.scale.x, 2)
        # The server refuses a shape that still names a file.
        self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.create_body, "mug-file",
                        {"id": "c", "shape": {"mesh_asset": {"file": "mug.glb"}}})


if __name__ == "__main__":
    unittest.main()
