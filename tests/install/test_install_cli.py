"""``skillpack install`` and ``uninstall`` through the real CLI, from bundle files."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from skillpack.bundle.reader import open_bundle
from tests.conftest import modules_after
from tests.install.conftest import LOCK, Bundles, Run, ok, refused, snapshot, tree_files


def bundle_skill(bundle: Path, skill_path: str) -> dict[str, bytes]:
    """A skill's files as the bundle holds them (read with the verifying reader)."""
    with open_bundle(bundle) as opened:
        entry = opened.manifest.skill(f"skill://{skill_path}/SKILL.md")
        assert entry is not None
        return {f.path: opened.read_verified(f) for f in entry.files}


def test_install_copies_exactly_the_bundles_files_and_pins_them(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    (project / ".claude").mkdir()
    proc = ok(sp("install", bundles.v1, "-a", "claude-code", "-a", "codex"))
    assert "wrote skillpack-install.lock" in proc.stdout
    assert "installed review (acme 1.0.0): .agents/skills/review, .claude/skills/review" in (
        proc.stdout.splitlines()
    )
    assert "3 skills pinned, 3 written, 0 unchanged" in proc.stdout
    for agent_dir in (".claude/skills", ".agents/skills"):
        for name, skill_path in (("review", "review"), ("release", "release"),
                                 ("notes", "team/notes")):  # fmt: skip
            installed = project / agent_dir / name
            assert tree_files(installed) == bundle_skill(bundles.v1, skill_path), installed
        script = project / agent_dir / "review" / "scripts" / "check.sh"
        assert stat.S_IMODE(script.stat().st_mode) & 0o111  # the executable bit
        assert not stat.S_IMODE((script.parent.parent / "SKILL.md").stat().st_mode) & 0o111
    # the group folder ("team/") is gone: a skill lands at AGENT_DIR/NAME
    assert not (project / ".claude" / "skills" / "team").exists()
    lock = (project / LOCK).read_text()
    with open_bundle(bundles.v1) as opened:
        digest = opened.archive_digest()
        for f in opened.manifest.unique_files().values():
            assert f'digest = "{f.digest}"' in lock
    assert f'bundle-digest = "{digest}"' in lock
    assert 'skill-path = "team/notes"' in lock
    assert '{ path = ".claude/skills/notes", agents = ["claude-code"] }' in lock


def test_modes_honour_the_umask_and_never_carry_setuid(
    sp: Run, project: Path, bundles: Bundles, env: dict[str, str]
) -> None:
    import subprocess
    import sys

    from tests.conftest import cli_env

    cmd = [sys.executable, "-m", "skillpack", "install", str(bundles.v1), "-a", "universal"]
    proc = subprocess.run(
        ["sh", "-c", 'umask 027 && exec "$@"', "sh", *cmd],
        cwd=project,
        env=cli_env(env),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    skill = project / ".agents" / "skills" / "review"
    assert stat.S_IMODE((skill / "scripts" / "check.sh").stat().st_mode) == 0o750
    assert stat.S_IMODE((skill / "SKILL.md").stat().st_mode) == 0o640
    assert stat.S_IMODE((skill / "scripts").stat().st_mode) == 0o750


def test_a_rerun_writes_nothing(sp: Run, project: Path, bundles: Bundles) -> None:
    ok(sp("install", bundles.v1, "-a", "claude-code", "-a", "windsurf"))
    before = snapshot(project)
    again = ok(sp("install"))
    assert "3 skills pinned, 0 written, 3 unchanged; lock up to date" in again.stdout
    same_source = ok(sp("install", bundles.v1, "-a", "claude-code"))
    assert "lock up to date" in same_source.stdout
    assert snapshot(project) == before  # not one mtime changed


def test_without_agent_the_existing_agent_directories_are_used(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    refused(sp("install", bundles.v1), "INS001", 2)
    assert list(project.iterdir()) == []
    (project / ".windsurf" / "skills").mkdir(parents=True)
    (project / ".agents" / "skills").mkdir(parents=True)
    ok(sp("install", bundles.v1, "-s", "review"))
    assert (project / ".windsurf" / "skills" / "review" / "SKILL.md").is_file()
    assert (project / ".agents" / "skills" / "review" / "SKILL.md").is_file()
    assert not (project / ".claude").exists()
    # agents that share a directory get one copy: .agents/skills is 'universal'
    assert (
        '{ path = ".agents/skills/review", agents = ["universal"] }' in (project / LOCK).read_text()
    )


def test_unknown_agent_and_skill_names(sp: Run, project: Path, bundles: Bundles) -> None:
    err = refused(sp("install", bundles.v1, "-a", "claude"), "INS002", 2)
    assert "did you mean claude-code" in err
    err = refused(sp("install", bundles.v1, "-a", "codex", "-s", "reveiw"), "INS003", 2)
    assert "review" in err and "release" in err
    assert list(project.iterdir()) == []


def test_two_skills_of_one_name_are_a_conflict(sp: Run, project: Path, bundles: Bundles) -> None:
    refused(sp("install", bundles.v1, bundles.other, "-a", "codex"), "INS004", 1)
    refused(sp("install", bundles.twins, "-a", "codex"), "INS004", 1)
    assert list(project.iterdir()) == []
    # choosing one of them is fine
    ok(sp("install", bundles.v1, bundles.other, "-a", "codex", "-s", "helper", "-s", "notes"))


def test_a_hand_written_skill_is_left_alone_unless_forced(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    mine = project / ".claude" / "skills" / "review"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: review\ndescription: mine\n---\n")
    (mine / "notes.txt").write_text("keep me\n")
    before = snapshot(project)
    err = refused(sp("install", bundles.v1, "-a", "claude-code"), "INS005", 1)
    assert ".claude/skills/review" in err and "--force" in err
    assert snapshot(project) == before  # nothing written, not even the other skills
    proc = ok(sp("install", bundles.v1, "-a", "claude-code", "--force"))
    assert "replaced .claude/skills/review (not installed by skillpack)" in proc.stdout
    assert tree_files(mine) == bundle_skill(bundles.v1, "review")


def test_drift_of_every_kind_is_found(sp: Run, project: Path, bundles: Bundles) -> None:
    ok(sp("install", bundles.v1, "-a", "claude-code", "-a", "windsurf"))
    ok(sp("install", bundles.v1, "-a", "cursor", "--link", "-s", "release"))
    clean = ok(sp("install", "--check"))
    assert "no drift" in clean.stdout
    claude = project / ".claude" / "skills"
    (claude / "review" / "references" / "checklist.md").write_text("- [x] edited\n")
    (claude / "review" / "scripts" / "check.sh").chmod(0o644)  # the mode alone
    (claude / "notes" / "SKILL.md").unlink()
    (claude / "notes" / "scratch.md").write_text("mine\n")
    shutil.rmtree(project / ".windsurf" / "skills" / "notes")
    release_link = claude / "release"
    assert release_link.is_symlink()
    release_link.unlink()
    shutil.copytree(project / ".agents" / "skills" / "release", project / "fork")
    release_link.symlink_to(project / "fork")  # replaced: the same files, another copy
    (project / ".windsurf" / "skills" / "review").rename(project / "moved")
    (project / ".windsurf" / "skills" / "review").symlink_to(project / "gone")  # dangling
    unmanaged = project / ".agents" / "skills" / "hand-made"
    unmanaged.mkdir(parents=True)
    (unmanaged / "SKILL.md").write_text("---\nname: hand-made\ndescription: x\n---\n")
    proc = sp("install", "--check")
    assert proc.returncode == 1 and "INS013" in proc.stderr
    lines = set(proc.stdout.splitlines())
    for line in (
        "modified: .claude/skills/review/references/checklist.md",
        "modified: .claude/skills/review/scripts/check.sh",
        "missing: .claude/skills/notes/SKILL.md",
        "extra: .claude/skills/notes/scratch.md",
        "missing directory: .windsurf/skills/notes",
        "replaced link: .claude/skills/release",
        "replaced link: .windsurf/skills/review",
        "unmanaged: .agents/skills/hand-made (not installed by skillpack; left alone)",
    ):
        assert line in lines, proc.stdout
    report = json.loads(sp("install", "--check", "-f", "json").stdout)
    assert report["clean"] is False and report["unmanaged"] == [".agents/skills/hand-made"]
    kinds = {(d["directory"], d["kind"], d["path"]) for d in report["drift"]}
    assert (".windsurf/skills/notes", "missing directory", "") in kinds
    # local work (a file edited, one added) is never replaced by a plain install: it is
    # refused naming each file, nothing written; --force replaces it and says so
    kept = sp("install")
    assert kept.returncode == 1 and "INS017" in kept.stderr, kept.stderr
    for line in ("modified: .claude/skills/review/references/checklist.md",
                 "extra: .claude/skills/notes/scratch.md"):  # fmt: skip
        assert line in kept.stderr
    assert (claude / "notes" / "scratch.md").read_text() == "mine\n"
    assert (claude / "review" / "references" / "checklist.md").read_text() == "- [x] edited\n"
    hint = sp("install", "--check").stderr
    assert "'skillpack install --force' replaces the 3 files marked modified or extra" in hint
    forced = ok(sp("install", "--force"))
    assert "replaced local work (extra: .claude/skills/notes/scratch.md)" in forced.stdout
    # the link to a copy that is gone: dangling
    shutil.rmtree(project / ".agents" / "skills" / "release")
    dangling = sp("install", "--check")
    assert "dangling link: .claude/skills/release" in dangling.stdout.splitlines()
    # install puts back what the lock pins; the hand-made skill stays as it is
    ok(sp("install"))
    assert "no drift" in ok(sp("install", "--check")).stdout
    assert (unmanaged / "SKILL.md").is_file()


def test_link_layout_keeps_one_copy(sp: Run, project: Path, bundles: Bundles) -> None:
    ok(sp("install", bundles.v1, "--link", "-a", "claude-code", "-a", "windsurf"))
    copy = project / ".agents" / "skills" / "review"
    assert copy.is_dir() and not copy.is_symlink()
    for agent_dir in (".claude/skills", ".windsurf/skills"):
        link = project / agent_dir / "review"
        assert link.is_symlink() and os.readlink(link) == "../../.agents/skills/review"
        assert tree_files(link.resolve()) == bundle_skill(bundles.v1, "review")
    # switching a directory from a link to a copy replaces the link
    ok(sp("install", bundles.v1, "-a", "claude-code"))
    assert (project / ".claude" / "skills" / "review").is_symlink()  # the lock's layout holds


def _local_work(project: Path) -> list[str]:
    """Edit one installed file of review and add two of the user's own (one in a new
    directory); the files, as uninstall must name them."""
    claude = project / ".claude" / "skills" / "review"
    (claude / "references" / "checklist.md").write_text("my notes\n")
    (project / ".agents" / "skills" / "review" / "scripts" / "mine.sh").write_text("mine\n")
    (claude / "notes").mkdir()
    (claude / "notes" / "todo.md").write_text("not installed\n")
    return [
        ".claude/skills/review/references/checklist.md",
        ".agents/skills/review/scripts/mine.sh",
        ".claude/skills/review/notes/todo.md",
    ]


def test_uninstall_of_a_skill_with_local_work_removes_nothing_and_names_it(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    """All of a skill or nothing: one file edited in .claude/skills and files added in
    both directories, and no directory of the skill loses a file (agents are never left
    half a skill); every such file is named, with what to do."""
    ok(sp("install", bundles.v1, "-a", "claude-code", "-a", "codex"))
    files = _local_work(project)
    before = snapshot(project)
    err = refused(sp("uninstall", "review"), "INS015", 1)
    assert snapshot(project) == before  # the clean copy and the lock included
    for shown in files:
        assert shown in err, err
    assert "modified: .claude/skills/review/references/checklist.md" in err
    assert "not installed by skillpack: .agents/skills/review/scripts/mine.sh" in err
    assert "removed nothing" in err and "'skillpack uninstall --force review'" in err
    # restored and moved away: the same command removes it
    (project / ".claude/skills/review/references/checklist.md").write_text("- [ ] tests\n")
    (project / ".agents/skills/review/scripts/mine.sh").unlink()
    shutil.rmtree(project / ".claude/skills/review/notes")
    ok(sp("uninstall", "review"))
    assert not (project / ".claude/skills/review").exists()
    assert not (project / ".agents/skills/review").exists()


def test_uninstall_decides_for_every_skill_named_before_the_first_delete(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    """A clean skill named beside one with local work: the command removes nothing."""
    ok(sp("install", bundles.v1, "-a", "claude-code", "-a", "codex"))
    (project / ".agents/skills/review/SKILL.md").write_text("edited\n")
    before = snapshot(project)
    err = refused(sp("uninstall", "release", "review", "notes"), "INS015", 1)
    assert snapshot(project) == before
    assert "review holds 1 file(s)" in err and ".agents/skills/review/SKILL.md" in err
    assert (project / ".claude/skills/release/SKILL.md").is_file()


def test_uninstall_of_one_agent_looks_only_at_its_directories(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    """-a codex: local work in .claude/skills is not in the way, and stays recorded."""
    ok(sp("install", bundles.v1, "-a", "claude-code", "-a", "codex"))
    (project / ".claude/skills/review/SKILL.md").write_text("edited\n")
    ok(sp("uninstall", "review", "-a", "codex"))
    assert not (project / ".agents/skills/review").exists()
    assert (project / ".claude/skills/review/SKILL.md").read_text() == "edited\n"
    assert '".claude/skills/review"' in (project / LOCK).read_text()
    assert "modified: .claude/skills/review/SKILL.md" in sp("install", "--check").stdout


def test_uninstall_force_removes_what_skillpack_installed_and_names_what_it_keeps(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    ok(sp("install", bundles.v1, "-a", "claude-code", "-a", "codex"))
    _local_work(project)
    out = ok(sp("uninstall", "review", "--force")).stdout
    assert "removed .claude/skills/review/references/checklist.md (modified locally" in out
    assert "kept .agents/skills/review/scripts/mine.sh (not installed by skillpack)" in out
    assert "kept .claude/skills/review/notes/todo.md (not installed by skillpack)" in out
    assert tree_files(project / ".claude/skills/review") == {"notes/todo.md": b"not installed\n"}
    assert tree_files(project / ".agents/skills/review") == {"scripts/mine.sh": b"mine\n"}
    # the lock matches the disk: review is gone from it, nothing is drift or unmanaged
    assert 'name = "review"' not in (project / LOCK).read_text()
    check = ok(sp("install", "--check"))
    assert "no drift" in check.stdout and "unmanaged" not in check.stdout
    refused(sp("uninstall", "review"), "INS014", 2)
    # -a removes one agent's copy only
    ok(sp("uninstall", "release", "-a", "codex"))
    assert not (project / ".agents" / "skills" / "release").exists()
    assert (project / ".claude" / "skills" / "release" / "SKILL.md").is_file()
    assert "no drift" in ok(sp("install", "--check")).stdout


def test_uninstall_with_a_changed_copy_keeps_its_links(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    """--link: the links go with the copy, so local work in the copy keeps them too;
    -a for a link's agent alone removes that link."""
    ok(sp("install", bundles.v1, "--link", "-a", "claude-code", "-a", "windsurf"))
    (project / ".agents/skills/review/scripts/check.sh").write_text("#!/bin/sh\nmine\n")
    before = snapshot(project)
    err = refused(sp("uninstall", "review"), "INS015", 1)
    assert "modified: .agents/skills/review/scripts/check.sh" in err
    assert snapshot(project) == before
    assert (project / ".claude/skills/review").is_symlink()
    ok(sp("uninstall", "review", "-a", "windsurf"))
    assert not (project / ".windsurf/skills/review").is_symlink()
    assert (project / ".claude/skills/review").is_symlink()


def test_uninstall_names_a_file_replaced_by_a_link_and_never_follows_it(
    sp: Run, project: Path, bundles: Bundles, tmp_path: Path
) -> None:
    ok(sp("install", bundles.v1, "-a", "codex", "-s", "release"))
    outside = tmp_path / "outside.md"
    outside.write_text("## Notes\n")  # the installed bytes
    notes = project / ".agents/skills/release/templates/notes.md"
    notes.unlink()
    notes.symlink_to(outside)
    err = refused(sp("uninstall", "release"), "INS015", 1)
    assert "modified: .agents/skills/release/templates/notes.md" in err
    out = ok(sp("uninstall", "release", "--force")).stdout
    assert "kept .agents/skills/release/templates/notes.md (not installed by skillpack)" in out
    assert notes.is_symlink() and outside.read_text() == "## Notes\n"
    assert sorted(tree_files(project / ".agents/skills/release")) == []


def test_uninstall_ignores_a_changed_executable_bit(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    """Only content is local work: a chmod loses nothing when the file goes."""
    ok(sp("install", bundles.v1, "-a", "codex", "-s", "review"))
    (project / ".agents/skills/review/scripts/check.sh").chmod(0o644)
    ok(sp("uninstall", "review"))
    assert not (project / ".agents/skills/review").exists()


def test_uninstall_never_follows_a_link_out_of_a_skill(
    sp: Run, project: Path, bundles: Bundles, tmp_path: Path
) -> None:
    ok(sp("install", bundles.v1, "-a", "codex", "-s", "release"))
    outside = tmp_path / "outside"
    (outside / "templates").mkdir(parents=True)
    (outside / "templates" / "notes.md").write_text("## Notes\n")  # same bytes as installed
    skill = project / ".agents" / "skills" / "release"
    shutil.rmtree(skill / "templates")
    (skill / "templates").symlink_to(outside / "templates")
    assert "extra: .agents/skills/release/templates" in sp("install", "--check").stdout
    sp("uninstall", "release", "--force")
    assert (outside / "templates" / "notes.md").read_text() == "## Notes\n"


def test_a_tampered_bundle_is_refused_with_nothing_written(
    sp: Run, project: Path, bundles: Bundles, tmp_path: Path
) -> None:
    raw = bundles.v1.read_bytes()
    with open_bundle(bundles.v1) as opened:
        entry = opened.entry(opened.manifest.unique_files()["skill://release/templates/notes.md"])
    # stored? flip a byte inside the release template's compressed data
    bad = bytearray(raw)
    bad[entry.offset + 30 + len(entry.raw_name) + 2] ^= 0x01
    tampered = tmp_path / "tampered.skp"
    tampered.write_bytes(bytes(bad))
    (project / ".claude").mkdir()
    proc = sp("install", tampered, "-a", "claude-code")
    assert proc.returncode == 1 and ("BND017" in proc.stderr or "INT001" in proc.stderr)
    assert sorted(p.name for p in project.rglob("*")) == [".claude"]


def test_signature_policy(
    sp: Run,
    project: Path,
    bundles: Bundles,
    keys: tuple[Path, Path],
    other_keys: tuple[Path, Path],
    tmp_path: Path,
) -> None:
    signed = tmp_path / "acme.skp"
    shutil.copy(bundles.v1, signed)
    ok(sp("sign", signed, "--key", keys[0]))
    unsigned = tmp_path / "unsigned.skp"
    shutil.copy(bundles.v1, unsigned)
    refused(sp("install", signed, "-a", "codex", "--require-signature"), "SIG020", 2)
    refused(sp("install", unsigned, "-a", "codex", "--key", keys[1]), "SIG001", 1)
    refused(sp("install", unsigned, "-a", "codex", "--require-signature", "--key", keys[1]),
            "SIG001", 1)  # fmt: skip
    refused(sp("install", signed, "-a", "codex", "--key", other_keys[1]), "SIG", 1)
    assert list(project.iterdir()) == []
    ok(sp("install", signed, "-a", "codex", "--require-signature", "--key", keys[1]))
    lock = (project / LOCK).read_text()
    assert 'signer = { mode = "key", identity = "' in lock


def test_frozen(sp: Run, project: Path, bundles: Bundles, tmp_path: Path) -> None:
    source = project / "vendor" / "acme.skp"
    source.parent.mkdir()
    shutil.copy(bundles.v1, source)
    (project / "skillpack.toml").write_text(
        '[[install]]\nsource = "vendor/acme.skp"\nskills = ["review"]\nagents = ["codex"]\n'
    )
    refused(sp("install", "--frozen"), "INS006", 1)  # the lock holds nothing yet
    assert not (project / LOCK).exists() and not (project / ".agents").exists()
    ok(sp("install"))
    lock = (project / LOCK).read_bytes()
    shutil.rmtree(project / ".agents")  # a new clone: the lock, not the directories
    frozen = ok(sp("install", "--frozen"))
    assert "lock unchanged (--frozen)" in frozen.stdout
    assert (project / ".agents" / "skills" / "review" / "SKILL.md").is_file()
    # the configuration asks for more than the lock holds
    with (project / "skillpack.toml").open("a") as fh:
        fh.write('\n[[install]]\nsource = "vendor/acme.skp"\nskills = ["release"]\n'
                 'agents = ["codex"]\n')  # fmt: skip
    err = refused(sp("install", "--frozen"), "INS006", 1)
    assert "release" in err and "skillpack.toml" in err
    assert (project / LOCK).read_bytes() == lock
    # the source no longer serves the pinned bundle
    (project / "skillpack.toml").write_text(
        '[[install]]\nsource = "vendor/acme.skp"\nskills = ["review"]\nagents = ["codex"]\n'
    )
    shutil.copy(bundles.v2, source)
    err = refused(sp("install", "--frozen"), "INS007", 1)
    assert "vendor/acme.skp" in err and "--upgrade" in err
    refused(sp("install"), "INS007", 1)  # a plain install never moves a pin either
    assert (project / LOCK).read_bytes() == lock


def test_upgrade_shows_what_changes_then_applies_it(
    sp: Run, project: Path, bundles: Bundles
) -> None:
    source = project / "acme.skp"
    shutil.copy(bundles.v1, source)
    ok(sp("install", "acme.skp", "-a", "codex"))
    shutil.copy(bundles.v2, source)
    proc = ok(sp("install", "--upgrade"))
    out = proc.stdout
    assert "upgrade acme.skp:" in out and "~ version: 1.0.0 -> 2.0.0" in out
    assert "~ frontmatter /allowed-tools" in out
    assert "! review: script review/scripts/check.sh (modified)" in out
    assert "! review: review allowed-tools modified" in out
    assert "+ file templates/extra.md" in out
    assert tree_files(project / ".agents" / "skills" / "review") == bundle_skill(
        bundles.v2, "review"
    )
    assert 'version = "2.0.0"' in (project / LOCK).read_text()
    assert "no drift" in ok(sp("install", "--check")).stdout
    refused(sp("install", "--upgrade", "nothing-like-it"), "INS014", 2)


def test_global_installs_honour_the_agents_homes(
    sp: Run, project: Path, bundles: Bundles, home: Path, tmp_path: Path
) -> None:
    claude_home, codex_home = tmp_path / "claude-cfg", tmp_path / "codex-home"
    extra = {"CLAUDE_CONFIG_DIR": str(claude_home), "CODEX_HOME": str(codex_home)}
    ok(sp("install", bundles.v1, "-g", "-a", "claude-code", "-a", "codex", "-a", "goose",
          "-s", "review", extra=extra))  # fmt: skip
    assert (claude_home / "skills" / "review" / "SKILL.md").is_file()
    assert (codex_home / "skills" / "review" / "SKILL.md").is_file()
    assert (home / ".config" / "goose" / "skills" / "review" / "SKILL.md").is_file()
    lock = home / ".config" / "skillpack" / LOCK
    assert f'path = "{claude_home}/skills/review"' in lock.read_text()
    assert list(project.iterdir()) == []  # nothing in the project
    assert "no drift" in ok(sp("install", "--check", "-g", extra=extra)).stdout
    # without -a: the agents whose homes exist
    ok(sp("install", bundles.v1, "-g", "-s", "release", extra=extra))
    assert (claude_home / "skills" / "release").is_dir()
    assert not (home / ".claude").exists()
    ok(sp("uninstall", "-g", "review", extra=extra))
    assert not (codex_home / "skills" / "review").exists()


def test_agent_directories_stay_inside_the_project(
    sp: Run, project: Path, bundles: Bundles, home: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".claude").mkdir()
    (project / ".claude" / "skills").symlink_to(elsewhere)
    refused(sp("install", bundles.v1, "-a", "claude-code"), "INS008", 2)
    assert list(elsewhere.iterdir()) == []
    # a link to the agent's own user directory is allowed
    (project / ".claude" / "skills").unlink()
    user_dir = home / ".claude" / "skills"
    user_dir.mkdir(parents=True)
    (project / ".claude" / "skills").symlink_to(user_dir)
    ok(sp("install", bundles.v1, "-a", "claude-code", "-s", "review"))
    assert (user_dir / "review" / "SKILL.md").is_file()


def test_a_broken_install_lock_is_a_coded_error(sp: Run, project: Path) -> None:
    (project / LOCK).write_text('lock-version = "1.0"\ncreated-by = "x"\n[[skills]]\nname = 3\n')
    err = refused(sp("install", "--check"), "INS011", 2)
    assert LOCK in err


def test_nothing_to_install(sp: Run) -> None:
    refused(sp("install"), "INS010", 2)


@pytest.mark.parametrize("option", ["-a", "-s"])
def test_selection_options_need_a_source(sp: Run, option: str) -> None:
    refused(sp("install", option, "x"), "USE000", 2)


def test_the_install_docs_show_the_agent_table() -> None:
    from skillpack.source import agents
    from tests.conftest import REPO

    text = (REPO / "docs" / "install.md").read_text("utf-8")
    assert agents.install_markdown_table() in text
    for name in ("claude-code", "codex", "cursor", "github-copilot", "gemini-cli", "opencode",
                 "windsurf", "goose", "roo", "cline", "amp", "kiro-cli", "junie", "continue",
                 "universal"):  # fmt: skip
        assert f"| `{name}` |" in text


def test_a_check_in_a_project_with_only_its_lock_loads_no_reader_it_does_not_use(
    project: Path, env: dict[str, str], sp: Run, bundles: Bundles, tmp_path: Path
) -> None:
    """Start-up of ``install --check`` (about half of its time is importing and reading
    the lock): no configuration to read, so neither the configuration reader nor TOML;
    the lock read by its canonical reading, so no jsonschema; nor the manifest model, nor
    JSON for a text report. With a configuration, the same check reads it."""
    ok(sp("install", bundles.v1, "-a", "claude-code"))

    def check() -> set[str]:
        proc, modules = modules_after(tmp_path, "install", "--check", cwd=project, env=env)
        assert proc.returncode == 0, proc.stderr
        assert "no drift" in proc.stdout
        return modules

    modules = check()
    unused = {"skillpack.source.config", "skillpack.manifest", "tomllib", "jsonschema", "json"}
    assert not unused & modules
    (project / "skillpack.toml").write_text('name = "p"\nversion = "1.0.0"\n')
    assert "skillpack.source.config" in check()
