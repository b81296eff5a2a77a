#!/usr/bin/env bash
# Soak: builds ligatured and ligature-load (build/), starts a server and puts it under load
# for MINUTES: by default 8 worlds, 100 watchers, 4 haptic devices at 1 kHz and random edits
# (20/s per world). Prints the server's memory every 30 s, then tick overruns per world,
# p99 latencies (edit RPC, frame interval, haptic round trip), lost edits, crashes and memory
# growth after a 2-minute warm-up (shorter runs: a fifth of the run). Extra flags go to
# ligature-load (e.g. --worlds=4). Exits non-zero on a crash, a lost edit or an error.
#   deploy/soak.sh MINUTES [ligature-load flags...]
set -euo pipefail

minutes="${1:?usage: deploy/soak.sh MINUTES [ligature-load flags]}"
shift
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
generator=()
command -v ninja > /dev/null && [[ ! -f "$build/CMakeCache.txt" ]] && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" > /dev/null
cmake --build "$build" -j2 --target ligatured ligature_load

seconds=$((minutes * 60))
warmup=$((seconds / 5 < 120 ? seconds / 5 : 120))
exec "$build/clients/cpp/ligature-load" --spawn="$build/server/ligatured" \
  --server_args="--scene= --worker_threads=2" --server_log="$build/soak-server.log" \
  --worlds=8 --watchers=100 --haptics=4 --edit_rate=20 \
  --duration="$seconds" --warmup="$warmup" --rss_interval=30 --check_interval=5 "$@"
