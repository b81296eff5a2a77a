"""Conversions from plain Python values (dicts, sequences, short enum names) to the
generated ligature.v1 messages, and small helpers to build and read them."""

from collections.abc import Mapping, Sequence

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from ligature._generated import (
    asset_pb2, frame_pb2, geometry_pb2, query_service_pb2, scene_pb2, session_service_pb2,
    world_service_pb2)
from ligature.errors import invalid_argument

# The message types users meet most, re-exported under short names.
Vec3 = geometry_pb2.Vec3
Quaternion = geometry_pb2.Quaternion
Pose = geometry_pb2.Pose
Body = scene_pb2.Body
Constraint = scene_pb2.Constraint
Scene = scene_pb2.Scene
WorldSettings = scene_pb2.WorldSettings
World = world_service_pb2.World
Frame = frame_pb2.Frame
BodyState = frame_pb2.BodyState
DevicePose = session_service_pb2.DevicePose
TriangleMesh = scene_pb2.TriangleMesh
Asset = asset_pb2.Asset
SceneQuery = query_service_pb2.SceneQuery
QueryHit = query_service_pb2.QueryHit
QueryResponse = query_service_pb2.QueryResponse

# Value types that may be written as plain sequences, and their component names.
_SEQUENCE_FIELDS = {
    Vec3.DESCRIPTOR.full_name: ("x", "y", "z"),
    Quaternion.DESCRIPTOR.full_name: ("x", "y", "z", "w"),
}


def vec3(value):
    """A Vec3 from (x, y, z), a dict with x, y, z, or a Vec3 (returned as is)."""
    return to_message(value, Vec3, "vec3")


def pose(position=(0.0, 0.0, 0.0), orientation=None):
    """A Pose from a position (x, y, z) and an optional unit quaternion (x, y, z, w).

    Without an orientation the pose has the identity orientation.
    """
    result = Pose(position=vec3(position))
    if orientation is not None:
        result.orientation.CopyFrom(to_message(orientation, Quaternion, "orientation"))
    else:
        result.orientation.w = 1.0
    return result


def body_state(frame, body_id):
    """The BodyState of `body_id` in `frame`; raises KeyError when the frame lacks it."""
    for state in frame.bodies:
        if state.id == body_id:
            return state
    raise KeyError(f"body {body_id} is not in the frame of {frame.world} at tick {frame.tick}")


def to_message(value, message_class, field="value"):
    """`value` as a `message_class` message.

    Accepts a message of that class (returned as is), or a dict in the proto's field names
    (snake_case or JSON camelCase). Inside a dict, Vec3 and Quaternion fields may be
    sequences, and enum fields may use short names (``"kinematic"`` for
    ``BODY_KIND_KINEMATIC``). Raises LigatureError (INVALID_ARGUMENT) naming `field` when
    the value does not convert.
    """
    if isinstance(value, message_class):
        return value
    if isinstance(value, Message):
        raise invalid_argument(
            f"{field}: expected {message_class.DESCRIPTOR.full_name}, got "
            f"{value.DESCRIPTOR.full_name}")
    descriptor = message_class.DESCRIPTOR
    plain = _normalize(value, descriptor, field)
    message = message_class()
    try:
        json_format.ParseDict(plain, message)
    except json_format.ParseError as error:
        raise invalid_argument(f"{field}: {error}") from None
    return message


def _normalize(value, descriptor, path):
    """Rewrites `value` (for a message of `descriptor`) into what json_format accepts."""
    components = _SEQUENCE_FIELDS.get(descriptor.full_name)
    if components is not None and _is_sequence(value):
        if len(value) != len(components):
            raise invalid_argument(
                f"{path}: expected {len(components)} numbers {tuple(components)}, "
                f"got {len(value)}")
        return dict(zip(components, value))
    if isinstance(value, Message):
        if value.DESCRIPTOR.full_name != descriptor.full_name:
            raise invalid_argument(
                f"{path}: expected {descriptor.full_name}, got {value.DESCRIPTOR.full_name}")
        return json_format.MessageToDict(value, preserving_proto_field_name=True)
    if not isinstance(value, Mapping):
        raise invalid_argument(
            f"{path}: expected a {descriptor.full_name} or a dict, got {type(value).__name__}")
    out = {}
    for key, item in value.items():
        field = descriptor.fields_by_name.get(key) or _field_by_json_name(descriptor, key)
        if field is None:
            raise invalid_argument(f"{path}.{key}: no such field in {descriptor.full_name}")
        out[key] = _normalize_field(item, field, f"{path}.{key}")
    return out


def _normalize_field(item, field, path):
    """One field's value: repeated fields element by element, messages and enums rewritten."""
    if field.label == FieldDescriptor.LABEL_REPEATED:
        if not _is_sequence(item):
            raise invalid_argument(f"{path}: expected a list, got {type(item).__name__}")
        return [_normalize_single(x, field, f"{path}[{i}]") for i, x in enumerate(item)]
    return _normalize_single(item, field, path)


def _normalize_single(item, field, path):
    if field.message_type is not None:
        return _normalize(item, field.message_type, path)
    if field.enum_type is not None and isinstance(item, str):
        return _enum_name(item, field.enum_type, path)
    return item


def _enum_name(name, enum_type, path):
    """The full enum value name for `name`, accepting the short form without the prefix."""
    if name in enum_type.values_by_name:
        return name
    zero = enum_type.values_by_number[0].name  # e.g. BODY_KIND_UNSPECIFIED
    prefix = zero[: -len("UNSPECIFIED")] if zero.endswith("UNSPECIFIED") else ""
    full = prefix + name.upper()
    if full in enum_type.values_by_name:
        return full
    choices = ", ".join(v.name[len(prefix):].lower() for v in enum_type.values)
    raise invalid_argument(f"{path}: unknown {enum_type.name} '{name}' (one of {choices})")


def _field_by_json_name(descriptor, key):
    for field in descriptor.fields:
        if field.json_name == key:
            return field
    return None


def _is_sequence(value):
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))
