"""``skillpack check`` against an independent server (FastMCP) and a faulty one."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, REPO, run_cli

SERVERS = REPO / "tests" / "servers"
SKILLS = EXAMPLES / "skills"


def _statuses(stdout: str) -> dict[tuple[str, str], dict]:
    report = json.loads(stdout)
    return {(s["scenario"], s["era"]): s for s in report["scenarios"]}


def faulty(*faults: str) -> list[str]:
    return [sys.executable, str(SERVERS / "faulty_skills.py"), str(SKILLS), *faults]


def test_faultless_server_passes_every_modern_scenario() -> None:
    proc = run_cli("check", "--era", "modern", "--format", "json", "--", *faulty())
    statuses = _statuses(proc.stdout)
    assert proc.returncode == 0, proc.stdout
    for name in ("declaration", "resources-read", "frontmatter", "skills-get", "directory-read",
                 "errors"):  # fmt: skip
        assert statuses[(name, "modern")]["status"] in ("pass", "warn"), statuses[(name, "modern")]
    assert statuses[("resources-read", "modern")]["checks"] >= 11  # every listed file was read


@pytest.mark.parametrize(
    ("fault", "scenario", "needle"),
    [
        ("digest", "resources-read", "differs from the listed sha256:0000"),
        ("size", "resources-read", "size"),
        ("frontmatter", "frontmatter", "description: served"),
        ("split", "skills-list", "does not list SKILL.md itself"),
        ("traversal", "skills-list", "lies outside the skill root"),
        ("no-skill-md", "skills-list", "does not list SKILL.md itself"),
        ("dir-slash", "directory-read", "no trailing slash"),
        ("no-parse-error", "errors", "-32700"),
    ],
)
def test_each_fault_fails_its_scenario(fault: str, scenario: str, needle: str) -> None:
    proc = run_cli("check", "--era", "modern", "--format", "json", "--", *faulty(fault))
    assert proc.returncode == 1, proc.stdout
    outcome = _statuses(proc.stdout)[(scenario, "modern")]
    assert outcome["status"] == "fail"
    assert any(needle in f for f in outcome["failures"]), outcome["failures"]


def test_dynamic_skills_are_warned_not_failed() -> None:
    proc = run_cli("check", "--era", "modern", "--format", "json", "--", *faulty("dynamic"))
    outcome = _statuses(proc.stdout)[("skills-list", "modern")]
    assert outcome["status"] == "warn"
    assert any('"dynamic"' in w for w in outcome["warnings"])


def test_table_output_and_exit_code_on_terminal_format() -> None:
    proc = run_cli("check", "--era", "modern", "--", *faulty("digest"))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["scenario", "era", "status", "checks", "first", "problem"]
    assert any(line.startswith("resources-read") and " fail " in line for line in lines)
    assert "fail" in lines[-1]


def test_a_server_that_dies_is_a_failure_with_its_stderr(tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text("import sys\nsys.stderr.write('boom: cannot load skills\\n')\nsys.exit(3)\n")
    proc = run_cli(
        "check", "--era", "modern", "--format", "json", "--", sys.executable, str(script)
    )
    assert proc.returncode == 1
    outcome = _statuses(proc.stdout)[("connect", "modern")]
    assert outcome["status"] == "fail"
    assert "boom: cannot load skills" in outcome["failures"][0]


def test_a_missing_command_is_a_clear_error() -> None:
    proc = run_cli("check", "--", "/nonexistent/skills-server")
    assert proc.returncode == 1
    assert "cannot start server '/nonexistent/skills-server'" in proc.stderr


def test_unknown_scenario_is_a_usage_error() -> None:
    proc = run_cli("check", "--scenario", "nope", "--", *faulty())
    assert proc.returncode == 2
    assert "unknown scenario 'nope'" in proc.stderr


# FastMCP 4.2.3's SkillsDirectoryProvider, an independent implementation. Its known
# deviations (also in docs/check.md):
#  - no -32700 answer to a malformed line (errors: fail, both eras);
#  - an invalid skills/list cursor is not refused (skills-list: warn);
#  - no resources/directory/read (directory-read: skip);
#  - the extension is not declared in the legacy era (legacy skills scenarios: skip).
FASTMCP_EXPECTED = {
    ("declaration", "modern"): "pass",
    ("skills-list", "modern"): "warn",
    ("resources-read", "modern"): "pass",
    ("frontmatter", "modern"): "pass",
    ("skills-get", "modern"): "pass",
    ("directory-read", "modern"): "skip",
    ("errors", "modern"): "fail",
    ("declaration", "legacy"): "warn",
    ("skills-list", "legacy"): "skip",
    ("resources-read", "legacy"): "skip",
    ("errors", "legacy"): "fail",
}


def test_fastmcp_skills_directory_provider() -> None:
    pytest.importorskip("fastmcp")
    proc = run_cli(
        "check",
        "--format",
        "json",
        "--",
        sys.executable,
        str(SERVERS / "fastmcp_skills.py"),
        str(SKILLS),
    )
    statuses = _statuses(proc.stdout)
    got = {key: statuses[key]["status"] for key in FASTMCP_EXPECTED}
    assert got == FASTMCP_EXPECTED, json.dumps(json.loads(proc.stdout), indent=1)[:3000]
    assert proc.returncode == 1
    # every file of every example skill was fetched and verified
    assert statuses[("resources-read", "modern")]["checks"] >= 11


def _serve_bundle(tmp_path: Path) -> list[str]:
    bundle = tmp_path / "examples.skp"
    built = run_cli("build", EXAMPLES, "-o", bundle)
    assert built.returncode == 0, built.stderr
    return [sys.executable, "-m", "skillpack", "serve", "--page-size", "2", str(bundle)]


def test_skillpack_serve_passes_every_scenario_in_both_eras(tmp_path: Path) -> None:
    """skillpack's own server, from a bundle, with pages small enough to paginate."""
    proc = run_cli("check", "--format", "json", "--", *_serve_bundle(tmp_path))
    statuses = _statuses(proc.stdout)
    assert proc.returncode == 0, proc.stdout
    assert {key: s["status"] for key, s in statuses.items()} == {
        (name, era): "pass"
        for era in ("modern", "legacy")
        for name in (
            "declaration",
            "skills-list",
            "resources-read",
            "frontmatter",
            "skills-get",
            "directory-read",
            "errors",
        )
    }
    # every file of the 5 example skills (11 entries, nested ones counted twice) was read
    assert statuses[("resources-read", "modern")]["checks"] >= 10
    assert statuses[("directory-read", "modern")]["checks"] > 20


def test_the_table_cuts_long_problems_between_words_and_shows_them_whole() -> None:
    """The first-problem column is cut at a space with an ellipsis, never inside a word,
    and the whole problem is under 'more:' (issue 10 §6)."""
    proc = run_cli("check", "--era", "modern", "--", *faulty("frontmatter"))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    (row,) = [line for line in lines if line.startswith("frontmatter ")]
    cell = row.split("  ")[-1].strip()
    assert cell.endswith("…") and len(cell) <= 90
    shown = cell[:-1]
    prefix = "  frontmatter (modern): "
    whole = [
        line[len(prefix) :]
        for line in lines[lines.index("more:") :]
        if line.startswith(prefix + shown)
    ]
    assert whole, "the whole first problem is listed under 'more:'"
    assert len(whole[0]) > len(shown) and whole[0][len(shown)] == " "  # cut at a space


# --- a check cannot pass by accident (issue 10 §2) -----------------------------------
def hostile(mode: str, spec: Path | None = None) -> list[str]:
    return [
        sys.executable,
        str(SERVERS / "hostile_skills.py"),
        mode,
        *([str(spec)] if spec else []),
    ]


def _spec(tmp_path: Path, **spec: object) -> Path:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def test_a_server_that_never_answers_fails_connect_within_the_timeout() -> None:
    started = time.monotonic()
    proc = run_cli("check", "--timeout", "1", "--format", "json", "--", *hostile("silent"))
    elapsed = time.monotonic() - started
    assert proc.returncode == 1, proc.stdout
    statuses = _statuses(proc.stdout)
    assert set(statuses) == {("connect", "modern"), ("connect", "legacy")}
    for outcome in statuses.values():
        assert outcome["status"] == "fail"
        assert "no response to request 1 within 1 s" in outcome["failures"][0]
    assert elapsed < 15  # two eras, each the timeout and a short grace to stop the server


def test_the_eras_share_one_timeout() -> None:
    """The user asks for one response timeout: a server that never answers is waited
    for once (the eras' handshakes run side by side), not once per era in turn."""
    started = time.monotonic()
    proc = run_cli("check", "--timeout", "6", "--format", "json", "--", *hostile("silent"))
    elapsed = time.monotonic() - started
    assert proc.returncode == 1 and len(_statuses(proc.stdout)) == 2
    assert elapsed < 11, elapsed  # one 6 s wait and the grace; one after the other is 12+


@pytest.mark.parametrize(
    ("mode", "needle"),
    [
        ("garbage", "non-JSON line on stdout: 'Starting server... this is not JSON'"),
        ("not-jsonrpc", "not a JSON-RPC 2.0 message: {'id': 1, 'ok': True}"),
    ],
)
def test_a_server_that_answers_garbage_fails_connect(mode: str, needle: str) -> None:
    proc = run_cli("check", "--timeout", "1", "--", *hostile(mode))
    assert proc.returncode == 1, proc.stdout
    rows = [line.split() for line in proc.stdout.splitlines()[1:3]]
    assert [row[:3] for row in rows] == [
        ["connect", "modern", "fail"],
        ["connect", "legacy", "fail"],
    ]
    assert "only messages that are not JSON-RPC" in proc.stdout
    assert needle in proc.stdout
    assert " skip" not in proc.stdout.split("\n\n")[0]  # no era is "not spoken"


def test_a_server_that_exits_after_one_answer_fails_connect(tmp_path: Path) -> None:
    spec = _spec(tmp_path, skills={"tools/aa": {"SKILL.md": "---\nname: aa\n---\n"}})
    proc = run_cli("check", "--era", "modern", "--format", "json", "--",
                   *hostile("exit-after-one", spec))  # fmt: skip
    assert proc.returncode == 1
    statuses = _statuses(proc.stdout)
    connect = statuses[("connect", "modern")]
    assert connect["status"] == "fail"
    assert "exited before answering request 2" in connect["failures"][0]
    assert statuses[("skills-list", "modern")]["status"] == "fail"


def test_stdout_noise_from_a_working_server_fails_connect(tmp_path: Path) -> None:
    spec = _spec(tmp_path, skills={"tools/aa": {"SKILL.md": "---\nname: aa\n---\n"}})
    proc = run_cli("check", "--era", "modern", "--format", "json", "--", *hostile("noisy", spec))
    assert proc.returncode == 1
    connect = _statuses(proc.stdout)[("connect", "modern")]
    assert connect["failures"] == ["stdout: non-JSON line on stdout: 'hostile server 1.0 starting'"]


def test_a_server_that_speaks_none_of_the_eras_asked_for_fails(tmp_path: Path) -> None:
    """An error answer to the handshake is an era not spoken; when it is the only era
    asked for, nothing was checked: fail, never fourteen skips and exit 0."""
    spec = _spec(tmp_path, errors={"server/discover": [-32601, "Method not found"]})
    proc = run_cli("check", "--era", "modern", "--format", "json", "--", *hostile("serve", spec))
    assert proc.returncode == 1
    statuses = _statuses(proc.stdout)
    assert list(statuses) == [("connect", "modern")]
    assert (
        "server/discover answered -32601 Method not found"
        in (statuses[("connect", "modern")]["failures"][0])
    )


def test_a_check_where_every_scenario_was_skipped_fails() -> None:
    # faulty_skills declares no skills extension in the legacy era: skills-list skips
    proc = run_cli("check", "--era", "legacy", "--scenario", "skills-list", "--", *faulty())
    assert proc.returncode == 1, proc.stdout
    assert "skip" in proc.stdout
    assert proc.stdout.rstrip().endswith("nothing was checked: every scenario was skipped")
