"""Shared by the plugins tests: a small project with skills and a skillpack.toml."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.lintutil import skill_md, write

TOML = """name = "acme-skills"
version = "1.0.0"
description = "Acme's skills for PDFs and reviews."
author = { name = "Acme", email = "dev@acme.example" }
license = "MIT"
keywords = ["pdf", "review"]
"""
SKILLS = ("pdf", "review", "nested/inner")


def make_project(root: Path, toml: str = TOML, skills: tuple[str, ...] = SKILLS) -> Path:
    write(root / "skillpack.toml", toml)
    for name in skills:
        write(root / "skills" / name / "SKILL.md", skill_md(name.rsplit("/", 1)[-1]))
    write(root / "skills" / "nested" / "SKILL.md", skill_md("nested"))
    return root


def read_json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))
