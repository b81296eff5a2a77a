"""Mesh files imported as TriangleMesh messages (ligature.load_mesh_file), without a server:
the test meshes of tests/data/meshes, their counts, bounds, windings and node transforms,
and the files that must be refused."""

import collections
import json
import math
import os
import tempfile
import unittest

import grpc

import ligature

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
MESHES = os.path.join(REPO, "tests", "data", "meshes")
CUBE_FILES = ("cube.obj", "cube.stl", "cube.ply", "cube.gltf", "cube.glb")


def points(mesh):
    return [(v.x, v.y, v.z) for v in mesh.vertices]


def triangles(mesh):
    corners = points(mesh)
    ids = list(mesh.indices)
    return [tuple(corners[i] for i in ids[k:k + 3]) for k in range(0, len(ids), 3)]


def bounds(mesh):
    ps = points(mesh)
    return ([min(p[k] for p in ps) for k in range(3)], [max(p[k] for p in ps) for k in range(3)])


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def dot(u, v):
    return sum(x * y for x, y in zip(u, v))


def normal(triangle):
    """The front normal (unit) of a counter-clockwise triangle."""
    a, b, c = triangle
    n = cross(sub(b, a), sub(c, a))
    length = math.sqrt(dot(n, n))
    return tuple(x / length for x in n)


def centroid(triangle):
    return tuple(sum(p[k] for p in triangle) / 3 for k in range(3))


def signed_volume(mesh):
    """The volume a closed surface encloses, positive when its triangles face outward."""
    return sum(dot(a, cross(b, c)) for a, b, c in triangles(mesh)) / 6


def unmatched_edges(mesh):
    """Directed edges not used exactly once with their reverse used exactly once: none for
    a closed surface with consistent winding."""
    ids = list(mesh.indices)
    edges = collections.Counter()
    for k in range(0, len(ids), 3):
        a, b, c = ids[k:k + 3]
        edges.update([(a, b), (b, c), (c, a)])
    return [e for e, n in edges.items() if n != 1 or edges[(e[1], e[0])] != 1]


class MeshFilesTest(unittest.TestCase):
    def test_formats_give_the_same_mesh(self):
        # The cube files list the same triangles in the same order: one geometry (and so one
        # asset name on the server), whatever the format.
        meshes = [ligature.load_mesh_file(os.path.join(MESHES, name)) for name in CUBE_FILES]
        for name, mesh in zip(CUBE_FILES[1:], meshes[1:]):
            self.assertEqual(mesh, meshes[0], name)

    def assertBounds(self, mesh, lo, hi, places=6):
        got_lo, got_hi = bounds(mesh)
        for got, want in zip(got_lo + got_hi, list(lo) + list(hi)):
            self.assertAlmostEqual(got, want, places=places, msg=f"{got_lo} {got_hi}")

    def test_cube_in_every_format(self):
        for name in CUBE_FILES:
            with self.subTest(name):
                mesh = ligature.load_mesh_file(os.path.join(MESHES, name))
                self.assertIsInstance(mesh, ligature.TriangleMesh)
                # STL gives each facet its normal; positions alone decide which corners
                # are joined, so every format gives the same 8.
                self.assertEqual(len(mesh.vertices), 8)
                self.assertEqual(len(mesh.indices), 36)
                self.assertBounds(mesh, (-0.5,) * 3, (0.5,) * 3)
                self.assertEqual(unmatched_edges(mesh), [])
                self.assertAlmostEqual(signed_volume(mesh), 1.0, places=9)
                # Counter-clockwise from outside: every face normal points away from the
                # centre, along one axis.
                for triangle in triangles(mesh):
                    n = normal(triangle)
                    self.assertAlmostEqual(max(abs(x) for x in n), 1.0)
                    self.assertAlmostEqual(dot(n, centroid(triangle)), 0.5)

    def test_node_transforms(self):
        mesh = ligature.load_mesh_file(os.path.join(MESHES, "two_cubes.gltf"))
        self.assertEqual(len(mesh.vertices), 16)
        self.assertEqual(len(mesh.indices), 72)
        self.assertBounds(mesh, (-2.5, -0.5, -0.5), (2.25, 0.5, 0.5))
        # One cube moved to x = -2, the other moved to x = +2 and halved.
        left = sorted(p for p in points(mesh) if p[0] < 0)
        right = sorted(p for p in points(mesh) if p[0] > 0)
        self.assertEqual(left, sorted((-2 + x, y, z) for x in (-0.5, 0.5)
                                      for y in (-0.5, 0.5) for z in (-0.5, 0.5)))
        self.assertEqual(right, sorted((2 + x, y, z) for x in (-0.25, 0.25)
                                       for y in (-0.25, 0.25) for z in (-0.25, 0.25)))
        self.assertAlmostEqual(signed_volume(mesh), 1.0 + 0.125, places=9)

    def test_mirroring_node_keeps_triangles_facing_out(self):
        # The cube under a node that mirrors x: its triangles would turn clockwise seen
        # from outside; the importer turns them back.
        with open(os.path.join(MESHES, "cube.gltf")) as f:
            document = json.load(f)
        document["nodes"][0]["scale"] = [-2.0, 1.0, 1.0]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mirrored.gltf")
            with open(path, "w") as f:
                json.dump(document, f)
            mesh = ligature.load_mesh_file(path)
        self.assertBounds(mesh, (-1, -0.5, -0.5), (1, 0.5, 0.5))
        self.assertAlmostEqual(signed_volume(mesh), 2.0, places=9)
        self.assertEqual(unmatched_edges(mesh), [])

    def test_mug_is_closed_and_faces_out(self):
        mesh = ligature.load_mesh_file(os.path.join(MESHES, "mug.glb"))
        count = len(mesh.indices) // 3
        self.assertGreaterEqual(count, 1000)
        self.assertLessEqual(count, 4000)
        # Base at y = 0, 10 cm high, 4 cm outer radius; the handle sticks out along +x.
        (lo, hi) = bounds(mesh)
        self.assertAlmostEqual(lo[1], 0.0, places=6)
        self.assertAlmostEqual(hi[1], 0.1, places=6)
        self.assertAlmostEqual(lo[0], -0.04, places=6)
        self.assertAlmostEqual(lo[2], -0.04, places=6)
        self.assertAlmostEqual(hi[2], 0.04, places=6)
        self.assertGreater(hi[0], 0.06)
        self.assertEqual(unmatched_edges(mesh), [])
        # The cup's wall and bottom plus the handle's tube (a half torus), within 2 % (the
        # polygons are a little smaller than the circles).
        cup = math.pi * (0.04 ** 2 * 0.1 - 0.035 ** 2 * 0.095)
        handle = math.pi * 0.005 ** 2 * math.pi * 0.025
        self.assertAlmostEqual(signed_volume(mesh) / (cup + handle), 1.0, delta=0.02)

    def test_room_faces_inward(self):
        mesh = ligature.load_mesh_file(os.path.join(MESHES, "room.glb"))
        # A 100 x 100 floor grid, 4 walls, a table top (a box) and 4 legs (open boxes);
        # vertices are joined within each part (the walls share their corners), not across
        # parts.
        self.assertEqual(len(mesh.indices) // 3, 20000 + 8 + 12 + 4 * 8)
        self.assertEqual(len(mesh.vertices), 101 * 101 + 8 + 8 + 4 * 8)
        self.assertBounds(mesh, (-5, 0, -5), (5, 3, 5))
        # The table (node at (1, 0, -2)): its top spans x 0.2..1.8, y 0.7..0.75,
        # z -2.4..-1.6, and its legs stand on the floor at x 1 +- 0.75, z -2 +- 0.35.
        solids = [((0.2, 0.7, -2.4), (1.8, 0.75, -1.6))]
        for x in (0.25, 1.75):
            for z in (-2.35, -1.65):
                solids.append(((x - 0.025, 0.0, z - 0.025), (x + 0.025, 0.7, z + 0.025)))
        # The table's corners off the floor, placed by the table node and its children.
        self.assertBounds(ligature.TriangleMesh(vertices=[
            v for v in mesh.vertices if 0 < v.y < 3]), (0.2, 0.7, -2.4), (1.8, 0.75, -1.6))

        def in_room(p):
            inside = all(abs(p[k]) < 5 for k in (0, 2)) and 0 < p[1] < 3
            in_table = any(all(lo[k] < p[k] < hi[k] for k in range(3)) for lo, hi in solids)
            return inside and not in_table

        # The floor faces up; a point just in front of every other triangle is in the room,
        # out of the table.
        floor = 0
        for triangle in triangles(mesh):
            if all(p[1] == 0 for p in triangle):
                floor += 1
                self.assertAlmostEqual(normal(triangle)[1], 1.0)
                continue
            front = tuple(c + 1e-3 * n for c, n in zip(centroid(triangle), normal(triangle)))
            self.assertTrue(in_room(front), triangle)
        self.assertEqual(floor, 20000)
        self.assertLess(os.path.getsize(os.path.join(MESHES, "room.glb")), 1 << 20)


class RefusedFilesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, content):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(content)
        return path

    def assertRefused(self, path, code, words=()):
        with self.assertRaises(ligature.LigatureError) as caught:
            ligature.load_mesh_file(path)
        self.assertEqual(caught.exception.code, code, str(caught.exception))
        self.assertIn(path, caught.exception.message)
        for word in words:
            self.assertIn(word, caught.exception.message)

    def test_bad_index(self):
        self.assertRefused(os.path.join(MESHES, "bad_index.obj"),
                           grpc.StatusCode.INVALID_ARGUMENT, ["index"])

    def test_missing_file_and_directory(self):
        self.assertRefused(os.path.join(self.tmp.name, "missing.glb"), grpc.StatusCode.NOT_FOUND)
        folder = os.path.join(self.tmp.name, "folder.obj")
        os.mkdir(folder)
        self.assertRefused(folder, grpc.StatusCode.NOT_FOUND)

    def test_unknown_format_and_bad_content(self):
        self.assertRefused(self.write("notes.txt", "not a mesh\n"),
                           grpc.StatusCode.INVALID_ARGUMENT, ["unknown extension"])
        self.assertRefused(self.write("broken.glb", "not a binary glTF\n"),
                           grpc.StatusCode.INVALID_ARGUMENT)

    def test_no_triangles(self):
        # Points and lines only: nothing to collide with.
        path = self.write("lines.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2\nl 2 3\np 1\n")
        self.assertRefused(path, grpc.StatusCode.INVALID_ARGUMENT)

    def test_degenerate_triangles_and_lines_dropped(self):
        # One good triangle, one with corners on a line, one with a repeated corner (at a
        # different vertex index), and a line; the unused vertices go too.
        path = self.write("mixed.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nv 0 0 0\nv 5 5 5\n"
                          "f 1 2 3\nf 1 2 4\nf 1 5 3\nl 1 6\n")
        mesh = ligature.load_mesh_file(path)
        self.assertEqual(points(mesh), [(0, 0, 0), (1, 0, 0), (0, 1, 0)])
        self.assertEqual(list(mesh.indices), [0, 1, 2])


if __name__ == "__main__":
    unittest.main()
