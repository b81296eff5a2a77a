#!/usr/bin/env bash
# Installs, builds and runs every test through ctest, in two builds:
#  - release (./build): the integration, client, deploy and benchmark suites, the layer and
#    thread-safety checks and the snapshot golden bytes;
#  - sanitizer (./build-asan, deploy/sanitize.sh): the unit and validation suites and the
#    fuzz corpus replays with AddressSanitizer, UndefinedBehaviorSanitizer and asserts on.
# Every suite is required: a missing tool stops the configure naming it, and no suite skips.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLIGATURE_REQUIRE_ALL=ON \
  -DLIGATURE_CORE_SUITES=OFF > /dev/null
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
deploy/sanitize.sh
