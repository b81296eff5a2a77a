"""Joint drives from Python against a real ligatured: the built-in door scene's spring
drive retargeted with update_joint and streamed through Interact's drive targets,
bad updates naming their field, and a joint breaking, reported in the frame."""

import math
import unittest

import grpc

import ligature

from server_process import ServerProcess
from world_test_case import WorldTestCase

SERVER = None


def setUpModule():
    global SERVER
    SERVER = ServerProcess("--max_worlds=4").start()


def tearDownModule():
    code = SERVER.stop()
    assert code == 0, f"ligatured exited with {code}:\n{SERVER.log()}"


def door_angle(frame):
    """The door's turn about world y (rad), from its pose in a frame."""
    door = next(b for b in frame.bodies if b.id == "door")
    q = door.pose.orientation
    return 2.0 * math.atan2(q.y, q.w)


class DrivesTest(WorldTestCase):
    def server(self):
        return SERVER

    def setUp(self):
        super().setUp()
        self.create("d", scene_name="door")
        self.client.set_paused("d", True)

    def test_update_joint_opens_the_door(self):
        updated = self.client.update_joint(
            "d", "door-hinge", {"hinge": {"drive": {"target_position": 1.0}}},
            ["hinge.drive.target_position"])
        self.assertEqual(updated.hinge.drive.target_position, 1.0)
        self.assertEqual(updated.hinge.drive.stiffness, 40.0)
        frame = self.client.step_world("d", 600)
        # The angle is the world's about the door's axis: the door turns by -1 about y.
        self.assertAlmostEqual(door_angle(frame), -1.0, delta=0.02)

    def test_drive_targets_stream_through_interact(self):
        self.client.set_paused("d", False)
        with self.client.interact("d") as session:
            session.send_drive_targets([{"constraint_id": "door-hinge",
                                         "target_position": -0.5}])
            for count, frame in enumerate(session):
                if abs(door_angle(frame) - 0.5) < 0.02:
                    break
                self.assertLess(count, 1200, "the door did not reach the streamed target")

    def test_bad_updates_name_their_field(self):
        self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.update_joint, "d",
                        "door-hinge", {}, ["slider.drive"])
        infinite = ligature.Constraint()
        infinite.hinge.drive.target_position = math.inf
        error = self.assertCode(grpc.StatusCode.INVALID_ARGUMENT,
                                self.client.update_joint, "d", "door-hinge", infinite,
                                ["hinge.drive.target_position"])
        self.assertIn("constraint.hinge.drive.target_position", str(error))
        self.assertCode(grpc.StatusCode.NOT_FOUND, self.client.update_joint, "d",
                        "no-such-joint", {}, ["break_force"])

    def test_a_joint_breaks_and_the_frame_says_so(self):
        self.client.update_joint("d", "drawer-slide", {"break_force": 1.0},
                                      ["break_force"])
        frame = self.client.step_world("d", 1)
        self.assertEqual([b.constraint for b in frame.broken_joints],
                         ["worlds/d/constraints/drawer-slide"])
        self.assertGreater(frame.broken_joints[0].force, 1.0)


if __name__ == "__main__":
    unittest.main()
