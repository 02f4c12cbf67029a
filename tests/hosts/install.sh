#!/usr/bin/env bash
# Install the agent hosts the tests run offline (Claude Code 2.1.328, Gemini CLI 0.61.0,
# Codex 0.169.0) and the node 22 they need, pinned by package.json / package-lock.json
# beside this script, into tests/hosts/node_modules. Used by the serve host tests, the
# plugin validator tests and .ci/run (see tests/node22_install.sh).
set -euo pipefail
here=$(dirname "$0")
exec bash "$here/../node22_install.sh" "$here" claude "the agent host tests"
