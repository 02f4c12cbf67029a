"""The one registry of error codes (skillpack/errors.py): complete, current, strict."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skillpack.errors import (
    CODES,
    EXIT_FINDINGS,
    EXIT_USAGE,
    FAMILIES,
    RETIRED,
    ErrorCode,
    Family,
    SkillpackError,
    UsageError,
    load_package_tables,
    register,
)
from skillpack.lint.catalog import RULES
from tests.conftest import REPO, cli_env, run_cli

PACKAGE = REPO / "skillpack"
CODE = re.compile(r"[A-Z]{2,4}[0-9]{3}")

load_package_tables()


def code_literals() -> dict[str, set[str]]:
    """Every string literal in skillpack/ that looks like a code -> the files holding it
    (in skillpack/errors.py, only inside functions: its tables define codes, they do not
    raise them)."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        scopes: list[ast.AST] = [tree]
        if path == PACKAGE / "errors.py":
            scopes = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        for scope in scopes:
            for node in ast.walk(scope):
                text = node.value if isinstance(node, ast.Constant) else None
                if isinstance(text, str) and CODE.fullmatch(text):
                    found.setdefault(text, set()).add(str(path.relative_to(REPO)))
    return found


LITERALS = code_literals()


def test_docs_errors_md_is_current() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "skillpack.errors", "--check"],
        env=cli_env(),
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr + " (run: python -m skillpack.errors)"
    text = (REPO / "docs" / "errors.md").read_text("utf-8")
    for entry in CODES.values():
        assert f"| {entry.code} | {entry.exit_code} | " in text


def test_every_code_the_source_raises_is_registered() -> None:
    """Codes outside the lint catalog are registered; lint codes are catalog rules."""
    unregistered = {
        code: sorted(files)
        for code, files in LITERALS.items()
        if code not in CODES and code not in RULES
    }
    assert not unregistered, f"register these in skillpack/errors.py: {unregistered}"
    retired = {code: sorted(LITERALS[code]) for code in RETIRED if code in LITERALS}
    assert not retired, f"retired codes still in the source: {retired}"
    outside_lint = {
        code
        for code, files in LITERALS.items()
        if code in RULES
        and any(not f.startswith(("skillpack/lint/", "skillpack/scan/")) for f in files)
    }
    # a lint code used outside lint/ (and the content scan below it, which reports the
    # SP5xx rules) is one the reader or the build raises as an error
    assert outside_lint <= set(CODES), sorted(outside_lint - set(CODES))


def test_every_registered_code_is_raised_somewhere() -> None:
    """No entry outlives its code: each is in the source (the registry's tables aside)."""
    stale = sorted(c for c in CODES if c not in LITERALS)
    assert not stale, f"registered but never raised: {stale}"


def test_lint_rules_raised_as_errors_agree_with_the_catalog() -> None:
    for entry in CODES.values():
        if entry.code.startswith("SP"):
            rule = RULES[entry.code]
            assert entry.summary == rule.summary, entry.code
            assert entry.exit_code == EXIT_FINDINGS and rule.severity == "error"


def test_every_code_has_a_family_a_summary_and_an_error_exit() -> None:
    for entry in CODES.values():
        assert entry.code.rstrip("0123456789") in FAMILIES, entry.code
        assert entry.summary and "\n" not in entry.summary, entry.code
        assert entry.exit_code in (EXIT_FINDINGS, EXIT_USAGE), entry.code


def test_every_code_says_when_it_happens_and_what_to_do() -> None:
    """docs/errors.md has more than a summary for every code: a doc of one to a few
    sentences (when it happens, what to do), package tables (REG, INS) included."""
    assert {"REG001", "BND001", "SIG003", "CLI101"} <= CODES.keys()  # the tables are loaded
    empty = sorted(code for code, entry in CODES.items() if not entry.doc.strip())
    assert not empty, f"codes without a doc: {empty}"
    for entry in CODES.values():
        assert entry.doc.rstrip().endswith((".", ")")), entry.code
        assert entry.doc.strip() != entry.summary.strip(), entry.code


def test_an_unregistered_code_is_refused_where_it_is_made() -> None:
    with pytest.raises(ValueError, match="'XYZ999' cannot be raised: it is not registered"):
        SkillpackError("XYZ999", "no such code")
    with pytest.raises(ValueError, match="'SRV001' cannot be raised: it is retired"):
        UsageError("SRV001", "a missing path")
    with pytest.raises(ValueError, match="BND001 exits 1"):
        SkillpackError("BND001", "not a zip archive", exit_code=EXIT_USAGE)
    error = SkillpackError("BND001", "not a zip archive")
    assert error.exit_code == EXIT_FINDINGS  # the registry's exit code
    assert UsageError("USE001", "path does not exist").exit_code == EXIT_USAGE


def test_a_code_is_registered_once() -> None:
    with pytest.raises(ValueError, match="USE000 is registered already"):
        register(FAMILIES["USE"], [ErrorCode("USE000", "something else", EXIT_USAGE)])
    with pytest.raises(ValueError, match="is not a ZZZ code"):
        register(Family("ZZZ", "test"), [ErrorCode("USE999", "wrong family", EXIT_USAGE)])
    with pytest.raises(ValueError, match="an error exits 1 or 2"):
        register(Family("ZZZ", "test"), [ErrorCode("ZZZ001", "a bug", 3)])
    FAMILIES.pop("ZZZ", None)


def test_the_registry_exit_code_is_the_exit_code(tmp_path: Path) -> None:
    """Through the CLI: each failure exits with its code's registered exit code."""
    junk = tmp_path / "junk.skp"
    junk.write_bytes(b"not a zip at all")
    cases = [
        (["inspect", junk], "BND001"),
        (["inspect", tmp_path / "absent.skp"], "USE001"),
        (["inspect", tmp_path], "BND018"),
        (["lint", "--bogus"], "USE000"),
        (["rule", "SP999"], "USE004"),
    ]
    for args, code in cases:
        proc = run_cli(*args)
        assert f" {code} " in f" {proc.stderr}", (args, proc.stderr)
        assert proc.returncode == CODES[code].exit_code, (args, proc.stderr)


def test_the_readme_names_every_family_of_codes() -> None:
    """The README's sentence on error codes names every registered prefix (it lacked
    UNP, LNT and INT)."""
    readme = (REPO / "README.md").read_text("utf-8")
    start = readme.index("Every error is\na message with a stable code")
    sentence = readme[start : readme.index("never a traceback", start)]
    named = set(re.findall(r"`([A-Z]+)…`", sentence))
    assert named == set(FAMILIES), sorted(set(FAMILIES) ^ named)
