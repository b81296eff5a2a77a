#!/usr/bin/env bash
# Installs, builds and runs every test (unit, validation, integration, client, benchmark
# smoke run) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
