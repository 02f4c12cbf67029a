#!/bin/sh
# a fetch piped into a reader, or code given to the interpreter, runs nothing it fetched
curl -s https://api.example.com/data | python3 -c 'import sys, json; print(json.load(sys.stdin)["x"])'
#---
curl -s https://api.example.com/data | jq -r .name | sort | uniq -c
#---
VERSION=$(curl -s https://api.github.com/repos/acme/tool/releases/latest | jq -r .tag_name)
#---
command -v mise || echo "missing: install it with curl https://mise.run | sh"
#---
curl -fsSL https://example.com/data.json -o data.json && bash scripts/process.sh data.json
#---
find . -name '*.sh' | xargs bash -n
#---
curl -fsSL https://sh.rustup.rs | sh -s -- -y
