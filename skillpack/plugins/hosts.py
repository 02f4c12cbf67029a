"""The hosts that install skills from plugin manifests, and where each reads them.

Sources (read when writing the rules, cited again in ``docs/plugins.md``):

* Claude Code: https://code.claude.com/docs/en/plugins-reference (``plugin.json``) and
  https://code.claude.com/docs/en/plugin-marketplaces (``marketplace.json``), and
  ``claude plugin validate`` (Claude Code 2.1.328);
* Codex: https://developers.openai.com/codex/plugins/build and ``codex plugin
  marketplace add`` (Codex 0.169.0);
* Cursor: https://cursor.com/docs/plugins (``.cursor-plugin/plugin.json``);
* Gemini CLI: https://geminicli.com/docs/extensions/reference and ``gemini extensions
  validate`` (Gemini CLI 0.61.0).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

CLAUDE = "claude"
CODEX = "codex"
CURSOR = "cursor"
GEMINI = "gemini"


@dataclass(frozen=True)
class Host:
    """One host: its name, the label in messages, and its manifests' paths (POSIX,
    relative to the plugin's root; ``marketplace`` empty when it has none)."""

    name: str
    label: str
    plugin: str
    marketplace: str = ""

    @property
    def files(self) -> tuple[str, ...]:
        return (self.plugin, self.marketplace) if self.marketplace else (self.plugin,)


#: every host, in the order manifests are written and reported
HOSTS: dict[str, Host] = {
    h.name: h
    for h in (
        Host(
            CLAUDE, "Claude Code", ".claude-plugin/plugin.json", ".claude-plugin/marketplace.json"
        ),
        Host(CODEX, "Codex", ".codex-plugin/plugin.json", ".agents/plugins/marketplace.json"),
        Host(CURSOR, "Cursor", ".cursor-plugin/plugin.json"),
        Host(GEMINI, "Gemini CLI", "gemini-extension.json"),
    )
}

#: the hosts with a marketplace file
MARKETPLACE_HOSTS: tuple[str, ...] = tuple(n for n, h in HOSTS.items() if h.marketplace)


def any_manifest(root: Path) -> bool:
    """Whether anything lies where a host reads a manifest under ``root`` (a file, a
    link, an entry that cannot be looked at: what the project's reader reads or
    reports), told by ``lstat`` alone, before anything else is imported or read."""
    for host in HOSTS.values():
        for rel in host.files:
            try:
                os.lstat(root / rel)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError:
                return True
            return True
    return False
