"""``skillpack lint`` as a user and CI see it: formats, exit codes, selection, paths."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, SAMPLE, public_trees, run_cli
from tests.lintutil import findings, lint_json, skill_md, write


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Two clean skills, one with an error (SP103), one with a warning (SP111)."""
    write(tmp_path / "skills" / "good" / "SKILL.md", skill_md("good"))
    write(tmp_path / "skills" / "good" / "references" / "a.md", "x")
    write(tmp_path / "skills" / "team" / "also-good" / "SKILL.md", skill_md("also-good"))
    write(tmp_path / "skills" / "bad" / "SKILL.md", skill_md("wrong-name"))
    write(tmp_path / "skills" / "warned" / "SKILL.md", skill_md("warned", "version: '1'\n"))
    return tmp_path


def test_help_lists_the_options() -> None:
    proc = run_cli("lint", "--help")
    assert proc.returncode == 0
    for option in (
        "--format",
        "--output",
        "--fix",
        "--select",
        "--extend-select",
        "--ignore",
        "--config",
        "--statistics",
    ):
        assert option in proc.stdout
    proc = run_cli("--help")
    assert proc.returncode == 0
    assert "lint" in proc.stdout and "fmt" in proc.stdout and "rule" in proc.stdout


def test_text_format_exit_code_and_summary(tree: Path) -> None:
    proc = run_cli("lint", "skills", cwd=tree)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "skills/bad/SKILL.md:2:1: SP103 'name' is 'wrong-name' but the skill directory is 'bad'",
        "  help: set 'name: bad' or rename the directory to 'wrong-name'",
        "skills/warned/SKILL.md:4:1: SP111 unknown field 'version': MCP passes it through, but "
        "skills-ref and other hosts refuse fields other than name, description, license, "
        "compatibility, metadata, allowed-tools",
        "  help: move it under 'metadata' as a string, or ignore SP111",
    ]
    assert proc.stderr.strip() == "Found 1 error, 1 warning, 0 info (4 skills, 5 files checked)."
    assert "\033[" not in proc.stdout  # not a terminal: no colour


def test_warnings_alone_exit_zero(tree: Path) -> None:
    proc = run_cli("lint", "skills/warned", "skills/good", cwd=tree)
    assert proc.returncode == 0, proc.stdout
    assert "SP111" in proc.stdout


def test_clean_tree_says_so(tree: Path) -> None:
    proc = run_cli("lint", "skills/good", cwd=tree)
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert proc.stderr.strip() == "All checks passed (1 skill, 2 files checked)."


def test_json_format(tree: Path) -> None:
    proc, report = lint_json(tree, "skills")
    assert proc.returncode == 1
    assert report["summary"] == {
        "skills": 4,
        "files": 5,
        "errors": 1,
        "warnings": 1,
        "info": 0,
        "fixable": 0,
    }
    first = report["findings"][0]
    assert first == {
        "code": "SP103",
        "name": "name-mismatch",
        "severity": "error",
        "message": "'name' is 'wrong-name' but the skill directory is 'bad'",
        "hint": "set 'name: bad' or rename the directory to 'wrong-name'",
        "path": "skills/bad/SKILL.md",
        "line": 2,
        "column": 1,
        "skill": "bad",  # no configuration and no git: the directory given is the root
        "fixable": False,
    }
    assert proc.stderr == ""  # machine formats print no summary


def test_sarif_format_is_what_code_scanning_accepts(tree: Path) -> None:
    proc = run_cli("lint", "--format", "sarif", "skills", cwd=tree)
    assert proc.returncode == 1
    sarif = json.loads(proc.stdout)
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    (run,) = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "skillpack"
    rules = {r["id"]: r for r in driver["rules"]}
    assert set(rules) == {"SP103", "SP111"}
    assert rules["SP103"]["helpUri"].endswith("#sp103")
    assert rules["SP103"]["help"]["text"] and rules["SP103"]["help"]["markdown"]
    assert rules["SP111"]["defaultConfiguration"]["level"] == "warning"
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["SP103", "SP111"]
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert not physical["artifactLocation"]["uri"].startswith("/")
        assert physical["region"]["startLine"] >= 1
    assert results[0]["level"] == "error"
    write(tree / "skills" / "bad" / "User Guide.md", "x")  # SP206: a path with a space
    sarif = json.loads(run_cli("lint", "--format", "sarif", "skills", cwd=tree).stdout)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert "skills/bad/User%20Guide.md" in uris
    assert results[0]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "skills/bad/SKILL.md", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 2, "startColumn": 1},
    }


def test_github_format_annotations(tree: Path) -> None:
    write(
        tree / "skills" / "crlf" / "SKILL.md",
        skill_md("crlf", "x-a: 'b, c'\n").replace("\n", "\r\n"),
    )
    proc = run_cli("lint", "--format", "github", "skills", cwd=tree)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == (
        "::error file=skills/bad/SKILL.md,line=2,col=1,title=SP103::'name' is 'wrong-name' but "
        "the skill directory is 'bad' (help: set 'name: bad' or rename the directory to "
        "'wrong-name')"
    )
    assert any(
        line.startswith("::warning file=skills/crlf/SKILL.md,line=1,col=4,title=SP405::")
        for line in lines
    )
    annotation = re.compile(
        r"::(error|warning|notice) file=[^,]+(,line=\d+,col=\d+)?,title=SP\d{3}::.+"
    )
    assert all(annotation.fullmatch(line) for line in lines)


def test_output_file(tree: Path) -> None:
    proc = run_cli("lint", "--format", "json", "--output", "out/report.json", "skills", cwd=tree)
    assert proc.returncode == 1
    assert proc.stdout == ""
    report = json.loads((tree / "out" / "report.json").read_text())
    assert report["summary"]["errors"] == 1
    assert "Found 1 error" in proc.stderr


def test_statistics(tree: Path) -> None:
    proc = run_cli("lint", "--statistics", "skills", cwd=tree)
    assert proc.returncode == 1
    assert proc.stdout.split() == ["1", "SP103", "name-mismatch", "1", "SP111", "unknown-field"]


def test_select_ignore_and_extend_select_flags(tree: Path) -> None:
    _, report = lint_json(tree, "skills", "--ignore", "SP103")
    assert {f["code"] for f in report["findings"]} == {"SP111"}
    _, report = lint_json(tree, "skills", "--select", "SP10")
    assert {f["code"] for f in report["findings"]} == {"SP103"}
    # the most specific selector wins: ignore the group, keep one rule
    _, report = lint_json(tree, "skills", "--ignore", "SP1", "--extend-select", "SP111")
    assert {f["code"] for f in report["findings"]} == {"SP111"}
    _, report = lint_json(tree, "skills", "--select", "sp1,SP2", "--ignore", "SP10")
    assert {f["code"] for f in report["findings"]} == {"SP111"}
    # a tie goes to ignore
    _, report = lint_json(tree, "skills", "--select", "SP103", "--ignore", "SP103")
    assert report["findings"] == []


def test_unknown_selector_is_a_usage_error(tree: Path) -> None:
    proc = run_cli("lint", "skills", "--select", "SP999", cwd=tree)
    assert proc.returncode == 2
    assert "--select: SP999 matches no rule" in proc.stderr


def test_bad_format_and_missing_path_are_usage_errors(tree: Path) -> None:
    proc = run_cli("lint", "--format", "xml", "skills", cwd=tree)
    assert proc.returncode == 2
    assert "USE000 argument -f/--format: invalid choice: 'xml'" in proc.stderr
    proc = run_cli("lint", "--bogus", cwd=tree)
    assert proc.returncode == 2 and "unrecognized arguments: --bogus" in proc.stderr
    proc = run_cli("lint", "skills/nope", cwd=tree)
    assert proc.returncode == 2 and "skills/nope: USE001 path does not exist" in proc.stderr


def test_configuration_selection_severity_and_per_path_ignores(tree: Path) -> None:
    write(
        tree / "skillpack.toml",
        (
            'roots = ["skills"]\n[lint]\nignore = ["SP111"]\n'
            '[lint.severity]\nSP103 = "warning"\nSP304 = "error"\n'
            '[lint.per-path-ignores]\n"skills/good/**" = ["SP304"]\n'
        ),
    )
    write(tree / "skills" / "good" / ".notes", "x")
    write(tree / "skills" / "team" / "also-good" / ".notes", "x")
    proc, report = lint_json(tree)
    assert proc.returncode == 1  # SP304 raised to error
    assert {(f["code"], f["severity"], f["path"]) for f in report["findings"]} == {
        ("SP103", "warning", "skills/bad/SKILL.md"),
        ("SP304", "error", "skills/team/also-good/.notes"),
    }
    # the command line extends the configuration
    _, report = lint_json(tree, "--extend-select", "SP111", "--ignore", "SP3")
    assert {f["code"] for f in report["findings"]} == {"SP103", "SP111"}


def test_configuration_errors_name_file_and_key(tree: Path) -> None:
    write(
        tree / "pyproject.toml",
        '[tool.skillpack]\nroots = ["skills"]\n[tool.skillpack.lint]\nignore = ["SP9"]\n',
    )
    proc = run_cli("lint", cwd=tree)
    assert proc.returncode == 2
    assert f"{tree / 'pyproject.toml'}: CFG010 invalid configuration key " in proc.stderr
    assert "'tool.skillpack.lint.ignore': SP9 matches no rule" in proc.stderr
    write(
        tree / "pyproject.toml",
        '[tool.skillpack]\n[tool.skillpack.lint.severity]\nSP103 = "fatal"\n',
    )
    proc = run_cli("lint", cwd=tree)
    assert proc.returncode == 2
    assert "'tool.skillpack.lint.severity.SP103'" in proc.stderr


def test_paths_lint_only_the_skills_they_touch(tree: Path) -> None:
    # without a configuration file, the git work tree is the project (as for pre-commit)
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    # a pre-commit run passes file names: only their skills are checked...
    _, report = lint_json(tree, "skills/good/references/a.md", "skills/warned/SKILL.md")
    assert report["summary"]["skills"] == 2
    assert findings(report) == {("SP111", "skills/warned/SKILL.md", 4)}
    # ...but duplicate names are still found against the whole tree
    write(tree / "skills" / "other" / "good" / "SKILL.md", skill_md("good"))
    _, report = lint_json(tree, "skills/good/SKILL.md")
    assert findings(report) == {("SP205", "skills/good/SKILL.md", None)}
    # files outside every skill select nothing
    write(tree / "README.md", "x")
    proc = run_cli("lint", "README.md", cwd=tree)
    assert proc.returncode == 0
    assert "no skills found" in proc.stderr


def test_examples_lint_clean() -> None:
    proc = run_cli("lint", "examples", cwd=EXAMPLES.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 errors, 0 warnings" in proc.stderr
    # the one note: pdf-processing declares allowed-tools, which hosts may ignore
    assert [
        line.split(": ")[1].split()[0]
        for line in proc.stdout.splitlines()
        if not line.startswith(" ")
    ] == ["SP110"]


def test_sample_tree(tmp_path: Path) -> None:
    """The sample tree (tests/data/sample) lints clean but for the SKILL.md written without
    a final newline; its 16 files are all checked (binary assets and scripts included)."""
    proc, report = lint_json(SAMPLE, cwd=SAMPLE)
    assert proc.returncode == 0
    assert findings(report) == {("SP407", "poster-design/SKILL.md", 13)}
    assert report["summary"]["skills"] == 4
    assert report["summary"]["files"] == 16


#: what lint reports on each public tree, each finding checked by hand
PUBLIC_FINDINGS = {
    # tests/repos/gallery, the look-alike: the same kinds as the real collection's
    "gallery": (
        {
            ("SP105", "api-guide/SKILL.md", 3),  # a description of 1277 characters
            ("SP401", "api-guide/SKILL.md", 501),  # 537 lines
            ("SP402", "api-guide/SKILL.md", None),  # about 7,750 tokens
            ("SP407", "poster-maker/SKILL.md", 13),  # no newline at the end
        },
        5,
        22,
    ),
    # The Apache-licensed anthropics/skills:
    # * claude-api: SP105, its description is 1068 characters; the Agent Skills limit is
    #   1024 and skills-ref refuses it too ("Description exceeds 1024 character limit");
    # * claude-api (578 lines, ~18k tokens) and skill-creator (~8k tokens): SP401/SP402,
    #   over the Agent Skills guidance of 500 lines / 5,000 tokens;
    # * four SKILL.md files end without a newline: SP407 (info).
    "anthropics-skills": (
        {
            ("SP105", "claude-api/SKILL.md", 3),
            ("SP401", "claude-api/SKILL.md", 501),
            ("SP402", "claude-api/SKILL.md", None),
            ("SP402", "skill-creator/SKILL.md", None),
            ("SP407", "algorithmic-art/SKILL.md", 405),
            ("SP407", "canvas-design/SKILL.md", 130),
            ("SP407", "web-artifacts-builder/SKILL.md", 74),
            ("SP407", "webapp-testing/SKILL.md", 96),
        },
        12,
        222,
    ),
}


@pytest.mark.parametrize("tree", public_trees(), ids=lambda p: p.name)
def test_public_skill_collections(tree: Path) -> None:
    """A public collection (the look-alike, and the real one when it is beside the
    checkout) lints with exactly the findings checked by hand: footnotes, fonts,
    licenses and scripts raise nothing."""
    expected, skills, files = PUBLIC_FINDINGS[tree.name]
    proc, report = lint_json(tree, cwd=tree)
    assert proc.returncode == 1
    assert findings(report) == expected
    assert report["summary"]["skills"] == skills
    assert report["summary"]["files"] == files


def _run_on_a_terminal(args: list[str], cwd: Path, no_color: bool) -> str:
    """Run the CLI with stdout on a pseudo-terminal; return what it printed there."""
    import os
    import pty
    import sys

    from tests.conftest import cli_env

    env = cli_env()
    if not no_color:
        env.pop("NO_COLOR")
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillpack", *args],
        cwd=cwd,
        env=env,
        stdout=follower,
        stderr=subprocess.PIPE,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the process has finished writing
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_only_on_a_terminal_and_never_with_no_color(tree: Path) -> None:
    coloured = _run_on_a_terminal(["lint", "skills"], tree, no_color=False)
    assert "\033[1;31mSP103\033[0m" in coloured  # errors in red
    assert "\033[1;33mSP111\033[0m" in coloured  # warnings in yellow
    plain = _run_on_a_terminal(["lint", "skills"], tree, no_color=True)
    assert "\033[" not in plain and "SP103" in plain


def test_the_typer_app_forwards_lint_and_fmt(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``skillpack.cli.run`` (the typer app) runs the same commands as ``python -m skillpack``."""
    from skillpack.cli import run

    assert run(["lint", "--format", "json", str(tree / "skills")]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {f["code"] for f in report["findings"]} == {"SP103", "SP111"}
    assert run(["fmt", "--check", str(tree / "skills")]) == 0
    assert run(["lint", "--bogus"]) == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_every_frontmatter_finding_is_reported_and_fix_counts_them(tmp_path: Path) -> None:
    """Issue 10 §6: six ambiguous values are six findings, not the first one only, and
    ``--fix`` says it fixed six; the other refusals of the same block are reported too."""
    values = ["yes", "Off", "010", "1_000", "2024-01-31", "0o17"]
    extra = "metadata:\n" + "".join(f"  k{i}: {v}\n" for i, v in enumerate(values))
    write(tmp_path / "s" / "six" / "SKILL.md", skill_md("six", extra))
    proc, report = lint_json(tmp_path, "s")
    assert proc.returncode == 1
    assert [(f["code"], f["line"]) for f in report["findings"]] == [
        ("SP013", line) for line in range(5, 11)
    ]
    proc = run_cli("lint", "--fix", "s", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert proc.stderr.startswith("Fixed 6 issues; all checks passed")

    write(tmp_path / "t" / "mixed" / "SKILL.md", skill_md("mixed", "on: x\nb: &a 1\nb: 2\n"))
    proc, report = lint_json(tmp_path, "t")
    assert [(f["code"], f["line"], f["message"]) for f in report["findings"]] == [
        ("SP013", 4, "key 'on' is a boolean in YAML 1.1 but a string in YAML 1.2"),
        ("SP007", 5, "anchor '&a' is not allowed"),
        ("SP010", 6, "duplicate key 'b'"),
    ]


def test_the_files_checked_are_counted_once(tmp_path: Path) -> None:
    """The summary counts each file once: a nested skill's files are its parent's too
    (make_project: 'tools/nested' inside 'tools'); without nesting, every file counts."""
    from tests._bundles import make_project

    project = make_project(tmp_path / "p")
    on_disk = [p for p in (project / "skills").rglob("*") if p.is_file()]
    proc = run_cli("lint", project, "--format", "json")
    assert json.loads(proc.stdout)["summary"]["files"] == len(on_disk) == 7, proc.stdout
    proc = run_cli("lint", project)
    assert "(3 skills, 7 files checked)" in proc.stderr, proc.stderr
    (project / "skills" / "tools" / "nested" / "SKILL.md").unlink()  # no longer a skill
    proc = run_cli("lint", project, "--format", "json")
    assert json.loads(proc.stdout)["summary"]["files"] == len(on_disk) - 1, proc.stdout
