"""Scene files: a ligature.v1.Scene in protobuf text format (.textproto, .txtpb, .pbtxt)
or JSON (.json), read as the C++ client and the server read them.

A shape in a scene file may name a mesh file instead of a stored asset::

    shape { mesh_asset { file: "meshes/room.glb" } }

The path is relative to the scene file's folder. Before the scene is sent, each such file is
imported (ligature.mesh_import), uploaded once (AssetService) and the shape's `file` replaced
by the `asset` the server named (see :func:`upload_mesh_files`); the server refuses a shape
that still names a file."""

import os

import grpc
from google.protobuf import json_format, text_format

from ligature._generated import scene_pb2
from ligature.errors import LigatureError, invalid_argument
from ligature.messages import Scene

TEXT_EXTENSIONS = (".textproto", ".txtpb", ".pbtxt")
JSON_EXTENSIONS = (".json",)


def scene_format_for_path(path):
    """``"text"`` or ``"json"`` from the extension of `path`, or None for any other."""
    lower = str(path).lower()
    if lower.endswith(TEXT_EXTENSIONS):
        return "text"
    if lower.endswith(JSON_EXTENSIONS):
        return "json"
    return None


def parse_scene(content, scene_format, source_name="scene"):
    """Parses `content` (str) as a Scene in `scene_format` (``"text"`` or ``"json"``).

    Unknown fields are errors in both formats. Raises LigatureError (INVALID_ARGUMENT)
    whose message starts with `source_name`.
    """
    scene = Scene()
    try:
        if scene_format == "text":
            text_format.Parse(content, scene)
        elif scene_format == "json":
            json_format.Parse(content, scene, ignore_unknown_fields=False)
        else:
            raise invalid_argument(f"{source_name}: unknown scene format {scene_format!r}")
    except (text_format.ParseError, json_format.ParseError) as error:
        raise invalid_argument(f"{source_name}: {error}") from None
    return scene


def load_scene(path):
    """Reads and parses the scene file at `path`, the format chosen by its extension.

    Raises LigatureError: NOT_FOUND when the file cannot be read, INVALID_ARGUMENT for an
    unknown extension, a directory, or content that does not parse.
    """
    path = os.fspath(path)
    scene_format = scene_format_for_path(path)
    if scene_format is None:
        raise invalid_argument(
            f"scene file {path}: unknown extension (expected .textproto, .txtpb, .pbtxt or "
            ".json)")
    if os.path.isdir(path):
        raise invalid_argument(f"scene file {path} is a directory")
    try:
        with open(path, encoding="utf-8") as f:
            content = f.read()
    except OSError as error:
        raise LigatureError(grpc.StatusCode.NOT_FOUND,
                            f"cannot read scene file {path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise invalid_argument(f"scene file {path}: not UTF-8 text ({error})") from None
    return parse_scene(content, scene_format, f"scene file {path}")


def mesh_file_shapes(message):
    """Every MeshAssetShape under `message` (a Scene, Body, Shape ...) whose `file` is set:
    bodies' shapes, compound children and any other place a Shape appears. A list of
    (field path, shape), the path as in ``bodies[2].shape.compound.children[0].shape
    .mesh_asset``, for messages."""
    found = []

    # Walk every set message field, repeated ones element by element.
    def walk(node, path):
        if node.DESCRIPTOR is scene_pb2.MeshAssetShape.DESCRIPTOR:
            if node.file:
                found.append((path, node))
            return
        for field, value in node.ListFields():
            if field.message_type is None:
                continue
            name = f"{path}.{field.name}" if path else field.name
            if field.message_type.GetOptions().map_entry:
                if field.message_type.fields_by_name["value"].message_type is not None:
                    for key, item in value.items():
                        walk(item, f"{name}[{key!r}]")
            elif field.label == field.LABEL_REPEATED:
                for i, item in enumerate(value):
                    walk(item, f"{name}[{i}]")
            else:
                walk(value, name)

    walk(message, "")
    return found


def upload_mesh_files(scene, base_dir, upload):
    """Replaces the `file` of every mesh_asset shape in `scene` (changed in place and
    returned) by the `asset` that `upload(path)` returns for the file, a path relative to
    `base_dir` (or absolute). Each file is uploaded once, however many shapes name it; a
    shape that also gives an `asset` gets the file's.

    The LigatureError of a failed upload (an unreadable or unusable file, a refusal by the
    server) is raised again with the shape's field path in front of its message.
    """
    names = {}
    for field, shape in mesh_file_shapes(scene):
        path = os.path.normpath(os.path.join(os.fspath(base_dir), shape.file))
        if path not in names:
            try:
                names[path] = upload(path)
            except LigatureError as error:
                raise LigatureError(error.code, f"{field}.file: {error.message}",
                                    error.method) from None
        shape.asset = names[path]
        shape.ClearField("file")
    return scene
