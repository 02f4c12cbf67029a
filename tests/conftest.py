"""Shared fixtures: run the real CLI in a subprocess, write skill trees, the test data."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
#: what the tests need, in the clone (tests/data/README.md)
DATA = REPO / "tests" / "data"
VECTORS = DATA / "vectors"  #: the spec vectors, byte for byte
MCP_SCHEMA = DATA / "spec" / "mcp-2026-07-28.schema.json"
SAMPLE = DATA / "sample"  #: a small tree shaped like a real skills repository
EXAMPLES = REPO / "examples"
# the optional extra: shared/ beside the checkout, or beside its parent (worktrees live
# one level deeper); SKILLPACK_SHARED overrides both
SHARED = Path(
    os.environ.get("SKILLPACK_SHARED")
    or next(
        (d for d in (REPO.parent / "shared", REPO.parent.parent / "shared") if d.is_dir()),
        REPO.parent / "shared",
    )
)
CORPUS = SHARED / "corpus" / "anthropics-skills"
#: a collection shaped like anthropics/skills, written here (tests/repos/README.md)
GALLERY = Path(__file__).resolve().parent / "repos" / "gallery"


def public_trees() -> list[Path]:
    """The look-alike collection, and the shared corpus when it is beside the checkout
    (data for trying, never copied here): a test over them runs in every clone."""
    return [GALLERY] + ([CORPUS] if CORPUS.is_dir() else [])


def cli_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a CLI subprocess: this checkout first on the import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("SKILLPACK_DEBUG", None)
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "200"
    if extra:
        env.update(extra)
    return env


#: runs the real entry point, then writes the names of the imported modules to argv[1],
#: one per line (importing nothing itself: json too shows only when the command uses it)
MODULES_OF = """\
import sys
from skillpack.__main__ import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    out.write("\\n".join(sorted(sys.modules)))
sys.exit(code)
"""


def modules_after(
    tmp_path: Path,
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """``skillpack ARGS`` run as :func:`run_cli` runs it, and the modules it imported."""
    report = tmp_path / "modules.txt"
    proc = subprocess.run(
        [sys.executable, "-c", MODULES_OF, str(report), *args],
        cwd=cwd,
        env=cli_env(env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc, set(report.read_text().split("\n"))


def run_cli(
    *args: str | os.PathLike[str],
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    timeout: float = 120,
    module: str = "skillpack",
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m skillpack ARGS`` (the real entry point) and capture its output."""
    proc = subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        cwd=cwd,
        env=cli_env(env),
        input=input.decode() if input is not None else None,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert "Traceback (most recent call last)" not in proc.stderr, proc.stderr
    assert "Traceback (most recent call last)" not in proc.stdout, proc.stdout
    return proc


SKILL_TEMPLATE = "---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body}\n"


def write_skill(
    root: Path,
    rel: str,
    *,
    description: str = "Does a useful thing. Use it when the thing is needed.",
    body: str = "Follow the steps.",
    files: Mapping[str, str | bytes] | None = None,
    frontmatter: str | None = None,
) -> Path:
    """Write a skill at ``root/rel`` with a valid SKILL.md (or the given frontmatter text)."""
    directory = root / rel
    directory.mkdir(parents=True, exist_ok=True)
    name = rel.rstrip("/").rsplit("/", 1)[-1]
    if frontmatter is None:
        text = SKILL_TEMPLATE.format(name=name, description=description, body=body)
    else:
        text = f"---\n{frontmatter}---\n\n{body}\n"
    (directory / "SKILL.md").write_text(text, encoding="utf-8")
    for rel_file, content in (files or {}).items():
        path = directory / rel_file
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return directory


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_cli


@pytest.fixture
def vectors() -> Path:
    return VECTORS
