"""lint and build agree (issue 10 §2): what build refuses, lint reports, whatever the
rule selection; lock refuses what build refuses; ``build --no-lint`` never drops a file
in silence. Each case goes through the real CLI: lint under several selections that
would switch the rule off, lock, ``build --no-lint`` and build."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from skillpack.lint.catalog import RULES, STRUCTURAL
from tests.conftest import run_cli
from tests.lintutil import skill_md, write


def _skill(root: Path, name: str = "report-writer", extra: str = "") -> Path:
    directory = root / "skills" / name
    write(directory / "SKILL.md", skill_md(name, extra))
    return directory


def _frontmatter_too_large(root: Path) -> Path:
    directory = _skill(root)
    big = "x" * (70 * 1024)
    return write(directory / "SKILL.md", skill_md("report-writer", f"notes: '{big}'\n"))


def _no_frontmatter(root: Path) -> Path:
    directory = _skill(root)
    return write(directory / "SKILL.md", "# Report writer\n\nWrites reports.\n")


def _undecodable_name(root: Path) -> Path:
    directory = _skill(root)
    path = Path(os.fsdecode(os.fsencode(directory / "templates") + b"/summ\xe4ry.txt"))
    return write(path, "a template\n")


def _symlinked_file(root: Path) -> Path:
    directory = _skill(root)
    write(root / "shared" / "style.md", "house style\n")
    link = directory / "references" / "style.md"
    link.parent.mkdir()
    os.symlink("../../../shared/style.md", link)
    return link


def _case_collision(root: Path) -> Path:
    directory = _skill(root)
    write(directory / "CHANGELOG.txt", "one\n")
    return write(directory / "changelog.txt", "two\n")


def _control_character(root: Path) -> Path:
    directory = _skill(root)
    return write(directory / "notes\tdraft.md", "draft\n")


def _fifo(root: Path) -> Path:
    directory = _skill(root)
    os.mkfifo(directory / "events")
    return directory / "events"


def _conflicting_copies(root: Path) -> Path:
    write(root / ".agents" / "skills" / "triage" / "SKILL.md", skill_md("triage"))
    write(root / ".claude" / "skills" / "triage" / "SKILL.md", skill_md("triage", "license: MIT\n"))
    return root / ".claude" / "skills" / "triage"


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "conflicting-copies": (_conflicting_copies, "SP212"),
    "frontmatter-too-large": (_frontmatter_too_large, "SP012"),
    "no-frontmatter": (_no_frontmatter, "SP001"),
    "undecodable-name": (_undecodable_name, "SP208"),
    "symlinked-file": (_symlinked_file, "SP301"),
    "case-collision": (_case_collision, "SP207"),
    "control-character": (_control_character, "SP210"),
    "fifo": (_fifo, "SP303"),
}

#: selections that would switch a rule off: (command-line flags, skillpack.toml)
SELECTIONS = {
    "--ignore ALL": (["--ignore", "ALL"], ""),
    "--ignore CODE": (["--ignore", "{code}"], ""),
    "--select SP4": (["--select", "SP4"], ""),
    "config ignore": ([], '[lint]\nignore = ["{code}"]\n'),
    "config ignore prefix": ([], '[lint]\nignore = ["SP"]\n'),
    "config severity": ([], '[lint.severity]\n{code} = "info"\n'),
    "config per-path-ignores": ([], '[lint.per-path-ignores]\n"**" = ["{code}"]\n'),
}


def _findings(proc_stdout: str) -> list[dict[str, object]]:
    return list(json.loads(proc_stdout)["findings"])


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("selection", sorted(SELECTIONS))
def test_a_structural_problem_cannot_be_ignored_into_a_passing_lint(
    tmp_path: Path, case: str, selection: str
) -> None:
    make, code = CASES[case]
    make(tmp_path)
    flags, config = SELECTIONS[selection]
    if config:
        (tmp_path / "skillpack.toml").write_text(config.format(code=code))
    proc = run_cli(
        "lint", "--format", "json", *(f.format(code=code) for f in flags), ".", cwd=tmp_path
    )
    assert proc.returncode == 1, proc.stdout
    (found,) = [f for f in _findings(proc.stdout) if f["code"] == code]
    assert found["severity"] == "error"
    assert f"{code} cannot be ignored" in str(found["hint"])
    build = run_cli("build", ".", cwd=tmp_path)  # and build refuses it, with the same code
    assert build.returncode == 1 and code in build.stderr, build.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_lock_and_build_no_lint_refuse_what_build_refuses(tmp_path: Path, case: str) -> None:
    make, code = CASES[case]
    culprit = make(tmp_path)
    lint = run_cli("lint", ".", cwd=tmp_path)
    assert lint.returncode == 1 and code in lint.stdout
    for args, refusal in ((["lock"], "LCK006"), (["lock", "--check"], "LCK006"),
                          (["build", "--no-lint"], "BLD012"), (["build"], "BLD010")):  # fmt: skip
        proc = run_cli(*args, ".", cwd=tmp_path)
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        assert proc.stderr.startswith(f"{refusal} "), proc.stderr
        assert f": {code} " in proc.stderr  # the finding, named
        if refusal == "BLD012":  # the hint is whole, not cut after "the other"
            assert "--no-lint skips the other rules, never these" in proc.stderr
        shown = os.fsencode(culprit.relative_to(tmp_path)).decode("ascii", "backslashreplace")
        if code not in ("SP001", "SP012"):  # those name SKILL.md, the file they are in
            assert shown.replace("\t", "\\t") in proc.stderr.replace("\t", "\\t"), proc.stderr
    assert not (tmp_path / "skillpack.lock").exists()
    assert not (tmp_path / "dist").exists()  # no bundle, without the culprit or with it


def test_lock_refuses_a_collision_that_lock_check_called_up_to_date(tmp_path: Path) -> None:
    """A lock written before the collision appeared is not "up to date" after it."""
    directory = _skill(tmp_path)
    write(directory / "Guide.md", "guide\n")
    assert run_cli("lock", ".", cwd=tmp_path).returncode == 0
    write(directory / "GUIDE.md", "other guide\n")
    proc = run_cli("lock", "--check", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("LCK006 ") and "SP207" in proc.stderr


def test_an_excluded_entry_is_no_problem(tmp_path: Path) -> None:
    """The way to leave a file out on purpose: exclude it."""
    _symlinked_file(tmp_path)
    _undecodable_name(tmp_path)
    (tmp_path / "skillpack.toml").write_text(
        'extend-exclude = ["**/references/style.md", "**/templates/summ*"]\n'
    )
    assert run_cli("lint", ".", cwd=tmp_path).returncode == 0
    built = run_cli("build", "--no-lint", ".", cwd=tmp_path)
    assert built.returncode == 0, built.stderr


def test_paths_of_two_roots_that_clash_are_reported_by_lint_and_refused_by_build(
    tmp_path: Path,
) -> None:
    """A file of one skill where another root's skill needs a directory: lint (SP207)
    and build (BLD003 with --no-lint, through the same judgement of the tree)."""
    write(tmp_path / "a" / "guides" / "SKILL.md", skill_md("guides"))
    write(tmp_path / "a" / "guides" / "setup", "a file called setup\n")
    write(tmp_path / "b" / "linux" / "SKILL.md", skill_md("linux"))
    (tmp_path / "skillpack.toml").write_text(
        'roots = [{path = "a", prefix = "ops"}, {path = "b", prefix = "ops/guides/setup"}]\n'
    )
    lint = run_cli("lint", "--ignore", "ALL", ".", cwd=tmp_path)
    assert lint.returncode == 1
    assert "SP207 'ops/guides/setup/linux/SKILL.md' needs a directory where" in lint.stdout
    build = run_cli("build", "--no-lint", ".", cwd=tmp_path)
    assert build.returncode == 1 and "SP207" in build.stderr


def test_the_structural_rules_are_the_documented_ones() -> None:
    assert {
        *(f"SP{n:03d}" for n in range(1, 19)),
        "SP207", "SP208", "SP210", "SP212", "SP301", "SP303", "SP306",
    } == STRUCTURAL  # fmt: skip
    for code in STRUCTURAL:
        assert RULES[code].severity == "error"
        assert "Can be ignored: no" in RULES[code].doc
    proc = run_cli("rule", "SP301", "--format", "json")
    assert json.loads(proc.stdout)["structural"] is True


def test_a_control_character_is_one_finding_not_two(tmp_path: Path) -> None:
    """A name the bundle format refuses is SP210's error; the SP206 warning that its
    characters need percent-encoding would say the same thing twice."""
    bad = _control_character(tmp_path)
    spaced = write(bad.parent / "user guide.md", "guide\n")  # needs encoding, publishable
    proc = run_cli("lint", "--format", "json", ".", cwd=tmp_path)
    found = {(f["code"], Path(str(f["path"])).name) for f in _findings(proc.stdout)}
    assert ("SP210", bad.name) in found and ("SP206", bad.name) not in found, found
    assert ("SP206", spaced.name) in found


def _hint(proc: subprocess.CompletedProcess[str]) -> str:
    return next(line for line in proc.stderr.splitlines() if line.lstrip().startswith("hint:"))


def test_the_gates_offer_only_what_helps(tmp_path: Path) -> None:
    """--no-lint is offered only where some error is not structural; a fixable error
    names lint --fix and fmt; in build, serve DIR and lock alike."""
    skill = tmp_path / "skills" / "demo" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: demo\ndescription: yes\n---\nBody\n")  # SP013 only
    for args in (["build"], ["serve"]):
        hint = _hint(run_cli(*args, "skills", cwd=tmp_path, input=b""))
        assert "'skillpack lint --fix' or 'skillpack fmt' repairs SP013" in hint, hint
        assert "--no-lint cannot help: no bundle holds SP013" in hint
        assert "pass --no-lint" not in hint
    lock = _hint(run_cli("lock", "skills", cwd=tmp_path))
    assert "lint --fix' or 'skillpack fmt' repairs SP013" in lock and "--no-lint" not in lock
    skill.write_text("---\nname: Demo\ndescription: yes\n---\nBody\n")  # + SP102, SP103
    hint = _hint(run_cli("build", "skills", cwd=tmp_path))
    assert "or pass --no-lint (it never skips SP013: no bundle holds them)" in hint, hint
    hint = _hint(run_cli("serve", "skills", cwd=tmp_path, input=b""))
    assert "or pass --no-lint to serve anyway (it never skips SP013" in hint, hint
    skill.write_text("---\nname: Demo\ndescription: ok\n---\nBody\n")  # not structural
    hint = _hint(run_cli("build", "skills", cwd=tmp_path))
    assert hint.endswith("; or pass --no-lint") and "lint --fix" not in hint, hint
