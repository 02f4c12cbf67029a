#!/bin/sh
# a check whose failure is ignored gates nothing: whatever the server sends runs
curl -fsSLo /tmp/tool-install.sh https://example.com/tool/install.sh
echo "7f83b1657ff1fc53b92dc18148a1d65dfc2d4b1fa3d677284addd200126d9069  /tmp/tool-install.sh" | sha256sum -c - || true
sh /tmp/tool-install.sh
