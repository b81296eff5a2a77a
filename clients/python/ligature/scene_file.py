"""Scene files: a ligature.v1.Scene in protobuf text format (.textproto, .txtpb, .pbtxt)
or JSON (.json), read as the C++ client and the server read them."""

import os

import grpc
from google.protobuf import json_format, text_format

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
