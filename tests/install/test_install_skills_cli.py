"""An independent reader of agent directories: the ``skills`` installer CLI 1.7.4 (npm
``skills``, on the node 22 it needs, both pinned in tests/install/skills_cli/) lists
exactly the skills ``skillpack install`` put there, where it put them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from skillpack.install.lockfile import read_install_lock
from tests.conftest import REPO
from tests.install.conftest import LOCK, Bundles, Run, ok

SKILLS_CLI = REPO / "tests" / "install" / "skills_cli"
#: how skills 1.7.4 names the agents these tests install for
DISPLAY = {"claude-code": "Claude Code", "windsurf": "Windsurf", "goose": "Goose",
           "codex": "Codex", "roo": "Roo Code"}  # fmt: skip


@pytest.fixture(scope="session")
def skills_cli() -> tuple[Path, Path]:
    if shutil.which("npm") is None:
        pytest.skip("npm not found: the skills CLI cannot be installed")
    proc = subprocess.run(
        ["bash", str(SKILLS_CLI / "install.sh")], capture_output=True, text=True, timeout=900
    )
    node = SKILLS_CLI / "node_modules" / "node" / "bin" / "node"
    script = SKILLS_CLI / "node_modules" / "skills" / "bin" / "cli.mjs"
    # npm is here: an install that fails is a failure, not a reason to skip
    assert proc.returncode == 0 and script.is_file(), f"install failed: {proc.stderr[-3000:]}"
    return node, script


def run_skills(
    skills_cli: tuple[Path, Path], project: Path, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    """``skills ARGS`` in ``project``, with the test's environment and no telemetry."""
    node, script = skills_cli
    proc = subprocess.run(
        [str(node), str(script), *args],
        cwd=project,
        env={
            "PATH": "/usr/bin:/bin",
            **env,
            "NO_COLOR": "1",
            "DISABLE_TELEMETRY": "1",
            "DO_NOT_TRACK": "1",
        },
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def skills_list(skills_cli: tuple[Path, Path], project: Path, env: dict[str, str]) -> Any:
    return json.loads(run_skills(skills_cli, project, env, "list", "--json").stdout)


@pytest.mark.parametrize("layout", ["copy", "link"])
def test_the_skills_cli_lists_what_was_installed(
    sp: Run,
    project: Path,
    bundles: Bundles,
    env: dict[str, str],
    home: Path,
    skills_cli: tuple[Path, Path],
    layout: str,
) -> None:
    (home / ".codex").mkdir()  # Codex is installed for this user: the skills CLI detects it
    agents = ["claude-code", "codex", "windsurf", "goose", "roo"]
    args = [x for a in agents for x in ("-a", a)]
    ok(sp("install", bundles.v1, *args, *(["--link"] if layout == "link" else [])))
    lock = read_install_lock(project / LOCK)
    listed = {entry["name"]: entry for entry in skills_list(skills_cli, project, env)}
    assert set(listed) == {s.name for s in lock.skills}
    for skill in lock.skills:
        entry = listed[skill.name]
        assert entry["scope"] == "project"
        # the path it lists is one skillpack installed the skill at
        assert Path(entry["path"]).relative_to(project).as_posix() in {
            d.path for d in skill.directories
        }, entry
        # and every agent installed for reads it there
        assert {DISPLAY[a] for a in agents} <= set(entry["agents"]), entry
    # uninstalled: the skills CLI sees it gone
    ok(sp("uninstall", "review"))
    listed = {entry["name"] for entry in skills_list(skills_cli, project, env)}
    assert listed == {s.name for s in lock.skills} - {"review"}
