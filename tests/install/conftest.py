"""Fixtures of the install tests: bundles built by the real CLI (two versions of one
catalog, a second source, a bundle with a skill name twice), key pairs, and a project
directory with an environment that keeps the user's own home out of every run."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from skillpack.signing.keys import generate_keypair
from tests.conftest import run_cli, write_skill

LOCK = "skillpack-install.lock"


def build_catalog(root: Path, version: str, *, extra: bool = False) -> Path:
    """``acme`` catalog: ``review`` (with a script), ``release`` and ``notes`` in a group
    folder; version 2 changes review's script and allowed-tools and adds a file."""
    root.mkdir(parents=True)
    (root / "skillpack.toml").write_text(
        f'name = "acme"\nversion = "{version}"\nroots = ["skills"]\n', encoding="utf-8"
    )
    tools = "Bash(git:*)" if version == "1.0.0" else "Bash(git:*) Bash(rm:*)"
    write_skill(
        root / "skills",
        "review",
        frontmatter=f"name: review\ndescription: Reviews a change. Use it on every diff.\n"
        f"allowed-tools: {tools}\n",
        files={
            "references/checklist.md": "- [ ] tests\n",
            "scripts/check.sh": f"#!/bin/sh\necho {version}\n",
        },
    )
    (root / "skills" / "review" / "scripts" / "check.sh").chmod(0o755)
    write_skill(root / "skills", "release", files={"templates/notes.md": "## Notes\n"})
    write_skill(root / "skills", "team/notes")
    if extra or version != "1.0.0":
        (root / "skills" / "release" / "templates" / "extra.md").write_text("more\n")
    out = root / "dist" / f"acme-{version}.skp"
    proc = run_cli("build", root, "-o", out, "--no-lint")
    assert proc.returncode == 0, proc.stderr
    return out


@dataclass(frozen=True)
class Bundles:
    v1: Path
    v2: Path
    other: Path  #: another source: ``helper`` and a skill named ``review`` too
    twins: Path  #: two groups of one bundle, each with a skill named ``deploy``


@pytest.fixture(scope="session")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> Bundles:
    base = tmp_path_factory.mktemp("bundles")
    v1 = build_catalog(base / "acme-1", "1.0.0")
    v2 = build_catalog(base / "acme-2", "2.0.0")
    other = base / "other"
    (other / "skillpack.toml").parent.mkdir(parents=True)
    (other / "skillpack.toml").write_text('name = "other"\nversion = "0.1.0"\nroots = ["s"]\n')
    write_skill(other / "s", "helper")
    write_skill(other / "s", "review", body="Another review skill.")
    assert run_cli("build", other, "-o", other / "other.skp", "--no-lint").returncode == 0
    twins = base / "twins"
    (twins / "skillpack.toml").parent.mkdir(parents=True)
    (twins / "skillpack.toml").write_text('name = "twins"\nversion = "1.0.0"\nroots = ["s"]\n')
    write_skill(twins / "s", "a/deploy")
    write_skill(twins / "s", "b/deploy", body="The other deploy.")
    assert run_cli("build", twins, "-o", twins / "twins.skp", "--no-lint").returncode == 0
    return Bundles(v1, v2, other / "other.skp", twins / "twins.skp")


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return generate_keypair(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="session")
def other_keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return generate_keypair(tmp_path_factory.mktemp("other-keys"))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home directory of the test's own: global installs land here, never in the
    user's."""
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def env(home: Path, tmp_path: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "SKILLPACK_CACHE_DIR": str(tmp_path / "cache"),
        "CLAUDE_CONFIG_DIR": "",
        "CODEX_HOME": "",
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def sp(project: Path, env: dict[str, str]) -> Run:
    """``skillpack ARGS`` in the project, with the test's environment."""

    def run(
        *args: str | os.PathLike[str],
        cwd: Path | None = None,
        extra: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, cwd=cwd or project, env={**env, **(extra or {})})

    return run


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def refused(proc: subprocess.CompletedProcess[str], code: str, exit_code: int) -> str:
    assert proc.returncode == exit_code, proc.stdout + proc.stderr
    assert code in proc.stderr, proc.stderr
    return proc.stderr


def snapshot(root: Path) -> dict[str, tuple[str, str, float]]:
    """Every path under ``root`` (links not followed): its kind, content digest or link
    target, and mtime, to compare before and after a command."""
    out: dict[str, tuple[str, str, float]] = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path), st.st_mtime)
        elif path.is_dir():
            out[rel] = ("dir", "", st.st_mtime)
        else:
            out[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mtime)
    return out


def tree_files(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` by relative path (links not followed)."""
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }
