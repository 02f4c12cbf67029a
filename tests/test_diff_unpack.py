"""skillpack diff (bundles, trees, locks) and skillpack unpack, through the real CLI."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from tests._bundles import build, make_project
from tests.conftest import run_cli, write_skill


def test_diff_same_across_bundle_tree_and_lock(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    bundle = build(project, tmp_path / "b.skp")
    for a, b in ((bundle, project), (project / "skillpack.lock", bundle), (bundle, bundle)):
        proc = run_cli("diff", a, b)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "no differences"


def test_diff_reports_what_revokes_approval(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    write_skill(project / "skills", "meta", frontmatter="name: meta\ndescription: d\ncount: 1\n")
    bundle = build(project, tmp_path / "old.skp")
    write_skill(project / "skills", "meta", frontmatter="name: meta\ndescription: d\ncount: 1.0\n")
    (project / "skills" / "tools" / "nested" / "notes.md").write_text("changed notes\n")
    (project / "skills" / "code-review" / "references" / "checklist.md").chmod(0o755)
    shutil.rmtree(project / "skills" / "tools" / "scripts")
    proc = run_cli("diff", bundle, project)
    assert proc.returncode == 1, proc.stderr
    shown = re.sub(r"sha256:[0-9a-f]{12}…", "D", proc.stdout)
    assert shown.splitlines() == [
        "~ skill code-review",
        "    ~ file references/checklist.md: executable bit set (the skill entry is unchanged)",
        "~ skill meta",
        "    ~ frontmatter /count: 1 -> 1.0",
        "    ~ file SKILL.md (62 -> 64 bytes, D -> D)",
        "~ skill tools",
        "    ~ file nested/notes.md (13 -> 14 bytes, D -> D)",
        "    - file scripts/run.sh",
        "~ skill tools/nested",
        "    ~ file notes.md (13 -> 14 bytes, D -> D)",
        "4 skills differ (4 modified; 5 file changes); 3 skill entries need re-approval",
    ]
    data = json.loads(run_cli("diff", bundle, project, "--format", "json").stdout)
    assert data["same"] is False
    by_path = {s["path"]: s for s in data["skills"]}
    assert by_path["code-review"]["revokes-approval"] is False
    assert by_path["meta"]["frontmatter"] == [
        {"pointer": "/count", "change": "modified", "old": 1, "new": 1.0}
    ]
    assert by_path["tools"]["files"][1] == {
        "path": "scripts/run.sh",
        "uri": "skill://tools/scripts/run.sh",
        "change": "removed",
        "old": {
            "size": 18,
            "digest": by_path["tools"]["files"][1]["old"]["digest"],
            "executable": True,
        },
    }


def test_diff_added_removed_skills_and_trouble(tmp_path: Path) -> None:
    old = make_project(tmp_path / "old")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    shutil.rmtree(new / "skills" / "code-review")
    write_skill(new / "skills", "fresh")
    (new / "skillpack.toml").write_text('name = "demo"\nversion = "1.1.0"\nroots = ["skills"]\n')
    proc = run_cli("diff", old, new)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[:3] == [
        "~ version: 1.0.0 -> 1.1.0",
        "- skill code-review (removed, 2 files)",
        "+ skill fresh (added, 1 file)",
    ]
    missing = run_cli("diff", old, tmp_path / "nowhere.skp")
    # a missing path is USE001 in every command (it was DIF001 here)
    assert missing.returncode == 2 and "USE001" in missing.stderr


def test_unpack_round_trip_rebuilds_identical_bytes(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    bundle = build(project, tmp_path / "b.skp")
    proc = run_cli("unpack", bundle, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "unpacked 3 skills, 7 files" in proc.stdout
    out = tmp_path / "out"
    run = out / "tools" / "scripts" / "run.sh"
    assert stat.S_IMODE(run.stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "tools" / "SKILL.md").stat().st_mode) == 0o644
    assert (out / "tools" / "assets" / "blob.bin").read_bytes() == bytes(range(256))
    assert (out / "skillpack.lock").read_bytes() == (project / "skillpack.lock").read_bytes()
    assert run_cli("lock", "--check", out).returncode == 0
    again = build(out, tmp_path / "again.skp")
    assert again.read_bytes() == bundle.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_unpack_refuses_to_overwrite_and_never_follows_symlinks(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    bundle = build(project, tmp_path / "b.skp")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    proc = run_cli("unpack", bundle, dest)
    assert proc.returncode == 2 and "UNP001" in proc.stderr and "--force" in proc.stderr
    assert sorted(os.listdir(dest)) == ["keep.txt"]
    outside = tmp_path / "outside"
    outside.mkdir()
    (dest / "tools").symlink_to(outside)
    proc = run_cli("unpack", bundle, dest, "--force")
    assert proc.returncode == 1 and "UNP002" in proc.stderr
    assert list(outside.iterdir()) == []
    (dest / "tools").unlink()
    proc = run_cli("unpack", bundle, dest, "--force")
    assert proc.returncode == 0, proc.stderr
    assert (dest / "keep.txt").read_text() == "mine"
    assert (dest / "code-review" / "references" / "checklist.md").is_file()


@pytest.mark.parametrize("obstacle", ["file-for-directory", "directory-for-file", "symlink"])
def test_unpack_force_checks_every_path_before_the_first_write(
    tmp_path: Path, obstacle: str
) -> None:
    """An obstacle late in the bundle's order (under tools/, after code-review/) stops
    --force before any file is written: the directory is left exactly as it was."""
    project = make_project(tmp_path / "p")
    bundle = build(project, tmp_path / "b.skp")
    dest = tmp_path / "dest"
    (dest / "code-review").mkdir(parents=True)
    (dest / "code-review" / "SKILL.md").write_text("old")
    if obstacle == "file-for-directory":
        (dest / "tools").mkdir()
        (dest / "tools" / "nested").write_text("a file where a directory goes")
    elif obstacle == "directory-for-file":
        (dest / "tools" / "nested" / "notes.md").mkdir(parents=True)
    else:
        (dest / "tools").mkdir()
        (dest / "tools" / "scripts").symlink_to(tmp_path)
    before = sorted((str(p), p.is_symlink()) for p in dest.rglob("*"))
    proc = run_cli("unpack", bundle, dest, "--force")
    assert proc.returncode == 1 and "UNP002" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and ".skillpack-new" not in proc.stderr
    assert sorted((str(p), p.is_symlink()) for p in dest.rglob("*")) == before
    assert (dest / "code-review" / "SKILL.md").read_text() == "old"


def test_unpack_of_a_tampered_bundle_writes_nothing(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    bundle = build(project, tmp_path / "b.skp", "--compression", "stored")
    raw = bundle.read_bytes().replace(b"nested notes", b"NESTED notes")
    (tmp_path / "bad.skp").write_bytes(raw)
    proc = run_cli("unpack", tmp_path / "bad.skp", tmp_path / "out")
    assert proc.returncode == 1 and "tools/nested/notes.md" in proc.stderr
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_diff_names_a_broken_bundle_as_a_bundle(tmp_path: Path) -> None:
    junk = tmp_path / "junk.skp"
    junk.write_bytes(b"not a zip at all\n")
    proc = run_cli("diff", junk, tmp_path)
    assert proc.returncode == 2
    assert "junk.skp: BND001 not a zip archive" in proc.stderr
