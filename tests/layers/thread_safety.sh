#!/usr/bin/env bash
# Compiles the translation units under server/ and clients/cpp/ that can hold shared state
# with clang's thread safety analysis as errors: a member marked ABSL_GUARDED_BY touched
# without its mutex, a helper marked ABSL_EXCLUSIVE_LOCKS_REQUIRED called without it, or an
# ABSL_LOCKS_EXCLUDED entry point called with it fails the check.
#
# Which units: those that #include absl/synchronization/... or a header under server/host,
# server/rpc, server/haptics, server/ops or clients/cpp themselves (a unit that uses a
# mutex includes its header; a unit that uses an annotated class includes the class's
# header), and in a cold build the unity units holding such a file. The physics core below them (math, model, collision, constraint, solver, world,
# scene, snapshot) holds no lock and is left out: with it the check would compile 154 units
# instead of 70, well over the few minutes it should take on a 2-core machine.
#
# Usage: thread_safety.sh BUILD_DIR
#
# BUILD_DIR is a configured build (its compile_commands.json lists the translation units)
# in which the generated protobuf headers exist (cmake --build BUILD_DIR --target
# ligature_proto); nothing else needs to be built. Each entry's command is reused with
# clang++ in place of the compiler, without its output arguments (-o, -c) and the GCC-only
# flags clang rejects, plus -fsyntax-only and the analysis flags. The files run in parallel,
# one per core. Exits 1 naming every file that failed (with clang's output), 77 (skipped)
# when clang++ is not installed, 2 on bad usage.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# Skip only when there is no clang++ at all (deploy/install-deps.sh installs it).
if ! command -v clang++ > /dev/null; then
  echo "clang++ is not installed: thread safety analysis skipped" >&2
  exit 77
fi
if [[ ! -f "$build_dir/compile_commands.json" ]]; then
  echo "$build_dir/compile_commands.json is missing: configure the build first" >&2
  exit 1
fi
if [[ ! -f "$build_dir/proto/ligature/v1/frame.pb.h" ]]; then
  echo "the generated protobuf headers are missing:" \
       "cmake --build $build_dir --target ligature_proto" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One job a translation unit: JOB.dir holds the directory it compiles in, JOB.args the
# clang++ arguments (NUL-separated), JOB.file its path; the job numbers go to jobs.list.
python3 - "$build_dir/compile_commands.json" "$root" "$work" << 'EOF'
import json
import os
import re
import shlex
import sys

database, root, work = sys.argv[1:]
prefixes = tuple(os.path.join(root, d) + os.sep for d in ("server", "clients/cpp"))
# The units checked: those including a mutex or a header of a folder with shared state.
selected = re.compile(r'^\s*#\s*include\s*["<](absl/synchronization/|'
                      r'server/(host|rpc|haptics|ops)/|clients/cpp/)', re.M)
# Flags GCC takes and clang rejects (none are in use today; listed so that adding one to
# the build does not break the check), and -w, which would hide the analysis.
dropped = {"-w", "-fno-fat-lto-objects"}
dropped_prefixes = ("-fconcepts-diagnostics-depth=", "-flto-partition=", "-fmax-errors=")

# A unity unit (cold builds: Unity/unity_N_cxx.cxx) #includes its member files by absolute
# path: it is checked, once, when one of them would be.
unity_member = re.compile(r'^\s*#\s*include\s*"(/[^"]+)"', re.M)


def is_selected(path):
    if not path.startswith(prefixes):
        return False
    with open(path, encoding="utf-8") as source:
        return bool(selected.search(source.read()))


jobs = []
for entry in json.load(open(database)):
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    if re.search(r"/Unity/unity_[0-9]+_cxx\.cxx$", path):
        with open(path, encoding="utf-8") as unit:
            members = unity_member.findall(unit.read())
        if not any(is_selected(os.path.normpath(m)) for m in members):
            continue
    elif not is_selected(path):
        continue
    argv = entry.get("arguments") or shlex.split(entry["command"])
    # The compiler is the first word that is not a launcher in front of it: ccache, and in
    # cold builds `cmake -E env NAME=VALUE...` setting ccache's options.
    while argv:
        if os.path.basename(argv[0]) in ("ccache", "sccache"):
            argv = argv[1:]
        elif os.path.basename(argv[0]) == "cmake" and argv[1:3] == ["-E", "env"]:
            argv = argv[3:]
            while argv and "=" in argv[0] and not argv[0].startswith("-"):
                argv = argv[1:]
        else:
            break
    args = []
    rest = iter(argv[1:])
    for arg in rest:
        if arg in ("-o", "-MF", "-MT", "-MQ"):
            next(rest, None)  # the output file after it
        elif arg in ("-c", "-MD", "-MMD") or arg == entry["file"] or arg == path:
            pass
        elif arg in dropped or arg.startswith(dropped_prefixes):
            pass
        else:
            args.append(arg)
    args += ["-fsyntax-only", "-Wthread-safety", "-Werror=thread-safety",
             "-Wno-unknown-warning-option", path]
    n = len(jobs)
    with open(os.path.join(work, f"{n}.dir"), "w") as f:
        f.write(entry["directory"])
    with open(os.path.join(work, f"{n}.args"), "w") as f:
        f.write("\0".join(args) + "\0")
    with open(os.path.join(work, f"{n}.file"), "w") as f:
        f.write(os.path.relpath(path, root))
    jobs.append(str(n))
with open(os.path.join(work, "jobs.list"), "w") as f:
    f.write("\n".join(jobs) + "\n")
EOF

count=$(wc -l < "$work/jobs.list")
if [[ "$count" -eq 0 ]]; then
  echo "no translation unit to check under server/ or clients/cpp/ in compile_commands.json" >&2
  exit 1
fi

# One translation unit: quiet when clang accepts it; its name and clang's output when not.
check_one() {
  local job="$1" dir file
  local -a args
  dir=$(< "$WORK/$job.dir")
  file=$(< "$WORK/$job.file")
  mapfile -d '' args < "$WORK/$job.args"
  if ! (cd "$dir" && clang++ "${args[@]}") > "$WORK/$job.log" 2>&1; then
    {
      echo "FAILED: $file"
      cat "$WORK/$job.log"
    } >&2
    touch "$WORK/$job.failed"
  fi
  return 0
}
export -f check_one
export WORK="$work"

start=$SECONDS
xargs -P "$(nproc)" -I{} bash -c 'check_one "$1"' _ {} < "$work/jobs.list"

failed=()
for marker in "$work"/*.failed; do
  [[ -e "$marker" ]] || continue
  failed+=("$(< "${marker%.failed}.file")")
done
elapsed=$((SECONDS - start))
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "thread safety analysis failed in ${#failed[@]} of $count files (${elapsed}s):" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "thread safety analysis: $count files clean (${elapsed}s)"
