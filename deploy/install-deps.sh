#!/usr/bin/env bash
# Installs the Debian 12 packages Ligature builds and tests with, and the web viewer's npm
# packages (clients/web/install.sh), or with --runtime only those ligatured needs to run (the
# container's runtime stage), or with --fuzz only clang and libFuzzer's runtime (deploy/fuzz.sh).
# The normal build compiles with GCC; its clang runs the ctest layers/thread_safety (clang's
# -Wthread-safety analysis). nftables, iproute2 and util-linux (unshare) make the loss rig of
# the haptic datagram tests and benchmarks: a network namespace that drops packets at random.
# libnats publishes frames to viewer gateways; nats-server is the broker of its tests.
# Idempotent: installs only what is missing and prints nothing when nothing is.
set -euo pipefail

if [[ "${1:-}" == "--runtime" ]]; then
  packages=(libgrpc++1.51 libgrpc29 libprotobuf32 libabsl20220623 libprometheus-cpp-core1.0
    libprometheus-cpp-pull1.0 libqhull-r8.0 libcholmod3 libssl3 libnats3.4)
elif [[ "${1:-}" == "--fuzz" ]]; then
  packages=(clang libclang-rt-14-dev)
else
  packages=(
    build-essential cmake pkg-config ccache clang
    libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
    libeigen3-dev libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
    libbullet-dev libembree-dev libode-dev libmujoco-dev liblapack-dev grpc-proto libqhull-dev
    libsuitesparse-dev libopenblas-serial-dev
    libassimp-dev liburdfdom-dev libssl-dev python3-pyassimp
    python3 python3-grpcio python3-protobuf python3-yaml prometheus-cpp-dev nginx openssl
    nftables iproute2 util-linux libnats-dev nats-server
    nodejs chromium python3-matplotlib
    python3-venv python3-setuptools python3-wheel python3-pip
  )
  # npm comes with Debian's nodejs as its own package (a Node built elsewhere may bundle it).
  command -v npm > /dev/null || packages+=(npm)
fi
# The web viewer's npm packages, when its folder is there (the container's build stage runs
# this script alone, before the sources are copied in).
web_packages() {
  local web_install
  web_install="$(dirname "${BASH_SOURCE[0]}")/../clients/web/install.sh"
  if [[ -z "${1:-}" && -x "$web_install" ]]; then "$web_install"; fi
}

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  web_packages "$@"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "Installing: ${missing[*]}" >&2
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
web_packages "$@"
