"""The project as users install it: the wheel's contents, and the code's own hygiene."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


def _packages_on_disk() -> set[str]:
    return {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "skillpack").rglob("__init__.py")
    }


def test_every_subpackage_is_listed_in_pyproject() -> None:
    listed = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    assert listed == _packages_on_disk() | {"skillpack.schemas"}


@pytest.mark.slow
def test_the_wheel_ships_the_schemas_and_py_typed(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("skillpack-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "skillpack/py.typed" in names
    schemas = {n.rsplit("/", 1)[-1] for n in names if n.startswith("skillpack/schemas/")}
    assert schemas == {p.name for p in (REPO / "schemas").glob("*.json")}
    assert not any("tests/" in n or "__pycache__" in n for n in names)


def test_ruff_is_clean() -> None:
    targets = [str(REPO / d) for d in ("skillpack", "tests", "benchmarks")]
    check = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", *targets],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout
    fmt = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", *targets],
        capture_output=True,
        text=True,
    )
    assert fmt.returncode == 0, fmt.stdout


@pytest.mark.slow
def test_mypy_is_clean() -> None:
    pytest.importorskip("mypy")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy"],  # the settings of pyproject.toml: strict, skillpack/
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
