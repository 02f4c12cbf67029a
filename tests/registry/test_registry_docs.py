"""docs/registry.md lists every REG code with its summary and exit code; the package
imports nothing of skillpack but skillpack.errors, and importing it stays cheap."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

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
