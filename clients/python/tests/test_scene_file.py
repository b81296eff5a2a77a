"""Scene files and value conversion, without a server."""

import glob
import os
import tempfile
import unittest

import grpc

import ligature
from ligature.scene_file import scene_format_for_path

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
