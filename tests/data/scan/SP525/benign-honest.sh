#!/bin/sh
# credentials used where they belong, next to a network call: no flow (audit 22 item 9)
source .env && curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com/v1/me
#---
set -a; . ./.env; set +a; curl -s https://api.example.com/health
#---
export $(grep -v '^#' .env | xargs) && curl https://api.example.com
#---
scp -i ~/.ssh/id_ed25519 dist.tar.gz deploy@example.com:/srv/
#---
sftp -i ~/.ssh/id_rsa deploy@example.com
#---
curl --netrc-file ~/.netrc https://api.example.com/upload -T dist.tar.gz
#---
ssh -i ~/.ssh/id_rsa deploy@example.com 'systemctl restart app'
#---
rsync -e "ssh -i ~/.ssh/id_rsa" -av dist/ deploy@example.com:/srv/ && curl -X POST https://hooks.example.com/deployed
#---
eval "$(ssh-agent -s)" && ssh-add ~/.ssh/id_ed25519 && git clone git@github.com:acme/tool.git
#---
curl -H "Authorization: Bearer $(gcloud auth print-access-token)" https://storage.googleapis.com/b/o
#---
cat ~/.ssh/id_ed25519.pub | ssh deploy@example.com 'cat >> .ssh/authorized_keys'
