#!/usr/bin/env python3
"""Checks every #include under server/ and clients/cpp/ against server/DEPS.

Each line of DEPS names a folder (or a single file) and what it may include besides its own
files and the folders below it that have no line of their own. What it names may be a folder,
a single header, or a library outside the tree (proto, grpc, prometheus, qhull, cholmod,
urdfdom).
May-include is transitive: a folder may include whatever the folders it names may include. The
DEPS graph itself must have no cycle. Prints one line per offending include and exits 1 if there
is any.

Usage: check_includes.py [REPO_ROOT]
"""

import os
import re
import sys

SOURCE_ROOTS = ("server", "clients/cpp")
SUFFIXES = (".h", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# Libraries outside the tree that DEPS controls, by the first part of their header paths.
EXTERNAL = {
    "ligature/v1/": "proto",
    "google/protobuf/": "proto",
    "grpcpp/": "grpc",
    "grpc/": "grpc",
    "prometheus/": "prometheus",
    "libqhull_r/": "qhull",
    "Eigen/CholmodSupport": "cholmod",
    "cholmod": "cholmod",
    "openssl/": "openssl",
    "nats/": "nats",
    "assimp/": "assimp",
    "urdf_parser/": "urdfdom",
    "urdf_model/": "urdfdom",
    "urdf_world/": "urdfdom",
    "tinyxml.h": "urdfdom",
    "console_bridge/": "urdfdom",
}


def read_deps(path):
    """{unit: [allowed, ...]} in file order, and line numbers for messages."""
    deps = {}
    for number, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if ":" not in line:
            sys.exit(f"{path}:{number}: expected 'folder: what it may include'")
        unit, allowed = line.split(":", 1)
        unit = unit.strip().rstrip("/")
        if unit in deps:
            sys.exit(f"{path}:{number}: {unit} has two lines")
        deps[unit] = allowed.split()
    return deps


def unit_of(path, deps):
    """The DEPS line a repository path falls under: the file itself, else the nearest folder."""
    if path in deps:
        return path
    folder = os.path.dirname(path)
    while folder:
        if folder in deps:
            return folder
        folder = os.path.dirname(folder)
    return None


def closure(deps):
    """Everything each unit may include, following the lines transitively."""
    result = {}

    def visit(unit, stack):
        if unit in result:
            return result[unit]
        if unit in stack:
            cycle = " -> ".join(stack[stack.index(unit):] + [unit])
            sys.exit(f"DEPS has a cycle: {cycle}")
        reach = set()
        for allowed in deps.get(unit, []):
            reach.add(allowed)
            if allowed in deps and not allowed.endswith(SUFFIXES):
                reach |= visit(allowed, stack + [unit])
        result[unit] = reach
        return reach

    for unit in deps:
        visit(unit, [])
    return result


def target_of(include, root, deps):
    """(kind, name) of what an include names: ('tree', unit and path), ('lib', name) or None."""
    for prefix, library in EXTERNAL.items():
        if include.startswith(prefix):
            return ("lib", library)
    if include.startswith(SOURCE_ROOTS):
        return ("tree", include)
    return None


def allowed(unit, path, reach, deps):
    """An include of `path` from `unit`: its own files, a folder it may include (a subfolder
    with a line of its own is a folder of its own), or a single header it may include."""
    target = unit_of(path, deps)
    return target == unit or target in reach or path in reach


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    deps_path = os.path.join(root, "server", "DEPS")
    deps = read_deps(deps_path)
    for unit, entries in deps.items():
        for entry in entries:
            if entry not in set(EXTERNAL.values()) and not os.path.exists(os.path.join(root, entry)):
                sys.exit(f"server/DEPS: {unit} names {entry}, which does not exist")
    reach = closure(deps)

    problems = []
    checked = 0
    for source_root in SOURCE_ROOTS:
        for folder, _, files in os.walk(os.path.join(root, source_root)):
            for name in sorted(files):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.relpath(os.path.join(folder, name), root)
                unit = unit_of(path, deps)
                if unit is None:
                    problems.append(f"{path}: its folder has no line in server/DEPS")
                    continue
                for number, line in enumerate(open(os.path.join(root, path), encoding="utf-8"), 1):
                    match = INCLUDE.match(line)
                    if not match:
                        continue
                    checked += 1
                    target = target_of(match.group(2), root, deps)
                    if target is None:
                        continue
                    kind, name_ = target
                    if kind == "lib":
                        if name_ not in reach[unit]:
                            problems.append(f"{path}:{number}: includes {match.group(2)}, but "
                                            f"{unit} may not use {name_} (server/DEPS)")
                        continue
                    if not os.path.exists(os.path.join(root, name_)):
                        problems.append(f"{path}:{number}: includes {name_}, which does not exist")
                    elif not allowed(unit, name_, reach[unit], deps):
                        problems.append(f"{path}:{number}: includes {name_}, but {unit} may not "
                                        f"include {unit_of(name_, deps)} (server/DEPS)")
    for problem in problems:
        print(problem)
    print(f"{checked} includes checked, {len(problems)} not allowed by server/DEPS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
