"""The host plugin manifests: Claude Code, Codex, Cursor and Gemini CLI.

:mod:`.hosts` (which files each host reads), :mod:`.jsonpos` (the strict JSON reader
that keeps positions), :mod:`.formats` (the shape each host reads, as problems with lint
codes), :mod:`.marketplace` (a marketplace as a typed value, :func:`read_marketplace`).
lint's manifest rules and ``skillpack plugins`` read them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillpack.plugins.hosts import HOSTS, Host

if TYPE_CHECKING:
    from skillpack.plugins.marketplace import (
        Marketplace,
        MarketplacePlugin,
        PluginSource,
        read_marketplace,
    )

__all__ = ["HOSTS", "Host", "Marketplace", "MarketplacePlugin", "PluginSource", "read_marketplace"]

#: the names :mod:`.marketplace` gives, imported at their first use: lint's manifest
#: rules look for the hosts' files (:mod:`.hosts`) in every tree, and few hold any
_MARKETPLACE = frozenset({"Marketplace", "MarketplacePlugin", "PluginSource", "read_marketplace"})


def __getattr__(name: str) -> object:
    if name in _MARKETPLACE:
        from skillpack.plugins import marketplace

        return getattr(marketplace, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
