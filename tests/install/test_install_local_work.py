"""install never destroys local work (issue 21 §2): a file edited or added in an
installed skill is refused (INS017, each file named, nothing written) unless --force,
which says what it replaced; ``install SOURCE -s X`` writes X only, whatever the state of
the other installed skills. Through the real CLI on the example bundle."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli

LOCK = "skillpack-install.lock"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("b") / "acme.skp"
    assert run_cli("build", EXAMPLES, "-o", out).returncode == 0
    return out


def _snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def project(tmp_path: Path, bundle: Path) -> Path:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    proc = run_cli("install", bundle, "-a", "claude-code", cwd=project)
    assert proc.returncode == 0, proc.stderr
    return project


def test_a_plain_install_refuses_to_replace_local_work(project: Path, bundle: Path) -> None:
    skills = project / ".claude" / "skills"
    (skills / "refunds" / "SKILL.md").write_text("my own version\n")
    (skills / "refunds" / "drafts").mkdir()
    (skills / "refunds" / "drafts" / "idea.md").write_text("mine\n")
    before = _snapshot(project)
    for args in ([], [str(bundle), "-a", "claude-code"], ["--frozen"]):
        proc = run_cli("install", *args, cwd=project)
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        assert "INS017 2 local changes in installed skills would be lost" in proc.stderr
        assert "modified: .claude/skills/refunds/SKILL.md" in proc.stderr
        assert "extra: .claude/skills/refunds/drafts/idea.md" in proc.stderr
        assert _snapshot(project) == before  # nothing written, the lock included
    forced = run_cli("install", "--force", cwd=project)
    assert forced.returncode == 0, forced.stderr
    assert "replaced local work (modified: .claude/skills/refunds/SKILL.md)" in forced.stdout
    assert "replaced local work (extra: .claude/skills/refunds/drafts/idea.md)" in forced.stdout
    assert "no drift" in run_cli("install", "--check", cwd=project).stdout


def test_a_missing_file_is_no_local_work(project: Path) -> None:
    (project / ".claude/skills/pdf-processing/scripts/extract.py").unlink()
    proc = run_cli("install", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (project / ".claude/skills/pdf-processing/scripts/extract.py").is_file()


def test_one_skill_asked_for_touches_no_other(project: Path, bundle: Path) -> None:
    skills = project / ".claude" / "skills"
    (skills / "git-workflow" / "SKILL.md").unlink()  # drifted, not local work
    (skills / "refunds" / "SKILL.md").write_text("my own version\n")  # local work
    lock_before = (project / LOCK).read_text()
    others = {n: _snapshot(skills / n) for n in ("git-workflow", "refunds")}
    (skills / "brand-assets" / "SKILL.md").unlink()
    proc = run_cli("install", bundle, "-a", "claude-code", "-s", "brand-assets", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (skills / "brand-assets" / "SKILL.md").is_file()
    assert {n: _snapshot(skills / n) for n in others} == others
    assert (project / LOCK).read_text() == lock_before  # every entry kept
    check = run_cli("install", "--check", cwd=project)
    assert "missing: .claude/skills/git-workflow/SKILL.md" in check.stdout
    assert "modified: .claude/skills/refunds/SKILL.md" in check.stdout


def test_check_names_every_file_inside_a_new_directory(project: Path) -> None:
    scripts = project / ".claude/skills/refunds/tools"
    (scripts / "deep").mkdir(parents=True)
    (scripts / "evil.sh").write_text("#!/bin/sh\n")
    (scripts / "deep" / "more.sh").write_text("#!/bin/sh\n")
    check = run_cli("install", "--check", cwd=project)
    assert check.returncode == 1
    lines = check.stdout.splitlines()
    assert "extra: .claude/skills/refunds/tools/evil.sh" in lines
    assert "extra: .claude/skills/refunds/tools/deep/more.sh" in lines
    assert "extra: .claude/skills/refunds/tools" not in lines


def test_a_source_outside_the_project_is_pinned_relative_and_unsigned_is_said(
    tmp_path: Path, bundle: Path
) -> None:
    """The committed lock names the bundle relative to the project (../vendor/acme.skp),
    so a clone elsewhere finds it; an install that checked no signature says so."""
    vendor = tmp_path / "vendor"
    vendor.mkdir()
    (vendor / "acme.skp").write_bytes(bundle.read_bytes())
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    proc = run_cli("install", vendor / "acme.skp", "-a", "claude-code", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "note: the signature of ../vendor/acme.skp was not checked" in proc.stdout
    lock = (project / LOCK).read_text()
    assert 'source = "../vendor/acme.skp"' in lock and str(tmp_path) not in lock
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (project).rename(moved / "p")
    (vendor).rename(moved / "vendor")
    (moved / "p" / ".claude" / "skills" / "refunds" / "SKILL.md").unlink()
    again = run_cli("install", "--frozen", cwd=moved / "p")
    assert again.returncode == 0, again.stderr
    assert (moved / "p" / ".claude" / "skills" / "refunds" / "SKILL.md").is_file()


def test_a_skill_from_another_source_keeps_every_directory(tmp_path: Path, bundle: Path) -> None:
    """Installed for one agent from b.skp, then for another from c.skp: both directories
    stay recorded (none becomes 'unmanaged'), --check is clean and uninstall removes
    both."""
    for name in ("b.skp", "c.skp"):
        (tmp_path / name).write_bytes(bundle.read_bytes())
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    first = run_cli("install", tmp_path / "b.skp", "-a", "universal", "-s", "refunds", cwd=project)
    assert first.returncode == 0, first.stderr
    second = run_cli("install", tmp_path / "c.skp", "-a", "claude-code", "-s", "refunds",
                     cwd=project)  # fmt: skip
    assert second.returncode == 0, second.stderr
    assert "refunds: now from ../c.skp (was ../b.skp), in .agents/skills, .claude/skills" in (
        second.stdout
    )
    check = run_cli("install", "--check", cwd=project)
    assert check.returncode == 0 and "unmanaged" not in check.stdout, check.stdout
    gone = run_cli("uninstall", "refunds", cwd=project)
    assert gone.returncode == 0, gone.stderr
    assert not (project / ".agents/skills/refunds").exists()
    assert not (project / ".claude/skills/refunds").exists()


def test_a_directory_of_ones_own_where_a_link_was_is_local_work(
    tmp_path: Path, bundle: Path
) -> None:
    """--link: the user replaced .claude/skills/refunds (a link) by a directory of their
    own. A plain install 'relinked' it, exit 0, and the directory was gone (found by
    tests/install/test_lock_fuzz.py); a file where a skill directory was, the same."""
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    proc = run_cli("install", bundle, "--link", "-a", "claude-code", cwd=project)
    assert proc.returncode == 0, proc.stderr
    mine = project / ".claude" / "skills" / "refunds"
    mine.unlink()
    mine.mkdir()
    (mine / "SKILL.md").write_text("my own refunds\n")
    before = _snapshot(project)
    for args in ([], ["--frozen"]):
        proc = run_cli("install", *args, cwd=project)
        assert proc.returncode == 1 and "INS017" in proc.stderr, (args, proc.stderr)
        assert "modified: .claude/skills/refunds/SKILL.md" in proc.stderr
        assert _snapshot(project) == before and not mine.is_symlink()
    forced = run_cli("install", "--force", cwd=project)
    assert forced.returncode == 0, forced.stderr
    assert "replaced local work (modified: .claude/skills/refunds/SKILL.md)" in forced.stdout
    assert mine.is_symlink()
    mine.unlink()
    mine.write_text("a note, not a skill\n")
    proc = run_cli("install", cwd=project)
    assert proc.returncode == 1 and "extra: .claude/skills/refunds" in proc.stderr, proc.stderr
    assert mine.read_text() == "a note, not a skill\n"


def test_a_lock_that_renames_a_skill_cannot_pick_its_directory(project: Path, bundle: Path) -> None:
    """The lock's name for a skill is the name the pinned bundle gives it at that path:
    renamed to 'mine', install and --frozen installed refunds as .claude/skills/mine
    (found by tests/install/test_lock_fuzz.py); now INS011, nothing written."""
    lock = project / LOCK
    text = lock.read_text()
    assert 'name = "refunds"' in text
    lock.write_text(text.replace('name = "refunds"', 'name = "mine"').replace(
        ".claude/skills/refunds", ".claude/skills/mine"))  # fmt: skip
    shutil.rmtree(project / ".claude" / "skills" / "refunds")
    before = _snapshot(project)
    for args in ([], ["--frozen"]):
        proc = run_cli("install", *args, cwd=project)
        assert proc.returncode == 2 and "INS011" in proc.stderr, (args, proc.stderr)
        assert "does not describe mine" in proc.stderr
        assert _snapshot(project) == before, args
        assert not (project / ".claude" / "skills" / "mine").exists()
