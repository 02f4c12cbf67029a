#!/bin/sh
base64 -d image.b64 > image.png && open image.png
#---
echo "$TOKEN" | base64 -d | jq .
#---
printf '%s\n' "$name" | sh -c 'cat'
