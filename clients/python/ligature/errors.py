"""The one exception type of the client, carrying a gRPC status code and message."""

import grpc


class LigatureError(Exception):
    """A failed call or bad input.

    Attributes:
        code: the ``grpc.StatusCode`` (``INVALID_ARGUMENT`` for bad input, whether the
            server or the client found it; ``NOT_FOUND``, ``ALREADY_EXISTS``,
            ``FAILED_PRECONDITION``, ``RESOURCE_EXHAUSTED``, ``UNAVAILABLE`` ...).
        message: the server's message (for bad input it names the offending field).
        method: the RPC that failed (e.g. ``"CreateBody"``), or None for a local check.
    """

    def __init__(self, code, message, method=None):
        self.code = code
        self.message = message
        self.method = method
        where = f"{method}: " if method else ""
        super().__init__(f"{where}{code.name}: {message}")

    @classmethod
    def from_rpc_error(cls, error, method=None):
        """Builds a LigatureError from a ``grpc.RpcError`` raised by a call or stream."""
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = error.details() if hasattr(error, "details") else str(error)
        return cls(code or grpc.StatusCode.UNKNOWN, details or "", method)


def invalid_argument(message):
    """A LigatureError for bad input found on the client side."""
    return LigatureError(grpc.StatusCode.INVALID_ARGUMENT, message)
