"""The client: one gRPC channel to a ligatured server and the calls of its five
services (WorldService, SceneService, SessionService, AssetService, QueryService)."""

import os
import re
import weakref

import grpc
from google.protobuf import field_mask_pb2

from ligature._generated import (
    asset_service_pb2, asset_service_pb2_grpc, events_pb2, query_service_pb2,
    query_service_pb2_grpc,
    scene_service_pb2, scene_service_pb2_grpc, session_service_pb2, session_service_pb2_grpc,
    world_service_pb2, world_service_pb2_grpc)
from ligature.errors import LigatureError, invalid_argument
from ligature.mesh_import import load_mesh_file
from ligature.messages import (
    Asset, Body, Constraint, Scene, SceneQuery, TriangleMesh, World, WorldSettings, pose,
    to_message, vec3)
from ligature.names import (
    asset_name, body_name, constraint_name, routing_metadata, world_name)
from ligature.scene_file import load_scene, upload_mesh_files
from ligature.streams import FrameStream, Interaction, QueryStream, ResumingWatch

# Update masks from dicts: the nested dicts the server takes field by field (every other
# key is replaced whole, e.g. gravity or material).
_WORLD_MASK_NESTED = ("settings", "settings.solver")
_BODY_MASK_NESTED = ("pose",)


def connect(address="127.0.0.1:50051", timeout=10.0, max_message_mb=64, *, tls=False,
            ca=None, cert=None, key=None, token=None):
    """Opens a client to the ligatured server at `address` (host:port).

    `timeout` is the deadline of each unary call in seconds (None: no deadline). The
    channel connects lazily; the first call fails with UNAVAILABLE if nobody answers (or
    the TLS handshake fails). Use the client as a context manager, or call
    :meth:`Client.close`.

    Security:
        tls: connect with TLS (default plaintext, which a server serves only on loopback
            unless started with --allow_insecure).
        ca: PEM file of the CA certificates that sign the server's certificate (default:
            the system's roots). TLS only.
        cert, key: PEM client certificate chain and private key, for a server that
            requires client certificates (mutual TLS). Both or neither; TLS only.
        token: bearer token, sent as ``authorization: Bearer TOKEN`` on every call and
            stream (including :meth:`Client.interact`).

    A credential that cannot be used (an unreadable file, ca or cert without tls, a cert
    without its key, a token with spaces) raises LigatureError with INVALID_ARGUMENT.
    """
    check_token(token)
    size = max_message_mb << 20
    options = [("grpc.max_receive_message_length", size),
               ("grpc.max_send_message_length", size)]
    if tls:
        if (cert is None) != (key is None):
            raise invalid_argument("connect: cert and key go together: give both or neither")
        credentials = grpc.ssl_channel_credentials(
            root_certificates=_read_pem(ca, "ca") if ca is not None else None,
            private_key=_read_pem(key, "key") if key is not None else None,
            certificate_chain=_read_pem(cert, "cert") if cert is not None else None)
        channel = grpc.secure_channel(address, credentials, options=options)
    else:
        if ca is not None or cert is not None or key is not None:
            raise invalid_argument("connect: ca, cert and key need tls=True")
        channel = grpc.insecure_channel(address, options=options)
    return Client(channel, timeout=timeout, token=token)


def check_token(token):
    """Raises LigatureError (INVALID_ARGUMENT) unless `token` is None or a non-empty str of
    printable ASCII without spaces (a token file holds one word per token)."""
    if token is None:
        return
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        raise invalid_argument("token: expected printable ASCII without spaces")


_TOKEN = re.compile(r"[\x21-\x7e]+")


def _read_pem(path, what):
    """The bytes of PEM file `path` (argument `what` of connect)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (OSError, TypeError, ValueError) as error:
        raise invalid_argument(f"connect: cannot read {what} {path!r}: {error}") from None
    if b"-----BEGIN " not in data:
        raise invalid_argument(f"connect: {what} {path!r} holds no PEM data")
    return data


class Client:
    """Calls on one ligatured server. Worlds, bodies and constraints are named by id or
    full resource name; requests take messages or dicts (see :func:`ligature.to_message`).
    Every failed call raises LigatureError with the status code and message."""

    def __init__(self, channel, timeout=10.0, close_timeout=5.0, token=None):
        """Wraps an existing grpc.Channel, which the client then owns and closes. A `token`
        is sent as ``authorization: Bearer TOKEN`` metadata on every call and stream."""
        check_token(token)
        self._auth = (("authorization", f"Bearer {token}"),) if token else ()
        self._channel = channel
        self._timeout = timeout
        self._close_timeout = close_timeout
        self._worlds = world_service_pb2_grpc.WorldServiceStub(channel)
        self._scenes = scene_service_pb2_grpc.SceneServiceStub(channel)
        self._sessions = session_service_pb2_grpc.SessionServiceStub(channel)
        self._assets = asset_service_pb2_grpc.AssetServiceStub(channel)
        self._queries = query_service_pb2_grpc.QueryServiceStub(channel)
        self._streams = weakref.WeakSet()

    # -- lifetime -----------------------------------------------------------------------

    @property
    def channel(self):
        """The underlying grpc.Channel."""
        return self._channel

    def close(self):
        """Ends every stream still open, then closes the channel. Idempotent."""
        for stream in list(self._streams):
            if isinstance(stream, Interaction):
                stream.close(raise_errors=False)
            else:
                stream.close()
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _call(self, method, request, world=None):
        """Runs a unary RPC about `world` (routed by its id), turning grpc.RpcError into
        LigatureError."""
        try:
            return method(request, timeout=self._timeout, metadata=self._metadata(world))
        except grpc.RpcError as error:
            raise LigatureError.from_rpc_error(error, _method_name(method)) from None

    def _metadata(self, world):
        """Metadata of a call about `world` (None: no world): the routing header and the
        token. Passed with each call rather than as call credentials, which gRPC attaches
        only to TLS channels, and a server on loopback checks tokens without TLS too."""
        return (routing_metadata(world) or ()) + self._auth

    # -- worlds -------------------------------------------------------------------------

    def create_world(self, world_id="", *, scene=None, scene_name=None, scene_file=None):
        """Creates a world and returns its World message.

        Give exactly one source: `scene` (a Scene or dict), `scene_name` (a built-in scene
        such as ``"default"``) or `scene_file` (a .textproto/.txtpb/.pbtxt or .json file,
        read here with :meth:`load_scene`, which uploads the mesh files it names). An
        empty `world_id` lets the server choose one.
        """
        sources = [s for s in (scene, scene_name, scene_file) if s is not None]
        if len(sources) != 1:
            raise invalid_argument("create_world: give exactly one of scene, scene_name, "
                                   "scene_file")
        request = world_service_pb2.CreateWorldRequest(world_id=world_id)
        if scene_name is not None:
            request.scene_name = scene_name
        else:
            source = self.load_scene(scene_file) if scene_file is not None else scene
            request.scene.CopyFrom(to_message(source, Scene, "scene"))
        return self._call(self._worlds.CreateWorld, request, world_id or None)

    def get_world(self, world):
        """The World message (settings, tick, counts, timing) of `world`."""
        return self._call(self._worlds.GetWorld,
                          world_service_pb2.GetWorldRequest(name=world_name(world)), world)

    def list_worlds(self, page_size=0):
        """Every world, as an iterator of World messages fetched page by page."""
        token = ""
        while True:
            page = self._call(self._worlds.ListWorlds, world_service_pb2.ListWorldsRequest(
                page_size=page_size, page_token=token))
            yield from page.worlds
            token = page.next_page_token
            if not token:
                return

    def update_world(self, world, settings, update_mask=None):
        """Changes world settings and returns the updated World.

        `settings` is a WorldSettings or a dict such as ``{"paused": True}`` or
        ``{"solver": {"max_iterations": 40}}``. Without `update_mask` the fields given are
        the ones changed (for a dict, its keys; for a message, the fields it sets); else
        `update_mask` lists paths like ``"settings.rate_hz"``.
        """
        message = to_message(settings, WorldSettings, "settings")
        if update_mask is None:
            update_mask = _mask_paths("settings", settings, _WORLD_MASK_NESTED)
        request = world_service_pb2.UpdateWorldRequest(
            world=World(name=world_name(world), settings=message),
            update_mask=field_mask_pb2.FieldMask(paths=list(update_mask)))
        return self._call(self._worlds.UpdateWorld, request, world)

    def set_paused(self, world, paused=True):
        """Pauses (or resumes) a world; a paused world advances only by step_world."""
        return self.update_world(world, {"paused": bool(paused)})

    def delete_world(self, world):
        """Deletes a world; its open streams end with NOT_FOUND."""
        self._call(self._worlds.DeleteWorld,
                   world_service_pb2.DeleteWorldRequest(name=world_name(world)), world)

    def step_world(self, world, ticks=1):
        """Advances a paused world by `ticks` ticks and returns the resulting Frame
        (FAILED_PRECONDITION when the world is running)."""
        return self._call(self._worlds.StepWorld,
                          world_service_pb2.StepWorldRequest(name=world_name(world),
                                                             ticks=ticks), world)

    def save_snapshot(self, world):
        """The complete state of `world` between two ticks, as the bytes of a serialized
        WorldSnapshot (editor role); returns (bytes, tick)."""
        response = self._call(self._worlds.SaveSnapshot, world_service_pb2.SaveSnapshotRequest(
            name=world_name(world)), world)
        return response.snapshot, response.tick

    def restore_snapshot(self, world, snapshot):
        """Puts snapshot bytes (from save_snapshot or a --data_dir file) into `world`,
        replacing it or creating it (owner role); returns the World. A bad snapshot raises
        with INVALID_ARGUMENT and changes nothing."""
        return self._call(self._worlds.RestoreSnapshot, world_service_pb2.RestoreSnapshotRequest(
            name=world_name(world), snapshot=bytes(snapshot)), world)

    # -- scene content ------------------------------------------------------------------

    def create_body(self, world, body):
        """Adds a body (a Body or dict; rigid, rod or soft) and returns it as created."""
        return self._call(self._scenes.CreateBody, scene_service_pb2.CreateBodyRequest(
            parent=world_name(world), body=to_message(body, Body, "body")), world)

    def update_body(self, world, body_id, changes, update_mask=None):
        """Changes a rigid body and returns it.

        `changes` is a Body or dict, e.g. ``{"linear_velocity": (1, 0, 0)}`` or
        ``{"kind": "kinematic"}``; its fields (or `update_mask`: pose, pose.position,
        pose.orientation, linear_velocity, angular_velocity, material, kind) say what
        changes.
        """
        message = to_message(changes, Body, "body")
        if update_mask is None:
            update_mask = _mask_paths("", changes, _BODY_MASK_NESTED)
        message.name = body_name(world, body_id)
        return self._call(self._scenes.UpdateBody, scene_service_pb2.UpdateBodyRequest(
            body=message, update_mask=field_mask_pb2.FieldMask(paths=list(update_mask))), world)

    def delete_body(self, world, body_id):
        """Deletes a body and the constraints attached to it."""
        self._call(self._scenes.DeleteBody, scene_service_pb2.DeleteBodyRequest(
            name=body_name(world, body_id)), world)

    def create_constraint(self, world, constraint):
        """Adds a constraint (a Constraint or dict) and returns it as created."""
        return self._call(self._scenes.CreateConstraint,
                          scene_service_pb2.CreateConstraintRequest(
                              parent=world_name(world),
                              constraint=to_message(constraint, Constraint, "constraint")),
                          world)

    def update_constraint(self, world, constraint):
        """Replaces the constraint with the same id by `constraint` and returns its name.

        Constraints have no in-place update in the API: the old one is deleted and the new
        one created in one batch, applied at one tick, all or none.
        """
        message = to_message(constraint, Constraint, "constraint")
        if not message.id:
            raise invalid_argument("constraint.id: required to update a constraint")
        created = self.batch_edit(world, [
            {"delete_constraint": constraint_name(world, message.id)},
            scene_service_pb2.Edit(create_constraint=message)])
        return created[0]

    def delete_constraint(self, world, constraint_id):
        """Deletes a constraint."""
        self._call(self._scenes.DeleteConstraint, scene_service_pb2.DeleteConstraintRequest(
            name=constraint_name(world, constraint_id)), world)

    def update_joint(self, world, constraint_id, changes, update_mask):
        """Changes joint `constraint_id` in place (SceneService.UpdateConstraint) and returns
        it as it now is: its drives and their targets, limits, frames, break thresholds.

        `changes` is a Constraint or dict holding the new values, e.g.
        ``{"hinge": {"drive": {"target_position": 0.5}}}``; `update_mask` names the fields
        that change, e.g. ``["hinge.drive.target_position"]`` (see
        SceneService.UpdateConstraint for the paths).
        """
        message = to_message(changes, Constraint, "constraint")
        message.name = constraint_name(world, constraint_id)
        return self._call(self._scenes.UpdateConstraint,
                          scene_service_pb2.UpdateConstraintRequest(
                              constraint=message,
                              update_mask=field_mask_pb2.FieldMask(paths=list(update_mask))),
                          world)

    def set_constraint_enabled(self, world, constraint_id, enabled):
        """Switches a soft-body constraint off (no force, vertices kept) or on again."""
        self._call(self._scenes.SetConstraintEnabled,
                   scene_service_pb2.SetConstraintEnabledRequest(
                       name=constraint_name(world, constraint_id), enabled=enabled), world)

    def batch_edit(self, world, edits):
        """Applies edits (Edit messages or dicts such as ``{"create_body": {...}}``) at one
        tick, all or none; returns the names of the bodies and constraints created."""
        request = scene_service_pb2.BatchEditRequest(parent=world_name(world), edits=[
            to_message(e, scene_service_pb2.Edit, f"edits[{i}]") for i, e in enumerate(edits)])
        return list(self._call(self._scenes.BatchEdit, request, world).created)

    def export_scene(self, world):
        """The world's current content as a Scene that create_world accepts."""
        return self._call(self._scenes.ExportScene,
                          scene_service_pb2.ExportSceneRequest(parent=world_name(world)), world)

    # -- mesh assets --------------------------------------------------------------------

    def upload_asset(self, path_or_mesh, display_name=None):
        """Stores a mesh on the server and returns its Asset (without geometry); its name,
        ``assets/{sha256}``, is what Shape.mesh_asset.asset takes.

        `path_or_mesh` is a mesh file (imported with :func:`ligature.load_mesh_file`; the
        display name defaults to the file's name) or a TriangleMesh (message or dict).
        Geometry already stored gives back the stored asset, so uploading is idempotent.
        """
        if isinstance(path_or_mesh, (str, bytes, os.PathLike)):
            path = os.fsdecode(path_or_mesh)
            mesh = load_mesh_file(path)
            if display_name is None:
                display_name = os.path.basename(path)
        else:
            mesh = to_message(path_or_mesh, TriangleMesh, "mesh")
        asset = Asset(display_name=display_name or "", mesh=mesh)
        return self._call(self._assets.UploadAsset,
                          asset_service_pb2.UploadAssetRequest(asset=asset))

    def get_asset(self, name, skip_geometry=False):
        """The Asset `name` (``assets/{sha256}`` or the hash), with its mesh unless
        `skip_geometry`."""
        return self._call(self._assets.GetAsset, asset_service_pb2.GetAssetRequest(
            name=asset_name(name), skip_geometry=skip_geometry))

    def list_assets(self):
        """Every stored Asset, without geometry, ordered by name (a list)."""
        return list(self._call(self._assets.ListAssets,
                               asset_service_pb2.ListAssetsRequest()).assets)

    def delete_asset(self, name):
        """Removes an asset from the store (owner role on every world). Bodies built from it
        keep their shape; new shapes can no longer name it."""
        self._call(self._assets.DeleteAsset,
                   asset_service_pb2.DeleteAssetRequest(name=asset_name(name)))

    def load_scene(self, path):
        """Reads a scene file (as :func:`ligature.load_scene`) and uploads the mesh files
        its shapes name (mesh_asset.file, relative to the scene file's folder), each once,
        replacing each `file` by the uploaded `asset`. Returns the Scene, ready to send."""
        scene = load_scene(path)
        base_dir = os.path.dirname(os.path.abspath(os.fspath(path)))
        return upload_mesh_files(scene, base_dir, lambda mesh_path: self.upload_asset(
            mesh_path).name)

    # -- queries ------------------------------------------------------------------------

    def query(self, world, queries):
        """Answers `queries` (SceneQuery messages or dicts) against the newest frame of
        `world`, in order, as a QueryResponse: its tick, and per query its hits."""
        request = query_service_pb2.QueryRequest(
            world=world_name(world),
            queries=[to_message(q, SceneQuery, f"queries[{i}]") for i, q in enumerate(queries)])
        return self._call(self._queries.Query, request, world)

    def raycast(self, world, origin, direction, max_distance=0.0, all_hits=False, exclude=()):
        """The hits of the ray from `origin` along `direction` (any non-zero length) as
        QueryHit messages: the nearest only, or with `all_hits` every body's first, nearest
        first. `max_distance` 0 reaches 10 km; `exclude` leaves body ids out."""
        ray = {"origin": vec3(origin), "direction": vec3(direction),
               "max_distance": max_distance, "all_hits": all_hits}
        return self._ask_one(world, {"ray": ray}, exclude)

    def shape_cast(self, world, shape, origin, direction, max_distance=0.0, orientation=None,
                   exclude=()):
        """The first body a convex `shape` (sphere, box, capsule or hull; message or dict)
        touches when swept from `origin` along `direction`, as a QueryHit whose distance is
        how far it got; None when it touches nothing."""
        cast = {"shape": shape, "pose": pose(origin, orientation),
                "direction": vec3(direction), "max_distance": max_distance}
        hits = self._ask_one(world, {"shape_cast": cast}, exclude)
        return hits[0] if hits else None

    def overlap(self, world, shape, position, orientation=None, max_results=0, exclude=()):
        """The bodies a convex `shape` at `position` overlaps, in the world's order, as
        QueryHit messages (at most `max_results`, 0: 256)."""
        query = {"shape": shape, "pose": pose(position, orientation), "max_results": max_results}
        return self._ask_one(world, {"overlap": query}, exclude)

    def closest_point(self, world, point, max_distance=0.0, exclude=()):
        """The body nearest `point` within `max_distance` (0: 10 km) as a QueryHit (its
        point and the gap, 0 inside it), or None."""
        query = {"point": vec3(point), "max_distance": max_distance}
        hits = self._ask_one(world, {"closest_point": query}, exclude)
        return hits[0] if hits else None

    def query_stream(self, world):
        """A :class:`QueryStream` on `world` for per-frame queries (a pointer at display
        rate): ``stream.ask([...])`` answers like :meth:`query` on one open stream."""
        stream = QueryStream(self._queries, world_name(world), self._close_timeout,
                             self._metadata(world))
        self._streams.add(stream)
        return stream

    def _ask_one(self, world, query, exclude):
        """The hits of one query (a dict) with `exclude` as its filter."""
        if exclude:
            query["filter"] = {"exclude_bodies": list(exclude)}
        return list(self.query(world, [query]).results[0].hits)

    # -- sessions -----------------------------------------------------------------------

    def watch(self, world, rate_hz=0.0, bodies=(), duration=None, resume=False):
        """Streams the frames of `world` as a :class:`FrameStream`.

        `rate_hz` caps the frame rate (0: the world's rate); `bodies` limits frames to
        those body ids; `duration` (s) ends the stream after that long. Close the stream
        (or use it in a ``with`` block) to end it early. With `resume`, a stream whose
        server goes away (UNAVAILABLE) is opened again, for viewers of several viewer
        gateways behind one address (see :class:`ResumingWatch`).
        """
        request = session_service_pb2.WatchRequest(
            world=world_name(world), max_rate_hz=rate_hz, body_ids=list(bodies))
        metadata = self._metadata(world)

        def open_call(timeout):
            return self._sessions.Watch(request, timeout=timeout, metadata=metadata)

        if resume:
            stream = ResumingWatch(open_call, duration=duration)
        else:
            stream = FrameStream(open_call(duration), "Watch", duration=duration)
        self._streams.add(stream)
        return stream

    def watch_events(self, world, bodies=(), layer_mask=None, min_impulse=0.0, kinds=(),
                     duration=None):
        """Streams the contact and trigger events of `world` as a stream of WorldEvents
        messages, one per tick with events that pass the filters.

        `bodies` keeps the events with one of those body ids on either side; `layer_mask`
        those with a rigid side on one of those layers; `min_impulse` (N s) the contact
        events at least that strong; `kinds` names the kinds wanted (``"CONTACT_BEGIN"``,
        ``"CONTACT_PERSIST"``, ``"CONTACT_END"``, ``"TRIGGER_ENTER"``, ``"TRIGGER_EXIT"``;
        empty: all but persist). A message's ``dropped`` counts the events that passed the
        filters but were lost because this reader fell behind. `duration` (s) ends the
        stream after that long.
        """
        request = session_service_pb2.WatchEventsRequest(
            world=world_name(world), body_ids=list(bodies), min_impulse=min_impulse,
            kinds=[events_pb2.EventKind.Value(k) if isinstance(k, str) else k for k in kinds])
        if layer_mask is not None:
            request.layer_mask = layer_mask
        call = self._sessions.WatchEvents(request, timeout=duration,
                                          metadata=self._metadata(world))
        stream = FrameStream(call, "WatchEvents", duration=duration)
        self._streams.add(stream)
        return stream

    def interact(self, world, rate_hz=0.0, bodies=()):
        """Opens a device session (:class:`Interaction`) on `world`: send poses of
        kinematic bodies, iterate frames."""
        session = Interaction(self._sessions, world_name(world), rate_hz, bodies,
                              self._close_timeout, self._metadata(world))
        self._streams.add(session)
        return session


def _mask_paths(prefix, value, nested):
    """Update mask paths for `value` (dict or message) under `prefix`: the keys given,
    descending into the nested dicts listed in `nested`."""
    if not isinstance(value, dict):
        fields = [f.name for f, _ in value.ListFields() if f.name not in ("name", "id")]
        return [_join(prefix, f) for f in fields]
    paths = []
    for key, item in value.items():
        key = re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()  # JSON names to field names
        path = _join(prefix, key)
        if isinstance(item, dict) and path in nested:
            paths.extend(_mask_paths(path, item, nested))
        elif key not in ("name", "id"):
            paths.append(path)
    return paths


def _join(prefix, key):
    return f"{prefix}.{key}" if prefix else key


def _method_name(method):
    """The RPC name of a stub method, for error messages."""
    name = getattr(method, "_method", b"")
    if isinstance(name, bytes):
        name = name.decode()
    return name.rsplit("/", 1)[-1] or None

