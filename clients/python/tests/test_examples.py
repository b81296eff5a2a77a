"""Smoke test of the examples: each runs as a program against a real ligatured."""

import math
import os
import subprocess
import sys
import unittest

import ligature
from server_process import ServerProcess

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


class ExamplesTest(unittest.TestCase):
    def run_example(self, server, name, *args):
        result = subprocess.run(
            [sys.executable, os.path.join(EXAMPLES, name), "--server", server.address, *args],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0,
                         f"{name} failed:\n{result.stdout}\n{result.stderr}\n{server.log()}")
        return result.stdout

    def test_create_watch_drive(self):
        with ServerProcess() as server:
            out = self.run_example(server, "create_world.py",
                                   os.path.join(EXAMPLES, "paddle.json"), "--id", "paddle")
            self.assertIn("created worlds/paddle: 5 bodies", out)
            self.assertIn("paddle: (0.000, 0.500, 0.000)", out)

            out = self.run_example(server, "watch_world.py", "paddle", "--rate", "20",
                                   "--frames", "5", "--bodies", "ball-1,crate")
            lines = [line for line in out.splitlines() if line.startswith("tick ")]
            self.assertEqual(len(lines), 5, out)
            self.assertTrue(all("ball-1=" in line and "crate=" in line and "ball-2" not in line
                                for line in lines), out)

            out = self.run_example(server, "drive_body.py", "paddle", "paddle",
                                   "--radius", "0.3", "--seconds", "1")
            self.assertIn("paddle at", out)
            # After the drive the paddle holds its last pose, on the 0.3 m circle.
            with ligature.connect(server.address) as client:
                client.set_paused("paddle")
                state = ligature.body_state(client.step_world("paddle", 2), "paddle")
            p = state.pose.position
            self.assertAlmostEqual(math.hypot(p.x, p.z), 0.3, delta=1e-6)
            self.assertAlmostEqual(p.y, 0.5, delta=1e-9)

            # A missing scene file fails cleanly with a non-zero exit and the reason.
            result = subprocess.run(
                [sys.executable, os.path.join(EXAMPLES, "create_world.py"), "nope.json",
                 "--server", server.address], capture_output=True, text=True, timeout=60)
            self.assertEqual(result.returncode, 1)
            self.assertIn("NOT_FOUND", result.stderr)


if __name__ == "__main__":
    unittest.main()
