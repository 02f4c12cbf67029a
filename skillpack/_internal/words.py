"""Words in messages: counts with the right number ("1 skill", "2 skills") and text cut
to a width at a word boundary. Standard library only (the stdio server uses it)."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``count`` and ``noun`` in the number it takes: ``1 skill``, ``0 skills``,
    ``2 bytes`` (``many`` for an irregular plural: ``plural(n, "entry", "entries")``)."""
    return f"{count} {noun if count == 1 else (many or noun + 's')}"


def shorten(text: str, width: int) -> str:
    """``text`` on one line, cut to at most ``width`` characters at a space and ended with
    "…" when it is longer (a single word longer than ``width`` is cut inside)."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text.rfind(" ", 0, width)
    if cut < width // 2:
        cut = width - 1
    return text[:cut].rstrip() + "…"
