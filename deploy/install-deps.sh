#!/usr/bin/env bash
# Installs the Debian 12 packages Ligature builds and tests with, or with --runtime only
# those ligatured needs to run (the container's runtime stage).
# Idempotent: installs only what is missing and prints nothing when nothing is.
set -euo pipefail

if [[ "${1:-}" == "--runtime" ]]; then
  packages=(libgrpc++1.51 libgrpc29 libprotobuf32 libabsl20220623 libprometheus-cpp-core1.0
    libprometheus-cpp-pull1.0)
else
  packages=(
    build-essential cmake pkg-config ccache
    libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
    libeigen3-dev libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
    libbullet-dev libode-dev liblapack-dev grpc-proto
    python3 python3-grpcio python3-protobuf python3-yaml prometheus-cpp-dev nginx openssl
  )
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "Installing: ${missing[*]}" >&2
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
