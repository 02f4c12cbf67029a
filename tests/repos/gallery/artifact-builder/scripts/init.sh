#!/bin/sh
set -eu
mkdir -p "$1/src"
cp "$(dirname "$0")/../templates/index.html" "$1/index.html"
echo "made $1"
