"""docs/registry.md lists every REG code with its summary and exit code; the package
imports nothing of skillpack but skillpack.errors, its modules import each other without
cycles (TYPE_CHECKING imports included), and importing it stays cheap."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from skillpack.registry.errors import CODES, INTEGRITY_CODES, RegistryError
from tests.conftest import REPO

PACKAGE = REPO / "skillpack" / "registry"


def test_the_codes_table_in_the_docs_matches_errors_py() -> None:
    text = (REPO / "docs" / "registry.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(REG\d{3})` \| (.+?) \| ([12]) \|$", text, flags=re.M)
    assert [code for code, _, _ in rows] == list(CODES)
    for code, summary, exit_code in rows:
        assert summary.replace("`", "") == CODES[code]
        assert int(exit_code) == (1 if code in INTEGRITY_CODES else 2)
        assert RegistryError(code, "m").exit_code == int(exit_code)


def test_the_package_imports_only_the_stdlib_requests_and_skillpack_errors() -> None:
    allowed = {"requests", "skillpack.errors"}
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if name.startswith("skillpack.registry") or top in sys.stdlib_module_names:
                    continue
                assert name in allowed or top == "requests", f"{path.name} imports {name}"


def test_importing_the_package_is_cheap() -> None:
    code = (
        "import sys, skillpack.registry\n"
        "heavy = [m for m in ('requests', 'urllib3', 'skillpack.registry.client') "
        "if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    ).stdout.strip()
    assert out == "[]"


def _registry_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("skillpack.registry."):
                found.add(node.module.rpartition(".")[2])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("skillpack.registry."):
                    found.add(alias.name.split(".")[2])
    return found


def test_no_import_cycles_inside_the_package() -> None:
    graph = {path.stem: _registry_imports(path) for path in PACKAGE.glob("*.py")}
    graph.pop("__init__")  # the facade imports everything, nothing imports it

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    assert [m for m in graph if reaches(m, m, set())] == []
