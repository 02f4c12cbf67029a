#!/usr/bin/env bash
# Install the official MCP conformance harness and the node 22 it needs, pinned by
# package.json / package-lock.json beside this script, into tests/http/harness/node_modules.
# Used by the HTTP tests' fixture and by .ci/run (see tests/node22_install.sh).
set -euo pipefail
here=$(dirname "$0")
exec bash "$here/../../node22_install.sh" "$here" conformance "the conformance harness tests"
