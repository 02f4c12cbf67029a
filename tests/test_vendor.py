"""``skillpack vendor``: vendor a server's skills, verifying every byte, writing nothing
on failure and nothing outside the target."""

from __future__ import annotations

import hashlib
import json
import os
import stat
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
    assert "vendored 4 skills" in proc.stdout or "vendored 5 skills" in proc.stdout
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
    assert "vendored 5 skills, 10 files" in proc.stdout
    rebuilt = tmp_path / "rebuilt.skp"
    build = run_cli("build", into, "-o", rebuilt)
    assert build.returncode == 0, build.stderr
    diff = run_cli("diff", bundle, rebuilt, "--format", "json")
    # the same skills, files, digests, frontmatter and modes: SEP-2640 manifests carry no
    # mode, so serve marks executable files in their contents' _meta and vendor restores it
    assert diff.returncode == 0, diff.stdout
    assert os.stat(into / "pdf-processing" / "scripts" / "extract.py").st_mode & 0o111
    assert not os.stat(into / "pdf-processing" / "SKILL.md").st_mode & 0o111
    original = build_manifest(discover(resolve_config([EXAMPLES])))
    pulled = build_manifest(discover(resolve_config([into])))
    assert [s.to_wire() for s in pulled.skills] == [s.to_wire() for s in original.skills]


# --- vendor writes only what skillpack would publish (issue 10 §2) -------------------
def hostile(tmp_path: Path, **spec: object) -> list[str]:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return [sys.executable, str(SERVERS / "hostile_skills.py"), "serve", str(path)]


def skill_md(name: str) -> str:
    return f"---\nname: {name}\ndescription: The {name} skill.\n---\nbody\n"


NFC, NFD = "r\u00e9sum\u00e9.md", "re\u0301sume\u0301.md"


@pytest.mark.parametrize(
    ("files", "code", "needle"),
    [
        ({".github/workflows/release.yml": "on: push\n"}, "CLI114", ".github/workflows"),
        ({"hooks/.git/config": "[core]\n"}, "CLI114", "hooks/.git/config"),
        ({"NOTES.md": "a\n", "notes.md": "b\n"}, "CLI117", "differ only in case"),
        ({NFC: "a\n", NFD: "b\n"}, "CLI117", "Unicode normalization"),
        ({"reference": "a file\n", "reference/api.md": "b\n"}, "CLI117", "is a file"),
        ({"Data/one.csv": "1\n", "data": "2\n"}, "CLI117", "is a file"),
    ],
)
def test_vendor_refuses_paths_skillpack_never_publishes(
    tmp_path: Path, files: dict[str, str], code: str, needle: str
) -> None:
    """Every path is judged by the bundle writer's policy before anything is read or
    written: a good skill listed first is not written either."""
    server = hostile(
        tmp_path,
        skills={
            "ops/aa": {"SKILL.md": skill_md("aa")},
            "ops/deploy": {"SKILL.md": skill_md("deploy"), **files},
        },
    )
    into = tmp_path / "vendored"
    proc = run_cli("vendor", "--into", into, "--", *server)
    assert proc.returncode == 1, proc.stderr
    assert f"{code} " in proc.stderr and needle in proc.stderr, proc.stderr
    assert "internal error" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.json"]  # nothing, no staging


def test_vendor_refuses_a_skill_path_that_clashes_with_the_project_file(tmp_path: Path) -> None:
    server = hostile(tmp_path, skills={"skillpack.toml": {"SKILL.md": skill_md("skillpack.toml")}})
    proc = run_cli("vendor", "--into", tmp_path / "out", "--", *server)
    assert proc.returncode == 1
    assert "CLI117" in proc.stderr and "skillpack.toml" in proc.stderr


@pytest.mark.parametrize("method", ["skills/list", "resources/read", "server/discover"])
def test_a_json_rpc_error_is_a_coded_refusal(tmp_path: Path, method: str) -> None:
    server = hostile(
        tmp_path,
        skills={"ops/aa": {"SKILL.md": skill_md("aa")}},
        errors={method: [-32603, "the backend is down"]},
    )
    into = tmp_path / "vendored"
    proc = run_cli("vendor", "--era", "modern", "--into", into, "--", *server)
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr and "FrozenInstanceError" not in proc.stderr
    assert f"CLI003 {method}: the server answered with error -32603: the backend is down" in (
        proc.stderr
    )
    assert not into.exists()


def test_a_malformed_reply_is_a_coded_refusal(tmp_path: Path) -> None:
    script = tmp_path / "bad.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': [1, 2]}), flush=True)\n"
    )
    proc = run_cli("vendor", "--era", "modern", "--", sys.executable, str(script))
    assert proc.returncode == 1
    assert "CLI003 the server's reply to server/discover is not a JSON-RPC response" in (
        proc.stderr
    )


def test_vendor_keeps_the_served_bundle_name_and_version(tmp_path: Path) -> None:
    bundle = tmp_path / "acme.skp"
    assert run_cli("build", EXAMPLES, "-o", bundle).returncode == 0
    for era in ("modern", "legacy"):
        into = tmp_path / f"pulled-{era}"
        server = [sys.executable, "-m", "skillpack", "serve", str(bundle)]
        proc = run_cli("vendor", "--era", era, "--into", into, "--", *server)
        assert proc.returncode == 0, proc.stderr
        config = (into / "skillpack.toml").read_text()
        assert 'name = "acme-skills"' in config and 'version = "1.0.0"' in config, config


def test_vendor_reads_the_name_and_version_from_skillpack_instructions(tmp_path: Path) -> None:
    """An older skillpack serve says what it serves only in its instructions."""
    server = hostile(
        tmp_path,
        skills={"ops/aa": {"SKILL.md": skill_md("aa")}},
        serverInfo={"name": "skillpack", "version": "0.9.0"},
        instructions="Agent Skills from the bundle team-tools 2.3.1 (1 skill), served by "
        "skillpack. skills/list lists every skill.",
    )
    into = tmp_path / "out"
    proc = run_cli("vendor", "--into", into, "--", *server)
    assert proc.returncode == 0, proc.stderr
    config = (into / "skillpack.toml").read_text()
    assert 'name = "team-tools"' in config and 'version = "2.3.1"' in config, config


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o755), (0o027, 0o750)])
def test_the_vendored_directory_is_made_like_unpack_makes_its_own(
    tmp_path: Path, umask: int, mode: int
) -> None:
    into = tmp_path / "out"
    old = os.umask(umask)
    try:
        proc = run_cli("vendor", "--into", into, "--", *faulty())
    finally:
        os.umask(old)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(into.stat().st_mode) == mode
