"""Mesh files (glTF 2.0 .gltf and .glb, OBJ, STL, PLY) as one ligature.v1 TriangleMesh,
through assimp (Debian's python3-pyassimp over libassimp), as the C++ client imports them
(clients/cpp/mesh_import.cc), so that a file gives the same geometry, and so the same asset
name, from either client:
  * every mesh of the file's scene, placed by the transform of each node that uses it (the
    node's and its ancestors'), nodes visited depth first in file order; a mirroring
    transform has its triangles' winding turned back to counter-clockwise;
  * positions only (normals, colours and texture coordinates removed, so that they keep no
    corners apart), faces triangulated, identical vertices joined, points and lines dropped;
  * triangles without area dropped (the cross product of two edges no longer than 1e-9
    times the longest edge squared), then the vertices no triangle uses;
  * vertices numbered in the order the triangles first use them;
  * positions computed in single precision as assimp's C++ operators do.
No axis conversion: glTF is Y up, as Ligature is; OBJ, STL and PLY are taken as written.
"""

import ctypes
import os

import grpc

from ligature._generated import geometry_pb2, scene_pb2
from ligature.errors import LigatureError, invalid_argument

MESH_EXTENSIONS = (".gltf", ".glb", ".obj", ".stl", ".ply")

# assimp post-processing steps (aiPostProcessSteps): remove every vertex component but the
# position, triangulate polygons, join identical vertices, sort points and lines out of the
# meshes, and check the imported data (indices in range) before it is read here.
_REMOVE_COMPONENT = 0x10
_TRIANGULATE = 0x8
_JOIN_IDENTICAL_VERTICES = 0x2
_SORT_BY_PRIMITIVE_TYPE = 0x8000
_VALIDATE_DATA_STRUCTURE = 0x400
_IMPORT_FLAGS = (_REMOVE_COMPONENT | _TRIANGULATE | _JOIN_IDENTICAL_VERTICES |
                 _SORT_BY_PRIMITIVE_TYPE | _VALIDATE_DATA_STRUCTURE)
# Their settings (assimp/config.h): the components removed (aiComponent: normals, tangents
# and bitangents, colours, texture coordinates, bone weights) and the primitive types
# dropped (aiPrimitiveType: points, lines).
_IMPORT_PROPERTIES = ((b"PP_RVC_FLAGS", 0x2 | 0x4 | 0x8 | 0x10 | 0x20),
                      (b"PP_SBP_REMOVE", 0x1 | 0x2))
_PRIMITIVE_TRIANGLE = 0x4      # aiPrimitiveType_TRIANGLE
_SCENE_INCOMPLETE = 0x1        # AI_SCENE_FLAGS_INCOMPLETE

# A triangle's area against its longest edge, below which the server calls it degenerate.
_MIN_AREA_RATIO = 1e-9

_assimp = None


def _library():
    """The assimp library (found by pyassimp, its functions typed here) and numpy, bound
    once."""
    global _assimp
    if _assimp is None:
        try:
            import numpy
            from pyassimp import helper, structs
        except ImportError as error:
            raise LigatureError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"mesh import needs pyassimp (Debian package python3-pyassimp): {error}"
            ) from None
        dll = helper.search_library()[-1]
        dll.aiCreatePropertyStore.restype = ctypes.c_void_p
        dll.aiCreatePropertyStore.argtypes = []
        dll.aiReleasePropertyStore.argtypes = [ctypes.c_void_p]
        dll.aiSetImportPropertyInteger.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                   ctypes.c_int]
        dll.aiImportFileExWithProperties.restype = ctypes.POINTER(structs.Scene)
        dll.aiImportFileExWithProperties.argtypes = [ctypes.c_char_p, ctypes.c_uint,
                                                     ctypes.c_void_p, ctypes.c_void_p]
        dll.aiReleaseImport.argtypes = [ctypes.POINTER(structs.Scene)]
        dll.aiGetErrorString.restype = ctypes.c_char_p
        _assimp = (dll, numpy)
    return _assimp


def _import(dll, path):
    """aiImportFileExWithProperties with _IMPORT_FLAGS and _IMPORT_PROPERTIES: the scene
    (a pointer to aiScene, null on failure)."""
    store = dll.aiCreatePropertyStore()
    try:
        for name, value in _IMPORT_PROPERTIES:
            dll.aiSetImportPropertyInteger(store, name, value)
        return dll.aiImportFileExWithProperties(os.fsencode(path), _IMPORT_FLAGS, None, store)
    finally:
        dll.aiReleasePropertyStore(store)


def is_mesh_file(path):
    """Whether `path`'s extension is one of the mesh formats (MESH_EXTENSIONS)."""
    return os.fspath(path).lower().endswith(MESH_EXTENSIONS)


def load_mesh_file(path):
    """The mesh file at `path` as one TriangleMesh (see the module's description).

    Raises LigatureError naming the file: NOT_FOUND when it cannot be read; INVALID_ARGUMENT
    for an unknown extension, content assimp cannot import (a bad index ...) or no triangle.
    """
    path = os.fspath(path)
    if not is_mesh_file(path):
        raise invalid_argument(f"mesh file {path}: unknown extension (expected .gltf, .glb, "
                               ".obj, .stl or .ply)")
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise LigatureError(grpc.StatusCode.NOT_FOUND, f"cannot read mesh file {path}")
    dll, numpy = _library()
    # The scene is read through assimp's C API with pyassimp's ctypes structures, field by
    # field: pyassimp.load() walks every field of aiScene, and Debian's pyassimp 5.2
    # describes aiScene without the members 5.2 added after mMetaData (mName, the
    # skeletons), so it follows a bad pointer and crashes. The fields read here match.
    scene = _import(dll, path)
    if not scene:
        message = (dll.aiGetErrorString() or b"").decode("utf-8", "replace")
        raise invalid_argument(f"mesh file {path}: {message or 'unknown error'}")
    try:
        if scene.contents.mFlags & _SCENE_INCOMPLETE or not scene.contents.mRootNode:
            raise invalid_argument(f"mesh file {path}: incomplete scene")
        vertices, indices = _collect(scene.contents, numpy)
    finally:
        dll.aiReleaseImport(scene)
    if not indices:
        raise invalid_argument(f"mesh file {path}: holds no triangles")
    mesh = scene_pb2.TriangleMesh(indices=indices)
    mesh.vertices.extend(geometry_pb2.Vec3(x=x, y=y, z=z) for x, y, z in vertices)
    return mesh


def _collect(scene, np):
    """(vertices, indices) of the triangles of `scene` (an aiScene) placed by their nodes,
    vertices numbered by first use, triangles without area left out."""
    vertices, indices = [], []
    # Depth first from the root, each node with its transform in the file's frame.
    stack = [(scene.mRootNode.contents, np.eye(4, dtype=np.float32))]
    while stack:
        node, parent = stack.pop()
        to_file = _multiply(parent, _matrix(node.mTransformation, np), np)
        mirrored = np.linalg.det(to_file.astype(np.float64)) < 0.0
        for k in range(node.mNumMeshes):
            mesh = scene.mMeshes[node.mMeshes[k]].contents
            if mesh.mPrimitiveTypes & _PRIMITIVE_TRIANGLE:
                _add_mesh(mesh, to_file, mirrored, vertices, indices, np)
        # Children pushed last first, so that they are visited in file order.
        for c in reversed(range(node.mNumChildren)):
            stack.append((node.mChildren[c].contents, to_file))
    return vertices, indices


def _add_mesh(mesh, to_file, mirrored, vertices, indices, np):
    """Appends the triangles of one aiMesh placed by `to_file`, and the vertices they use."""
    count = mesh.mNumVertices
    raw = ctypes.cast(mesh.mVertices, ctypes.POINTER(ctypes.c_float * (3 * count))).contents
    local = np.frombuffer(raw, dtype=np.float32).reshape(count, 3)
    placed = _transform(to_file, local, np)
    faces = [mesh.mFaces[f] for f in range(mesh.mNumFaces)]
    corners = np.array([[face.mIndices[0], face.mIndices[1], face.mIndices[2]]
                        for face in faces if face.mNumIndices == 3], dtype=np.int64)
    if len(corners) == 0:
        return
    if mirrored:
        corners = corners[:, [0, 2, 1]]
    corners = corners[_has_area(placed[corners[:, 0]], placed[corners[:, 1]],
                                placed[corners[:, 2]], np)]
    # Renumber by first use: output index of each local vertex, -1 until used.
    number = np.full(count, -1, dtype=np.int64)
    for i in corners.reshape(-1).tolist():
        if number[i] < 0:
            number[i] = len(vertices)
            vertices.append(tuple(float(c) for c in placed[i]))
        indices.append(int(number[i]))


def _matrix(m, np):
    """An aiMatrix4x4 (row major, acting on column vectors) as a float32 array."""
    return np.array([[m.a1, m.a2, m.a3, m.a4], [m.b1, m.b2, m.b3, m.b4],
                     [m.c1, m.c2, m.c3, m.c4], [m.d1, m.d2, m.d3, m.d4]], dtype=np.float32)


def _multiply(p, n, np):
    """p * n in float32, each sum taken left to right as aiMatrix4x4's operator*= does."""
    out = np.empty((4, 4), dtype=np.float32)
    for i in range(4):
        for j in range(4):
            out[i, j] = ((n[0, j] * p[i, 0] + n[1, j] * p[i, 1]) + n[2, j] * p[i, 2]) + \
                n[3, j] * p[i, 3]
    return out


def _transform(m, v, np):
    """The points `v` (n x 3, float32) transformed by `m` in float32, term by term as
    aiMatrix4x4 * aiVector3D: each row's products summed left to right, then the offset."""
    x, y, z = v[:, 0], v[:, 1], v[:, 2]
    return np.stack([((m[r, 0] * x + m[r, 1] * y) + m[r, 2] * z) + m[r, 3]
                     for r in range(3)], axis=1)


def _has_area(a, b, c, np):
    """For triangles with corners a, b, c (n x 3 float32 each): whether the cross product
    of two edges is longer than _MIN_AREA_RATIO times the longest edge squared, in float32
    as aiVector3D's operators compute it."""
    u, v = b - a, c - a
    cross = np.stack([u[:, 1] * v[:, 2] - u[:, 2] * v[:, 1],
                      u[:, 2] * v[:, 0] - u[:, 0] * v[:, 2],
                      u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]], axis=1)

    def square_length(w):
        return (w[:, 0] * w[:, 0] + w[:, 1] * w[:, 1]) + w[:, 2] * w[:, 2]

    length = np.sqrt(square_length(cross))
    longest = np.maximum(np.maximum(square_length(u), square_length(c - b)),
                         square_length(a - c))
    return length.astype(np.float64) > _MIN_AREA_RATIO * longest.astype(np.float64)
