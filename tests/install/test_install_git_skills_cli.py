"""The skills CLI 1.7.4 and git sources: it lists what ``skillpack install`` put there
from a git repository, and a project it set up (``skills add`` of a local repository,
its ``skills-lock.json``) moves to skillpack with ``--from-skills-lock``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from skillpack.install.lockfile import read_install_lock
from tests.install.conftest import LOCK, Run, ok, tree_files
from tests.install.test_install_git import Repo, repo
from tests.install.test_install_skills_cli import run_skills, skills_cli, skills_list

__all__ = ["repo", "skills_cli"]  # fixtures


def test_the_skills_cli_lists_what_a_git_install_put_there(
    sp: Run, project: Path, repo: Repo, env: dict[str, str], skills_cli: tuple[Path, Path]
) -> None:
    (project / ".claude").mkdir()
    ok(sp("install", f"{repo.url}@v1", "-a", "claude-code"))
    lock = read_install_lock(project / LOCK)
    listed = {e["name"]: e for e in skills_list(skills_cli, project, env)}
    assert set(listed) == {s.name for s in lock.skills} == {"review", "notes"}
    for s in lock.skills:
        where = Path(listed[s.name]["path"]).relative_to(project).as_posix()
        assert where in {d.path for d in s.directories}


def test_a_skills_cli_project_moves_with_from_skills_lock(
    sp: Run, project: Path, repo: Repo, env: dict[str, str], skills_cli: tuple[Path, Path]
) -> None:
    source = f"file://{repo.bare}"
    run_skills(skills_cli, project, env, "add", source, "--copy", "--full-depth", "-a",
               "claude-code", "-y")  # fmt: skip
    entries = json.loads((project / "skills-lock.json").read_text())["skills"]
    assert {e["sourceType"] for e in entries.values()} == {"git"}
    (project / "skillpack.toml").write_text('name = "team"\n# kept as it is\n')
    ok(sp("install", "--from-skills-lock", "skills-lock.json"))
    text = (project / "skillpack.toml").read_text()
    assert text.startswith('name = "team"\n# kept as it is\n')
    assert f'source = "git+file://{repo.bare}"' in text
    theirs = tree_files(project / ".claude" / "skills")
    ok(sp("install", "--force"))  # replaces what skills wrote
    assert tree_files(project / ".claude" / "skills") == theirs
    pin = read_install_lock(project / LOCK).sources[0]
    assert (
        pin.commit
        == subprocess.run(
            ["git", "rev-parse", "main"], cwd=repo.bare, capture_output=True, text=True
        ).stdout.strip()
    )
    ok(sp("install", "--check"))
    again = ok(sp("install", "--from-skills-lock", "skills-lock.json"))
    assert "nothing to add" in again.stdout
    assert (project / "skillpack.toml").read_text() == text
