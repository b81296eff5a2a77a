"""deploy/k8s and deploy/agones: the manifests parse as YAML and hang together (selectors, ports, probes on
the gRPC health service, resources), and the router's nginx configuration passes
`nginx -t` and names every ligatured pod."""

import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

try:
    import yaml
except ImportError:  # the check needs python3-yaml; say so instead of passing silently
    if os.environ.get("LIGATURE_REQUIRE_ALL"):
        raise
    yaml = None

DEPLOY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy")
K8S = os.path.join(DEPLOY, "k8s")
FLEET = os.path.join(DEPLOY, "agones", "fleet.yaml")
# How often ligatured pings the Agones sidecar's /health (server/ops/agones_sdk.h).
AGONES_HEALTH_PING_SECONDS = 2
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
MAKE_CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "security",
                          "make_certs.sh")


def quantity(text):
    """A Kubernetes CPU or memory quantity as a number (cores or bytes)."""
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "": 1}
    number, unit = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(text)).groups()
    return float(number) * units[unit]


@unittest.skipIf(yaml is None, "python3-yaml is not installed: manifests not checked")
class ManifestsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.docs = []
        for path in sorted(glob.glob(os.path.join(K8S, "*.yaml"))):
            with open(path) as f:
                cls.docs += [d for d in yaml.safe_load_all(f) if d is not None]

    def of_kind(self, kind):
        return [d for d in self.docs if d["kind"] == kind]

    def one(self, kind, name):
        found = [d for d in self.of_kind(kind) if d["metadata"]["name"] == name]
        self.assertEqual(len(found), 1, f"{kind}/{name}")
        return found[0]

    def test_every_document_is_a_named_object(self):
        self.assertGreaterEqual(len(self.docs), 6)
        for d in self.docs:
            self.assertIn("apiVersion", d)
            self.assertIn("kind", d)
            self.assertRegex(d["metadata"]["name"], r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")

    def test_services_select_pods_and_ports_exist(self):
        workloads = self.of_kind("StatefulSet") + self.of_kind("Deployment")
        for service in self.of_kind("Service"):
            selector = service["spec"]["selector"]
            matches = [w for w in workloads if selector.items()
                       <= w["spec"]["template"]["metadata"]["labels"].items()]
            self.assertEqual(len(matches), 1, service["metadata"]["name"])
            port_names = {p["name"] for c in matches[0]["spec"]["template"]["spec"]["containers"]
                          for p in c["ports"]}
            for port in service["spec"]["ports"]:
                self.assertIn(port["targetPort"], port_names, service["metadata"]["name"])
        for w in workloads:
            self.assertLessEqual(w["spec"]["selector"]["matchLabels"].items(),
                                 w["spec"]["template"]["metadata"]["labels"].items())

    def test_ligatured_probes_health_on_its_grpc_port_with_resources(self):
        sts = self.one("StatefulSet", "ligatured")
        headless = self.one("Service", sts["spec"]["serviceName"])
        self.assertEqual(headless["spec"]["clusterIP"], "None")
        container = sts["spec"]["template"]["spec"]["containers"][0]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        args = dict(a.lstrip("-").split("=", 1) for a in container["args"])
        self.assertEqual(int(args["listen"].rsplit(":", 1)[1]), ports["grpc"])
        self.assertEqual(int(args["metrics_address"].rsplit(":", 1)[1]), ports["metrics"])
        for probe in ("readinessProbe", "livenessProbe"):
            self.assertEqual(container[probe]["grpc"]["port"], ports["grpc"], probe)
        resources = container["resources"]
        for key in ("cpu", "memory"):
            self.assertLessEqual(quantity(resources["requests"][key]),
                                 quantity(resources["limits"][key]), key)
        router = self.one("Deployment", "ligature-router")
        self.assertIn("limits", router["spec"]["template"]["spec"]["containers"][0]["resources"])

    def test_ligatured_snapshots_to_a_volume_of_its_own(self):
        sts = self.one("StatefulSet", "ligatured")
        container = sts["spec"]["template"]["spec"]["containers"][0]
        args = dict(a.lstrip("-").split("=", 1) for a in container["args"])
        mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
        claims = [c["metadata"]["name"] for c in sts["spec"].get("volumeClaimTemplates", [])]
        self.assertIn("data_dir", args)
        mounted = [name for name, path in mounts.items() if path == args["data_dir"]]
        self.assertEqual(len(mounted), 1, mounts)
        self.assertIn(mounted[0], claims)

    def test_gateways_take_frames_from_the_broker_ligatured_publishes_to(self):
        sts = self.one("StatefulSet", "ligatured")
        server = dict(a.lstrip("-").split("=", 1)
                      for a in sts["spec"]["template"]["spec"]["containers"][0]["args"])
        gateway = self.one("Deployment", "ligature-gateway")
        container = gateway["spec"]["template"]["spec"]["containers"][0]
        self.assertTrue(container["command"][0].endswith("/ligature-gateway"))
        args = dict(a.lstrip("-").split("=", 1) for a in container["args"])
        # Both name the broker's Service and port.
        self.assertEqual(args["nats_url"], server["nats_url"])
        host, port = args["nats_url"].removeprefix("nats://").split(":")
        broker = self.one("Service", host)
        self.assertIn(int(port), [p["port"] for p in broker["spec"]["ports"]])
        self.assertEqual(server["nats_worlds"], "*")
        # Ready while the broker is connected (grpc.health.v1 on the serving port); not
        # restarted for losing it, since a gateway reconnects by itself.
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        self.assertEqual(int(args["listen"].rsplit(":", 1)[1]), ports["grpc"])
        self.assertEqual(int(args["metrics_address"].rsplit(":", 1)[1]), ports["metrics"])
        self.assertEqual(container["readinessProbe"]["grpc"]["port"], ports["grpc"])
        self.assertNotIn("grpc", container["livenessProbe"])
        # The autoscaler scales the gateways, from at least the Deployment's replicas.
        hpa = self.one("HorizontalPodAutoscaler", "ligature-gateway")
        self.assertEqual(hpa["spec"]["scaleTargetRef"]["name"], "ligature-gateway")
        self.assertGreaterEqual(hpa["spec"]["maxReplicas"], hpa["spec"]["minReplicas"])
        self.assertLessEqual(hpa["spec"]["minReplicas"], gateway["spec"]["replicas"])
        self.assertIn("requests", container["resources"])  # CPU utilization needs requests

    def test_router_config_names_every_pod_and_passes_nginx_test(self):
        sts = self.one("StatefulSet", "ligatured")
        conf = self.one("ConfigMap", "ligature-router")["data"]["nginx.conf"]
        grpc_port = next(p["containerPort"] for p in
                         sts["spec"]["template"]["spec"]["containers"][0]["ports"]
                         if p["name"] == "grpc")
        expected = [f"ligatured-{i}.{sts['spec']['serviceName']}:{grpc_port}"
                    for i in range(sts["spec"]["replicas"])]
        self.assertEqual(re.findall(r"^\s*server (\S+) max_fails=0;", conf, re.M), expected)
        self.assertIn("hash $http_ligature_world consistent;", conf)
        # A call is never passed on to a pod that does not hold its world.
        self.assertIn("grpc_next_upstream off;", conf)
        if not os.access(NGINX, os.X_OK):
            if os.environ.get("LIGATURE_REQUIRE_ALL"):
                self.fail(f"nginx is not installed at {NGINX}")
            self.skipTest("nginx is not installed: configuration syntax not checked")
        # TLS ends at the router, with the certificate of a Secret.
        self.assertRegex(conf, r"listen \d+ ssl http2;")
        # nginx -t resolves upstream names and opens the files it names: point them here,
        # the Secret's certificate and key made for the check.
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["/bin/bash", MAKE_CERTS, tmp], check=True, timeout=60)
            local = re.sub(r"ligatured-\d+\.\S+?:", "127.0.0.1:", conf).replace("/tmp/", tmp + "/")
            local = local.replace("/etc/ligature-router/tls/tls.crt", os.path.join(tmp, "server.pem"))
            local = local.replace("/etc/ligature-router/tls/tls.key", os.path.join(tmp, "server.key"))
            path = os.path.join(tmp, "nginx.conf")
            with open(path, "w") as f:
                f.write(local)
            result = subprocess.run([NGINX, "-t", "-p", tmp, "-c", path],
                                    capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr)


@unittest.skipIf(yaml is None, "python3-yaml is not installed: fleet not checked")
class AgonesFleetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(FLEET) as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        cls.fleet = next(d for d in docs if d["kind"] == "Fleet")

    def test_fleet_runs_ligatured_with_its_grpc_port(self):
        self.assertEqual(self.fleet["apiVersion"], "agones.dev/v1")
        self.assertGreaterEqual(self.fleet["spec"]["replicas"], 1)
        gs = self.fleet["spec"]["template"]["spec"]
        containers = gs["template"]["spec"]["containers"]
        container = next(c for c in containers if c["name"] == gs["container"])
        args = dict(a.lstrip("-").split("=", 1) for a in container["args"])
        grpc = [p for p in gs["ports"] if p["name"] == "grpc"]
        self.assertEqual(len(grpc), 1)
        self.assertIn(grpc[0]["portPolicy"], ("Dynamic", "Passthrough", "Static"))
        self.assertEqual(grpc[0]["protocol"], "TCP")
        self.assertEqual(int(args["listen"].rsplit(":", 1)[1]), grpc[0]["containerPort"])
        self.assertTrue(args["listen"].startswith("0.0.0.0:"), "must be reachable from the node")
        resources = container["resources"]
        for key in ("cpu", "memory"):
            self.assertLessEqual(quantity(resources["requests"][key]),
                                 quantity(resources["limits"][key]), key)

    def test_fleet_snapshots_to_a_volume_of_the_pod(self):
        pod = self.fleet["spec"]["template"]["spec"]["template"]["spec"]
        container = next(c for c in pod["containers"] if c["name"] == "ligatured")
        args = dict(a.lstrip("-").split("=", 1) for a in container["args"])
        mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        mounted = [name for name, path in mounts.items() if path == args["data_dir"]]
        self.assertEqual(len(mounted), 1, mounts)
        self.assertIn("ephemeral", volumes[mounted[0]])

    def test_health_checking_is_on_and_slower_than_the_pings(self):
        health = self.fleet["spec"]["template"]["spec"]["health"]
        self.assertFalse(health.get("disabled", False))
        self.assertGreater(health["periodSeconds"], AGONES_HEALTH_PING_SECONDS)
        self.assertGreaterEqual(health["failureThreshold"], 1)


if __name__ == "__main__":
    unittest.main()
