"""``skillpack lint``: registered on the typer app; implemented in
:mod:`skillpack.commands.lint` (``skillpack.__main__`` runs it without typer)."""

from __future__ import annotations

import typer

from skillpack.cli._forward import register_forwarded


def register(app: typer.Typer) -> None:
    register_forwarded(app, "lint")
