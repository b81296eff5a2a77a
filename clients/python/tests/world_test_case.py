"""A test case with a client of a running ligatured and the worlds each test creates,
deleted after it."""

import unittest

import ligature


class WorldTestCase(unittest.TestCase):
    """Subclasses give `server()` (a started ServerProcess) and may change `timeout`."""

    timeout = 10

    def server(self):
        raise NotImplementedError

    def setUp(self):
        self.client = ligature.connect(self.server().address, timeout=self.timeout)
        self.created = []

    def tearDown(self):
        for world in self.created:
            try:
                self.client.delete_world(world)
            except ligature.LigatureError:
                pass
        self.client.close()

    def create(self, world_id, **source):
        """A world the test owns: created now, deleted when the test ends."""
        world = self.client.create_world(world_id, **source)
        self.created.append(world_id)
        return world

    def assertCode(self, code, fn, *args, **kwargs):
        """fn(*args, **kwargs) fails with gRPC status `code`; returns the error."""
        with self.assertRaises(ligature.LigatureError) as caught:
            fn(*args, **kwargs)
        self.assertEqual(caught.exception.code, code, str(caught.exception))
        return caught.exception
