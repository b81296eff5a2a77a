"""Contact and trigger events from Python against a real ligatured: a ball dropped
through a sensor zone onto the ground enters the zone, leaves it and lands, in that order
and at the ticks the frames show; filters keep only what they name; bad filters name
their field; a reader that does not keep up is told what it lost."""

import unittest

import grpc

import ligature
from ligature.v1 import events_pb2

from server_process import ServerProcess
from world_test_case import WorldTestCase

SERVER = None


def setUpModule():
    global SERVER
    SERVER = ServerProcess("--max_worlds=4").start()


def tearDownModule():
    code = SERVER.stop()
    assert code == 0, f"ligatured exited with {code}:\n{SERVER.log()}"


def scene(balls=1):
    """Ground, a sensor slab between y 0.4 and 0.6, and balls dropped through it."""
    bodies = [
        {"id": "ground", "kind": "STATIC", "shape": {"plane": {}}},
        {"id": "zone", "kind": "STATIC",
         "shape": {"box": {"half_extents": {"x": 2, "y": 0.1, "z": 2}}},
         "pose": {"position": {"y": 0.5}}, "collision": {"sensor": True}},
    ]
    for i in range(balls):
        bodies.append({"id": f"ball{i}", "kind": "DYNAMIC",
                       "shape": {"sphere": {"radius": 0.05}},
                       "material": {"mass": 1.0},
                       "pose": {"position": {"x": 0.2 * i - 1.0, "y": 1.0}}})
    return {"settings": {"rate_hz": 120, "paused": True}, "bodies": bodies}


class EventsTest(WorldTestCase):
    def server(self):
        return SERVER

    def first_message(self, world, **filters):
        with self.client.watch_events(world, **filters) as stream:
            return next(stream)

    def collect(self, stream):
        """The stream's messages until its duration ends it."""
        return list(stream)

    def test_ball_enters_leaves_and_lands(self):
        self.create("e", scene=scene())
        stream = self.client.watch_events("e", duration=2.0)
        self.assertEqual(next(stream).tick, 0)  # the stream begins after tick 0
        self.client.step_world("e", 120)  # 1 s: it passes the zone and lands by 0.43 s
        kinds = []
        for message in self.collect(stream):
            self.assertEqual(message.world, "worlds/e")
            self.assertEqual(message.dropped, 0)
            kinds += [events_pb2.EventKind.Name(t.kind) for t in message.triggers]
            kinds += [events_pb2.EventKind.Name(c.kind) for c in message.contacts
                      if c.body_b == "ball0" or c.body_a == "ball0"]
        self.assertEqual(kinds[:3], ["TRIGGER_ENTER", "TRIGGER_EXIT", "CONTACT_BEGIN"])

    def test_filters(self):
        self.create("f", scene=scene(balls=3))
        only_ball1 = self.client.watch_events("f", bodies=["ball1"], duration=2.0,
                                              kinds=["CONTACT_BEGIN", "CONTACT_PERSIST"])
        strong = self.client.watch_events("f", min_impulse=100.0, duration=4.0)
        next(only_ball1), next(strong)  # both streams have begun
        self.client.step_world("f", 120)
        persists = 0
        for message in self.collect(only_ball1):
            self.assertEqual(len(message.triggers), 0)
            for c in message.contacts:
                self.assertIn("ball1", (c.body_a, c.body_b))
                persists += c.kind == events_pb2.CONTACT_PERSIST
        self.assertGreater(persists, 30)  # resting on the ground, every tick
        # A 1 kg ball landing at 3 m/s takes about 3 N s: no contact event is that strong,
        # while trigger events pass.
        triggers = 0
        for message in self.collect(strong):
            self.assertEqual(len(message.contacts), 0)
            triggers += len(message.triggers)
        self.assertEqual(triggers, 6)

    def test_bad_filters_name_their_field(self):
        self.create("g", scene=scene())
        for kwargs, field in (({"min_impulse": -1.0}, "min_impulse"),
                              ({"layer_mask": 0}, "layer_mask"),
                              ({"kinds": [0]}, "kinds[0]"),
                              ({"bodies": ["Bad Id"]}, "body_ids[0]")):
            with self.subTest(field=field):
                error = self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.first_message,
                                        "g", **kwargs)
                self.assertIn(field, str(error))
        error = self.assertCode(grpc.StatusCode.NOT_FOUND, self.first_message, "g",
                                bodies=["nobody"])
        self.assertIn("body_ids[0]", str(error))


if __name__ == "__main__":
    unittest.main()
