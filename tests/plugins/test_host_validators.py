"""The real hosts' own validators, offline, on what ``skillpack plugins`` wrote: Claude
Code 2.1.328 (``claude plugin validate --json`` lists exactly the project's skills),
Gemini CLI 0.61.0 (``gemini extensions validate`` succeeds) and Codex 0.169.0 (``codex
plugin marketplace add`` then ``codex plugin list`` lists the plugin; ``codex plugin
add`` installs it and ``codex debug prompt-input`` tells the model of exactly the
project's skills), each with a temporary HOME (and CODEX_HOME). Skipped where
tests/hosts/node_modules is not installed (tests/hosts/install.sh)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.plugins.conftest import make_project

HOSTS = Path(__file__).resolve().parent.parent / "hosts" / "node_modules"
BIN = HOSTS / ".bin"
NODE = HOSTS / "node" / "bin" / "node"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (NODE.exists() and (BIN / "claude").exists()),
        reason="the host CLIs are not installed (tests/hosts/install.sh)",
    ),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_project(tmp_path_factory.mktemp("plugin") / "acme-skills")
    proc = run_cli("plugins", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return root


def skill_names(root: Path) -> list[str]:
    """The frontmatter names of the project's skills, read from the files themselves."""
    names = []
    for path in sorted(root.rglob("SKILL.md")):
        found = re.search(r"^name: *(\S+)$", path.read_text("utf-8"), re.MULTILINE)
        assert found, path
        names.append(found[1])
    return names


def host(tmp_path: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": f"{NODE.parent}:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "CODEX_HOME": str(home / ".codex"),
        "NO_COLOR": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }
    (home / ".codex").mkdir(exist_ok=True)
    return subprocess.run(
        [str(a) for a in args], cwd=home, env=env, capture_output=True, text=True, timeout=300
    )


def test_claude_code_validates_it_and_lists_exactly_the_skills(
    project: Path, tmp_path: Path
) -> None:
    proc = host(tmp_path, BIN / "claude", "plugin", "validate", project, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["success"] is True
    assert report["manifest"]["errors"] == []
    assert [c["errors"] for c in report["contents"] if c["errors"]] == []
    expected = sorted(f"acme-skills:{name}" for name in skill_names(project))
    assert len(expected) == 4
    assert sorted(report["provides"]["skills"]) == expected
    plugin = host(tmp_path, BIN / "claude", "plugin", "validate",
                  project / ".claude-plugin" / "plugin.json", "--json")  # fmt: skip
    assert plugin.returncode == 0 and json.loads(plugin.stdout)["manifest"]["errors"] == []


def test_gemini_cli_validates_it(project: Path, tmp_path: Path) -> None:
    proc = host(tmp_path, NODE, BIN / "gemini", "extensions", "validate", project)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "has been successfully validated" in out and "Warning" not in out


def test_codex_lists_the_plugin(project: Path, tmp_path: Path) -> None:
    added = host(tmp_path, NODE, BIN / "codex", "plugin", "marketplace", "add", project)
    assert added.returncode == 0, added.stdout + added.stderr
    assert "Added marketplace `acme-skills`" in added.stdout + added.stderr
    listed = host(tmp_path, NODE, BIN / "codex", "plugin", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert ["acme-skills@acme-skills", "not", "installed", str(project)] in rows, listed.stdout
    # installed, the skills the model is told of are exactly the project's
    added = host(tmp_path, NODE, BIN / "codex", "plugin", "add", "acme-skills@acme-skills")
    assert added.returncode == 0, added.stdout + added.stderr
    prompt = host(tmp_path, NODE, BIN / "codex", "debug", "prompt-input")
    assert prompt.returncode == 0, prompt.stderr
    told = set(re.findall(r"acme-skills:[a-z0-9-]+", prompt.stdout))
    assert told == {f"acme-skills:{name}" for name in skill_names(project)}


def test_a_broken_manifest_fails_the_real_validator_too(tmp_path: Path) -> None:
    """The validators can fail: a Gemini manifest without its version is refused by both
    Gemini CLI and lint (SP602)."""
    root = make_project(tmp_path / "p")
    (root / "gemini-extension.json").write_text('{"name": "acme-skills"}')
    proc = host(tmp_path, NODE, BIN / "gemini", "extensions", "validate", root)
    assert proc.returncode != 0 and 'missing "version"' in proc.stdout + proc.stderr
    lint = run_cli("lint", root, cwd=root)
    assert "SP602 'version' is required" in lint.stdout
