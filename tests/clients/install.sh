#!/usr/bin/env bash
# Install the pinned MCP Inspector CLI (package.json / package-lock.json beside this
# script) into tests/clients/node_modules. Used by the serve client tests; a no-op when
# it is already installed. Needs node and npm; exits 0 without them (the tests skip).
set -euo pipefail
cd "$(dirname "$0")"
command -v npm >/dev/null || { echo "npm not found: MCP Inspector tests will skip" >&2; exit 0; }
if [ -x node_modules/.bin/mcp-inspector ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
    exit 0
fi
# `npm install` with the committed lock, not `npm ci`: an optional, Windows-only
# dependency of vite (napi-windows-process-start-time) is not in the registry, so the
# lock cannot list it and `npm ci` refuses the lock as out of sync.
npm install --no-audit --no-fund --ignore-scripts --loglevel=error >&2
