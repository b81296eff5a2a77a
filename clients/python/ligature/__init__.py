"""Python client of the Ligature real-time physics server.

Connect, then create and edit worlds, step them, watch their frames and drive kinematic
bodies with device poses::

    import ligature

    with ligature.connect("127.0.0.1:50051") as client:
        client.create_world("pile", scene_file="scene.textproto")
        with client.watch("pile", rate_hz=10) as frames:
            for frame in frames:
                print(frame.tick, len(frame.bodies))

Meshes: ``client.upload_asset("mug.glb")`` imports a mesh file (:func:`load_mesh_file`)
and stores it on the server; shapes then name it (``{"mesh_asset": {"asset": name}}``).
Scene files may name mesh files directly (``mesh_asset { file: "mug.glb" }``), which
:meth:`Client.load_scene` and ``create_world(scene_file=...)`` upload.

Scene queries: ``client.raycast("pile", (0, 5, 0), (0, -1, 0))`` gives the hits of a ray
against the newest frame, without waiting for a tick; :meth:`Client.shape_cast`,
:meth:`Client.overlap` and :meth:`Client.closest_point` ask the other questions, and
:meth:`Client.query_stream` asks per frame on one stream.

Events: ``client.watch_events("pile", kinds=["CONTACT_BEGIN"], min_impulse=0.5)`` streams
the contacts that begin (with their impulse, speed and points) and the bodies entering and
leaving sensor shapes, tick by tick.

Requests take the generated ``ligature.v1`` messages or plain dicts with the same field
names (vectors may be given as 3-sequences, quaternions as (x, y, z, w), enum values by
their full name or their short name, e.g. ``"kinematic"``). Every failure raises
:class:`LigatureError`, which carries the gRPC status code and message.
"""

import pkgutil

# The generated stubs live in ligature/v1 of another directory on sys.path (the build
# tree); let this package span every ligature/ directory so that ligature.v1 is found.
__path__ = pkgutil.extend_path(__path__, __name__)

from ligature.errors import LigatureError  # noqa: E402
from ligature.messages import (  # noqa: E402
    Asset, Body, BodyState, Constraint, DevicePose, Frame, Pose, QueryHit, QueryResponse,
    Quaternion, Scene, SceneQuery, TriangleMesh, Vec3, World, WorldSettings, body_state, pose,
    to_message, vec3)
from ligature.mesh_import import load_mesh_file  # noqa: E402
from ligature.scene_file import load_scene, parse_scene  # noqa: E402
from ligature.streams import FrameStream, Interaction, QueryStream, ResumingWatch  # noqa: E402
from ligature.client import Client, connect  # noqa: E402

__all__ = [
    "Asset", "Body", "BodyState", "Client", "Constraint", "DevicePose", "Frame",
    "FrameStream", "Interaction", "LigatureError", "Pose", "QueryHit", "QueryResponse",
    "QueryStream", "Quaternion", "ResumingWatch", "Scene", "SceneQuery", "TriangleMesh", "Vec3", "World",
    "WorldSettings", "body_state", "connect",
    "load_mesh_file", "load_scene", "parse_scene", "pose", "to_message", "vec3",
]
