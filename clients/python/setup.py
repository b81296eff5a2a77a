"""Builds the `ligature` package with its ligature.v1 stubs generated at build time.

The stubs come from proto/ligature/v1/*.proto, two folders up from here (or from the folder
the environment variable LIGATURE_PROTO_DIR names, the one that holds ligature/v1/), and are
written into the build folder beside the package, never into the sources. protoc and
grpc_python_plugin are found on PATH, or named by PROTOC and GRPC_PYTHON_PLUGIN."""

import glob
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def proto_root():
    root = os.environ.get("LIGATURE_PROTO_DIR") or os.path.join(HERE, "..", "..", "proto")
    root = os.path.normpath(root)
    if not glob.glob(os.path.join(root, "ligature", "v1", "*.proto")):
        raise SystemExit(f"ligature: no ligature/v1/*.proto under {root}; build from the "
                         "repository's clients/python, or set LIGATURE_PROTO_DIR")
    return root


def tool(variable, name, package):
    path = os.environ.get(variable) or shutil.which(name)
    if not path:
        raise SystemExit(f"ligature: {name} not found (Debian package {package}); "
                         f"install it or set {variable}")
    return path


class BuildPyWithStubs(build_py):
    """build_py, then protoc's Python and gRPC stubs into <build_lib>/ligature/v1."""

    def run(self):
        super().run()
        root = proto_root()
        protos = sorted(glob.glob(os.path.join(root, "ligature", "v1", "*.proto")))
        out = os.path.join(self.build_lib, "ligature", "v1")
        os.makedirs(out, exist_ok=True)
        protoc = tool("PROTOC", "protoc", "protobuf-compiler")
        plugin = tool("GRPC_PYTHON_PLUGIN", "grpc_python_plugin", "protobuf-compiler-grpc")
        self.announce(f"generating ligature.v1 from {len(protos)} files in {root}", level=2)
        subprocess.run([protoc, f"--proto_path={root}", f"--python_out={self.build_lib}",
                        f"--grpc_python_out={self.build_lib}",
                        f"--plugin=protoc-gen-grpc_python={plugin}"] + protos, check=True)
        with open(os.path.join(out, "__init__.py"), "w") as f:
            f.write('"""ligature.v1: generated from proto/ligature/v1/*.proto."""\n')


setup(cmdclass={"build_py": BuildPyWithStubs})
