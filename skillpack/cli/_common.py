"""Small helpers the command modules share."""

from __future__ import annotations

import json
from typing import Any

import typer


def echo_json(value: Any) -> None:
    typer.echo(json.dumps(value, indent=2, ensure_ascii=False))


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
