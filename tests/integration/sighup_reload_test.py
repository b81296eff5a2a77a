"""ligatured --token_file: a real server answers UNAUTHENTICATED without a token, and takes a
rewritten token file after SIGHUP."""

import os
import signal
import tempfile
import time
import unittest

import grpc

from ligature.v1 import world_service_pb2, world_service_pb2_grpc
from server_process import ServerProcess


class SighupReloadTest(unittest.TestCase):
    def test_sighup_reloads_the_token_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            tokens = os.path.join(tmp, "tokens")
            with open(tokens, "w") as f:
                f.write("first owner *\n")
            with ServerProcess(f"--token_file={tokens}") as server:
                channel = grpc.insecure_channel(server.address)
                stub = world_service_pb2_grpc.WorldServiceStub(channel)
                request = world_service_pb2.ListWorldsRequest()

                def call(token):
                    metadata = [("authorization", f"Bearer {token}")] if token else []
                    try:
                        stub.ListWorlds(request, metadata=metadata, timeout=5)
                        return grpc.StatusCode.OK
                    except grpc.RpcError as e:
                        return e.code()

                self.assertEqual(call(None), grpc.StatusCode.UNAUTHENTICATED)
                self.assertEqual(call("first"), grpc.StatusCode.OK)
                self.assertEqual(call("second"), grpc.StatusCode.UNAUTHENTICATED)

                with open(tokens, "w") as f:
                    f.write("second viewer *\n")
                server.process.send_signal(signal.SIGHUP)
                # The reload is logged once done.
                deadline = time.monotonic() + 10
                while "token file reloaded" not in server.log():
                    self.assertLess(time.monotonic(), deadline, server.log())
                    time.sleep(0.02)
                self.assertEqual(call("second"), grpc.StatusCode.OK)
                self.assertEqual(call("first"), grpc.StatusCode.UNAUTHENTICATED)
                channel.close()
                self.assertEqual(server.stop(), 0)


if __name__ == "__main__":
    unittest.main()
