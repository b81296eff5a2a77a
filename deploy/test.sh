#!/usr/bin/env bash
# Installs, builds and runs every test (unit, validation, integration, client, benchmark
# smoke run) through ctest. Every suite is required: a missing tool stops the configure
# naming it, and no suite skips. The memory-error pass (ASan, UBSan, asserts on) is
# deploy/sanitize.sh, a command of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
LIGATURE_REQUIRE_ALL=ON deploy/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
