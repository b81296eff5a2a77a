"""Installs the package the way a user does and uses it from outside the repository.

A virtual environment that sees the system's packages (Debian's grpcio, protobuf and
setuptools) gets `pip install --no-build-isolation --no-deps --no-index ./clients/python`
(no network); then, from a folder outside the repository and without PYTHONPATH, its Python
imports ligature and the generated ligature.v1 modules, and, when LIGATURED names a server
binary, creates a world on a real ligatured and reads it back.

    /usr/bin/python3 clients/python/tests/pip_install_check.py"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

# Run by the installed package's Python, in a folder outside the repository.
USE = r'''
import os, sys
import ligature
import ligature.v1.scene_pb2 as scene_pb2
import ligature.v1.world_service_pb2_grpc  # noqa: F401
site = os.path.realpath(sys.argv[1])
assert os.path.realpath(ligature.__file__).startswith(site), ligature.__file__
assert os.path.realpath(scene_pb2.__file__).startswith(site), scene_pb2.__file__
scene = scene_pb2.Scene()
print("imported ligature from", os.path.dirname(ligature.__file__))
if len(sys.argv) > 2:
    with ligature.connect(sys.argv[2]) as client:
        world = client.create_world("installed", scene_name="default")
        assert world.name == "worlds/installed", world
        assert world.body_count > 0, world
        names = [w.name for w in client.list_worlds()]
        assert "worlds/installed" in names, names
        print("created", world.name, "with", world.body_count, "bodies")
'''


def run(argv, **kwargs):
    shown = ["<script>" if "\n" in arg else arg for arg in argv]
    print("$", " ".join(shown), flush=True)
    subprocess.run(argv, check=True, **kwargs)


def main():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    tmp = tempfile.mkdtemp(prefix="ligature-pip-")
    server = None
    try:
        venv = os.path.join(tmp, "venv")
        run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv], env=env)
        python = os.path.join(venv, "bin", "python")
        run([os.path.join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-deps",
             "--no-index", "./clients/python"], cwd=REPO, env=env)
        site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              check=True, capture_output=True, text=True, env=env).stdout.strip()
        args = [python, "-c", USE, site]
        if os.environ.get("LIGATURED"):
            sys.path.insert(0, HERE)
            from server_process import ServerProcess
            server = ServerProcess().start()
            args.append(server.address)
        outside = os.path.join(tmp, "elsewhere")
        os.mkdir(outside)
        run(args, cwd=outside, env=env)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("pip install ./clients/python: installed, imported and used")
    return 0


if __name__ == "__main__":
    sys.exit(main())
