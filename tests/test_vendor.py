"""``skillpack vendor``: vendor a server's skills, verifying every byte, writing nothing
on failure and nothing outside the target."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from skillpack.source.config import resolve_config
from skillpack.source.discovery import discover
from skillpack.source.entries import build_manifest
from tests.conftest import EXAMPLES, REPO, run_cli

SERVERS = REPO / "tests" / "servers"
SKILLS = EXAMPLES / "skills"


def faulty(*faults: str) -> list[str]:
    return [sys.executable, str(SERVERS / "faulty_skills.py"), str(SKILLS), *faults]


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_vendor_writes_a_verified_tree_that_matches_the_source(tmp_path: Path) -> None:
    into = tmp_path / "vendored"
    proc = run_cli("vendor", "--into", into, "--", *faulty())
    assert proc.returncode == 0, proc.stderr
    assert "pulled 4 skills" in proc.stdout or "pulled 5 skills" in proc.stdout
    pulled = _tree(into)
    assert pulled.pop("skillpack.toml")
    assert pulled == _tree(SKILLS)
    # the result is a project of its own: the same manifest as the source tree
    pulled_manifest = build_manifest(discover(resolve_config([into])))
    source_manifest = build_manifest(discover(resolve_config([SKILLS])))
    assert [s.to_wire() for s in pulled_manifest.skills] == [
        s.to_wire() for s in source_manifest.skills
    ]


def test_vendor_lists_without_into() -> None:
    proc = run_cli("vendor", "--", *faulty())
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "skill://acme/billing/refunds/SKILL.md\t2 files\t809 bytes" in lines


def test_vendor_one_skill_by_name(tmp_path: Path) -> None:
    into = tmp_path / "one"
    proc = run_cli("vendor", "--into", into, "--skill", "refunds", "--", *faulty())
    assert proc.returncode == 0, proc.stderr
    assert sorted(_tree(into)) == [
        "acme/billing/refunds/SKILL.md",
        "acme/billing/refunds/templates/refund-email.md",
        "skillpack.toml",
    ]


@pytest.mark.parametrize(
    ("fault", "needle"),
    [
        ("digest", "differs from the listed sha256:0000"),
        ("size", "differs from the listed"),
        ("frontmatter", "frontmatter differs from the entry"),
        ("traversal", "lies outside the skill root"),
        ("no-skill-md", "does not list SKILL.md itself"),
        ("dynamic", "pass --allow-dynamic"),
    ],
)
def test_vendor_refuses_and_leaves_nothing(tmp_path: Path, fault: str, needle: str) -> None:
    into = tmp_path / "vendored"
    proc = run_cli("vendor", "--into", into, "--", *faulty(fault))
    assert proc.returncode == 1
    assert needle in proc.stderr
    assert not into.exists()
    assert list(tmp_path.iterdir()) == []  # no staging directory left behind either


def test_dynamic_skills_only_when_allowed(tmp_path: Path) -> None:
    into = tmp_path / "dyn"
    proc = run_cli("vendor", "--into", into, "--allow-dynamic", "--", *faulty("dynamic"))
    assert proc.returncode == 0, proc.stderr
    assert "is dynamic" in proc.stdout
    # directoryRead is declared, so the files were found through directory reads
    assert (into / "pdf-processing" / "scripts" / "extract.py").read_bytes() == (
        SKILLS / "pdf-processing" / "scripts" / "extract.py"
    ).read_bytes()


def test_vendor_refuses_a_non_empty_target(tmp_path: Path) -> None:
    into = tmp_path / "busy"
    into.mkdir()
    (into / "keep.txt").write_text("mine")
    proc = run_cli("vendor", "--into", into, "--", *faulty())
    assert proc.returncode == 2
    assert "exists and is not empty" in proc.stderr
    assert (into / "keep.txt").read_text() == "mine"
    forced = run_cli("vendor", "--into", into, "--force", "--", *faulty())
    assert forced.returncode == 0, forced.stderr
    assert not (into / "keep.txt").exists()
    assert (into / "pdf-processing" / "SKILL.md").is_file()


def test_vendor_from_skillpack_serve_round_trips_through_build(tmp_path: Path) -> None:
    """build -> serve -> vendor -> build: the pulled tree has the same manifest."""
    bundle = tmp_path / "examples.skp"
    assert run_cli("build", EXAMPLES, "-o", bundle).returncode == 0
    into = tmp_path / "pulled"
    server = [sys.executable, "-m", "skillpack", "serve", str(bundle)]
    proc = run_cli("vendor", "--into", into, "--", *server)
    assert proc.returncode == 0, proc.stderr
    assert "pulled 5 skills, 10 files" in proc.stdout
    rebuilt = tmp_path / "rebuilt.skp"
    build = run_cli("build", into, "-o", rebuilt)
    assert build.returncode == 0, build.stderr
    diff = run_cli("diff", bundle, rebuilt, "--format", "json")
    assert diff.returncode == 1
    report = json.loads(diff.stdout)
    # the same skills, files, digests and frontmatter: nothing a host would re-approve;
    # only the executable bit of scripts/extract.py, which SEP-2640 manifests do not carry
    assert not any(s["revokes-approval"] for s in report["skills"])
    changes = [(f["path"], f["change"]) for s in report["skills"] for f in s["files"]]
    assert changes == [("scripts/extract.py", "mode")]
    original = build_manifest(discover(resolve_config([EXAMPLES])))
    pulled = build_manifest(discover(resolve_config([into])))
    assert [s.to_wire() for s in pulled.skills] == [s.to_wire() for s in original.skills]
