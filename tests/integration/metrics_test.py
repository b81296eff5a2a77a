"""ligatured --metrics_address: scrapes the Prometheus endpoint of a real server while a
client creates, steps, watches and drives worlds, and checks the metrics follow."""

import json
import os
import re
import time
import unittest
import urllib.request

import ligature
from server_process import ServerProcess

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$")
_METRICS_PORT = re.compile(r"metrics on \S+ \(port (\d+)\)")
DASHBOARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy",
                         "grafana", "ligature.json")

EXPECTED = [
    "ligature_worlds", "ligature_world_bodies", "ligature_world_constraints",
    "ligature_world_paused", "ligature_world_rate_hz", "ligature_world_ticks_total",
    "ligature_world_tick_duration_seconds", "ligature_world_tick_overruns_total",
    "ligature_world_missed_ticks_total", "ligature_world_recovered_bodies_total",
    "ligature_world_budget_exhausted_ticks_total", "ligature_sessions",
    "ligature_frames_sent_total", "ligature_frames_conflated_total",
    "ligature_frames_encoded_total", "ligature_nats_connected", "ligature_frames_published_total",
    "ligature_frame_publish_failures_total",
    "ligature_device_poses_total", "ligature_haptic_sessions", "ligature_haptic_poses_total",
    "ligature_haptic_rejected_poses_total", "ligature_haptic_watchdog_trips_total",
    "ligature_haptic_round_trip_seconds", "ligature_haptic_jitter_seconds",
    "ligature_haptic_datagram_poses_total", "ligature_haptic_datagrams_total",
    "ligature_haptic_datagram_send_failures_total",
]


def parse(text):
    """Samples of a text exposition as {(name, ((label, value), ...)): float}, and the
    declared type of each family."""
    samples, types = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            types[name] = kind
            continue
        if not line or line.startswith("#"):
            continue
        match = _SAMPLE.match(line)
        if match is None:
            raise AssertionError(f"not a sample line: {line!r}")
        name, labels, value = match.groups()
        pairs = tuple(sorted(re.findall(r'(\w+)="([^"]*)"', labels or "")))
        samples[(name, pairs)] = float(value)
    return samples, types


class MetricsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess("--metrics_address=127.0.0.1:0").start()
        # The exporter's line comes after the one start() waits for.
        deadline = time.monotonic() + 10.0
        match = _METRICS_PORT.search(cls.server.log())
        while match is None and time.monotonic() < deadline:
            time.sleep(0.02)
            match = _METRICS_PORT.search(cls.server.log())
        assert match, cls.server.log()
        cls.url = f"http://127.0.0.1:{match.group(1)}/metrics"
        cls.client = ligature.connect(cls.server.address)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        assert cls.server.stop() == 0, cls.server.log()

    def scrape(self):
        with urllib.request.urlopen(self.url, timeout=10) as response:
            self.assertEqual(response.status, 200)
            return parse(response.read().decode())

    def value(self, samples, name, **labels):
        key = (name, tuple(sorted(labels.items())))
        self.assertIn(key, samples, f"{key} not scraped")
        return samples[key]

    def wait_for(self, predicate, what, timeout=5.0):
        """Scrapes until predicate(samples) holds (the server updates asynchronously)."""
        deadline = time.monotonic() + timeout
        while True:
            samples, _ = self.scrape()
            if predicate(samples):
                return samples
            if time.monotonic() > deadline:
                self.fail(f"{what} did not happen within {timeout} s")
            time.sleep(0.05)

    def test_names_types_and_step_counts(self):
        ball = {"shape": {"sphere": {"radius": 0.1}}, "pose": {"position": (0, 5, 0)}}
        self.client.create_world("stepped", scene={
            "settings": {"rate_hz": 100, "paused": True},
            "bodies": [dict(ball, id="a"), dict(ball, id="b")]})
        samples, types = self.scrape()
        for name in EXPECTED:
            self.assertIn(name, types, f"family {name} missing")
        self.assertEqual(types["ligature_world_tick_duration_seconds"], "histogram")
        self.assertEqual(types["ligature_world_ticks_total"], "counter")
        self.assertEqual(self.value(samples, "ligature_world_bodies", world="stepped"), 2)
        self.assertEqual(self.value(samples, "ligature_world_ticks_total", world="stepped"), 0)

        # Steps count exactly, StepWorld's included, and the histogram sees every one.
        for ticks, total in ((10, 10), (5, 15)):
            self.client.step_world("stepped", ticks)
            samples = self.wait_for(
                lambda s: s[("ligature_world_ticks_total", (("world", "stepped"),))] >= total,
                f"{total} ticks counted")
            self.assertEqual(
                self.value(samples, "ligature_world_ticks_total", world="stepped"), total)
            self.assertEqual(self.value(
                samples, "ligature_world_tick_duration_seconds_count", world="stepped"), total)
            self.assertEqual(self.value(
                samples, "ligature_world_tick_duration_seconds_bucket", world="stepped",
                le="+Inf"), total)
        self.client.delete_world("stepped")
        samples, _ = self.scrape()
        self.assertNotIn(("ligature_world_bodies", (("world", "stepped"),)), samples)

    def test_running_world_ticks_increase_and_streams_are_counted(self):
        self.client.create_world("running", scene={"settings": {"rate_hz": 100}, "bodies": [
            {"id": "paddle", "kind": "kinematic", "shape": {"sphere": {"radius": 0.1}}}]})
        first, _ = self.scrape()
        ticks0 = self.value(first, "ligature_world_ticks_total", world="running")
        self.wait_for(lambda s: s[("ligature_world_ticks_total", (("world", "running"),))]
                      > ticks0, "ticks increasing")

        # A 5 Hz watcher of a 100 Hz world: one open watch stream, frames sent, and the
        # frames in between conflated.
        sent0 = self.value(first, "ligature_frames_sent_total", kind="watch")
        with self.client.watch("running", rate_hz=5) as frames:
            for i, _ in enumerate(frames):
                if i == 2:
                    break
            samples, _ = self.scrape()
            self.assertEqual(self.value(samples, "ligature_sessions", kind="watch"), 1)
            # A frame is counted once its write completes, which may come after the client
            # has read it: the third one shows up shortly.
            samples = self.wait_for(
                lambda s: s[("ligature_frames_sent_total", (("kind", "watch"),))] >= sent0 + 3,
                "three watch frames counted")
        self.assertGreater(self.value(samples, "ligature_frames_conflated_total", kind="watch"),
                           0)
        self.wait_for(lambda s: s[("ligature_sessions", (("kind", "watch"),))] == 0,
                      "the closed watch stream leaving the gauge")

        # Device poses arrive on an Interact stream, counted while it is open.
        poses0 = self.value(samples, "ligature_device_poses_total")
        with self.client.interact("running") as session:
            for x in (0.1, 0.2, 0.3):
                session.drive("paddle", (x, 0, 0))
            self.wait_for(lambda s: s[("ligature_sessions", (("kind", "interact"),))] == 1
                          and s[("ligature_device_poses_total", ())] == poses0 + 3,
                          "an open interact session with 3 poses")
        self.client.delete_world("running")

    def test_dashboard_queries_only_exported_metrics(self):
        with open(DASHBOARD) as f:
            dashboard = json.load(f)
        exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
        exprs += [v["query"] for v in dashboard["templating"]["list"] if v["type"] == "query"]
        _, types = self.scrape()
        used = set()
        for expr in exprs:
            for name in re.findall(r"\bligature_[a-z_]+", expr):
                family = re.sub(r"_(bucket|sum|count)$", "", name)
                if family not in types:
                    family = name
                self.assertIn(family, types, f"{name} in {expr!r} is not exported")
                if name != family:
                    self.assertEqual(types[family], "histogram", name)
                used.add(family)
        # Every exported family has a panel.
        self.assertEqual(sorted(set(EXPECTED) - used), [])


if __name__ == "__main__":
    unittest.main()
