"""Precise on real repositories (issue 10 §4): lint on trees shaped like popular public
skill repositories (tests/repos/, see its README) reports what their maintainers would
agree with: commands in inline code are not file references, a reference to a sibling
skill's file is a portability warning, a reference out of the tree stays an error."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from skillpack.lint.references import is_plain_path, scan
from tests.conftest import public_trees, run_cli
from tests.lintutil import lint_json, write

REPOS = Path(__file__).resolve().parent / "repos"

#: every finding lint makes on each tree: (code, path:line:column, severity)
EXPECTED: dict[str, set[tuple[str, str, str]]] = {
    "catalog": {
        # the one true broken reference; `go test ./...`, `gh run view <run-id> ...`,
        # `assets/*.md`, `~/.codex/skills`, `path/to/...` are not references
        ("SP403", "skills/.experimental/plan-work/SKILL.md:12:2", "error"),
    },
    "plugins": {
        ("SP408", "plugins/audit/skills/contract-audit/SKILL.md:12:31", "warning"),
        ("SP404", "plugins/audit/skills/contract-audit/SKILL.md:14:40", "error"),
    },
    "flat": {
        ("SP408", "skills/brainstorm/SKILL.md:10:19", "warning"),
        ("SP408", "skills/brainstorm/SKILL.md:10:70", "warning"),
        ("SP408", "skills/brainstorm/SKILL.md:11:18", "warning"),
        ("SP404", "skills/brainstorm/SKILL.md:12:12", "error"),
        ("SP403", "skills/pdf-forms/SKILL.md:14:4", "error"),
    },
    "app": {
        # a link that works on disk but not from the skill's URI (another agent directory)
        ("SP404", ".github/skills/triage/SKILL.md:10:21", "error"),
    },
}
SKILLS = {"catalog": 3, "plugins": 2, "flat": 2, "app": 2}


def _copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(REPOS / name, target, symlinks=True)
    return target


def _found(report: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {
        (f["code"], f"{f['path']}:{f['line']}:{f['column']}", f["severity"])
        for f in report["findings"]
    }


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_lint_on_repository_shaped_trees(tmp_path: Path, name: str) -> None:
    tree = _copy(name, tmp_path)
    proc, report = lint_json(tree)
    assert _found(report) == EXPECTED[name], proc.stdout
    assert report["summary"]["skills"] == SKILLS[name]
    assert proc.returncode == 1  # each tree keeps one true error


def test_sibling_references_name_the_skill_and_its_uri(tmp_path: Path) -> None:
    tree = _copy("flat", tmp_path)
    _, report = lint_json(tree)
    messages = sorted(f["message"] for f in report["findings"] if f["code"] == "SP408")
    assert messages == [
        "'../pdf-forms/' is the skill 'skills/pdf-forms' (skill://skills/pdf-forms): this "
        "skill is not self-contained",
        "'../pdf-forms/SKILL.md' is a file of the skill 'skills/pdf-forms' "
        "(skill://skills/pdf-forms/SKILL.md): this skill is not self-contained",
        "'../pdf-forms/references/forms.md' is a file of the skill 'skills/pdf-forms' "
        "(skill://skills/pdf-forms/references/forms.md): this skill is not self-contained",
    ]
    (outside,) = [f for f in report["findings"] if f["code"] == "SP404"]
    assert outside["message"] == (
        "'../../spec/agent-skills.md' points outside the skill directory, to no file of the bundle"
    )


def test_a_commit_run_reports_what_a_whole_tree_run_reports(tmp_path: Path) -> None:
    """pre-commit passes file names: the sibling skill is found but not collected, and
    its files are still recognized as the bundle's (a warning, not an error)."""
    tree = _copy("flat", tmp_path)
    subprocess.run(["git", "init", "-q", str(tree)], check=True, timeout=60)
    _proc, report = lint_json(tree, "skills/brainstorm/SKILL.md")
    assert _found(report) == {f for f in EXPECTED["flat"] if "brainstorm" in f[1]}


def test_a_warning_does_not_stop_the_build_an_error_does(tmp_path: Path) -> None:
    tree = _copy("flat", tmp_path)
    brainstorm = tree / "skills" / "brainstorm" / "SKILL.md"
    text = brainstorm.read_text().replace("[the spec](../../spec/agent-skills.md)", "the spec")
    brainstorm.write_text(text)
    pdf = tree / "skills" / "pdf-forms"
    write(pdf / "scripts" / "check_fields.py", 'print("fields")\n')
    proc = run_cli("build", cwd=tree)
    assert proc.returncode == 0, proc.stderr
    brainstorm.write_text(text + "\nSee [the notes](../../notes.md).\n")
    proc = run_cli("build", cwd=tree)
    assert proc.returncode == 1
    assert "SP404 '../../notes.md' points outside the skill directory" in proc.stderr


def test_a_reference_resolved_against_the_uri_not_the_disk(tmp_path: Path) -> None:
    """With a prefix, the URI a host resolves differs from the disk path: a reference
    that works on disk only is an error; one that works for the URI is the warning."""
    write(tmp_path / "skillpack.toml", 'roots = [{path = "skills", prefix = "acme"}]\n')
    write(tmp_path / "skills" / "a" / "SKILL.md", _skill("a", "[b](../b/x.md)"))
    write(tmp_path / "skills" / "b" / "SKILL.md", _skill("b", "B."))
    write(tmp_path / "skills" / "b" / "x.md", "x\n")
    _, report = lint_json(tmp_path)
    assert [(f["code"], f["message"]) for f in report["findings"]] == [
        (
            "SP408",
            "'../b/x.md' is a file of the skill 'acme/b' (skill://acme/b/x.md): this skill is "
            "not self-contained",
        )
    ]


def _skill(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: Does {name}. Use it for {name}.\n---\n\n{body}\n"


@pytest.mark.parametrize(
    ("code", "reference"),
    [
        ("references/x.md", True),
        ("./scripts/run.sh", True),
        ("../other/SKILL.md", True),
        ("assets/", True),
        ("v1.2/notes.md", True),
        ("go test ./...", False),
        ("./...", False),
        ("python scripts/fill.py in.pdf", False),
        ("scripts/*.py", False),
        ("src/**/*.ts", False),
        ("{baseDir}/references/x.md", False),
        ("$HOME/.config/x", False),
        ("~/.codex/skills", False),
        ("a/.../b", False),
        ("path/to/…", False),
        ("src/app.py:12", False),
        ("/etc/passwd", False),
        ("--out=dir/x", False),
        ("@scope/pkg", False),
        ("plans/<date>.md", False),
        ("C:\\Users\\x", False),
        ("http://localhost:8080/x", False),
        ("SKILL.md", False),  # a bare name is a word, not a path
    ],
)
def test_what_inline_code_is_a_reference(code: str, reference: bool) -> None:
    assert is_plain_path(code) is reference
    found = [r.target for r in scan(f"Use `{code}` here.\n")]
    assert found == ([code] if reference else [])


@pytest.mark.parametrize("tree", public_trees(), ids=lambda p: p.name)
def test_public_collections_have_no_reference_findings(tree: Path, tmp_path: Path) -> None:
    """Footnote definitions (``[^1]: GitHub Blog. (2022) ...``), font files and example
    scripts are not broken references, in the look-alike and in the real collection."""
    _, report = lint_json(tmp_path, str(tree))
    assert [f for f in report["findings"] if f["code"] in ("SP403", "SP404", "SP408")] == []
