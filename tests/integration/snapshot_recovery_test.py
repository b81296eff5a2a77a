"""ligatured --data_dir: worlds are snapshotted periodically, survive a kill -9, and come
back at their last snapshot, stepping exactly as a world restored from that same file."""

import glob
import os
import re
import signal
import tempfile
import time
import unittest

import grpc

import ligature
from server_process import ServerProcess

_SNAPSHOT = re.compile(r"^([a-z0-9][a-z0-9_-]*)\.(\d{20})\.snap$")


def snapshot_files(data_dir):
    """{world id: [(tick, path), ...] newest first}."""
    found = {}
    for path in glob.glob(os.path.join(data_dir, "*.snap")):
        match = _SNAPSHOT.match(os.path.basename(path))
        if match:
            found.setdefault(match.group(1), []).append((int(match.group(2)), path))
    for files in found.values():
        files.sort(reverse=True)
    return found


def positions(frame):
    """Every body's exact pose and rod/soft/strand points, for bit-for-bit comparison."""
    out = []
    for b in frame.bodies:
        p = b.pose
        out.append((b.id, p.position.x, p.position.y, p.position.z, p.orientation.w,
                    p.orientation.x, p.orientation.y, p.orientation.z,
                    tuple((v.x, v.y, v.z) for v in b.rod_points),
                    tuple((v.x, v.y, v.z) for v in b.soft_vertices),
                    tuple((v.x, v.y, v.z) for v in b.strand_points)))
    return out


class SnapshotRecoveryTest(unittest.TestCase):
    # Worlds stepped through StepWorld while paused, so their ticks are exact.
    PAUSED = {"rigid": "default", "rods": "necklace", "strands": "braid", "soft": "tissue"}

    def test_save_and_restore_over_grpc(self):
        with ServerProcess() as server:
            client = ligature.connect(server.address, timeout=20)
            client.create_world("src", scene_name="bow")
            client.set_paused("src")
            stepped = client.step_world("src", 25).tick
            data, tick = client.save_snapshot("src")
            self.assertEqual(tick, stepped)
            # Restoring creates a missing world...
            world = client.restore_snapshot("copy", data)
            self.assertEqual(world.name, "worlds/copy")
            self.assertEqual(world.tick, stepped)
            # ...and replaces an existing one in place.
            client.create_world("other", scene_name="default")
            self.assertEqual(client.restore_snapshot("other", data).tick, stepped)
            frames = [client.step_world(w, 30) for w in ("src", "copy", "other")]
            self.assertEqual(positions(frames[0]), positions(frames[1]))
            self.assertEqual(positions(frames[0]), positions(frames[2]))
            # A bad snapshot is refused and changes nothing.
            before = frames[2].tick
            with self.assertRaises(ligature.LigatureError) as refused:
                client.restore_snapshot("other", data[: len(data) // 2])
            self.assertEqual(refused.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
            # (Asked on the world's thread: GetWorld's summary catches up at the tick's end.)
            self.assertEqual(client.save_snapshot("other")[1], before)
            client.close()

    def test_worlds_come_back_after_kill_9(self):
        with tempfile.TemporaryDirectory() as data_dir:
            args = (f"--data_dir={data_dir}", "--snapshot_interval_s=0.2")
            server = ServerProcess(*args).start()
            try:
                client = ligature.connect(server.address, timeout=20)
                stepped = {}
                for i, (world, scene) in enumerate(sorted(self.PAUSED.items())):
                    client.create_world(world, scene_name=scene)
                    client.set_paused(world)
                    stepped[world] = client.step_world(world, 10 + 7 * i).tick
                client.create_world("running", scene_name="default")
                # Wait until every paused world's snapshot holds the stepped tick.
                deadline = time.monotonic() + 10
                while True:
                    files = snapshot_files(data_dir)
                    if all(files.get(w, [(None,)])[0][0] == t for w, t in stepped.items()) \
                            and "running" in files:
                        break
                    self.assertLess(time.monotonic(), deadline, server.log())
                    time.sleep(0.05)
                client.close()
            finally:
                server.process.send_signal(signal.SIGKILL)
                server.process.wait()
                server.stop()
            files = snapshot_files(data_dir)
            newest_running = files["running"][0][0]
            # No temporary file is left under a snapshot name, at most two files per world.
            self.assertTrue(all(len(f) <= 2 for f in files.values()), files)

            with ServerProcess(*args) as restarted:
                client = ligature.connect(restarted.address, timeout=20)
                self.assertRegex(restarted.log(),
                                 rf"world worlds/running restored from \S+ \(tick {newest_running}\)")
                self.assertGreaterEqual(client.get_world("running").tick, newest_running)
                for world, tick in stepped.items():
                    self.assertEqual(client.get_world(world).tick, tick, world)
                    with open(files[world][0][1], "rb") as f:
                        reference = client.restore_snapshot(f"ref-{world}", f.read())
                    self.assertEqual(reference.tick, tick)
                    a = client.step_world(world, 20)
                    b = client.step_world(f"ref-{world}", 20)
                    self.assertEqual(a.tick, tick + 20)
                    self.assertEqual(positions(a), positions(b), world)
                client.close()
                self.assertEqual(restarted.stop(), 0)

    def test_corrupt_newest_file_falls_back_to_the_previous(self):
        with tempfile.TemporaryDirectory() as data_dir:
            args = (f"--data_dir={data_dir}", "--snapshot_interval_s=0.1")
            with ServerProcess(*args) as server:
                client = ligature.connect(server.address, timeout=20)
                client.create_world("w", scene_name="necklace")
                client.set_paused("w")
                first = client.step_world("w", 5).tick
                deadline = time.monotonic() + 10
                while snapshot_files(data_dir).get("w", [(0,)])[0][0] != first:
                    self.assertLess(time.monotonic(), deadline)
                    time.sleep(0.05)
                second = client.step_world("w", 5).tick
                while snapshot_files(data_dir).get("w", [(0,)])[0][0] != second:
                    self.assertLess(time.monotonic(), deadline)
                    time.sleep(0.05)
                client.close()
                server.process.send_signal(signal.SIGKILL)
                server.process.wait()
            files = snapshot_files(data_dir)["w"]
            self.assertEqual([t for t, _ in files], [second, first])
            # The newest file torn in half (as a failing disk might leave it).
            with open(files[0][1], "r+b") as f:
                size = os.path.getsize(files[0][1])
                f.truncate(size // 2)
            with ServerProcess(*args) as restarted:
                client = ligature.connect(restarted.address, timeout=20)
                self.assertEqual(client.get_world("w").tick, first)
                self.assertIn("skipped", restarted.log())
                client.close()


if __name__ == "__main__":
    unittest.main()
