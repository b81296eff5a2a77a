"""Resource names: worlds/{world}, worlds/{world}/bodies/{body},
worlds/{world}/constraints/{constraint}, assets/{sha256}. Functions accept ids or full
names."""

from ligature.errors import invalid_argument

# Every call about a world carries the world id in this request header, so that a router
# in front of several servers (deploy/nginx) can send all of a world's calls to the server
# that holds it. Servers ignore it.
ROUTING_HEADER = "ligature-world"


def world_name(world):
    """``worlds/{id}`` from an id, a full name or a World message."""
    name = getattr(world, "name", world)
    if not isinstance(name, str) or not name:
        raise invalid_argument(f"world: expected a world id or name, got {world!r}")
    return name if name.startswith("worlds/") else f"worlds/{name}"


def routing_metadata(world):
    """gRPC metadata naming `world` for routers, or None when the call names no world."""
    if world is None:
        return None
    return ((ROUTING_HEADER, world_name(world)[len("worlds/"):]),)


def body_name(world, body):
    """``worlds/{world}/bodies/{body}`` from a world and a body id or full body name."""
    return _child_name(world, body, "bodies", "body")


def constraint_name(world, constraint):
    """``worlds/{world}/constraints/{id}`` from a world and a constraint id or name."""
    return _child_name(world, constraint, "constraints", "constraint")


def _child_name(world, child, collection, what):
    child = getattr(child, "name", None) or getattr(child, "id", None) or child
    if not isinstance(child, str) or not child:
        raise invalid_argument(f"{what}: expected an id or name, got {child!r}")
    if child.startswith("worlds/"):
        return child
    return f"{world_name(world)}/{collection}/{child}"


def asset_name(asset):
    """``assets/{sha256}`` from the hash, a full name or an Asset message."""
    name = getattr(asset, "name", asset)
    if not isinstance(name, str) or not name:
        raise invalid_argument(f"asset: expected an asset name or hash, got {asset!r}")
    return name if name.startswith("assets/") else f"assets/{name}"
