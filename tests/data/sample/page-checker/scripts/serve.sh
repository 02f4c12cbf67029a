#!/bin/sh
# Serve the examples folder on http://127.0.0.1:8000/
cd "$(dirname "$0")/../examples" && exec python3 -m http.server 8000 --bind 127.0.0.1
