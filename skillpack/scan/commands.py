"""Dangerous commands (filled in below)."""

from __future__ import annotations

from collections.abc import Iterator

SEVERITY: dict[str, str] = {}


def find_commands(text: str, markdown: bool) -> Iterator[tuple[int, str, str, str]]:
    return iter(())
