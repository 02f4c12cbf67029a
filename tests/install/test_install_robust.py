"""An install killed at any moment, and installs running at once."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import cli_env, run_cli, write_skill
from tests.install.conftest import LOCK, Bundles, Run, ok, tree_files

SKILLS = 200


def _catalog(root: Path, version: str) -> Path:
    root.mkdir(parents=True)
    (root / "skillpack.toml").write_text(f'name = "big"\nversion = "{version}"\nroots = ["s"]\n')
    for i in range(SKILLS):
        write_skill(
            root / "s",
            f"skill-{i:03d}",
            body=f"Version {version} of skill {i}.",
            files={f"references/r{j}.md": f"{version} {i} {j}\n" * 40 for j in range(4)},
        )
    out = root / f"big-{version}.skp"
    assert run_cli("build", root, "-o", out, "--no-lint").returncode == 0
    return out


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("big")
    return _catalog(base / "v1", "1"), _catalog(base / "v2", "2")


def test_a_killed_install_leaves_each_skill_old_or_new(
    sp: Run, project: Path, env: dict[str, str], versions: tuple[Path, Path]
) -> None:
    v1, v2 = versions
    source = project / "big.skp"
    shutil.copy(v1, source)
    ok(sp("install", "big.skp", "-a", "claude-code"))
    skills_dir = project / ".claude" / "skills"
    old = {d.name: tree_files(d) for d in skills_dir.iterdir()}
    shutil.copy(v2, source)
    command = [sys.executable, "-m", "skillpack", "install", "--upgrade"]
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=project, env=cli_env(env), capture_output=True)
    duration = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr
    new = {d.name: tree_files(d) for d in skills_dir.iterdir()}
    assert new != old
    # back to version 1, then upgrades killed at points spread over a whole run
    shutil.copy(v1, source)
    ok(sp("install", "--upgrade"))
    shutil.copy(v2, source)
    first = skills_dir / min(old)  # skills are written in name order

    def kill_when(ready: Callable[[], bool]) -> set[str]:
        """Start an upgrade, kill it (SIGKILL) once ``ready()`` says so, and check that
        every skill is the old or the new version; the states seen."""
        child = subprocess.Popen(command, cwd=project, env=cli_env(env),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        deadline = time.perf_counter() + 60
        while child.poll() is None and not ready() and time.perf_counter() < deadline:
            time.sleep(0.0005)
        child.send_signal(signal.SIGKILL)
        child.wait()
        states = set()
        for name in old:
            files = tree_files(skills_dir / name)
            assert files in (old[name], new[name]), f"{name} is neither old nor new"
            states.add("old" if files == old[name] else "new")
        # install --check tells what is left to do; a new run finishes the job
        assert sp("install", "--check").returncode in (0, 1)
        ok(sp("install", "--upgrade"))
        assert {d.name: tree_files(d) for d in skills_dir.iterdir() if d.is_dir()} == new
        assert "no drift" in ok(sp("install", "--check")).stdout
        assert not [p for p in skills_dir.iterdir() if p.name.startswith(".")]
        shutil.copy(v1, source)
        ok(sp("install", "--upgrade"))
        shutil.copy(v2, source)
        return states

    # killed just after the first skill directory was swapped: the rest are still old
    inode = first.stat().st_ino
    assert kill_when(lambda: first.stat().st_ino != inode) == {"old", "new"}
    # killed at points spread over a whole run (start-up, verification, writing, lock)
    for fraction in (0.2, 0.5, 0.8, 0.95):
        start = time.perf_counter()
        kill_when(lambda start=start, f=fraction: time.perf_counter() - start > duration * f)


def test_installs_at_once_are_serialized(sp: Run, project: Path, env: dict[str, str],
                                         bundles: Bundles) -> None:  # fmt: skip
    def start(*args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "skillpack", "install", *args],
            cwd=project,
            env=cli_env(env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    for attempt in range(3):
        runs = [
            start(str(bundles.v1), "-a", "codex", "-s", "review"),
            start(str(bundles.other), "-a", "codex", "-s", "helper"),
            start(str(bundles.v1), "-a", "windsurf", "-s", "notes"),
        ]
        for run in runs:
            _, err = run.communicate(timeout=120)
            assert run.returncode == 0, err
        lock = (project / LOCK).read_text()
        # no run lost another's work: every skill is in the lock and on disk
        for name in ("review", "helper", "notes"):
            assert f'name = "{name}"' in lock, (attempt, lock)
        assert "no drift" in ok(sp("install", "--check")).stdout
        ok(sp("uninstall", "review", "helper", "notes"))


def test_many_skills_are_written_alike_by_one_process_or_two(
    tmp_path: Path, env: dict[str, str], versions: tuple[Path, Path]
) -> None:
    """Hundreds of skill directories are filled by forked workers (SKILLPACK_JOBS): the
    same directories, modes, lock and output as one process writes, then an upgrade."""
    v1, v2 = versions
    seen = []
    for jobs in ("1", "2"):
        project = tmp_path / f"jobs-{jobs}"
        project.mkdir()
        shutil.copy(v1, project / "big.skp")
        run = {**env, "SKILLPACK_JOBS": jobs}
        first = run_cli("install", "big.skp", "-a", "claude-code", cwd=project, env=run)
        assert first.returncode == 0, first.stderr
        shutil.copy(v2, project / "big.skp")
        second = run_cli("install", "--upgrade", cwd=project, env=run)
        assert second.returncode == 0, second.stderr
        skills_dir = project / ".claude" / "skills"
        trees = {d.name: tree_files(d) for d in sorted(skills_dir.iterdir())}
        modes = sorted((p.relative_to(project).as_posix(), p.stat().st_mode)
                       for p in skills_dir.rglob("*"))  # fmt: skip
        assert len(trees) == SKILLS and all(
            t["SKILL.md"].count(b"Version 2") for t in trees.values()
        )
        check = run_cli("install", "--check", cwd=project, env=run)
        assert check.returncode == 0 and "no drift" in check.stdout, check.stdout
        seen.append((trees, modes, (project / LOCK).read_bytes(), first.stdout, second.stdout))
    assert seen[0] == seen[1]


def test_a_failed_write_in_a_worker_names_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A skill directory that cannot be written, in a forked worker's share of the
    writes: INS016 naming it, once every worker has stopped; the others are complete."""
    monkeypatch.setenv("SKILLPACK_JOBS", "2")
    from skillpack._internal.fstree import NewFile
    from skillpack.errors import SkillpackError
    from skillpack.install.installer import _Fill, _Writer

    container = tmp_path / "agent" / ".staging"
    container.mkdir(parents=True)
    writer = _Writer(False, set(), set(), {}, {})
    files = [NewFile("SKILL.md", b"---\nname: x\n---\n"), NewFile("a/b.txt", b"b\n")]
    for i in range(300):
        where = tmp_path / "missing" if i == 7 else container  # 7: the first worker's
        writer._pending.append(
            _Fill(f".claude/skills/s{i}", where, f"s{i}", tmp_path / "agent" / f"s{i}", files)
        )
    with pytest.raises(SkillpackError) as raised:
        writer.flush()
    assert raised.value.code == "INS016" and ".claude/skills/s7" in str(raised.value)
    written = sorted(p.name for p in (tmp_path / "agent").iterdir() if p.name != ".staging")
    assert "s7" not in written and "s299" in written and "s6" in written
    assert (tmp_path / "agent" / "s299" / "a" / "b.txt").read_bytes() == b"b\n"
