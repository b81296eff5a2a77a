#!/usr/bin/env bash
# Installs, builds and runs every test through ctest, in two passes:
#  1. the release build (build/) with everything but the unit and validation suites:
#     integration, client, web and router tests, the golden snapshot bytes and the
#     benchmark smoke runs;
#  2. deploy/sanitize.sh: the unit and validation suites and the fuzz corpus replays with
#     clang, AddressSanitizer, UndefinedBehaviorSanitizer and asserts on (build-asan/).
# Every suite is required: a missing tool stops the configure naming it, and no suite skips.
set -euo pipefail
cd "$(dirname "$0")/.."
LIGATURE_REQUIRE_ALL=ON LIGATURE_CORE_SUITES=OFF LIGATURE_COLD_BUILD=ON deploy/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
deploy/sanitize.sh
