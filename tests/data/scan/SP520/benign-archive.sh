#!/bin/sh
# a source archive built where it was unpacked (the directory changed first), and an
# archive checked against a pinned digest before it is unpacked
set -eu
curl -fsSLo src.tgz https://example.com/src.tgz
tar xzf src.tgz
cd src && ./configure && make
curl -fsSLo /tmp/kit.tgz https://example.com/kit.tgz
echo "7f83b1657ff1fc53b92dc18148a1d65dfc2d4b1fa3d677284addd200126d9069  /tmp/kit.tgz" | sha256sum -c -
tar xzf /tmp/kit.tgz -C /tmp
sh /tmp/kit/install.sh
