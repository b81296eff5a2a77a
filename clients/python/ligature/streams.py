"""Server streams of frames: Watch (frames out) and Interact (device poses in, frames out),
and the stream of per-frame scene queries (StreamQueries).

The frame streams are iterators of ligature.v1.Frame messages; every stream is a context
manager, closing one ends its RPC cleanly, and the client closes the streams still open
when it closes."""

import queue
import threading
import time

import grpc

from ligature._generated import query_service_pb2, session_service_pb2
from ligature.errors import LigatureError
from ligature.messages import DevicePose, Pose, SceneQuery, pose, to_message
from ligature.names import routing_metadata


class FrameStream:
    """Frames of a world, newest first when the reader is slow (the server skips frames
    rather than queueing them). Iterate it; close it (or leave its ``with`` block) to end
    the stream.

    A stream opened with a ``duration`` ends (StopIteration) once that many seconds have
    passed. Errors (the world was deleted, the server stopped, bad watch arguments) raise
    LigatureError from the iteration.
    """

    def __init__(self, call, method, duration=None):
        self._call = call
        self._method = method
        self._duration = duration
        self._closed = False
        self._error_raised = False  # an error already reached the reader
        self._cancelled = False     # this side cancelled the call
        self._lock = threading.Lock()
        # gRPC allows one read at a time on a call: readers (and Interaction.close, which
        # drains) take turns.
        self._read_lock = threading.Lock()

    def __iter__(self):
        return self

    def __next__(self):
        with self._read_lock:
            if self._closed:
                raise StopIteration
            try:
                return next(self._call)
            except StopIteration:
                self._closed = True
                raise
            except grpc.RpcError as error:
                ended_by_us = self._cancelled and error.code() == grpc.StatusCode.CANCELLED
                timed_out = (self._duration is not None
                             and error.code() == grpc.StatusCode.DEADLINE_EXCEEDED)
                self._closed = True
                if ended_by_us or timed_out:
                    raise StopIteration from None
                self._error_raised = True
                raise LigatureError.from_rpc_error(error, self._method) from None

    @property
    def closed(self):
        """Whether the stream has ended or was closed."""
        return self._closed

    def close(self):
        """Ends the stream (cancels the RPC); further iteration stops. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._cancel()

    def _cancel(self):
        self._cancelled = True
        self._call.cancel()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


class ResumingWatch(FrameStream):
    """A Watch that opens itself again when its server goes away (UNAVAILABLE), for viewers
    of viewer gateways: a channel naming several of them (a DNS name with several addresses,
    or ``ipv4:A,B,C``) then reaches another. It gives up, raising the last error, after
    `give_up_after` seconds without a frame; other errors (a deleted world, bad arguments)
    end it as on a plain stream. Frames older than the last one yielded are skipped, and the
    newest one again, once, after a reopening."""

    def __init__(self, open_call, duration=None, give_up_after=10.0):
        self._open_call = open_call
        self._ends_at = None if duration is None else time.monotonic() + duration
        self._give_up_after = give_up_after
        self._last_tick = None
        self._reopened = False
        super().__init__(open_call(duration), "Watch", duration=duration)

    def __next__(self):
        while True:
            try:
                frame = super().__next__()
            except LigatureError as error:
                if error.code != grpc.StatusCode.UNAVAILABLE:
                    raise
                self._reopen(error)
                continue
            last, self._last_tick = self._last_tick, frame.tick
            reopened, self._reopened = self._reopened, False
            if last is not None and (frame.tick < last or (reopened and frame.tick == last)):
                self._last_tick = last
                continue
            return frame

    def _reopen(self, error):
        """Opens the call again, waiting a little between tries, until `give_up_after`."""
        gave_up_at = time.monotonic() + self._give_up_after
        while True:
            with self._lock:
                if self._cancelled:
                    raise StopIteration
            remaining = None if self._ends_at is None else self._ends_at - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise StopIteration
            if time.monotonic() > gave_up_at:
                raise error
            call = self._open_call(remaining)
            try:
                # The first message (or the error) says whether this server has the world.
                first = next(call)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE:
                    raise LigatureError.from_rpc_error(e, self._method) from None
                time.sleep(0.1)
                continue
            except StopIteration:
                raise
            with self._lock:
                self._call = _Prepended(first, call)
                self._closed = False
                self._error_raised = False
                self._reopened = True
            return


class _Prepended:
    """A call whose first message was read already: it comes first, then the rest."""

    def __init__(self, first, call):
        self._first = first
        self._call = call

    def __next__(self):
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return next(self._call)

    def cancel(self):
        self._call.cancel()


_END = object()  # ends the request stream (half-close)


def _queued(requests):
    """The requests put on queue `requests`, in order, until _END (the half-close)."""
    while True:
        item = requests.get()
        if item is _END:
            return
        yield item


class Interaction(FrameStream):
    """A device session on a world (the Interact RPC): poses sent with :meth:`send` or
    :meth:`drive` move kinematic bodies at the world's next tick, and the world's frames
    come back by iterating.

    :meth:`close` half-closes the request stream, so every pose sent is applied, then waits
    for the server to end the session; it raises LigatureError if the session failed (an
    unknown or non-kinematic body, a bad pose) unless that error was already raised by the
    iteration.
    """

    def __init__(self, stub, world, rate_hz, bodies, close_timeout, metadata=None):
        self._requests = queue.Queue()
        self._requests.put(session_service_pb2.InteractRequest(
            world=world, max_rate_hz=rate_hz, body_ids=list(bodies)))
        self._close_timeout = close_timeout
        self._half_closed = False
        if metadata is None:
            metadata = routing_metadata(world)
        call = stub.Interact(_queued(self._requests), metadata=metadata)
        super().__init__(call, "Interact")

    def send(self, poses):
        """Sends device poses: a mapping {body_id: pose} (a Pose, a dict, or a position
        (x, y, z)), or an iterable of DevicePose messages or dicts."""
        if self._half_closed:
            raise LigatureError(grpc.StatusCode.FAILED_PRECONDITION,
                                "the interaction is closed", self._method)
        if hasattr(poses, "items"):
            device_poses = [DevicePose(body_id=body, pose=_as_pose(p, f"poses[{body}]"))
                            for body, p in poses.items()]
        else:
            device_poses = [to_message(p, DevicePose, f"poses[{i}]")
                            for i, p in enumerate(poses)]
        self._requests.put(session_service_pb2.InteractRequest(poses=device_poses))

    def send_drive_targets(self, targets):
        """Sends new targets for joint drives, applied at the world's next tick: an iterable
        of DriveTarget messages or dicts, e.g. ``{"constraint_id": "elbow",
        "target_position": 0.5}`` or ``{"constraint_id": "grab", "frame_b": pose}``."""
        if self._half_closed:
            raise LigatureError(grpc.StatusCode.FAILED_PRECONDITION,
                                "the interaction is closed", self._method)
        messages = [to_message(t, session_service_pb2.DriveTarget, f"drive_targets[{i}]")
                    for i, t in enumerate(targets)]
        self._requests.put(session_service_pb2.InteractRequest(drive_targets=messages))

    def drive(self, body_id, position, orientation=None):
        """Sends one pose for kinematic body `body_id`: position (x, y, z) in m and an
        optional unit quaternion (x, y, z, w); the body reaches it at the next tick."""
        self.send({body_id: pose(position, orientation)})

    def close(self, raise_errors=True):
        """Half-closes, waits (up to the client's close timeout) for the server to end the
        session, and cancels it if it does not. Idempotent."""
        with self._lock:
            if self._half_closed:
                return
            self._half_closed = True
        self._requests.put(_END)
        # Drain the frames sent before the server saw the end, in turn with any other
        # reader; cancel if the server does not end the session in time.
        timer = threading.Timer(self._close_timeout, self._cancel)
        timer.start()
        error = None
        try:
            while True:
                with self._read_lock:
                    if self._closed:
                        break
                    try:
                        next(self._call)
                    except StopIteration:
                        self._closed = True
                    except grpc.RpcError as rpc_error:
                        self._closed = True
                        if rpc_error.code() != grpc.StatusCode.CANCELLED:
                            error = LigatureError.from_rpc_error(rpc_error, self._method)
        finally:
            timer.cancel()
        if error is not None and raise_errors and not self._error_raised:
            raise error

    def __exit__(self, exc_type, *exc):
        # An error already propagating is not masked by one from closing.
        self.close(raise_errors=exc_type is None)

    def __del__(self):
        try:
            self._requests.put(_END)
            self._cancel()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


class QueryStream:
    """Scene queries on one open StreamQueries call: :meth:`ask` sends a batch and returns
    its QueryResponse, answered against the world's newest frame. One ask at a time (a
    lock takes them in turn). A bad request ends the stream: that ask raises LigatureError
    and later ones raise FAILED_PRECONDITION."""

    def __init__(self, stub, world, close_timeout, metadata=None):
        self._world = world
        self._requests = queue.Queue()
        self._close_timeout = close_timeout
        self._next_id = 1
        self._closed = False
        self._lock = threading.Lock()
        self._call = stub.StreamQueries(_queued(self._requests), metadata=metadata)

    def ask(self, queries):
        """The answers to `queries` (SceneQuery messages or dicts), in order."""
        request = query_service_pb2.QueryRequest(
            world=self._world,
            queries=[to_message(q, SceneQuery, f"queries[{i}]") for i, q in enumerate(queries)])
        with self._lock:
            if self._closed:
                raise LigatureError(grpc.StatusCode.FAILED_PRECONDITION,
                                    "the query stream is closed", "StreamQueries")
            request.request_id = self._next_id
            self._next_id += 1
            self._requests.put(request)
            try:
                return next(self._call)
            except StopIteration:
                self._closed = True
                raise LigatureError(grpc.StatusCode.UNAVAILABLE,
                                    "the server ended the query stream",
                                    "StreamQueries") from None
            except grpc.RpcError as error:
                self._closed = True
                raise LigatureError.from_rpc_error(error, "StreamQueries") from None

    def close(self):
        """Half-closes the stream and waits (up to the client's close timeout) for the
        server to end it, cancelling it if it does not. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._requests.put(_END)
            timer = threading.Timer(self._close_timeout, self._call.cancel)
            timer.start()
            try:
                for _ in self._call:
                    pass
            except grpc.RpcError:
                pass
            finally:
                timer.cancel()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self._requests.put(_END)
            self._call.cancel()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


def _as_pose(value, field):
    """A Pose from a Pose, a dict, or a bare position (x, y, z)."""
    if isinstance(value, (list, tuple)) and len(value) == 3:
        return pose(value)
    return to_message(value, Pose, field)
