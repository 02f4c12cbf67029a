"""Directives hidden from the reader (filled in below)."""

from __future__ import annotations

from collections.abc import Iterator

SEVERITY: dict[str, str] = {}


def find_directives(text: str) -> Iterator[tuple[int, str, str, str]]:
    return iter(())
