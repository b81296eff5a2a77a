#!/usr/bin/env bash
# The memory-error pass: builds the unit and validation
# suites and the fuzz corpus replays with clang, AddressSanitizer, UndefinedBehaviorSanitizer
# and asserts on, in their own build dir (build-asan), and runs them through ctest. It needs
# what deploy/install-deps.sh installs (clang among it). The build is a cold build
# (LIGATURE_COLD_BUILD: unity layers, precompiled test headers).
#   deploy/sanitize.sh [extra ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-asan
cmake -S . -B "$build" -DLIGATURE_SANITIZE=ON -DLIGATURE_COLD_BUILD=ON \
  -DLIGATURE_CORE_SUITES=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  > /dev/null
cmake --build "$build" -j "$(nproc)" --target ligature_unit_tests ligature_validation_tests \
  ligature_fuzz_scene ligature_fuzz_edits
# Leaks are findings too; UBSan prints where, and stops the test.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -L '^(unit|validation|fuzz)$' \
  -E '^(web|layers)/' "$@"
