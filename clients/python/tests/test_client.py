"""The client against a real ligatured: worlds, bodies, constraints, stepping (free fall
against the analytic answer), watching, driving a kinematic body and errors."""

import math
import os
import tempfile
import time
import unittest

import grpc

import ligature
from ligature.v1 import scene_pb2
from server_process import ServerProcess
from world_test_case import WorldTestCase

SERVER = None
G = 9.81


def setUpModule():
    global SERVER
    SERVER = ServerProcess("--max_worlds=16").start()


def tearDownModule():
    code = SERVER.stop()
    assert code == 0, f"ligatured exited with {code}:\n{SERVER.log()}"


def paused_scene(rate_hz=100, bodies=()):
    """A paused scene dict with the given bodies and default gravity (0, -9.81, 0)."""
    return {"settings": {"rate_hz": rate_hz, "paused": True}, "bodies": list(bodies)}


def ball(body_id="ball", position=(0, 10, 0), radius=0.1):
    return {"id": body_id, "shape": {"sphere": {"radius": radius}}, "pose": {"position": position}}


class ClientTest(WorldTestCase):
    def server(self):
        return SERVER


class WorldsTest(ClientTest):
    def test_create_list_get_delete(self):
        ids = ["list-a", "list-b", "list-c"]
        for i in ids:
            world = self.create(i, scene=paused_scene(bodies=[ball()]))
            self.assertEqual(world.name, f"worlds/{i}")
            self.assertEqual(world.body_count, 1)
        # Small pages exercise the page tokens.
        listed = [w.name for w in self.client.list_worlds(page_size=2)]
        for i in ids:
            self.assertIn(f"worlds/{i}", listed)
        self.assertEqual(self.client.get_world("worlds/list-b").settings.rate_hz, 100)
        self.client.delete_world("list-b")
        self.assertNotIn("worlds/list-b", [w.name for w in self.client.list_worlds()])
        self.assertCode(grpc.StatusCode.NOT_FOUND, self.client.get_world, "list-b")

    def test_create_from_builtin_scene_and_files(self):
        world = self.create("builtin", scene_name="default")
        self.assertGreater(world.body_count, 1)
        with tempfile.TemporaryDirectory() as tmp:
            text = os.path.join(tmp, "two.textproto")
            with open(text, "w") as f:
                f.write('settings { rate_hz: 50 paused: true }\n'
                        'bodies { id: "a" shape { sphere { radius: 0.5 } } }\n'
                        'bodies { id: "b" shape { box { half_extents { x: 1 y: 1 z: 1 } } }'
                        ' pose { position { x: 3 } } }\n')
            json_path = os.path.join(tmp, "one.json")
            with open(json_path, "w") as f:
                f.write('{"settings": {"rateHz": 30}, "bodies": [{"id": "c", "shape": '
                        '{"capsule": {"radius": 0.1, "halfLength": 0.3}}}]}')
            from_text = self.create("from-text", scene_file=text)
            from_json = self.create("from-json", scene_file=json_path)
        self.assertEqual((from_text.body_count, from_text.settings.rate_hz), (2, 50))
        self.assertTrue(from_text.settings.paused)
        self.assertEqual((from_json.body_count, from_json.settings.rate_hz), (1, 30))

    def test_update_settings_by_dict(self):
        self.create("settings", scene=paused_scene())
        world = self.client.update_world(
            "settings", {"rate_hz": 250, "gravity": (0, -1.62, 0),
                         "solver": {"max_iterations": 40}})
        self.assertEqual(world.settings.rate_hz, 250)
        self.assertAlmostEqual(world.settings.gravity.y, -1.62)
        self.assertEqual(world.settings.solver.max_iterations, 40)
        self.assertTrue(world.settings.paused)  # untouched: not in the mask
        self.assertFalse(self.client.set_paused("settings", False).settings.paused)
        self.assertCode(grpc.StatusCode.FAILED_PRECONDITION, self.client.step_world,
                        "settings", 1)


class SleepTest(ClientTest):
    def test_a_resting_ball_sleeps_once_sleeping_is_on(self):
        ground = {"id": "ground", "kind": "BODY_KIND_STATIC", "shape": {"plane": {}}}
        self.create("sleepy", scene=paused_scene(100, [ground, ball(position=(0, 0.1, 0))]))
        frame = self.client.step_world("sleepy", 100)
        self.assertFalse(frame.bodies[1].sleeping)
        self.client.update_world("sleepy", {"sleep": {"enabled": True, "time_to_sleep": 0.2}})
        frame = self.client.step_world("sleepy", 30)
        self.assertTrue(frame.bodies[1].sleeping)
        self.assertEqual(frame.solver.sleeping_bodies, 1)
        self.assertAlmostEqual(frame.bodies[1].pose.position.y, 0.1, delta=1e-3)


class FreeFallTest(ClientTest):
    def test_ball_falls_as_semi_implicit_euler_and_close_to_analytic(self):
        rate, y0 = 100.0, 10.0
        self.create("fall", scene=paused_scene(rate, [ball(position=(0.5, y0, -2))]))
        h = 1.0 / rate
        for ticks, total in ((20, 20), (30, 50)):
            frame = self.client.step_world("fall", ticks)
            state = ligature.body_state(frame, "ball")
            n, t = total, total * h
            self.assertEqual(frame.tick, n)
            self.assertAlmostEqual(frame.sim_time, t, places=12)
            # Semi-implicit Euler exactly: v_n = -g n h, y_n = y0 - g h^2 n (n + 1) / 2.
            self.assertAlmostEqual(state.linear_velocity.y, -G * t, delta=1e-9)
            self.assertAlmostEqual(state.pose.position.y, y0 - G * h * h * n * (n + 1) / 2,
                                   delta=1e-9)
            # The analytic y0 - g t^2 / 2, within the scheme's first-order error g h t / 2.
            analytic = y0 - G * t * t / 2
            self.assertLessEqual(abs(state.pose.position.y - analytic), G * h * t / 2 + 1e-9)
            self.assertAlmostEqual(state.pose.position.x, 0.5, delta=1e-12)
            self.assertAlmostEqual(state.pose.position.z, -2.0, delta=1e-12)


class SnapshotTest(ClientTest):
    def test_snapshot_save_and_restore(self):
        self.create("snap", scene=paused_scene(100, [ball(position=(0, 10, 0))]))
        self.client.step_world("snap", 12)
        data, tick = self.client.save_snapshot("snap")
        self.assertEqual(tick, 12)
        self.created.append("snap-copy")
        self.assertEqual(self.client.restore_snapshot("snap-copy", data).tick, 12)
        a = ligature.body_state(self.client.step_world("snap", 8), "ball")
        b = ligature.body_state(self.client.step_world("snap-copy", 8), "ball")
        self.assertEqual(a.pose.position.y, b.pose.position.y)
        self.assertEqual(a.linear_velocity.y, b.linear_velocity.y)
        self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.restore_snapshot,
                        "snap-copy", data[:-3])


class SceneEditTest(ClientTest):
    def test_bodies_create_update_delete(self):
        self.create("edit", scene=paused_scene())
        created = self.client.create_body("edit", ball("a", position=(0, 5, 0)))
        self.assertEqual(created.name, "worlds/edit/bodies/a")
        box = ligature.Body(id="b", kind=scene_pb2.BODY_KIND_KINEMATIC)
        box.shape.box.half_extents.x = box.shape.box.half_extents.y = 0.2
        box.shape.box.half_extents.z = 0.2
        self.client.create_body("edit", box)
        self.assertEqual(self.client.get_world("edit").body_count, 2)

        # A kinematic body moves with its velocity only; set one and step.
        self.client.update_body("edit", "b", {"linear_velocity": (2, 0, 0)})
        frame = self.client.step_world("edit", 10)
        self.assertAlmostEqual(ligature.body_state(frame, "b").pose.position.x, 0.2,
                               delta=1e-12)
        # Make it dynamic: it starts to fall.
        self.client.update_body("edit", "b", {"kind": "dynamic", "linear_velocity": (0, 0, 0)})
        frame = self.client.step_world("edit", 1)
        self.assertAlmostEqual(ligature.body_state(frame, "b").linear_velocity.y, -G * 0.01,
                               delta=1e-12)
        self.client.delete_body("edit", "worlds/edit/bodies/a")
        frame = self.client.step_world("edit", 1)
        self.assertEqual([b.id for b in frame.bodies], ["b"])
        self.assertCode(grpc.StatusCode.NOT_FOUND, self.client.delete_body, "edit", "a")

    def test_constraints_create_update_delete(self):
        self.create("joint", scene=paused_scene(bodies=[ball("bob", position=(1, 0, 0))]))
        # The bob's point 1 m to its left is pinned to the world origin: a pendulum.
        pin = {"id": "pin", "point": {"body_a": "bob", "anchor_a": (-1, 0, 0),
                                      "anchor_b": (0, 0, 0)}}
        created = self.client.create_constraint("joint", pin)
        self.assertEqual(created.name, "worlds/joint/constraints/pin")

        def swing_keeps_length(pivot):
            for _ in range(5):
                frame = self.client.step_world("joint", 10)
                p = ligature.body_state(frame, "bob").pose.position
                self.assertAlmostEqual(
                    math.dist((p.x, p.y, p.z), pivot), 1.0, delta=1e-3)
            return p

        low = swing_keeps_length((0, 0, 0))
        self.assertLess(low.y, -0.5)  # it fell and swung down
        # Replace the pivot by one 2 m up: the bob is then pulled up to 1 m from it.
        name = self.client.update_constraint(
            "joint", {"id": "pin", "point": {"body_a": "bob", "anchor_a": (-1, 0, 0),
                                             "anchor_b": (0, 2, 0)}})
        self.assertEqual(name, "worlds/joint/constraints/pin")
        swing_keeps_length((0, 2, 0))
        exported = self.client.export_scene("joint")
        self.assertEqual(len(exported.constraints), 1)
        self.assertAlmostEqual(exported.constraints[0].point.anchor_b.y, 2.0)
        self.client.delete_constraint("joint", "pin")
        self.assertEqual(len(self.client.export_scene("joint").constraints), 0)
        self.assertEqual(self.client.get_world("joint").constraint_count, 0)

    def test_soft_constraint_switches_off_and_on(self):
        jelly = {"id": "jelly", "pose": {"position": (0, 1, 0)},
                 "soft": {"box": {"half_extents": (0.05, 0.05, 0.05),
                                  "cells_x": 1, "cells_y": 1, "cells_z": 1},
                          "distance_stiffness": 20, "volume_stiffness": 5}}
        self.create("tissue", scene=paused_scene(bodies=[jelly]))
        corner = ligature.body_state(self.client.step_world("tissue", 1), "jelly").soft_vertices[7]
        self.client.create_constraint("tissue", {
            "id": "hook", "soft": {"kind": "SOFT_CONSTRAINT_KIND_NAIL", "body": "jelly",
                                   "vertices": [7], "goal": (corner.x, corner.y, corner.z)}})
        held = ligature.body_state(self.client.step_world("tissue", 10), "jelly").soft_vertices[7]
        self.assertAlmostEqual(held.y, corner.y, delta=1e-9)
        self.client.set_constraint_enabled("tissue", "hook", False)
        fallen = ligature.body_state(self.client.step_world("tissue", 10), "jelly").soft_vertices[7]
        self.assertLess(fallen.y, corner.y - 0.02)
        self.client.set_constraint_enabled("tissue", "hook", True)
        back = ligature.body_state(self.client.step_world("tissue", 1), "jelly").soft_vertices[7]
        self.assertAlmostEqual(back.y, corner.y, delta=1e-9)
        self.assertCode(grpc.StatusCode.NOT_FOUND, self.client.set_constraint_enabled,
                        "tissue", "nope", False)


class WatchTest(ClientTest):
    def test_watch_yields_increasing_frames_and_closes(self):
        scene = {"settings": {"rate_hz": 100}, "bodies": [ball("a"), ball("b", (2, 10, 0))]}
        self.create("watched", scene=scene)
        with self.client.watch("watched", rate_hz=20, bodies=["b"]) as frames:
            ticks = []
            for frame in frames:
                self.assertEqual(frame.world, "worlds/watched")
                self.assertEqual([b.id for b in frame.bodies], ["b"])
                ticks.append(frame.tick)
                if len(ticks) == 5:
                    break
        self.assertEqual(ticks, sorted(set(ticks)))
        self.assertTrue(frames.closed)
        self.assertEqual(list(frames), [])  # a closed stream yields nothing more
        # The rate limit holds: 100 Hz world, 20 Hz watch -> about 5 ticks between frames.
        self.assertGreaterEqual(ticks[-1] - ticks[0], 4 * 2)

    def test_watch_with_duration_ends_and_deleted_world_ends_stream(self):
        self.create("brief", scene={"settings": {"rate_hz": 50}})
        frames = list(self.client.watch("brief", rate_hz=10, duration=0.5))
        self.assertGreaterEqual(len(frames), 2)
        stream = self.client.watch("brief")
        next(stream)
        self.client.delete_world("brief")
        self.created.remove("brief")
        with self.assertRaises(ligature.LigatureError) as caught:
            for _ in stream:
                pass
        self.assertEqual(caught.exception.code, grpc.StatusCode.NOT_FOUND)

    def test_client_close_ends_open_streams(self):
        self.create("closing", scene={"settings": {"rate_hz": 60}})
        client = ligature.connect(SERVER.address)
        stream = client.watch("closing")
        next(stream)
        client.close()
        self.assertTrue(stream.closed)
        self.assertEqual(list(stream), [])


class InteractTest(ClientTest):
    def test_drive_kinematic_body_to_poses(self):
        paddle = {"id": "paddle", "kind": "kinematic",
                  "shape": {"box": {"half_extents": (0.3, 0.05, 0.3)}}}
        self.create("driven", scene={"settings": {"rate_hz": 100}, "bodies": [paddle]})
        s = math.sqrt(0.5)
        targets = [((0.5, 1.0, -0.25), (0, s, 0, s)), ((-1.0, 0.5, 2.0), (s, 0, 0, s))]
        with self.client.interact("driven", bodies=["paddle"]) as session:
            for position, orientation in targets:
                session.drive("paddle", position, orientation)
                deadline = time.monotonic() + 5
                for frame in session:
                    state = ligature.body_state(frame, "paddle")
                    p, q = state.pose.position, state.pose.orientation
                    if (max(abs(p.x - position[0]), abs(p.y - position[1]),
                            abs(p.z - position[2])) < 1e-9 and
                            abs(abs(q.x * orientation[0] + q.y * orientation[1] +
                                    q.z * orientation[2] + q.w * orientation[3]) - 1) < 1e-9):
                        break
                    self.assertLess(time.monotonic(), deadline, f"paddle never reached {position}")
        # With no more poses the body holds still at its last target.
        self.client.set_paused("driven")
        state = ligature.body_state(self.client.step_world("driven", 3), "paddle")
        self.assertAlmostEqual(state.pose.position.x, -1.0, delta=1e-9)
        self.assertAlmostEqual(state.linear_velocity.x, 0.0, delta=1e-12)

    def test_driving_a_dynamic_body_fails_the_session(self):
        self.create("undriven", scene={"settings": {"rate_hz": 100}, "bodies": [ball()]})
        session = self.client.interact("undriven")
        session.drive("ball", (0, 1, 0))
        with self.assertRaises(ligature.LigatureError) as caught:
            for _ in session:
                pass
        self.assertEqual(caught.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
        self.assertIn("not kinematic", caught.exception.message)
        session.close()  # already ended: closing is quiet


class BadInputTest(ClientTest):
    def test_server_rejects_bad_input_with_invalid_argument(self):
        self.create("bad", scene=paused_scene())
        error = self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.create_body,
                                "bad", ball("neg", radius=-1))
        self.assertIn("radius", error.message)
        self.assertEqual(error.method, "CreateBody")
        error = self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.create_body,
                                "bad", {"id": "q", "shape": {"sphere": {"radius": 1}},
                                        "pose": {"orientation": (0, 0, 0.5, 0.5)}})
        self.assertIn("orientation", error.message)
        self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.create_world,
                        "Not An Id", scene=paused_scene())
        self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.step_world, "bad", 0)
        self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.update_world, "bad",
                        {"rate_hz": 5000})
        with self.assertRaises(ligature.LigatureError) as caught:
            next(self.client.watch("bad", rate_hz=-1))
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)

    def test_client_side_conversion_errors_are_invalid_argument(self):
        error = self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.create_body,
                                "bad", {"id": "x", "colour": "red"})
        self.assertIn("colour", error.message)
        self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.create_body, "bad",
                        {"id": "x", "kind": "floating"})
        self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.create_world, "x")

    def test_unreachable_server_is_unavailable(self):
        with ligature.connect("127.0.0.1:1", timeout=2) as client:
            self.assertCode(grpc.StatusCode.UNAVAILABLE, client.get_world, "any")


if __name__ == "__main__":
    unittest.main()
