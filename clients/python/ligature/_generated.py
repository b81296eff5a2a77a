"""The generated ligature.v1 modules, imported in one place with a helpful error."""

try:
    from ligature.v1 import (  # noqa: F401
        asset_pb2, asset_service_pb2, asset_service_pb2_grpc, events_pb2, frame_pb2,
        geometry_pb2,
        query_service_pb2, query_service_pb2_grpc, scene_pb2, scene_service_pb2,
        scene_service_pb2_grpc, session_service_pb2, session_service_pb2_grpc, world_service_pb2,
        world_service_pb2_grpc)
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ligature: the generated ligature.v1 stubs were not found; install the package "
        "(pip install ./clients/python), or build the CMake target ligature_python_stubs "
        f"and put <build>/clients/python/gen on PYTHONPATH ({error})") from error

__all__ = [
    "asset_pb2", "asset_service_pb2", "asset_service_pb2_grpc", "events_pb2", "frame_pb2",
    "geometry_pb2",
    "query_service_pb2", "query_service_pb2_grpc", "scene_pb2", "scene_service_pb2",
    "scene_service_pb2_grpc", "session_service_pb2", "session_service_pb2_grpc", "world_service_pb2", "world_service_pb2_grpc",
]
