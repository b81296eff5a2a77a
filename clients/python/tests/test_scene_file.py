"""Scene files and value conversion, without a server."""

import glob
import os
import tempfile
import unittest

import grpc

import ligature
from ligature.scene_file import mesh_file_shapes, scene_format_for_path, upload_mesh_files

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


class SceneFileTest(unittest.TestCase):
    def write(self, name, content):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(content)
        return path

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_formats_by_extension(self):
        for name in ("a.textproto", "a.TXTPB", "dir/a.pbtxt"):
            self.assertEqual(scene_format_for_path(name), "text")
        self.assertEqual(scene_format_for_path("a.json"), "json")
        self.assertIsNone(scene_format_for_path("a.yaml"))

    def test_every_builtin_scene_loads(self):
        paths = glob.glob(os.path.join(REPO, "server", "scenes", "*.textproto"))
        self.assertGreater(len(paths), 5)
        for path in paths:
            scene = ligature.load_scene(path)
            self.assertGreater(len(scene.bodies), 0, path)

    def test_text_and_json_give_the_same_scene(self):
        text = self.write("s.textproto", 'settings { rate_hz: 120 }\n'
                          'bodies { id: "a" kind: BODY_KIND_STATIC shape { plane {} } }\n')
        json_path = self.write("s.json", '{"settings": {"rateHz": 120}, "bodies": '
                               '[{"id": "a", "kind": "BODY_KIND_STATIC", '
                               '"shape": {"plane": {}}}]}')
        self.assertEqual(ligature.load_scene(text), ligature.load_scene(json_path))

    def test_errors(self):
        with self.assertRaises(ligature.LigatureError) as caught:
            ligature.load_scene(os.path.join(self.tmp.name, "missing.json"))
        self.assertEqual(caught.exception.code, grpc.StatusCode.NOT_FOUND)
        for name, content in (("bad.textproto", "bodies { idd: 1 }"),
                              ("bad.json", '{"bodies": [{"colour": 1}]}'),
                              ("bad.yaml", "bodies: []")):
            path = self.write(name, content)
            with self.assertRaises(ligature.LigatureError) as caught:
                ligature.load_scene(path)
            self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn(path, caught.exception.message)
        with self.assertRaises(ligature.LigatureError) as caught:
            ligature.load_scene(self.tmp.name + "/")
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)


class MeshFileReferencesTest(unittest.TestCase):
    """Shapes that name mesh files (mesh_asset.file), resolved without a server: the upload
    is a stand-in that records the paths it was given."""

    SCENE = """
        bodies { id: "room" kind: BODY_KIND_STATIC
                 shape { mesh_asset { file: "meshes/room.glb" } } }
        bodies { id: "mug" shape { mesh_asset { file: "mug.glb" as_hull: true } } }
        bodies { id: "mugs" shape { compound {
            children { shape { mesh_asset { file: "./mug.glb" as_hull: true } } }
            children { shape { sphere { radius: 0.1 } } }
            children { shape { mesh_asset { asset: "assets/already" as_hull: true } } } } } }
    """

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "scene.textproto")
        with open(self.path, "w") as f:
            f.write(self.SCENE)
        self.uploaded = []

    def tearDown(self):
        self.tmp.cleanup()

    def upload(self, path):
        self.uploaded.append(path)
        return f"assets/{len(self.uploaded)}"

    def test_files_found_everywhere_and_uploaded_once(self):
        scene = ligature.load_scene(self.path)
        self.assertEqual([field for field, _ in mesh_file_shapes(scene)], [
            "bodies[0].shape.mesh_asset", "bodies[1].shape.mesh_asset",
            "bodies[2].shape.compound.children[0].shape.mesh_asset"])
        upload_mesh_files(scene, self.tmp.name, self.upload)
        # Paths relative to the scene's folder; "mug.glb" and "./mug.glb" are one file.
        self.assertEqual(self.uploaded, [os.path.join(self.tmp.name, "meshes", "room.glb"),
                                         os.path.join(self.tmp.name, "mug.glb")])
        room, mug, mugs = (b.shape for b in scene.bodies)
        self.assertEqual((room.mesh_asset.asset, room.mesh_asset.file), ("assets/1", ""))
        self.assertEqual((mug.mesh_asset.asset, mug.mesh_asset.file), ("assets/2", ""))
        self.assertTrue(mug.mesh_asset.as_hull)
        children = [c.shape for c in mugs.compound.children]
        self.assertEqual(children[0].mesh_asset.asset, "assets/2")
        self.assertEqual(children[2].mesh_asset.asset, "assets/already")
        self.assertEqual(mesh_file_shapes(scene), [])

    def test_the_file_replaces_an_asset_given_too(self):
        scene = ligature.parse_scene('bodies { shape { mesh_asset { asset: "assets/a" '
                                     'file: "a.glb" } } }', "text")
        upload_mesh_files(scene, self.tmp.name, self.upload)
        self.assertEqual(scene.bodies[0].shape.mesh_asset.asset, "assets/1")

    def test_errors_name_the_shape_and_the_file(self):
        scene = ligature.parse_scene('bodies { shape { sphere { radius: 1 } } }\n'
                                     'bodies { shape { mesh_asset { file: "gone.glb" } } }',
                                     "text")
        with self.assertRaises(ligature.LigatureError) as caught:
            upload_mesh_files(scene, self.tmp.name, ligature.load_mesh_file)
        self.assertEqual(caught.exception.code, grpc.StatusCode.NOT_FOUND)
        self.assertIn("bodies[1].shape.mesh_asset.file: ", caught.exception.message)
        self.assertIn(os.path.join(self.tmp.name, "gone.glb"), caught.exception.message)


class MessagesTest(unittest.TestCase):
    def test_sequences_and_short_enum_names(self):
        body = ligature.to_message(
            {"id": "a", "kind": "kinematic", "pose": {"position": [1, 2, 3],
                                                     "orientation": (0, 0, 0, 1)},
             "linearVelocity": (4, 5, 6)}, ligature.Body)
        self.assertEqual(ligature.Body.DESCRIPTOR.fields_by_name["kind"].enum_type
                         .values_by_number[body.kind].name, "BODY_KIND_KINEMATIC")
        self.assertEqual((body.pose.position.x, body.pose.position.z), (1, 3))
        self.assertEqual(body.pose.orientation.w, 1)
        self.assertEqual(body.linear_velocity.y, 5)
        scene = ligature.to_message({"bodies": [{"id": "a"}, {"id": "b"}]}, ligature.Scene)
        self.assertEqual([b.id for b in scene.bodies], ["a", "b"])

    def test_messages_pass_through_and_helpers(self):
        pose = ligature.pose((1, 2, 3))
        self.assertIs(ligature.to_message(pose, ligature.Pose), pose)
        self.assertEqual(pose.orientation.w, 1.0)
        self.assertEqual(ligature.vec3((1, 2, 3)).y, 2)
        frame = ligature.Frame(bodies=[ligature.BodyState(id="x")])
        self.assertEqual(ligature.body_state(frame, "x").id, "x")
        with self.assertRaises(KeyError):
            ligature.body_state(frame, "y")

    def test_bad_values_name_the_field(self):
        cases = [({"pose": {"position": (1, 2)}}, "body.pose.position"),
                 ({"kind": "floating"}, "body.kind"),
                 ({"shape": {"sphere": 3}}, "body.shape.sphere"),
                 ({"nope": 1}, "body.nope"),
                 (ligature.Scene(), "body")]
        for value, field in cases:
            with self.assertRaises(ligature.LigatureError) as caught:
                ligature.to_message(value, ligature.Body, "body")
            self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn(field, caught.exception.message)


if __name__ == "__main__":
    unittest.main()
