"""A committed install lock is data from the repository, never a licence to write:
an entry that names a directory other than AGENT_DIR/NAME (``.git/hooks``, ``app/src``,
an absolute path, ``..``), a size no bundle holds, or a lock that is not a regular file
is one INS011 refusal, and install, ``--frozen``, ``--check`` and uninstall touch
nothing (issue 21)."""

from __future__ import annotations

import os
import re
import shutil
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
        # a name no file system holds: uninstall deleted SKILL.md, then crashed (audit 3)
        "long-segment": ('path = "references/checklist.md"', f'path = "references/{"x" * 300}"'),
        "long-path": ('path = "references/checklist.md"', f'path = "{"/".join(["d" * 250] * 17)}"'),
        # the source and skill-path: validated before anything is read (audit 5)
        "source-absolute": (SOURCE, 'source = "/etc/passwd"'),
        "source-root": (SOURCE, 'source = "/"'),
        "source-not-normal": (SOURCE, 'source = "../x/../acme.skp"'),
        "source-nul": (SOURCE, 'source = "acme\\u0000.skp"'),
        "source-bad-oci": (SOURCE, 'source = "oci://"'),
        "source-not-normal-oci": (SOURCE, 'source = "oci://LOCALHOST:5000/x:1"'),
        "skill-path-nul": ('skill-path = "review"', 'skill-path = "review\\u0000../../x"'),
        "skill-path-dotdot": ('skill-path = "review"', 'skill-path = "../review"'),
        "skill-path-absolute": ('skill-path = "review"', 'skill-path = "/review"'),
    }


SOURCE = r'source = "[^"]*"'  #: a pattern (the bundle's path differs between runs)


@pytest.mark.parametrize("case", sorted(_edits(Path("/x"))))
def test_a_lock_naming_another_directory_is_refused_and_nothing_is_touched(
    sp: Run, project: Path, bundles: Bundles, tmp_path: Path, case: str
) -> None:
    text = _installed(sp, project, bundles)
    _victims(project, tmp_path)
    edit = _edits(tmp_path)[case]
    for old, new in zip(edit[::2], edit[1::2], strict=True):
        pattern = old if case == "huge-size" or old == SOURCE else re.escape(old)
        every = old == SOURCE  # the source's pin and the skill's source alike
        text, count = re.subn(pattern, new.replace("\\", "\\\\"), text, count=0 if every else 1)
        assert count == (2 if every else 1), (old, text)
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


@pytest.mark.parametrize("into", ["../.git", "../app/src", "../.git/hooks/.."])
def test_an_agent_directory_linked_elsewhere_in_the_project_is_refused(
    sp: Run, project: Path, bundles: Bundles, tmp_path: Path, into: str
) -> None:
    """A valid lock, and ``.claude/skills`` a link into the project but not to an agent
    directory, holding a byte copy of the installed skill (nothing to tell it apart): the
    old code accepted any link whose real path was inside the project (audit 1)."""
    _installed(sp, project, bundles)
    _victims(project, tmp_path)
    claude = project / ".claude" / "skills"
    target = Path(os.path.realpath(claude.parent / into))
    shutil.copytree(claude / "review", target / "review")
    shutil.rmtree(claude)
    claude.symlink_to(into)
    before = snapshot(tmp_path)
    for args in (*COMMANDS, ("install", bundles.v1, "-a", "claude-code", "-s", "review")):
        proc = sp(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "INS008" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert snapshot(tmp_path) == before, args


def test_a_lock_source_is_read_within_bounds(
    sp: Run, project: Path, bundles: Bundles, tmp_path: Path
) -> None:
    """``source = ".."`` is a normalized relative path (a pin outside the project, kept
    by design), but a directory source was walked and built in full before its pin was
    compared (``"/"`` walked the whole file system): it is held to a git source's
    bounds first (GIT008). A FIFO named as the source is never opened (INS020)."""
    skills = project / "vendor" / "skills"
    skills.mkdir(parents=True)
    shutil.copytree(bundles.v1.parent.parent / "skills" / "release", skills / "release")
    ok(sp("install", "vendor/skills", "-a", "claude-code"))
    text = (project / LOCK).read_text()
    for i in range(60):  # the parent directory: more entries than the bound below
        (tmp_path / f"f{i}.txt").write_text("x\n")
    (project / LOCK).write_text(text.replace('"vendor/skills"', '".."'))
    before = snapshot(tmp_path)
    bound = {"SKILLPACK_GIT_MAX_FILES": "50"}
    for args in (("install",), ("install", "--frozen"), ("install", "--upgrade")):
        proc = sp(*args, extra=bound)
        assert proc.returncode == 1 and "GIT008" in proc.stderr, (args, proc.stderr)
        assert "more than 50 entries" in proc.stderr
        assert snapshot(tmp_path) == before
    os.mkfifo(project / "vendor" / "fifo.skp")
    (project / LOCK).write_text(text.replace('"vendor/skills"', '"vendor/fifo.skp"'))
    before = snapshot(project / ".claude")
    for args in (("install",), ("install", "--frozen")):
        proc = sp(*args)
        assert proc.returncode == 2 and "INS020" in proc.stderr, (args, proc.stderr)
        assert snapshot(project / ".claude") == before
