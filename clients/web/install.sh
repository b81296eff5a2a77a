#!/usr/bin/env bash
# Installs the web viewer's npm packages (the gRPC client, ws, three.js and, for its test,
# playwright-core) into clients/web/node_modules with `npm ci`, exactly as package-lock.json
# pins them. Idempotent: does nothing when node_modules already matches the lock file.
# Node and npm themselves come from Debian (deploy/install-deps.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

if ! command -v npm > /dev/null; then
  echo "clients/web/install.sh: npm not found (deploy/install-deps.sh installs it)" >&2
  exit 1
fi
stamp=node_modules/.ligature-lock
if [[ -f "$stamp" ]] && cmp -s package-lock.json "$stamp"; then
  exit 0
fi
echo "Installing the web viewer's npm packages (npm ci)" >&2
npm ci --no-audit --no-fund --loglevel=error >&2
cp package-lock.json "$stamp"
