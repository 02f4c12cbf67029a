"""An agent directory that is a symbolic link (issue 21, audit 1): a link whose real path
is not itself an agent directory of the project (``.windsurf/skills -> ../.git``, or into
``src/``) is refused (INS008) by install, ``--frozen``, ``--check`` and uninstall before
anything is read or written; ``.claude/skills -> ../.agents/skills`` (one directory two
agents share) keeps working, copies and ``--link`` alike."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.install.conftest import LOCK, Bundles, Run, ok, snapshot

COMMANDS = (("install",), ("install", "--frozen"), ("install", "--check"),
            ("uninstall", "hooks"), ("uninstall", "hooks", "--force"))  # fmt: skip


@pytest.fixture(scope="module")
def hooks_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle whose skill is named ``hooks``: an executable ``pre-commit`` and byte
    copies of git's ``*.sample`` hooks (so that ``.git/hooks`` shows no local work)."""
    base = tmp_path_factory.mktemp("hooks")
    skill = base / "src" / "skills" / "hooks"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: hooks\ndescription: Hooks. Use it.\n---\nx\n")
    (skill / "pre-commit").write_text("#!/bin/sh\necho pwned > pwned.txt\n")
    (skill / "pre-commit").chmod(0o755)
    (skill / "pre-push.sample").write_text("#!/bin/sh\nexit 0\n")
    (base / "src" / "skillpack.toml").write_text(
        'name = "evil"\nversion = "1.0.0"\nroots = ["skills"]\n'
    )
    out = base / "evil.skp"
    proc = run_cli("build", base / "src", "-o", out, "--no-lint")
    assert proc.returncode == 0, proc.stderr
    return out


def _pull_request(tmp_path: Path, bundle: Path, agent: str, agent_dir: str, into: str) -> Path:
    """The project after a pull request: its lock (made in a clean clone, where the
    agent directory is a directory), the bundle beside it, and the agent directory
    committed as a link to ``into``."""
    clean = tmp_path / "clean"
    (clean / agent_dir).mkdir(parents=True)
    shutil.copy(bundle, clean / "evil.skp")
    ok(run_cli("install", "evil.skp", "-a", agent, cwd=clean, env=_env(tmp_path)))
    victim = tmp_path / "victim"
    hooks = victim / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "pre-push.sample").write_text("#!/bin/sh\nexit 0\n")
    (victim / "src" / "app").mkdir(parents=True)
    (victim / "src" / "app" / "main.py").write_text("print('mine')\n")
    shutil.copy(clean / LOCK, victim / LOCK)
    shutil.copy(bundle, victim / "evil.skp")
    link = victim / agent_dir
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(into)
    return victim


def _env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "SKILLPACK_CACHE_DIR": str(tmp_path / "cache"), "CLAUDE_CONFIG_DIR": "",
            "CODEX_HOME": ""}  # fmt: skip


@pytest.mark.parametrize(
    ("agent", "agent_dir", "into", "culprit"),
    [
        ("windsurf", ".windsurf/skills", "../.git", ".git"),
        ("codex", ".agents/skills", "../src", "src"),
        ("claude-code", ".claude/skills", "../src/app", "src/app"),
        ("windsurf", ".windsurf", ".git", ".git/skills"),  # a parent of it a link
    ],
)
def test_an_agent_directory_linked_into_the_project_is_refused(
    tmp_path: Path, hooks_bundle: Path, agent: str, agent_dir: str, into: str, culprit: str
) -> None:
    """The audit's attack: ``.windsurf/skills -> ../.git`` and a lock entry
    ``.windsurf/skills/hooks`` made ``install --frozen`` write an executable
    ``.git/hooks/pre-commit`` (links inside the project were allowed)."""
    victim = _pull_request(tmp_path, hooks_bundle, agent, agent_dir, into)
    if culprit == ".git/skills":
        (victim / ".git" / "skills").mkdir()
    before = snapshot(tmp_path)
    for args in COMMANDS:
        proc = run_cli(*args, cwd=victim, env=_env(tmp_path))
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "INS008" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert f"through a symbolic link to {culprit}, which is not an agent directory" in (
            proc.stderr
        ), proc.stderr
        assert snapshot(tmp_path) == before, args
    assert not (victim / ".git" / "hooks" / "pre-commit").exists()
    # a SOURCE given on the command line: the same refusal, before the first write
    proc = run_cli("install", "evil.skp", "-a", agent, cwd=victim, env=_env(tmp_path))
    assert proc.returncode == 2 and "INS008" in proc.stderr, proc.stderr
    assert snapshot(tmp_path) == before


def test_one_agent_directory_shared_by_two_agents_keeps_working(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    """``.claude/skills -> ../.agents/skills``: copies for both agents land in the one
    directory; with ``--link`` the link of claude-code's directory would be the copy
    itself (it was made a link to itself, the copy lost, by the old code)."""
    (project / ".agents" / "skills").mkdir(parents=True)
    (project / ".claude").mkdir()
    (project / ".claude" / "skills").symlink_to("../.agents/skills")
    ok(sp("install", bundles.v1, "-a", "claude-code", "-a", "codex", "-s", "review"))
    ok(sp("install", bundles.v1, "-a", "claude-code", "-a", "codex", "-s", "notes", "--link"))
    copy = project / ".agents" / "skills" / "notes"
    assert copy.is_dir() and not copy.is_symlink() and (copy / "SKILL.md").is_file()
    assert "no drift" in ok(sp("install", "--check")).stdout
    again = ok(sp("install"))
    assert "0 written" in again.stdout, again.stdout
    ok(sp("install", "--frozen"))
    assert "no drift" in ok(sp("install", "--check")).stdout
    gone = ok(sp("uninstall", "notes", "review"))
    assert "kept" not in gone.stdout and "left" not in gone.stdout, gone.stdout
    assert sorted(os.listdir(project / ".agents" / "skills")) == []
    assert (project / ".claude" / "skills").is_symlink()
