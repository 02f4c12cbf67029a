"""The floors of the architecture (docs/architecture.md): a module imports only from its
own floor or below, and no two modules import each other, directly or through others.

Every import counts: at module level, inside functions and under ``TYPE_CHECKING``. A
module's floor is the floor of the longest prefix of its name in :data:`FLOORS`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "skillpack"

#: module prefix -> floor, lowest first; the data flows up the floors
FLOORS: dict[str, int] = {
    "skillpack._internal": 0,
    "skillpack.errors": 0,
    "skillpack.manifest": 1,
    "skillpack.changes": 1,
    "skillpack.content": 1,
    "skillpack.scan": 1,
    "skillpack.source": 2,
    "skillpack.lint": 3,
    "skillpack.plugins": 3,  # the host manifest formats, read by lint's manifest rules
    "skillpack.lockfile": 4,
    "skillpack.plugins.sync": 4,  # the plugins command: it reads the lock
    "skillpack.bundle": 5,
    "skillpack.build": 6,
    "skillpack.signing": 6,
    "skillpack.registry": 7,
    "skillpack.gitsource": 7,
    "skillpack.policy": 7,
    "skillpack.fetch": 7,  # the one verified fetch: pull, install, serve
    "skillpack.install": 8,
    "skillpack.server": 8,
    "skillpack.client": 8,
    "skillpack.conformance": 8,
    "skillpack.cli": 9,
    "skillpack.__main__": 9,
    "skillpack": 9,  # the package itself: the lazy public facade
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def floor_of(module: str) -> int:
    name = module
    while name:
        if name in FLOORS:
            return FLOORS[name]
        name = name.rpartition(".")[0]
    raise AssertionError(f"{module} has no floor: add its package to FLOORS")


def imports_of(module: str, source: str | None = None) -> set[str]:
    """The skillpack modules ``module`` imports, anywhere in its body (``source``: its
    text, default read from its file)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    text = path.read_text("utf-8") if source is None else source
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            names = [f"{stem}.{alias.name}" for alias in node.names]
            names = [n if n in MODULES else stem for n in names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name.startswith("skillpack") and name != module:
                found.add(name)
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def test_every_module_has_a_floor() -> None:
    for module in MODULES:
        floor_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_from_a_higher_floor(module: str) -> None:
    mine = floor_of(module)
    higher = sorted(dep for dep in GRAPH[module] if floor_of(dep) > mine)
    assert not higher, f"{module} (floor {mine}) imports a later stage: {higher}"


def _cycle_from(start: str) -> list[str] | None:
    """A shortest import path from ``start`` back to itself, if any."""
    paths = {dep: [start, dep] for dep in GRAPH[start]}
    frontier = sorted(paths)
    while frontier:
        nxt = []
        for node in frontier:
            if node == start:
                return paths[node]
            for dep in sorted(GRAPH[node]):
                if dep not in paths:
                    paths[dep] = [*paths[node], dep]
                    nxt.append(dep)
        frontier = nxt
    return None


def test_no_import_cycles() -> None:
    cycles = {" -> ".join(c) for m in sorted(MODULES) if (c := _cycle_from(m)) is not None}
    assert not cycles, "import cycles:\n" + "\n".join(sorted(cycles))


def test_the_checker_sees_every_kind_of_import() -> None:
    """Imports inside functions, under TYPE_CHECKING and relative ones all count."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from skillpack.bundle.reader import Bundle\n"
        "def f():\n"
        "    from skillpack.build import builder\n"
        "    import skillpack.server.protocol\n"
        "from ..lockfile.lock import read_lock\n"
        "from . import secrets\n"
    )
    assert imports_of("skillpack.lint.engine", source) == {
        "skillpack.bundle.reader",
        "skillpack.build.builder",
        "skillpack.server.protocol",
        "skillpack.lockfile.lock",
        "skillpack.lint.secrets",
    }
