#!/usr/bin/env bash
# Installs what is missing, then configures and builds Ligature (Release) into ./build.
# Arguments go to cmake --build (e.g. --target ligatured). In the environment,
# LIGATURE_REQUIRE_ALL=ON stops the configure when any test suite would be left out,
# LIGATURE_CORE_SUITES=OFF leaves out the unit and validation suites, LIGATURE_COLD_BUILD=ON
# compiles the service, client and integration test code as unity units (for a fresh machine).
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DLIGATURE_CORE_SUITES="${LIGATURE_CORE_SUITES:-ON}" \
  -DLIGATURE_REQUIRE_ALL="${LIGATURE_REQUIRE_ALL:-OFF}" \
  -DLIGATURE_COLD_BUILD="${LIGATURE_COLD_BUILD:-OFF}" >/dev/null
cmake --build build -j "$(nproc)" "$@"
