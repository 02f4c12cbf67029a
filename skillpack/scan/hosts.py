"""Hosts and URLs: the installers honest documentation pipes into a shell, the hosts an
attack fetches from, and the judgement of a download-and-execute's URLs (SP520, or SP521
for an install line).
"""

from __future__ import annotations

import re

from skillpack.scan.text import Lazy

_I = re.IGNORECASE

#: installers honest documentation shows (``curl -fsSL https://sh.rustup.rs | sh``): a
#: host (matched exactly, or with ``www.``), or a host and path prefix where the host
#: serves anyone's files and only that path is the vendor's (raw.githubusercontent.com,
#: deno.land/x/ serve any user's content and are no installers by themselves)
KNOWN_INSTALLERS: frozenset[str] = frozenset(
    {
        "sh.rustup.rs", "rustup.rs", "static.rust-lang.org", "astral.sh", "get.docker.com",
        "install.python-poetry.org", "bun.sh", "get.pnpm.io", "ollama.com",
        "claude.ai", "pyenv.run", "get.sdkman.io", "sdk.cloud.google.com", "get.helm.sh",
        "install.determinate.systems", "nixos.org", "starship.rs", "tailscale.com",
        "fly.io", "foundry.paradigm.xyz", "cli.moonrepo.dev", "mise.run", "get.volta.sh",
        "deb.nodesource.com", "rpm.nodesource.com", "pixi.sh", "micro.mamba.pm",
        "opencode.ai", "cursor.com", "brew.sh", "get.jetify.com", "aka.ms", "dot.net",
        "get.k3s.io", "sh.vector.dev", "install.duckdb.org", "supabase.com",
        "cli.github.com",
        "deno.land/install.sh", "deno.land/x/install/install.sh",
        "raw.githubusercontent.com/homebrew/install/",
        "raw.githubusercontent.com/nvm-sh/nvm/",
    }
)  # fmt: skip
_KNOWN_HOSTS = frozenset(k for k in KNOWN_INSTALLERS if "/" not in k)
_KNOWN_PREFIXES = tuple(sorted(k for k in KNOWN_INSTALLERS if "/" in k))

#: hosts an attack fetches from: URL shorteners, paste and tunnel services
_SUSPECT_HOSTS = Lazy(
    r"(?:^|\.)(?:bit\.ly|tinyurl\.com|t\.co|is\.gd|goo\.gl|pastebin\.com|paste\.ee|"
    r"hastebin\.com|transfer\.sh|ngrok\.io|ngrok-free\.app|trycloudflare\.com|"
    r"0x0\.st|termbin\.com|webhook\.site|requestbin\.\w+|pipedream\.net)$",
    _I,
)
URL = Lazy(r"(https?)://([^/\s'\"`)>\]]+)([^\s'\"`)>\]]*)", _I)
_IP_HOST = Lazy(r"^\[?[0-9a-f:.]+\]?(?::\d+)?$", _I)


def _known_installer(host: str, path: str) -> bool:
    host = host.removeprefix("www.")
    if host in _KNOWN_HOSTS:
        return True
    path = path.lower()
    if ".." in path or "%" in path or "\\" in path or "//" in path or "/./" in path:
        return False  # a path a client normalizes out of the vendor's prefix
    return (host + path).startswith(_KNOWN_PREFIXES)


def honest_installer(urls: str, shown: bool) -> bool:
    """Whether a download-and-execute of ``urls`` (the fetch's text) is an install line
    honest documentation shows (SP521, a warning, instead of SP520): every URL an HTTPS
    one of a named host, none an IP address, a URL shortener, a paste or tunnel host or a
    reserved name, and each a well-known installer, or the line shown as documentation
    (``shown``: in Markdown code, or in a script's comment). No URL (a variable, a host
    we cannot see) is no installer."""
    found = URL.findall(urls)
    if not found:
        return False  # from a variable, or a host we cannot see
    known = True
    for scheme, host, path in found:
        name = host.lower().rsplit("@", 1)[-1].split(":", 1)[0]
        if scheme.lower() != "https" or _IP_HOST.match(name) or _SUSPECT_HOSTS.search(name):
            return False
        if "." not in name or name.endswith((".invalid", ".onion", ".local")):
            return False
        known = known and _known_installer(name, path)
    return known or shown
