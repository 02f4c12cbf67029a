"""No crash on odd state (issue 21 §2): a file where an agent directory, its parent or
the user's configuration directory must be is a coded error (INS018, exit 2) naming the
file, never exit 3, with nothing installed; --check and uninstall read such a state as
missing directories."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
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


@pytest.mark.parametrize("file", [".claude", ".claude/skills"])
def test_check_and_uninstall_read_a_file_as_missing_directories(
    tmp_path: Path, bundle: Path, file: str
) -> None:
    """``.claude`` a file read as missing; ``.claude/skills`` a file was INS018 for
    uninstall (docs/install.md says both read as missing)."""
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project).returncode == 0
    shutil.rmtree(project / file)
    (project / file).write_text("x")
    check = run_cli("install", "--check", cwd=project)
    assert check.returncode == 1 and "Traceback" not in check.stderr
    assert "missing directory: .claude/skills/refunds" in check.stdout
    gone = run_cli("uninstall", "refunds", cwd=project)
    assert gone.returncode == 0 and "Traceback" not in gone.stderr, gone.stderr
    assert (project / file).read_text() == "x"


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


# --- loops of links, HOME and XDG_CONFIG_HOME (audit 7) ---------------------------------
@pytest.mark.parametrize(("link", "to"), [(".claude/skills", "skills"), (".claude", ".claude")])
def test_a_loop_of_links_for_an_agent_directory_is_coded(
    tmp_path: Path, bundle: Path, link: str, to: str
) -> None:
    """``ln -s skills .claude/skills`` (or ``.claude`` a loop): --check, uninstall and
    uninstall --force crashed (exit 3, ELOOP)."""
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project).returncode == 0
    shutil.rmtree(project / link)
    (project / link).symlink_to(to)
    lock = (project / "skillpack-install.lock").read_bytes()
    for args in (["install"], ["install", "--frozen"], ["install", "--check"],
                 ["uninstall", "refunds"], ["uninstall", "refunds", "--force"],
                 ["install", str(bundle), "-a", "claude-code"]):  # fmt: skip
        proc = run_cli(*args, cwd=project)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "INS018" in proc.stderr and "a loop of symbolic links" in proc.stderr
    assert (project / "skillpack-install.lock").read_bytes() == lock


def _global_env(tmp_path: Path) -> dict[str, str]:
    """Every directory a global install may use, in the test's directory."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
            "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "CODEX_HOME": str(tmp_path / "codex"),
            "SKILLPACK_CACHE_DIR": str(tmp_path / "cache"),
            "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
            "XDG_DATA_HOME": str(tmp_path / "xdg-data")}  # fmt: skip


def _odd(tmp_path: Path, kind: str) -> str:
    """A path that cannot be a directory: ``kind`` is dangling, file, fifo, under-file."""
    odd = tmp_path / "odd"
    odd.mkdir(exist_ok=True)
    if kind == "dangling":
        (odd / "dangling").symlink_to(tmp_path / "nothing")
        return str(odd / "dangling")
    if kind == "fifo":
        os.mkfifo(odd / "fifo")
        return str(odd / "fifo")
    (odd / "file").write_text("x\n")
    return str(odd / "file" / "x") if kind == "under-file" else str(odd / "file")


@pytest.mark.parametrize(
    ("variable", "value"),
    [("HOME", ""), ("HOME", "relative/home"), ("HOME", "dangling"), ("HOME", "file"),
     ("HOME", "fifo"), ("HOME", "under-file"), ("XDG_CONFIG_HOME", "dangling"),
     ("XDG_CONFIG_HOME", "fifo"), ("XDG_CONFIG_HOME", "under-file")],
)  # fmt: skip
def test_an_odd_home_is_a_coded_refusal_and_nothing_is_written(
    tmp_path: Path, bundle: Path, variable: str, value: str
) -> None:
    """HOME='' made global installs go to '/'; a dangling HOME or XDG_CONFIG_HOME was
    FileExistsError (exit 3), uninstall -g mkdir'ed the lock's directory before any
    check (NotADirectoryError). Run with a temporary directory as the working directory
    and every other directory a global install uses in it: nothing is written anywhere."""
    env = _global_env(tmp_path)
    if value in ("dangling", "fifo", "file", "under-file"):
        value = _odd(tmp_path, value)
    env[variable] = value
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    outside = [Path("/.claude"), Path("/.config/skillpack"), Path("/.agents")]
    assert not any(p.exists() for p in outside)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    commands = [
        ["install", str(bundle), "-g", "-a", "claude-code"],
        ["uninstall", "-g", "refunds"],
        ["uninstall", "-g", "refunds", "--force"],
    ]
    if variable == "HOME":
        commands.append(["install", "--check", "-g"])
    for args in commands:
        proc = run_cli(*args, cwd=cwd, env=env, timeout=30)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "INS018" in proc.stderr, (args, proc.stderr)
        assert sorted(str(p) for p in tmp_path.rglob("*")) == before, args
    assert not any(p.exists() for p in outside)


# --- FIFOs, sockets and devices where a file should be (audit 4) ------------------------
def test_a_fifo_where_an_installed_file_should_be_is_never_opened(
    tmp_path: Path, bundle: Path
) -> None:
    """``_same_file`` and ``digest_of`` opened without O_NONBLOCK: a FIFO in place of an
    installed file hung install --check, install, --frozen, --upgrade and uninstall for
    ever. Each command now returns (a timeout fails the test), taking it for local
    work."""
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    vendor = project / "acme.skp"
    shutil.copy(bundle, vendor)
    assert run_cli("install", "acme.skp", "-a", "claude-code", cwd=project).returncode == 0
    skill = project / ".claude" / "skills" / "pdf-processing"
    (skill / "SKILL.md").unlink()
    os.mkfifo(skill / "SKILL.md")
    os.mkfifo(skill / "mine.fifo")  # an extra one: listed, never opened
    lock = (project / "skillpack-install.lock").read_bytes()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, cwd=project, timeout=60)

    check = run("install", "--check")
    assert check.returncode == 1, check.stderr
    assert "modified: .claude/skills/pdf-processing/SKILL.md" in check.stdout
    assert "extra: .claude/skills/pdf-processing/mine.fifo" in check.stdout
    for args in (["install"], ["install", "--frozen"], ["install", "--upgrade"]):
        proc = run(*args)
        assert proc.returncode == 1 and "INS017" in proc.stderr, (args, proc.stderr)
        assert "modified: .claude/skills/pdf-processing/SKILL.md" in proc.stderr
    proc = run("uninstall", "pdf-processing")
    assert proc.returncode == 1 and "INS015" in proc.stderr, proc.stderr
    assert (project / "skillpack-install.lock").read_bytes() == lock
    forced = run("uninstall", "pdf-processing", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "kept .claude/skills/pdf-processing/SKILL.md (not installed" in forced.stdout
    assert "left .claude/skills/pdf-processing (" in forced.stdout
    assert stat.S_ISFIFO((skill / "SKILL.md").lstat().st_mode)


def test_install_force_replaces_a_fifo(tmp_path: Path, bundle: Path) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project).returncode == 0
    target = project / ".claude" / "skills" / "refunds" / "SKILL.md"
    target.unlink()
    os.mkfifo(target)
    proc = run_cli("install", "--force", cwd=project, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "replaced local work (modified: .claude/skills/refunds/SKILL.md)" in proc.stdout
    assert target.is_file() and not stat.S_ISFIFO(target.lstat().st_mode)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_configuration_that_is_not_a_regular_file_never_hangs(
    tmp_path: Path, bundle: Path, kind: str
) -> None:
    """skillpack.toml a FIFO, or a link to /dev/zero: left alone (audit: holds, untested)."""
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project).returncode == 0
    config = project / "skillpack.toml"
    if kind == "fifo":
        os.mkfifo(config)
    else:
        config.symlink_to("/dev/zero")
    for args in (["install", "--check"], ["install"], ["uninstall", "refunds"]):
        proc = run_cli(*args, cwd=project, timeout=60)
        assert proc.returncode in (0, 1, 2), (args, proc.stderr)


# --- a user's own link, uninstall's reports, --upgrade NAME (audit 8) --------------------
def test_a_link_of_ones_own_in_place_of_a_skill_is_local_work(tmp_path: Path, bundle: Path) -> None:
    """``.claude/skills/refunds -> ../../dev/refunds`` (the user's working copy): install
    replaced it, 'replaced refunds', exit 0."""
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project).returncode == 0
    skill = project / ".claude" / "skills" / "refunds"
    mine = project / "dev" / "refunds"
    shutil.copytree(skill, mine)
    (mine / "SKILL.md").write_text("my work in progress\n")
    shutil.rmtree(skill)
    skill.symlink_to("../../dev/refunds")
    for args in (
        ["install"],
        ["install", "--frozen"],
        ["install", str(bundle), "-a", "claude-code", "-s", "refunds"],
    ):
        proc = run_cli(*args, cwd=project)
        assert proc.returncode == 1 and "INS017" in proc.stderr, (args, proc.stderr)
        assert "replaced by a link: .claude/skills/refunds -> ../../dev/refunds" in proc.stderr
        assert skill.is_symlink()
    forced = run_cli("install", "--force", cwd=project)
    assert forced.returncode == 0, forced.stderr
    assert "replaced local work (replaced by a link: .claude/skills/refunds" in forced.stdout
    assert not skill.is_symlink() and skill.is_dir()
    assert (mine / "SKILL.md").read_text() == "my work in progress\n"  # never followed


def test_uninstall_force_never_calls_a_kept_directory_removed(tmp_path: Path, bundle: Path) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project).returncode == 0
    skill = project / ".claude" / "skills" / "refunds"
    (skill / "notes.md").write_text("mine\n")
    proc = run_cli("uninstall", "refunds", "--force", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "removed .claude/skills/refunds\n" not in proc.stdout, proc.stdout
    assert "kept .claude/skills/refunds/notes.md (not installed by skillpack)" in proc.stdout
    assert "left .claude/skills/refunds (" in proc.stdout
    assert sorted(p.name for p in skill.iterdir()) == ["notes.md"]
    assert "refunds" not in (project / "skillpack-install.lock").read_text()


def test_upgrade_of_one_skill_touches_no_other(tmp_path: Path, bundle: Path) -> None:
    """``install --upgrade refunds`` restored another skill's missing directory."""
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    shutil.copy(bundle, project / "acme.skp")
    assert run_cli("install", "acme.skp", "-a", "claude-code", cwd=project).returncode == 0
    shutil.rmtree(project / ".claude" / "skills" / "brand-assets")
    (project / ".claude" / "skills" / "refunds" / "SKILL.md").unlink()
    proc = run_cli("install", "--upgrade", "refunds", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (project / ".claude" / "skills" / "refunds" / "SKILL.md").is_file()
    assert not (project / ".claude" / "skills" / "brand-assets").exists()
    check = run_cli("install", "--check", cwd=project)
    assert "missing directory: .claude/skills/brand-assets" in check.stdout
    # a source named: all its skills
    proc = run_cli("install", "--upgrade", "acme.skp", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (project / ".claude" / "skills" / "brand-assets").is_dir()
