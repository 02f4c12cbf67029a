"""A committed install lock is data from the repository, never a licence to write:
an entry that names a directory other than AGENT_DIR/NAME (``.git/hooks``, ``app/src``,
an absolute path, ``..``), a size no bundle holds, or a lock that is not a regular file
is one INS011 refusal, and install, ``--frozen``, ``--check`` and uninstall touch
nothing (issue 21)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.install.conftest import LOCK, Bundles, Run, ok, snapshot

COMMANDS = (("install",), ("install", "--frozen"), ("install", "--check"),
            ("uninstall", "review"), ("uninstall", "review", "--force"))  # fmt: skip


def _installed(sp: Run, project: Path, bundles: Bundles) -> str:
    ok(sp("install", bundles.v1, "-a", "claude-code", "-s", "review"))
    return (project / LOCK).read_text("utf-8")


def _victims(project: Path, tmp_path: Path) -> None:
    hooks = project / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\necho mine\n")
    (project / "app" / "src").mkdir(parents=True)
    (project / "app" / "src" / "main.py").write_text("print('mine')\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "keep.txt").write_text("mine\n")


def _edits(tmp_path: Path) -> dict[str, tuple[str, ...]]:
    here = '"' + ".claude/skills/review" + '"'
    return {
        "git-hooks": ('name = "review"', 'name = "hooks"', here, '".git/hooks"'),
        "app-src": ('name = "review"', 'name = "src"', here, '"app/src"'),
        "absolute": (here, f'"{tmp_path / "outside" / "review"}"'),
        "dotdot": (here, '"../outside/review"'),
        "dotdot-inside": (here, '".claude/skills/../../app/src/review"'),
        "nul": (here, '".claude/skills/rev\\u0000iew"'),
        "huge-size": (r"size = \d+", "size = 99999999999999999999"),
        "unknown-agent": ('agents = ["claude-code"]', 'agents = ["nobody"]'),
        "other-agents-dir": (here, '".cursor/skills/review"'),
    }


@pytest.mark.parametrize("case", sorted(_edits(Path("/x"))))
def test_a_lock_naming_another_directory_is_refused_and_nothing_is_touched(
    sp: Run, project: Path, bundles: Bundles, tmp_path: Path, case: str
) -> None:
    text = _installed(sp, project, bundles)
    _victims(project, tmp_path)
    edit = _edits(tmp_path)[case]
    for old, new in zip(edit[::2], edit[1::2], strict=True):
        pattern = old if case == "huge-size" else re.escape(old)
        text, count = re.subn(pattern, new.replace("\\", "\\\\"), text, count=1)
        assert count == 1, (old, text)
    (project / LOCK).write_text(text, encoding="utf-8")
    before = snapshot(tmp_path)
    for args in COMMANDS:
        proc = sp(*args)
        assert proc.returncode in (1, 2), (args, proc.stdout, proc.stderr)
        assert "INS011" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert "skillpack-install.lock" in proc.stderr
        assert snapshot(tmp_path) == before, args


def test_a_lock_that_is_not_a_regular_file_is_never_read(
    sp: Run, project: Path, bundles: Bundles, tmp_path: Path
) -> None:
    _installed(sp, project, bundles)
    (project / LOCK).unlink()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (project / LOCK).symlink_to(fifo)  # a read would block for ever
    for args in COMMANDS:
        proc = sp(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "INS011" in proc.stderr and "not a regular file" in proc.stderr
    (project / LOCK).unlink()
    (project / LOCK).write_bytes(b"")
    os.truncate(project / LOCK, 65 * 1024 * 1024)  # sparse: no disk used
    proc = sp("install", "--check")
    assert proc.returncode == 2 and "INS011" in proc.stderr and "more than" in proc.stderr
    # a link to nothing is not "no lock": --check passed on it, install wrote through it
    (project / LOCK).unlink()
    (project / LOCK).symlink_to(tmp_path / "gone.lock")
    before = snapshot(project)
    for args in (*COMMANDS, ("install", bundles.v1, "-a", "claude-code")):
        proc = sp(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "INS011" in proc.stderr and "is a link to" in proc.stderr, proc.stderr
    assert snapshot(project) == before and not (tmp_path / "gone.lock").exists()


@pytest.mark.parametrize(
    ("garble", "message"),
    [
        (lambda data: data[: len(data) // 2], "the install lock is not valid TOML"),
        (lambda data: data.replace(b'name = "review"', b'name = "rev\xffiew"'),
         "the install lock is not UTF-8"),
    ],
)  # fmt: skip
def test_a_cut_or_garbled_lock_is_one_clear_refusal(
    sp: Run, project: Path, bundles: Bundles, tmp_path: Path, garble: Callable[[bytes], bytes],
    message: str,
) -> None:  # fmt: skip
    """Found by tests/install/test_lock_fuzz.py: the message said 'the install lock not
    valid TOML'. Every command refuses with it and touches nothing."""
    _installed(sp, project, bundles)
    (project / LOCK).write_bytes(garble((project / LOCK).read_bytes()))
    before = snapshot(tmp_path)
    for args in COMMANDS:
        proc = sp(*args)
        assert proc.returncode == 2 and message in proc.stderr, (args, proc.stderr)
        assert snapshot(tmp_path) == before, args


def test_a_lock_naming_another_skill_stops_install_before_the_first_write(
    sp: Run, project: Path, bundles: Bundles, tmp_path: Path
) -> None:
    """review renamed in the lock, notes (written before it) with a file gone: install
    repaired notes, then refused review (INS011, exit 2) with the tree changed. Found by
    tests/install/test_lock_fuzz.py; every skill to write is checked first."""
    ok(sp("install", bundles.v1, "-a", "claude-code"))
    text = (project / LOCK).read_text("utf-8")
    text = text.replace('name = "review"', 'name = "zz-review"')
    (project / LOCK).write_text(text.replace("skills/review", "skills/zz-review"))
    (project / ".claude" / "skills" / "notes" / "SKILL.md").unlink()
    before = snapshot(tmp_path)
    for args in (("install",), ("install", "--frozen")):
        proc = sp(*args)
        assert proc.returncode == 2 and "INS011" in proc.stderr, (args, proc.stderr)
        assert "does not describe zz-review" in proc.stderr
        assert f"{LOCK}: INS011" in proc.stderr  # the file, then the entry
        assert snapshot(tmp_path) == before, args
