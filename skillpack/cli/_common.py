"""Small helpers the command modules share."""

from __future__ import annotations

import json
from typing import Any

import typer

from skillpack.commands.output import plural

__all__ = ["echo_json", "plural"]


def echo_json(value: Any) -> None:
    typer.echo(json.dumps(value, indent=2, ensure_ascii=False))
