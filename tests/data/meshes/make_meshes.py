#!/usr/bin/env python3
"""Writes the test meshes of this folder: a unit cube in every format the importers read
(OBJ, ASCII STL, ASCII PLY, glTF 2.0 with an embedded buffer, binary glTF), two instances of
the cube under node transforms, a watertight mug, a room seen from inside and an OBJ with a
bad index. Standard library only, deterministic (same bytes on every run):

    /usr/bin/python3 tests/data/meshes/make_meshes.py     # rewrites the files beside it

Conventions: metres, Y up (as glTF and Ligature), triangles counter-clockwise seen from
their front (the outside of a solid; the inside of the room).
"""

import base64
import json
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# -- geometry -------------------------------------------------------------------------------

# The unit cube: corners at +-0.5, two triangles a face, counter-clockwise seen from outside.
CUBE_VERTICES = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
# Corner i has x = bit 2, y = bit 1, z = bit 0. Each face is a quad a, b, c, d running
# counter-clockwise seen from outside, split along a-c.
CUBE_QUADS = [
    (0, 1, 3, 2),  # -x
    (4, 6, 7, 5),  # +x
    (0, 4, 5, 1),  # -y
    (2, 3, 7, 6),  # +y
    (0, 2, 6, 4),  # -z
    (1, 5, 7, 3),  # +z
]


def quads_to_triangles(quads):
    """Two triangles (a, b, c) and (a, c, d) for each quad (a, b, c, d), flattened."""
    indices = []
    for a, b, c, d in quads:
        indices += [a, b, c, a, c, d]
    return indices


CUBE_INDICES = quads_to_triangles(CUBE_QUADS)


def revolve(profile, segments):
    """The closed surface swept by a profile of (radius, y) points around the Y axis.

    The profile runs from a point on the axis to another point on the axis; the solid lies
    to the right of it walking along it, seen with +r to the right and +y up, which makes
    the triangles face outward. Points on the axis become single poles.
    """
    vertices, rings = [], []
    for r, y in profile:
        if r == 0.0:
            rings.append([len(vertices)] * segments)
            vertices.append((0.0, y, 0.0))
            continue
        ring = []
        for k in range(segments):
            angle = 2.0 * math.pi * k / segments
            ring.append(len(vertices))
            vertices.append((r * math.cos(angle), y, -r * math.sin(angle)))
        rings.append(ring)
    indices = []
    for lower, upper in zip(rings, rings[1:]):
        for k in range(segments):
            k1 = (k + 1) % segments
            a, b, c, d = lower[k], lower[k1], upper[k1], upper[k]
            # Skip the zero-area half of a quad that touches a pole.
            if a != b:
                indices += [a, b, c]
            if c != d:
                indices += [a, c, d]
    return vertices, indices


def tube(centre, arc_radius, angles, tube_radius, sides):
    """A closed tube of circular section along an arc in the XY plane (the mug's handle):
    arc centre `centre` (x, y), from angle angles[0] to angles[-1] (radians), capped at
    both ends, triangles facing outward."""
    vertices, rings = [], []
    for t in angles:
        # Arc point, its outward radial direction in XY and the Z axis span the section.
        rx, ry = math.cos(t), math.sin(t)
        px, py = centre[0] + arc_radius * rx, centre[1] + arc_radius * ry
        ring = []
        for k in range(sides):
            phi = 2.0 * math.pi * k / sides
            u, w = math.cos(phi), math.sin(phi)
            ring.append(len(vertices))
            vertices.append((px + tube_radius * u * rx, py + tube_radius * u * ry,
                             tube_radius * w))
        rings.append(ring)
    indices = []
    for lower, upper in zip(rings, rings[1:]):
        for k in range(sides):
            k1 = (k + 1) % sides
            indices += [lower[k], upper[k], upper[k1], lower[k], upper[k1], lower[k1]]
    # Caps: a fan around a centre point at each end, the first facing back along the arc,
    # the last forward (the opposite winding).
    for ring, t, last in ((rings[0], angles[0], False), (rings[-1], angles[-1], True)):
        centre_index = len(vertices)
        vertices.append((centre[0] + arc_radius * math.cos(t),
                         centre[1] + arc_radius * math.sin(t), 0.0))
        for k in range(sides):
            k1 = (k + 1) % sides
            if last:
                indices += [centre_index, ring[k1], ring[k]]
            else:
                indices += [centre_index, ring[k], ring[k1]]
    return vertices, indices


def merge(parts):
    """One (vertices, indices) from several, indices shifted."""
    vertices, indices = [], []
    for part_vertices, part_indices in parts:
        indices += [i + len(vertices) for i in part_indices]
        vertices += part_vertices
    return vertices, indices


def mug():
    """A mug, base at y = 0: a cup (outer radius 4 cm, height 10 cm, wall and bottom 5 mm)
    and a handle, a tube of radius 5 mm on a half circle whose capped ends sit inside the
    wall. Each part is a closed surface; together they are watertight."""
    outer, height, wall = 0.04, 0.1, 0.005
    profile = [(0.0, 0.0), (outer, 0.0), (outer, height / 2), (outer, height),
               (outer - wall, height), (outer - wall, height / 2), (outer - wall, wall),
               (0.0, wall)]
    cup = revolve(profile, 96)
    # The handle's arc runs from the bottom end to the top end through +x; its end caps
    # lie in the plane x = 0.0375, halfway through the wall.
    arc_centre, arc_radius = (outer - wall / 2, height / 2), 0.025
    steps = 24
    angles = [-math.pi / 2 + math.pi * i / steps for i in range(steps + 1)]
    handle = tube(arc_centre, arc_radius, angles, 0.005, 16)
    return merge([cup, handle])


def box_sides(half, capped):
    """An axis-aligned box centred on the origin, triangles facing outward; without caps
    its top and bottom faces are left out (a table leg standing on the floor)."""
    hx, hy, hz = half
    vertices = [(sx * hx, sy * hy, sz * hz) for sx in (-1, 1) for sy in (-1, 1)
                for sz in (-1, 1)]
    quads = [q for i, q in enumerate(CUBE_QUADS) if capped or i not in (2, 3)]
    return vertices, quads_to_triangles(quads)


def room_floor(size, cells):
    """A size x size floor at y = 0 centred on the origin, cells x cells squares of two
    triangles each, facing up (+y)."""
    step = size / cells
    vertices = [(-size / 2 + step * i, 0.0, -size / 2 + step * j)
                for j in range(cells + 1) for i in range(cells + 1)]
    quads = []
    for j in range(cells):
        for i in range(cells):
            a = j * (cells + 1) + i
            # Counter-clockwise seen from above (+y): (x, z), (x, z+1), (x+1, z+1), (x+1, z).
            quads.append((a, a + cells + 1, a + cells + 2, a + 1))
    return vertices, quads_to_triangles(quads)


def room_walls(size, height):
    """Four walls of a size x size room, from y = 0 to `height`, facing into the room."""
    h = size / 2
    corners = [(-h, -h), (h, -h), (h, h), (-h, h)]  # (x, z) around the room
    vertices, quads = [], []
    for k in range(4):
        (x0, z0), (x1, z1) = corners[k], corners[(k + 1) % 4]
        base = len(vertices)
        vertices += [(x0, 0.0, z0), (x1, 0.0, z1), (x1, height, z1), (x0, height, z0)]
        # Seen from inside, each wall's first corner is on the left, so bottom-left,
        # bottom-right, top-right, top-left runs counter-clockwise.
        quads.append((base, base + 1, base + 2, base + 3))
    return vertices, quads_to_triangles(quads)


# -- writers --------------------------------------------------------------------------------

def number(value):
    """A coordinate as text: rounded to 0.1 um so that every platform writes the same."""
    text = f"{round(value, 7) + 0.0:.7f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def write_text(name, text):
    with open(os.path.join(HERE, name), "w", newline="\n") as f:
        f.write(text)


def write_obj(name, vertices, indices, comment):
    lines = [f"# {comment}"]
    lines += [f"v {number(x)} {number(y)} {number(z)}" for x, y, z in vertices]
    lines += [f"f {indices[i] + 1} {indices[i + 1] + 1} {indices[i + 2] + 1}"
              for i in range(0, len(indices), 3)]
    write_text(name, "\n".join(lines) + "\n")


def face_normal(a, b, c):
    u = [b[i] - a[i] for i in range(3)]
    v = [c[i] - a[i] for i in range(3)]
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    length = math.sqrt(sum(x * x for x in n))
    return tuple(x / length for x in n)


def write_stl(name, vertices, indices, solid):
    lines = [f"solid {solid}"]
    for i in range(0, len(indices), 3):
        corners = [vertices[j] for j in indices[i:i + 3]]
        lines.append("  facet normal " + " ".join(number(x) for x in face_normal(*corners)))
        lines.append("    outer loop")
        lines += ["      vertex " + " ".join(number(x) for x in p) for p in corners]
        lines.append("    endloop")
        lines.append("  endfacet")
    lines.append(f"endsolid {solid}")
    write_text(name, "\n".join(lines) + "\n")


def write_ply(name, vertices, indices, comment):
    lines = ["ply", "format ascii 1.0", f"comment {comment}",
             f"element vertex {len(vertices)}", "property float x", "property float y",
             "property float z", f"element face {len(indices) // 3}",
             "property list uchar int vertex_indices", "end_header"]
    lines += [f"{number(x)} {number(y)} {number(z)}" for x, y, z in vertices]
    lines += [f"3 {indices[i]} {indices[i + 1]} {indices[i + 2]}"
              for i in range(0, len(indices), 3)]
    write_text(name, "\n".join(lines) + "\n")


def gltf_document(meshes, nodes, root_nodes):
    """A glTF 2.0 document and its one binary buffer.

    meshes: [(name, vertices, indices)]; nodes: glTF node dicts (mesh, children,
    translation, scale ...); root_nodes: the scene's node indices. Positions are float32,
    indices uint16 or uint32 as the vertex count needs.
    """
    blob = bytearray()
    views, accessors, gltf_meshes = [], [], []
    for name, vertices, indices in meshes:
        floats = [round(c, 7) for p in vertices for c in p]
        positions = struct.pack(f"<{len(floats)}f", *floats)
        # min and max as the float32 values stored, which glTF requires to match.
        stored = struct.unpack(f"<{len(floats)}f", positions)
        lo = [min(stored[k::3]) for k in range(3)]
        hi = [max(stored[k::3]) for k in range(3)]
        wide = len(vertices) > 65535
        index_bytes = struct.pack(f"<{len(indices)}{'I' if wide else 'H'}", *indices)
        for data, target in ((positions, 34962), (index_bytes, 34963)):
            views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data),
                          "target": target})
            blob += data + b"\0" * (-len(data) % 4)
        accessors.append({"bufferView": len(views) - 2, "componentType": 5126,
                          "count": len(vertices), "type": "VEC3", "min": lo, "max": hi})
        accessors.append({"bufferView": len(views) - 1,
                          "componentType": 5125 if wide else 5123,
                          "count": len(indices), "type": "SCALAR"})
        gltf_meshes.append({"name": name, "primitives": [{
            "attributes": {"POSITION": len(accessors) - 2},
            "indices": len(accessors) - 1, "mode": 4}]})
    document = {
        "asset": {"version": "2.0", "generator": "ligature tests/data/meshes/make_meshes.py"},
        "scene": 0,
        "scenes": [{"nodes": root_nodes}],
        "nodes": nodes,
        "meshes": gltf_meshes,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob)}],
    }
    return document, bytes(blob)


def write_gltf(name, document, blob):
    """.gltf: JSON with the buffer embedded as a base64 data URI."""
    document = dict(document)
    document["buffers"] = [{"byteLength": len(blob), "uri": "data:application/octet-stream;"
                            "base64," + base64.b64encode(blob).decode("ascii")}]
    write_text(name, json.dumps(document, indent=1) + "\n")


def write_glb(name, document, blob):
    """.glb: a 12-byte header, the JSON chunk (padded with spaces) and the BIN chunk
    (padded with zeros), each 4-byte aligned."""
    text = json.dumps(document, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 4)
    blob += b"\0" * (-len(blob) % 4)
    chunks = (struct.pack("<II", len(text), 0x4E4F534A) + text +
              struct.pack("<II", len(blob), 0x004E4942) + blob)
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, 12 + len(chunks)) + chunks)


# -- the files ------------------------------------------------------------------------------

def main():
    cube_comment = "unit cube, 1 m, centred on the origin"
    write_obj("cube.obj", CUBE_VERTICES, CUBE_INDICES, cube_comment)
    write_stl("cube.stl", CUBE_VERTICES, CUBE_INDICES, "cube")
    write_ply("cube.ply", CUBE_VERTICES, CUBE_INDICES, cube_comment)
    document, blob = gltf_document([("cube", CUBE_VERTICES, CUBE_INDICES)],
                                   [{"name": "cube", "mesh": 0}], [0])
    write_gltf("cube.gltf", document, blob)
    write_glb("cube.glb", document, blob)

    # The same mesh twice: at x = -2, and at x = +2 at half size.
    document, blob = gltf_document(
        [("cube", CUBE_VERTICES, CUBE_INDICES)],
        [{"name": "left", "mesh": 0, "translation": [-2.0, 0.0, 0.0]},
         {"name": "right", "mesh": 0, "translation": [2.0, 0.0, 0.0],
          "scale": [0.5, 0.5, 0.5]}], [0, 1])
    write_gltf("two_cubes.gltf", document, blob)

    mug_vertices, mug_indices = mug()
    document, blob = gltf_document([("mug", mug_vertices, mug_indices)],
                                   [{"name": "mug", "mesh": 0}], [0])
    write_glb("mug.glb", document, blob)

    # The room: floor and walls as they are; a table node (moved off centre) with the top
    # and four legs as children, each a unit part scaled and moved into place.
    floor = room_floor(10.0, 100)
    walls = room_walls(10.0, 3.0)
    top = box_sides((0.5, 0.5, 0.5), capped=True)
    leg = box_sides((0.5, 0.5, 0.5), capped=False)
    legs = [{"name": f"leg{i}", "mesh": 3, "translation": [x, 0.35, z],
             "scale": [0.05, 0.7, 0.05]}
            for i, (x, z) in enumerate(((-0.75, -0.35), (0.75, -0.35), (0.75, 0.35),
                                        (-0.75, 0.35)))]
    nodes = [{"name": "floor", "mesh": 0}, {"name": "walls", "mesh": 1},
             {"name": "table", "translation": [1.0, 0.0, -2.0], "children": [3, 4, 5, 6, 7]},
             {"name": "top", "mesh": 2, "translation": [0.0, 0.725, 0.0],
              "scale": [1.6, 0.05, 0.8]}] + legs
    document, blob = gltf_document(
        [("floor", *floor), ("walls", *walls), ("table_top", *top), ("table_leg", *leg)],
        nodes, [0, 1, 2])
    write_glb("room.glb", document, blob)

    # A cube whose last face names vertex 99 of 8.
    write_obj("bad_index.obj", CUBE_VERTICES, CUBE_INDICES[:-3] + [0, 7, 98],
              "unit cube whose last face refers to a vertex beyond the list")


if __name__ == "__main__":
    main()
