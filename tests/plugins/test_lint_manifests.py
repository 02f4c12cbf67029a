"""lint's host manifest rules (SP6xx) through the real CLI: each rule on a fixture that
breaks it, reported at ``file:line:col``; well-formed manifests raise nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.lintutil import lint_json, skill_md, write

GOOD = {
    ".claude-plugin/plugin.json": {"name": "acme", "version": "1.0.0", "skills": "./skills/"},
    ".claude-plugin/marketplace.json": {
        "name": "acme-market", "owner": {"name": "Acme"},
        "plugins": [{"name": "acme", "source": "./", "version": "1.0.0"}],
    },
    ".codex-plugin/plugin.json": {"name": "acme", "version": "1.0.0", "skills": "./skills/"},
    ".agents/plugins/marketplace.json": {
        "name": "acme-market",
        "plugins": [{"name": "acme", "source": {"source": "local", "path": "./"},
                     "policy": {"installation": "AVAILABLE", "authentication": "ON_USE"}}],
    },
    ".cursor-plugin/plugin.json": {"name": "acme", "version": "1.0.0"},
    "gemini-extension.json": {"name": "acme", "version": "1.0.0"},
}  # fmt: skip


def project(root: Path, manifests: dict[str, Any], skills: tuple[str, ...] = ("a", "b")) -> Path:
    for name in skills:
        write(root / "skills" / name / "SKILL.md", skill_md(name))
    for rel, value in manifests.items():
        text = value if isinstance(value, str) else json.dumps(value, indent=2) + "\n"
        write(root / rel, text)
    return root


def sp6(report: dict[str, Any]) -> set[tuple[str, str, int, int]]:
    return {
        (f["code"], f["path"], f["line"], f["column"])
        for f in report["findings"]
        if f["code"].startswith("SP6")
    }


def test_well_formed_manifests_raise_nothing(tmp_path: Path) -> None:
    proc, report = lint_json(project(tmp_path, GOOD))
    assert proc.returncode == 0, report
    assert sp6(report) == set()


def test_not_json_is_named_at_line_and_column(tmp_path: Path) -> None:
    bad = '{\n  "name": "acme",\n  "version": "1.0.0",\n}\n'
    project(tmp_path, {**GOOD, "gemini-extension.json": bad,
                       ".cursor-plugin/plugin.json": '{"name": "a", "name": "b"}'})  # fmt: skip
    proc, report = lint_json(tmp_path)
    assert proc.returncode == 1
    assert sp6(report) == {
        ("SP601", "gemini-extension.json", 4, 1),
        ("SP601", ".cursor-plugin/plugin.json", 1, 15),
    }
    text = run_cli("lint", tmp_path, cwd=tmp_path).stdout
    assert "gemini-extension.json:4:1: SP601 not strict JSON: a trailing comma" in text


def test_fields_each_host_refuses(tmp_path: Path) -> None:
    codex_market = json.loads(json.dumps(GOOD[".agents/plugins/marketplace.json"]))
    codex_market["plugins"][0]["policy"]["installation"] = "ALWAYS"
    claude_market = {"name": "acme market", "owner": {"name": "Acme"},
                     "plugins": [{"name": "acme", "source": "plugins/x"}]}  # fmt: skip
    project(tmp_path, {
        ".claude-plugin/plugin.json": {"name": "acme", "version": 1, "author": "me"},
        ".claude-plugin/marketplace.json": claude_market,
        ".agents/plugins/marketplace.json": codex_market,
        ".codex-plugin/plugin.json": {"name": "acme"},
        "gemini-extension.json": {"name": "acme.x"},
    })  # fmt: skip
    _, report = lint_json(tmp_path)
    found = {(c, p) for c, p, _, _ in sp6(report) if c == "SP602"}
    messages = " | ".join(f["message"] for f in report["findings"] if f["code"] == "SP602")
    assert found == {
        ("SP602", ".claude-plugin/plugin.json"),
        ("SP602", ".claude-plugin/marketplace.json"),
        ("SP602", ".agents/plugins/marketplace.json"),
        ("SP602", "gemini-extension.json"),
    }
    for words in ("'version' must be a string, not a number", "'author' must be an object",
                  "invalid marketplace name 'acme market'", "must start with './'",
                  "'plugins[0].policy.installation' is 'ALWAYS'", "INSTALLED_BY_DEFAULT",
                  "'version' is required", "Gemini CLI allows only letters"):  # fmt: skip
        assert words in messages, words
    located = {(f["path"], f["line"], f["column"]) for f in report["findings"]
               if "ALWAYS" in f["message"]}  # fmt: skip
    text = (tmp_path / ".agents/plugins/marketplace.json").read_text()
    key = '"installation"'
    line, column = next(
        (i, s.index(key) + 1) for i, s in enumerate(text.splitlines(), 1) if key in s
    )
    assert located == {(".agents/plugins/marketplace.json", line, column)}


def test_kebab_case_is_a_warning(tmp_path: Path) -> None:
    project(tmp_path, {".claude-plugin/plugin.json": {"name": "Acme_Skills"}})
    proc, report = lint_json(tmp_path)
    assert proc.returncode == 0
    assert sp6(report) == {("SP603", ".claude-plugin/plugin.json", 2, 3)}


def test_paths_that_leave_the_plugin(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    write(tmp_path / "outside" / "s" / "SKILL.md", skill_md("s"))
    root = project(tmp_path / "p", {
        ".codex-plugin/plugin.json": {"name": "acme", "skills": "../outside"},
        ".cursor-plugin/plugin.json": {"name": "acme", "skills": ["./linked"]},
    })  # fmt: skip
    os.symlink(tmp_path / "outside", root / "linked")
    os.symlink(tmp_path / "outside" / "s" / "SKILL.md", root / "gemini-extension.json")
    _, report = lint_json(root)
    codes = {(c, p) for c, p, _, _ in sp6(report) if c == "SP604"}
    assert codes == {
        ("SP604", ".codex-plugin/plugin.json"),
        ("SP604", ".cursor-plugin/plugin.json"),
        ("SP604", "gemini-extension.json"),
    }


def test_missing_paths_and_sources(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir(parents=True)
    project(tmp_path, {
        ".claude-plugin/plugin.json": {"name": "acme", "skills": ["./skills/a", "./skills/zz"]},
        ".claude-plugin/marketplace.json": {"name": "m", "owner": {"name": "o"}, "plugins": [
            {"name": "acme", "source": "./"}, {"name": "gone", "source": "./plugins/gone"}]},
        ".codex-plugin/plugin.json": {"name": "acme", "skills": "./empty"},
        ".agents/plugins/marketplace.json": {"name": "m", "plugins": [
            {"name": "e", "source": {"source": "local", "path": "./empty"}}]},
        "gemini-extension.json": {"name": "acme", "version": "1", "contextFileName": "GEMINI.md"},
    })  # fmt: skip
    _, report = lint_json(tmp_path)
    missing = {(f["path"], f["message"].split(" names ")[0]) for f in report["findings"]
               if f["code"] == "SP605"}  # fmt: skip
    assert missing == {
        (".claude-plugin/plugin.json", "'skills[1]'"),
        (".claude-plugin/marketplace.json", "'plugins[1].source'"),
        (".codex-plugin/plugin.json", "'skills'"),
        (".agents/plugins/marketplace.json", "'plugins[0].source.path'"),
        ("gemini-extension.json", "'contextFileName'"),
    }


def test_names_and_versions_agree_with_skillpack_toml(tmp_path: Path) -> None:
    write(tmp_path / "skillpack.toml", 'name = "acme"\nversion = "1.1.0"\n')
    project(tmp_path, GOOD)
    _, report = lint_json(tmp_path)
    mismatched = {p for c, p, _, _ in sp6(report) if c == "SP606"}
    assert mismatched == {
        ".claude-plugin/plugin.json", ".claude-plugin/marketplace.json",
        ".codex-plugin/plugin.json", ".cursor-plugin/plugin.json", "gemini-extension.json",
    }  # fmt: skip
    assert "'version' is '1.0.0' but skillpack.toml says '1.1.0'" in json.dumps(report)


def test_versions_agree_across_hosts_without_a_configuration(tmp_path: Path) -> None:
    project(tmp_path, {**GOOD, "gemini-extension.json": {"name": "acme", "version": "0.9.0"}})
    _, report = lint_json(tmp_path)
    assert {(c, p) for c, p, _, _ in sp6(report)} == {("SP606", "gemini-extension.json")}


def test_a_skill_the_manifests_miss(tmp_path: Path) -> None:
    market = {"name": "m", "owner": {"name": "o"}, "plugins": [
        {"name": "docs", "source": "./", "strict": False, "skills": ["./skills/a"]}]}  # fmt: skip
    project(tmp_path, {".claude-plugin/marketplace.json": market}, skills=("a", "b"))
    write(tmp_path / "extra" / "c" / "SKILL.md", skill_md("c"))
    project(tmp_path, {".cursor-plugin/plugin.json": {"name": "acme"}}, skills=())
    _, report = lint_json(tmp_path)
    unreached = sorted((f["path"], f["message"]) for f in report["findings"]
                       if f["code"] == "SP607")  # fmt: skip
    assert unreached == [
        (".claude-plugin/marketplace.json", "2 skills are not in what Claude Code installs "
         "from .claude-plugin/marketplace.json: extra/c, skills/b"),
        (".cursor-plugin/plugin.json", "the skill extra/c is not in what Cursor installs "
         "from .cursor-plugin/plugin.json"),
    ]  # fmt: skip
    assert not [f for f in report["findings"] if f["code"] == "SP606"]


def test_a_run_on_some_skill_files_leaves_the_manifests_out(tmp_path: Path) -> None:
    project(tmp_path, {**GOOD, "gemini-extension.json": "{,}"})
    _, report = lint_json(tmp_path, "skills/a/SKILL.md")
    assert sp6(report) == set()
    _, report = lint_json(tmp_path, "gemini-extension.json")
    assert {c for c, *_ in sp6(report)} == {"SP601"}


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"\xef\xbb\xbf{}", "byte order mark"),
        (b'{"name": "caf\xe9"}', "not UTF-8"),
        (b'{"name": "\\ud800"}', "surrogate"),
        (b"[" * 5000 + b"]" * 5000, "nested more than 200 levels"),
        (b'{"name": NaN}', "a value was expected"),
        (b'{"name": "a"} // note', "text after the JSON value"),
        (b" " * (1 << 20) + b"{}", "larger than"),
    ],
)
def test_hostile_manifests_are_reported_not_crashed_on(
    tmp_path: Path, data: bytes, words: str
) -> None:
    project(tmp_path, {})
    (tmp_path / "gemini-extension.json").write_bytes(data)
    proc, report = lint_json(tmp_path)
    assert proc.returncode == 1, proc.stderr
    found = [f for f in report["findings"] if f["code"].startswith("SP6")]
    assert [(f["code"], f["path"]) for f in found] == [("SP601", "gemini-extension.json")]
    assert words in found[0]["message"]
    written = run_cli("plugins", cwd=tmp_path)
    assert written.returncode == 2 and "PLG002" in written.stderr, written.stderr
    assert "Traceback" not in written.stderr
    assert (tmp_path / "gemini-extension.json").read_bytes() == data


def test_a_fifo_in_a_manifests_place(tmp_path: Path) -> None:
    project(tmp_path, {})
    os.mkfifo(tmp_path / "gemini-extension.json")
    _, report = lint_json(tmp_path)
    found = [(f["code"], f["path"]) for f in report["findings"] if f["code"].startswith("SP6")]
    assert found == [("SP604", "gemini-extension.json")]
    written = run_cli("plugins", cwd=tmp_path, timeout=30)
    assert written.returncode == 2 and "PLG008" in written.stderr, written.stderr


def test_a_marketplace_of_several_plugins(tmp_path: Path) -> None:
    """Plugins in subdirectories: each one's own manifest is checked where it is, and
    its skills count as reached."""
    entries = [{"name": "a", "source": "./plugins/a"}, {"name": "b", "source": "./plugins/b"}]
    market = {"name": "m", "owner": {"name": "o"}, "plugins": entries}
    codex_market = {"name": "m", "plugins": [
        {"name": "a", "source": {"source": "local", "path": "./plugins/a"}}]}  # fmt: skip
    project(tmp_path, {
        ".claude-plugin/marketplace.json": market,
        ".agents/plugins/marketplace.json": codex_market,
        "plugins/a/.claude-plugin/plugin.json": {"name": "a", "version": 2},
        "plugins/a/.codex-plugin/plugin.json": {"name": "a", "skills": "./more/"},
    }, skills=())  # fmt: skip
    for rel in ("plugins/a/skills/x", "plugins/a/more/y", "plugins/b/skills/z", "loose/w"):
        write(tmp_path / rel / "SKILL.md", skill_md(rel.rsplit("/", 1)[-1]))
    _, report = lint_json(tmp_path)
    found = sorted((f["code"], f["path"], f["message"]) for f in report["findings"]
                   if f["code"].startswith("SP6"))  # fmt: skip
    assert found == [
        ("SP602", "plugins/a/.claude-plugin/plugin.json",
         "'version' must be a string, not a number"),
        ("SP607", ".agents/plugins/marketplace.json", "3 skills are not in what Codex installs "
         "from .agents/plugins/marketplace.json: loose/w, plugins/a/skills/x, plugins/b/skills/z"),
        ("SP607", ".claude-plugin/marketplace.json", "2 skills are not in what Claude Code "
         "installs from .claude-plugin/marketplace.json: loose/w, plugins/a/more/y"),
    ]  # fmt: skip
