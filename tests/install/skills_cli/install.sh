#!/usr/bin/env bash
# Install the skills installer CLI 1.7.4 and the node 22 it needs, pinned by package.json /
# package-lock.json beside this script, into tests/install/skills_cli/node_modules. Used
# by the install tests' fixture, benchmarks/bench_install.py and .ci/run (see
# tests/node22_install.sh).
set -euo pipefail
here=$(dirname "$0")
exec bash "$here/../../node22_install.sh" "$here" skills "the skills CLI tests"
