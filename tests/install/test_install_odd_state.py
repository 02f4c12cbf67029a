"""No crash on odd state (issue 21 §2): a file where an agent directory, its parent or
the user's configuration directory must be is a coded error (INS018, exit 2) naming the
file, never exit 3, with nothing installed; --check and uninstall read such a state as
missing directories."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("b") / "acme.skp"
    assert run_cli("build", EXAMPLES, "-o", out).returncode == 0
    return out


@pytest.mark.parametrize(
    ("case", "culprit"),
    [
        ("claude-a-file", ".claude"),
        ("skills-a-file", ".claude/skills"),
        ("home-a-file", "homefile"),
        ("xdg-a-file", "homefile"),
        ("claude-config-dir-a-file", "homefile"),
    ],
)
def test_a_file_where_a_directory_must_be_is_coded(
    tmp_path: Path, bundle: Path, case: str, culprit: str
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "homefile").write_text("not a directory\n")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": "", "CLAUDE_CONFIG_DIR": ""}
    args = ["install", str(bundle), "-a", "claude-code"]
    if case == "claude-a-file":
        (project / ".claude").write_text("x")
    elif case == "skills-a-file":
        (project / ".claude").mkdir()
        (project / ".claude" / "skills").write_text("x")
    else:
        args.append("-g")
        key = {"home-a-file": "HOME", "xdg-a-file": "XDG_CONFIG_HOME",
               "claude-config-dir-a-file": "CLAUDE_CONFIG_DIR"}[case]  # fmt: skip
        env[key] = str(tmp_path / "homefile")
    before = sorted(p.name for p in project.rglob("*"))
    proc = run_cli(*args, cwd=project, env=env)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "INS018" in proc.stderr and "Traceback" not in proc.stderr
    where = tmp_path / culprit if culprit == "homefile" else project / culprit
    assert str(where) in proc.stderr
    assert sorted(p.name for p in project.rglob("*")) == before


def test_check_and_uninstall_read_a_file_as_missing_directories(
    tmp_path: Path, bundle: Path
) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project).returncode == 0
    shutil.rmtree(project / ".claude")
    (project / ".claude").write_text("x")
    check = run_cli("install", "--check", cwd=project)
    assert check.returncode == 1 and "Traceback" not in check.stderr
    assert "missing directory: .claude/skills/refunds" in check.stdout
    gone = run_cli("uninstall", "refunds", cwd=project)
    assert gone.returncode == 0 and "Traceback" not in gone.stderr


def test_a_name_that_cannot_be_a_directory_says_which_rule(tmp_path: Path) -> None:
    """INS009's hint states the rule that refused: '-' is allowed, but not first."""
    skills = tmp_path / "skills"
    (skills / "-dash").mkdir(parents=True)
    (skills / "-dash" / "SKILL.md").write_text("---\nname: -dash\ndescription: d\n---\nx\n")
    out = tmp_path / "dash.skp"
    assert run_cli("build", skills, "-o", out, "--no-lint").returncode == 0
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    proc = run_cli("install", out, "-a", "claude-code", cwd=project)
    assert proc.returncode == 1 and "INS009" in proc.stderr, proc.stderr
    assert "named '-dash'" in proc.stderr and "(not '.' or '-')" in proc.stderr


def test_uninstall_never_follows_an_agent_directory_out_of_the_project(
    tmp_path: Path, bundle: Path
) -> None:
    """.claude/skills replaced by a link to a directory outside the project that holds
    a skill of the same name: uninstall refuses (INS008) and removes nothing, there or
    anywhere."""
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project).returncode == 0
    outside = tmp_path / "outside" / "skills"
    shutil.copytree(project / ".claude" / "skills", outside)
    shutil.rmtree(project / ".claude" / "skills")
    (project / ".claude" / "skills").symlink_to(outside)
    lock = (project / "skillpack-install.lock").read_text()
    proc = run_cli("uninstall", "refunds", cwd=project)
    assert proc.returncode == 2 and "INS008" in proc.stderr, proc.stderr
    assert (outside / "refunds" / "SKILL.md").is_file()
    assert (project / "skillpack-install.lock").read_text() == lock
