"""Render a :class:`LintResult`: ``text``, ``json``, ``sarif`` (2.1.0) and ``github``.

Paths are shown relative to ``base`` (the current directory) when inside it, with
``/`` separators, so reports are the same on every machine and in CI.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skillpack._internal.version import __version__
from skillpack._internal.words import plural
from skillpack.lint.catalog import ERROR, INFO, RULES, WARNING
from skillpack.lint.engine import LintResult
from skillpack.lint.finding import Finding

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://skillpack.dev"


def unfolded_reference(text: str) -> str | None:
    """The ``oci://`` reference a path stands for (a ``Path`` folds ``oci://`` into
    ``oci:/``: ``lint oci://...`` and its findings' paths), else None."""
    if text.startswith("oci:/") and not text.startswith("oci://"):
        return "oci://" + text[len("oci:/") :]
    return None


def relative(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when inside it, else absolute; ``/``-separated. Bytes
    of names that are not UTF-8 are shown as ``\\xNN`` so every report is valid UTF-8."""
    try:
        shown = path.relative_to(base).as_posix()
    except ValueError:
        shown = path.as_posix()
    shown = unfolded_reference(shown) or shown  # a bundle's reference (``lint oci://``)
    return shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# --- text ---------------------------------------------------------------------------
_COLOURS = {ERROR: "\033[1;31m", WARNING: "\033[1;33m", INFO: "\033[1;36m"}
_BOLD = "\033[1m"
_DIM = "\033[2m"
_RESET = "\033[0m"


def use_colour(stream: Any) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def location(finding: Finding, base: Path) -> str:
    where = relative(finding.path, base)
    if finding.line:
        where += f":{finding.line}:{finding.column or 1}"
    return where


def render_text(result: LintResult, base: Path, colour: bool = False) -> str:
    """``path:line:col: CODE message`` lines, each followed by an indented help line."""
    out: list[str] = []
    for f in result.findings:
        where = location(f, base)
        if colour:
            out.append(
                f"{_BOLD}{where}{_RESET}: {_COLOURS[f.severity]}{f.code}{_RESET} {f.message}"
            )
            if f.hint:
                out.append(f"  {_DIM}help: {f.hint}{_RESET}")
        else:
            out.append(f"{where}: {f.code} {f.message}")
            if f.hint:
                out.append(f"  help: {f.hint}")
    return "\n".join(out) + ("\n" if out else "")


def summary(result: LintResult, fixed: int = 0, fixable: bool = True) -> str:
    """The one-line summary printed on stderr after a text report (``fixable``: whether
    to count what ``--fix`` would repair; a bundle cannot be fixed)."""
    checked = f"{plural(result.skills, 'skill')}, {plural(result.files, 'file')} checked"
    parts = []
    if fixed:
        parts.append(f"fixed {plural(fixed, 'issue')}")
    if not result.findings:
        parts.append(f"all checks passed ({checked})")
    else:
        counts = [plural(result.errors, "error"), plural(result.warnings, "warning"),
                  f"{result.infos} info"]  # fmt: skip
        parts.append(f"found {', '.join(counts)} ({checked})")
        if fixable and result.fixable:
            parts.append(f"{result.fixable} fixable with 'skillpack lint --fix'")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def render_statistics(result: LintResult) -> str:
    lines = [
        f"{count:>5}  {code}  {RULES[code].name}{'  [*]' if RULES[code].fixable else ''}"
        for code, count in result.statistics()
    ]
    return "\n".join(lines) + ("\n" if lines else "")


# --- json ---------------------------------------------------------------------------
def finding_json(f: Finding, base: Path) -> dict[str, Any]:
    return {
        "code": f.code,
        "name": f.name,
        "severity": f.severity,
        "message": f.message,
        "hint": f.hint or None,
        "path": relative(f.path, base),
        "line": f.line or None,
        "column": (f.column or 1) if f.line else None,
        "skill": f.skill or None,
        "fixable": f.fixable,
    }


def render_json(result: LintResult, base: Path) -> str:
    doc = {
        "version": 1,
        "tool": {"name": "skillpack", "version": __version__},
        "summary": {
            "skills": result.skills,
            "files": result.files,
            "errors": result.errors,
            "warnings": result.warnings,
            "info": result.infos,
            "fixable": result.fixable,
        },
        "findings": [finding_json(f, base) for f in result.findings],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# --- sarif --------------------------------------------------------------------------
_SARIF_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "note"}


def _sarif_rule(code: str) -> dict[str, Any]:
    rule = RULES[code]
    return {
        "id": rule.code,
        "name": "".join(part.capitalize() for part in rule.name.split("-")),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.why},
        "help": {"text": f"{rule.why}\n\nHow to fix: {rule.fix}", "markdown": rule.doc},
        "helpUri": rule.help_uri,
        "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
        "properties": {"tags": [rule.group, rule.name], "precision": "high"},
    }


def _uri_reference(path: Path, base: Path) -> str:
    """A SARIF artifact URI: the shown path, percent-encoded as RFC 3986 requires."""
    from urllib.parse import quote

    return quote(relative(path, base), safe="/")


def render_sarif(result: LintResult, base: Path) -> str:
    """SARIF 2.1.0 as GitHub code scanning accepts it (one run, rules with help, results
    with a physical location relative to the repository root ``%SRCROOT%``)."""
    codes = sorted({f.code for f in result.findings})
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for f in result.findings:
        region: dict[str, int] = {}
        if f.line:
            region = {"startLine": f.line, "startColumn": f.column or 1}
        physical: dict[str, Any] = {
            "artifactLocation": {"uri": _uri_reference(f.path, base), "uriBaseId": "%SRCROOT%"}
        }
        if region:
            physical["region"] = region
        message = f.message + (f". {f.hint[0].upper()}{f.hint[1:]}." if f.hint else "")
        results.append(
            {
                "ruleId": f.code,
                "ruleIndex": index[f.code],
                "level": _SARIF_LEVEL[f.severity],
                "message": {"text": message},
                "locations": [{"physicalLocation": physical}],
                "partialFingerprints": {
                    "skillpack/v1": f"{f.code}:{relative(f.path, base)}:{f.message}"
                },
            }
        )
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "skillpack",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_sarif_rule(code) for code in codes],
                    }
                },
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# --- github -------------------------------------------------------------------------
_GITHUB_COMMAND = {ERROR: "error", WARNING: "warning", INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: LintResult, base: Path) -> str:
    """GitHub Actions workflow commands: ``::error file=…,line=…,col=…,title=CODE::message``."""
    out = []
    for f in result.findings:
        props = [f"file={_escape_property(relative(f.path, base))}"]
        if f.line:
            props += [f"line={f.line}", f"col={f.column or 1}"]
        props.append(f"title={f.code}")
        message = f.message + (f" (help: {f.hint})" if f.hint else "")
        out.append(f"::{_GITHUB_COMMAND[f.severity]} {','.join(props)}::{_escape_data(message)}")
    return "\n".join(out) + ("\n" if out else "")


RENDERERS: dict[str, Callable[[LintResult, Path], str]] = {
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}
