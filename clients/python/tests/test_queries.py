"""Scene queries against a real ligatured: a ray, a shape cast, an overlap and the closest
point against a paused world of a ground plane, a ball and a box, checked against their
analytic answers; a per-frame query stream; bad queries naming the field."""

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


# Paused: a ground plane, a ball (r 0.5) at (0, 1, 0) and a 1 m cube centred at (3, 0.5, 0).
SCENE = {
    "settings": {"rate_hz": 100, "paused": True},
    "bodies": [
        {"id": "ground", "kind": "static", "shape": {"plane": {}}},
        {"id": "ball", "shape": {"sphere": {"radius": 0.5}}, "pose": {"position": (0, 1, 0)}},
        {"id": "box", "kind": "static", "shape": {"box": {"half_extents": (0.5, 0.5, 0.5)}},
         "pose": {"position": (3, 0.5, 0)}},
    ],
}


class QueriesTest(WorldTestCase):
    def server(self):
        return SERVER

    def setUp(self):
        super().setUp()
        self.create("q", scene=SCENE)

    def test_raycast_nearest_and_all(self):
        hits = self.client.raycast("q", (0, 5, 0), (0, -3, 0))
        self.assertEqual([h.body for h in hits], ["ball"])
        self.assertAlmostEqual(hits[0].distance, 3.5, places=9)
        self.assertAlmostEqual(hits[0].normal.y, 1.0, places=9)
        every = self.client.raycast("q", (0, 5, 0), (0, -1, 0), all_hits=True)
        self.assertEqual([h.body for h in every], ["ball", "ground"])
        past = self.client.raycast("q", (0, 5, 0), (0, -1, 0), exclude=["ball"])
        self.assertEqual([h.body for h in past], ["ground"])
        self.assertEqual(self.client.raycast("q", (0, 5, 0), (0, 1, 0)), [])

    def test_shape_cast_overlap_closest(self):
        # A ball of r 0.25 rolled along +X at height 0.5 meets the cube's face at x = 2.5.
        hit = self.client.shape_cast("q", {"sphere": {"radius": 0.25}}, (1.0, 0.5, 0),
                                     (1, 0, 0), exclude=["ball"])
        self.assertEqual(hit.body, "box")
        self.assertAlmostEqual(hit.distance, 2.5 - 0.25 - 1.0, places=8)
        around = self.client.overlap("q", {"box": {"half_extents": (2, 0.2, 0.2)}}, (1.5, 1, 0))
        self.assertEqual([h.body for h in around], ["ball", "box"])
        near = self.client.closest_point("q", (0, 3, 0))
        self.assertEqual(near.body, "ball")
        self.assertAlmostEqual(near.distance, 1.5, places=9)
        self.assertIsNone(self.client.closest_point("q", (0, 3, 0), max_distance=1.0))

    def test_query_stream(self):
        with self.client.query_stream("q") as stream:
            for i in range(3):
                resp = stream.ask([{"ray": {"origin": (0.1 * i, 5, 0), "direction": (0, -1, 0)}}])
                self.assertEqual(resp.request_id, i + 1)
                self.assertEqual(resp.results[0].hits[0].body, "ball")
                x = 0.1 * i
                self.assertAlmostEqual(resp.results[0].hits[0].point.y,
                                       1 + math.sqrt(0.25 - x * x), places=9)

    def test_bad_queries_name_the_field(self):
        error = self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.raycast, "q",
                                (0, 5, 0), (0, 0, 0))
        self.assertIn("queries[0].ray.direction", str(error))
        error = self.assertCode(grpc.StatusCode.INVALID_ARGUMENT, self.client.overlap, "q",
                                {"plane": {}}, (0, 0, 0))
        self.assertIn("queries[0].overlap.shape", str(error))
        # A NaN the server sees (a message, which dicts would refuse before sending).
        bad = ligature.SceneQuery()
        bad.ray.origin.x = math.nan
        bad.ray.direction.x = 1
        with self.client.query_stream("q") as stream:
            with self.assertRaises(ligature.LigatureError) as caught:
                stream.ask([bad])
            self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn("queries[0].ray.origin", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
