"""Helpers for the lint tests: run ``skillpack lint --format json`` and read its findings."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

Finding = tuple[str, str, int | None]  # (code, path relative to the tree, line)


def lint_json(
    root: Path, *args: str, cwd: Path | None = None
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Run ``skillpack lint --format json ARGS`` in ``cwd`` (default ``root``)."""
    proc = run_cli("lint", "--format", "json", *args, cwd=cwd or root)
    assert proc.returncode in (0, 1), proc.stderr
    return proc, json.loads(proc.stdout)


def findings(report: dict[str, Any]) -> set[Finding]:
    return {(f["code"], f["path"], f["line"]) for f in report["findings"]}


def download_codes(path: str, text: str) -> list[tuple[str, int]]:
    """(code, line) of the download-and-run findings (SP520, SP521) of the content scan
    in ``text`` read as the skill's file ``path``."""
    from skillpack.scan import scan_file

    return [
        (f.code, f.line) for f in scan_file(path, text.encode()) if f.code in ("SP520", "SP521")
    ]


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def skill_md(name: str, extra: str = "", body: str = "Body.\n") -> str:
    """A valid SKILL.md for a skill called ``name``, with ``extra`` frontmatter lines."""
    description = f"Does {name} things. Use it for {name}."
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}"
