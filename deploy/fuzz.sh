#!/usr/bin/env bash
# Fuzzes one target for a number of minutes with libFuzzer (clang, ASan, UBSan), in its own
# build dir (build-fuzz). Targets: scene (scene loading and validation), edits (edit
# sequences on a live world). New interesting inputs go to build-fuzz/corpus/<target>
# (seeded from tests/fuzz/corpus/<target>); a crash leaves crash-*/timeout-* files in
# build-fuzz/artifacts/<target>/, which replay with `build-fuzz/tests/fuzz/ligature_fuzz_<target> FILE`.
#   deploy/fuzz.sh TARGET MINUTES [extra libFuzzer flags...]
set -euo pipefail

target="${1:?usage: deploy/fuzz.sh scene|edits MINUTES [libFuzzer flags]}"
minutes="${2:?usage: deploy/fuzz.sh scene|edits MINUTES [libFuzzer flags]}"
shift 2
case "$target" in scene|edits) ;; *) echo "unknown target $target (scene, edits)" >&2; exit 2;; esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/deploy/install-deps.sh" --fuzz
build="$root/build-fuzz"
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DLIGATURE_FUZZ=ON \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1" > /dev/null
cmake --build "$build" -j2 --target "ligature_fuzz_$target"

corpus="$build/corpus/$target"
artifacts="$build/artifacts/$target"
mkdir -p "$corpus" "$artifacts"
# One worker: the machine may be shared. Inputs are small; a slow input is a hang.
exec "$build/tests/fuzz/ligature_fuzz_$target" "$corpus" "$root/tests/fuzz/corpus/$target" \
  -max_total_time=$((minutes * 60)) -max_len=80000 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 "$@"
