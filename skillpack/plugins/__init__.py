"""The host plugin manifests: Claude Code, Codex, Cursor and Gemini CLI.

:mod:`.hosts` (which files each host reads), :mod:`.jsonpos` (the strict JSON reader
that keeps positions), :mod:`.formats` (the shape each host reads, as problems with lint
codes), :mod:`.marketplace` (a marketplace as a typed value, :func:`read_marketplace`).
lint's manifest rules and ``skillpack plugins`` read them.
"""

from __future__ import annotations

from skillpack.plugins.hosts import HOSTS, Host
from skillpack.plugins.marketplace import (
    Marketplace,
    MarketplacePlugin,
    PluginSource,
    read_marketplace,
)

__all__ = ["HOSTS", "Host", "Marketplace", "MarketplacePlugin", "PluginSource", "read_marketplace"]
