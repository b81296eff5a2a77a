#!/usr/bin/env bash
# Installs, builds, starts ligatured with its built-in default world and shows it working:
# the CLI lists the worlds and streams frames until Ctrl-C, which also stops the server.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/build.sh --target ligatured ligature
addr="${LIGATURE_ADDR:-127.0.0.1:50051}"
build/server/ligatured --listen "$addr" &
server=$!
trap 'kill -INT $server 2>/dev/null; wait $server 2>/dev/null' EXIT INT TERM

# Wait until the server answers, then show the world and its frames.
for _ in $(seq 50); do
  build/clients/cpp/ligature worlds list --server "$addr" >/dev/null 2>&1 && break
  sleep 0.1
done
build/clients/cpp/ligature worlds list --server "$addr"
echo "Streaming frames of worlds/default at 5 Hz (Ctrl-C stops the client and the server)."
build/clients/cpp/ligature watch default --rate 5 --server "$addr" || true
