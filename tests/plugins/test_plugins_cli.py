"""``skillpack plugins`` through the real CLI: what it writes for each host, the no-op
re-run, the fields it keeps, ``--check``/``--diff``, the version left unbumped, and the
refusals (bad manifests at file:line:col, links, unknown hosts)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.lintutil import write
from tests.plugins.conftest import make_project, read_json

FILES = {
    "claude": [".claude-plugin/plugin.json", ".claude-plugin/marketplace.json"],
    "codex": [".codex-plugin/plugin.json", ".agents/plugins/marketplace.json"],
    "cursor": [".cursor-plugin/plugin.json"],
    "gemini": ["gemini-extension.json"],
}
ALL = [f for files in FILES.values() for f in files]
PATHS = ["./skills/", "./skills/nested/inner"]  # inner is a skill inside the skill nested


def snapshot(root: Path) -> dict[str, bytes]:
    return {rel: (root / rel).read_bytes() for rel in ALL if (root / rel).exists()}


@pytest.mark.parametrize("host", sorted(FILES))
def test_writes_each_host(tmp_path: Path, host: str) -> None:
    root = make_project(tmp_path)
    proc = run_cli("plugins", "--host", host, cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert sorted(snapshot(root)) == sorted(FILES[host])
    plugin = read_json(root / FILES[host][0])
    assert plugin["name"] == "acme-skills" and plugin["version"] == "1.0.0"
    assert plugin["description"] == "Acme's skills for PDFs and reviews."
    if host == "gemini":
        assert "skills" not in plugin and "author" not in plugin
    else:
        assert plugin["skills"] == PATHS
        assert plugin["author"] == {"name": "Acme", "email": "dev@acme.example"}
        assert plugin["license"] == "MIT" and plugin["keywords"] == ["pdf", "review"]
    if host == "claude":
        market = read_json(root / FILES[host][1])
        assert market["owner"] == {"name": "Acme", "email": "dev@acme.example"}
        assert market["plugins"] == [{"name": "acme-skills", "source": "./",
                                      "description": "Acme's skills for PDFs and reviews.",
                                      "version": "1.0.0"}]  # fmt: skip
    if host == "codex":
        entry = read_json(root / FILES[host][1])["plugins"][0]
        assert entry["source"] == {"source": "local", "path": "./"}
        assert entry["policy"] == {"installation": "AVAILABLE", "authentication": "ON_INSTALL"}
    text = (root / FILES[host][0]).read_text("utf-8")
    assert text.endswith("}\n") and '\n  "name": "acme-skills",\n' in text
    assert run_cli("lint", root, cwd=root).returncode == 0  # what it writes lints clean


def test_rerun_is_a_no_op_and_check_passes(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    assert run_cli("plugins", cwd=root).returncode == 0
    before = snapshot(root)
    assert sorted(before) == sorted(ALL)  # no manifest yet: every host
    stamps = {rel: (root / rel).stat().st_mtime_ns for rel in ALL}
    again = run_cli("plugins", root)
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("up to date:") == len(ALL) and "wrote" not in again.stdout
    assert snapshot(root) == before
    assert {rel: (root / rel).stat().st_mtime_ns for rel in ALL} == stamps
    check = run_cli("plugins", "--check", cwd=root)
    assert check.returncode == 0 and check.stdout == "", check.stdout + check.stderr


def test_hand_written_fields_are_kept(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    codex = {
        "name": "old",
        "interface": {"displayName": "Acme", "capabilities": ["Read"]},
        "hooks": {},
        "version": "0.1.0",
        "skills": "./skills/",
    }
    claude = {
        "userConfig": {"token": {"type": "string"}},
        "mcpServers": {"x": {"command": "x"}},
        "name": "acme-skills",
        "hooks": "./hooks/hooks.json",
    }
    market = {
        "name": "acme-market",
        "owner": {"name": "Someone"},
        "metadata": {"a": 1},
        "plugins": [
            {"name": "other", "source": {"source": "github", "repo": "o/r"}},
            {"name": "acme-skills", "source": "./", "category": "dev", "version": "0.1.0"},
        ],
    }
    codex_market = {
        "name": "m",
        "plugins": [
            {
                "name": "acme-skills",
                "category": "Coding",
                "source": {"source": "url", "url": "./"},
                "policy": {"installation": "INSTALLED_BY_DEFAULT", "authentication": "ON_USE"},
            }
        ],
    }
    gemini = {"name": "acme-skills", "version": "0.1.0", "contextFileName": "GEMINI.md",
              "mcpServers": {}}  # fmt: skip
    for rel, value in [(".codex-plugin/plugin.json", codex), (".claude-plugin/plugin.json", claude),
                       (".claude-plugin/marketplace.json", market),
                       (".agents/plugins/marketplace.json", codex_market),
                       ("gemini-extension.json", gemini)]:  # fmt: skip
        write(root / rel, json.dumps(value, indent=4))
    write(root / "GEMINI.md", "context\n")
    proc = run_cli("plugins", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert not (root / ".cursor-plugin").exists()  # only the hosts present
    got = read_json(root / ".codex-plugin/plugin.json")
    assert list(got)[:5] == ["name", "interface", "hooks", "version", "skills"]  # in place
    assert got["interface"] == codex["interface"] and got["hooks"] == {}
    assert got["name"] == "acme-skills" and got["version"] == "1.0.0" and got["skills"] == PATHS
    got = read_json(root / ".claude-plugin/plugin.json")
    assert got["userConfig"] == claude["userConfig"] and got["mcpServers"] == claude["mcpServers"]
    assert got["hooks"] == "./hooks/hooks.json" and list(got)[:4] == list(claude)
    got = read_json(root / ".claude-plugin/marketplace.json")
    assert got["name"] == "acme-market" and got["owner"] == {"name": "Someone"}
    assert got["metadata"] == {"a": 1} and got["plugins"][0] == market["plugins"][0]
    assert got["plugins"][1]["category"] == "dev" and got["plugins"][1]["version"] == "1.0.0"
    got = read_json(root / ".agents/plugins/marketplace.json")
    assert got == {**codex_market, "plugins": codex_market["plugins"]}  # nothing it owns differs
    got = read_json(root / "gemini-extension.json")
    assert got["contextFileName"] == "GEMINI.md" and got["mcpServers"] == {}
    assert got["version"] == "1.0.0"
    assert run_cli("plugins", "--check", cwd=root).returncode == 0


def test_a_version_bump_is_seen_by_check(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    assert run_cli("plugins", cwd=root).returncode == 0
    toml = (root / "skillpack.toml").read_text().replace('"1.0.0"', '"1.1.0"')
    write(root / "skillpack.toml", toml)
    before = snapshot(root)
    check = run_cli("plugins", "--check", cwd=root)
    assert check.returncode == 1
    assert set(check.stdout.splitlines()) == {
        '.claude-plugin/plugin.json: version: "1.0.0" -> "1.1.0"',
        '.claude-plugin/marketplace.json: plugins[acme-skills].version: "1.0.0" -> "1.1.0"',
        '.codex-plugin/plugin.json: version: "1.0.0" -> "1.1.0"',
        '.cursor-plugin/plugin.json: version: "1.0.0" -> "1.1.0"',
        'gemini-extension.json: version: "1.0.0" -> "1.1.0"',
    }
    assert "PLG006 5 manifests of 6 differ" in check.stderr
    assert snapshot(root) == before  # --check writes nothing
    diff = run_cli("plugins", "--diff", cwd=root)
    assert diff.returncode == 1
    assert '-  "version": "1.0.0",\n+  "version": "1.1.0",' in diff.stdout
    assert "--- a/gemini-extension.json\n+++ b/gemini-extension.json\n" in diff.stdout
    assert snapshot(root) == before
    assert run_cli("plugins", cwd=root).returncode == 0
    assert read_json(root / "gemini-extension.json")["version"] == "1.1.0"


def test_a_changed_skill_under_an_unchanged_version_is_flagged(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    assert run_cli("lock", cwd=root).returncode == 0
    assert run_cli("plugins", cwd=root).returncode == 0
    assert run_cli("plugins", "--check", cwd=root).returncode == 0
    skill = root / "skills" / "pdf" / "SKILL.md"
    write(skill, skill.read_text() + "\nOne more step.\n")
    for args in (["--check"], []):
        proc = run_cli("plugins", *args, cwd=root)
        assert proc.returncode == 1, proc.stderr
        assert "PLG007 the skills changed since skillpack.lock but the version is still 1.0.0" in (
            proc.stderr)  # fmt: skip
        assert "pdf" in proc.stderr and "bump 'version'" in proc.stderr
    toml = (root / "skillpack.toml").read_text().replace('"1.0.0"', '"1.0.1"')
    write(root / "skillpack.toml", toml)
    assert run_cli("plugins", cwd=root).returncode == 0
    assert run_cli("lock", cwd=root).returncode == 0
    assert run_cli("plugins", "--check", cwd=root).returncode == 0


def test_bad_manifests_are_named_at_file_line_column(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    write(root / "gemini-extension.json", '{\n  "name": "acme-skills",\n  "version": 1.0.0\n}\n')
    write(root / ".codex-plugin/plugin.json", '{"name": "x"}')
    before = snapshot(root)
    proc = run_cli("plugins", cwd=root)
    assert proc.returncode == 2
    assert "gemini-extension.json:3:17: PLG002 not strict JSON" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert snapshot(root) == before  # nothing written, not even the good files
    write(root / "gemini-extension.json", "[]")
    proc = run_cli("plugins", "--check", cwd=root)
    assert proc.returncode == 2 and "gemini-extension.json:1:1: PLG003" in proc.stderr
    write(root / "gemini-extension.json", "{}")
    write(root / ".claude-plugin/marketplace.json", '{"name": "m",\n "plugins": {}}')
    proc = run_cli("plugins", cwd=root)
    assert proc.returncode == 2
    assert ".claude-plugin/marketplace.json:2:2: PLG003 'plugins' is not an array" in proc.stderr


def test_links_are_never_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = make_project(tmp_path / "project")
    os.symlink(outside, root / ".claude-plugin")
    proc = run_cli("plugins", "--host", "claude", cwd=root)
    assert proc.returncode == 2 and "PLG008" in proc.stderr, proc.stderr
    assert list(outside.iterdir()) == []
    (root / ".claude-plugin").unlink()
    (root / ".cursor-plugin").mkdir()
    target = outside / "plugin.json"
    target.write_text('{"name": "acme-skills"}')
    os.symlink(target, root / ".cursor-plugin" / "plugin.json")
    proc = run_cli("plugins", "--host", "cursor", cwd=root)
    assert proc.returncode == 2 and "PLG008" in proc.stderr, proc.stderr
    assert target.read_text() == '{"name": "acme-skills"}'


def test_usage_errors(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    proc = run_cli("plugins", "--host", "vscode", cwd=root)
    assert proc.returncode == 2 and "PLG005" in proc.stderr and "claude, codex" in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_cli("plugins", empty)
    assert proc.returncode == 2 and "PLG009" in proc.stderr
    assert not any(empty.iterdir())


def test_configured_hosts_and_extras(tmp_path: Path) -> None:
    toml = ('name = "acme-skills"\nversion = "2.0.0"\n[plugins]\nhosts = ["gemini"]\n'
            '[plugins.gemini]\ncontextFileName = "GEMINI.md"\n')  # fmt: skip
    root = make_project(tmp_path, toml)
    write(root / "GEMINI.md", "context\n")
    assert run_cli("plugins", cwd=root).returncode == 0
    assert sorted(snapshot(root)) == ["gemini-extension.json"]
    assert read_json(root / "gemini-extension.json") == {
        "contextFileName": "GEMINI.md", "name": "acme-skills", "version": "2.0.0"}  # fmt: skip
