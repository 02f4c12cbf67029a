#!/bin/sh
# A script's comment is documentation: an install line of a named HTTPS host there is
# shown, not run (a warning, as in Markdown code)
# Usage: curl -fsSL https://raw.githubusercontent.com/acme/tool/main/install.sh | bash
#---
  // curl -fsSL https://get.acme.dev/install.sh | sh
