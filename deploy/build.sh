#!/usr/bin/env bash
# Installs what is missing, then configures and builds Ligature (Release) into ./build.
# Arguments go to cmake --build (e.g. --target ligatured).
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" "$@"
