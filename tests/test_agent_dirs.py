"""Skills where people keep them (issue 10 §3): the agent directories, catalog groups in
dot folders, and a tree without any skill, through the real CLI."""

from __future__ import annotations

import os
import tomllib
import zipfile
from pathlib import Path

from skillpack.source import agents
from tests.conftest import REPO, run_cli
from tests.lintutil import lint_json, skill_md, write

#: the agents the issue names, with the project directory each one reads
NAMED = {
    "claude-code": ".claude/skills",
    "codex": ".agents/skills",
    "cursor": ".cursor/skills",
    "github-copilot": ".github/skills",
    "gemini-cli": ".gemini/skills",
    "opencode": ".opencode/skills",
    "windsurf": ".windsurf/skills",
    "goose": ".goose/skills",
    "roo": ".roo/skills",
    "cline": ".cline/skills",
    "amp": ".agents/skills",
    "kiro-cli": ".kiro/skills",
    "junie": ".junie/skills",
    "continue": ".continue/skills",
    "universal": ".agents/skills",
}


def _skills(report: dict[str, object]) -> list[str]:
    return sorted({f["skill"] for f in report["findings"] if f["skill"]})  # type: ignore[index, union-attr]


def _app_repo(root: Path) -> Path:
    """An application repository: code, a .git, a virtualenv, and skills for five agents."""
    write(root / "src" / "app.py", "print('app')\n")
    write(root / "README.md", "# app\n")
    (root / ".git").mkdir()
    # a dot directory that is not an agent directory is never searched
    write(root / ".venv" / "lib" / "pkg" / "SKILL.md", skill_md("venv-skill", "x: 1\n"))
    write(root / "node_modules" / "dep" / "SKILL.md", skill_md("dep", "x: 1\n"))
    for rel, name in [
        (".claude/skills", "deploy"),
        (".agents/skills", "review"),
        (".github/skills", "triage"),
        (".cursor/skills", "refactor"),
        (".codex/skills", "release"),
    ]:
        # an unknown field (SP111, a warning) makes each skill show up in the report
        write(root / rel / name / "SKILL.md", skill_md(name, "owner: me\n"))
        write(root / rel / name / "references" / "notes.md", "notes\n")
    return root


def test_lint_at_the_root_of_an_application_finds_the_agent_directories(tmp_path: Path) -> None:
    repo = _app_repo(tmp_path)
    proc, report = lint_json(repo)
    assert proc.returncode == 0, proc.stderr
    # each agent directory is a root: the skill path is the skill's own name
    assert _skills(report) == ["deploy", "refactor", "release", "review", "triage"]
    assert report["summary"]["skills"] == 5
    assert {f["path"] for f in report["findings"]} == {
        ".agents/skills/review/SKILL.md",
        ".claude/skills/deploy/SKILL.md",
        ".codex/skills/release/SKILL.md",
        ".cursor/skills/refactor/SKILL.md",
        ".github/skills/triage/SKILL.md",
    }
    proc = run_cli("lint", cwd=repo)
    assert proc.stderr.strip().endswith("(5 skills, 10 files checked).")


def test_a_commit_touching_an_agent_directory_lints_that_skill(tmp_path: Path) -> None:
    """The pre-commit hook passes file names: they select the skill in .claude/skills."""
    repo = _app_repo(tmp_path)
    write(repo / ".claude" / "skills" / "deploy" / "SKILL.md", skill_md("wrong", "owner: me\n"))
    proc = run_cli("lint", ".claude/skills/deploy/SKILL.md", "src/app.py", cwd=repo)
    assert proc.returncode == 1
    assert proc.stdout.startswith(".claude/skills/deploy/SKILL.md:2:1: SP103 ")
    assert "triage" not in proc.stdout
    proc = run_cli("lint", "src/app.py", cwd=repo)  # a commit outside every skill passes
    assert proc.returncode == 0, proc.stderr


def test_lock_and_build_publish_the_agent_directories_skills(tmp_path: Path) -> None:
    repo = _app_repo(tmp_path)
    (repo / "skillpack.toml").write_text('name = "app-skills"\nversion = "1.0.0"\n')
    proc = run_cli("build", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    names = zipfile.ZipFile(repo / "dist" / "app-skills-1.0.0.skp").namelist()
    for name in ("deploy", "refactor", "release", "review", "triage"):
        assert any(n.endswith(f"{name}/SKILL.md") for n in names), names
    assert not any("venv-skill" in n or "/dep/" in n or ".claude" in n for n in names), names


def test_configured_roots_are_the_only_places_searched(tmp_path: Path) -> None:
    repo = _app_repo(tmp_path)
    write(repo / "skills" / "mine" / "SKILL.md", skill_md("mine", "owner: me\n"))
    (repo / "skillpack.toml").write_text('roots = ["skills"]\n')
    _proc, report = lint_json(repo)
    assert _skills(report) == ["mine"]


def test_catalog_groups_in_dot_folders_are_found(tmp_path: Path) -> None:
    """A catalog shaped like OpenAI's: skills/.system, skills/.curated, skills/.experimental;
    the group folder is left out of the skill path."""
    for group, name in [(".system", "creator"), (".curated", "gh-fix"), (".experimental", "plan")]:
        write(tmp_path / "skills" / group / name / "SKILL.md", skill_md(name, "owner: me\n"))
        write(tmp_path / "skills" / group / name / "agents" / "openai.yaml", "x: 1\n")
    write(tmp_path / "skills" / ".git-notes" / "n" / "SKILL.md", skill_md("n", "owner: me\n"))
    write(tmp_path / "skills" / "plain" / "SKILL.md", skill_md("plain", "owner: me\n"))
    system = tmp_path / ".agents" / "skills" / ".system"
    write(system / "sys" / "SKILL.md", skill_md("sys", "o: 1\n"))
    proc, report = lint_json(tmp_path)
    assert _skills(report) == [
        "skills/creator",
        "skills/gh-fix",
        "skills/plain",
        "skills/plan",
        "sys",
    ]
    proc = run_cli("lock", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lock = tomllib.loads((tmp_path / "skillpack.lock").read_text())
    assert [(s["path"], s["uri"]) for s in lock["skills"]] == [
        (path, f"skill://{path}/SKILL.md")
        for path in ("skills/creator", "skills/gh-fix", "skills/plain", "skills/plan", "sys")
    ]
    # the group folder's own files are published with the skill, under its URI
    gh_fix = next(s for s in lock["skills"] if s["path"] == "skills/gh-fix")
    assert [f["path"] for f in gh_fix["files"]] == ["SKILL.md", "agents/openai.yaml"]


def test_no_skill_at_all_is_a_finding_that_says_where_it_looked(tmp_path: Path) -> None:
    write(tmp_path / "src" / "app.py", "x = 1\n")
    write(tmp_path / ".venv" / "x" / "SKILL.md", skill_md("x"))
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    for args in ((), ("--format", "json"), ("--format", "sarif", "-o", "out.sarif")):
        proc = run_cli("lint", *args, cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        assert "All checks passed" not in proc.stderr + proc.stdout
        lines = proc.stderr.splitlines()
        assert lines[0] == (
            f"LNT001 no skill found in {tmp_path.resolve()} (a skill is a directory holding "
            "SKILL.md)"
        )
        assert "  searched . and its subdirectories" in lines
        assert "  searched .claude/skills (agent directory)" in lines
        assert any(line.startswith("  looked for 32 agent directories (.agents") for line in lines)
        assert lines[-1].startswith("  hint: ")
    assert not (tmp_path / "out.sarif").exists()
    # build says the same
    proc = run_cli("build", cwd=tmp_path)
    assert proc.returncode == 2
    assert "BLD011" in proc.stderr and "  searched .claude/skills (agent directory)" in proc.stderr


def test_a_configured_tree_without_skills_names_its_configuration(tmp_path: Path) -> None:
    (tmp_path / "skills").mkdir()
    (tmp_path / "skillpack.toml").write_text('roots = ["skills"]\n')
    proc = run_cli("lint", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        f"{tmp_path / 'skillpack.toml'}: LNT001 no skill found in the roots of "
    )
    assert "  searched skills and its subdirectories" in proc.stderr
    assert "agent directories are searched only when 'roots' is not configured" in proc.stderr


def test_symlinked_agent_directories(tmp_path: Path) -> None:
    """A link to another directory searched is an alias (no finding, no duplicate); a link
    elsewhere is not followed, and said so."""
    write(tmp_path / ".agents" / "skills" / "shared" / "SKILL.md", skill_md("shared", "o: 1\n"))
    (tmp_path / ".claude").mkdir()
    os.symlink("../.agents/skills", tmp_path / ".claude" / "skills")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    write(outside / "away" / "SKILL.md", skill_md("away", "o: 1\n"))
    (tmp_path / ".cursor").mkdir()
    os.symlink(outside, tmp_path / ".cursor" / "skills")
    _proc, report = lint_json(tmp_path)
    assert _skills(report) == ["shared"]
    (link,) = [f for f in report["findings"] if f["code"] == "SP307"]
    assert link["path"] == ".cursor/skills"
    assert "is not followed" in link["message"]
    assert report["summary"]["skills"] == 1


def test_a_project_that_is_itself_a_skill_does_not_search_inside_itself(tmp_path: Path) -> None:
    skill = tmp_path / "my-skill"
    write(skill / "SKILL.md", skill_md("my-skill"))
    write(skill / ".claude" / "skills" / "x" / "SKILL.md", skill_md("x"))
    _proc, report = lint_json(skill)
    assert report["summary"]["skills"] == 1


def test_the_agent_table() -> None:
    for name, directory in NAMED.items():
        agent = agents.agent(name)
        assert agent is not None, name
        assert directory in agent.project_dirs, name
    assert len(agents.AGENTS) >= 30
    assert len({a.name for a in agents.AGENTS}) == len(agents.AGENTS)
    for agent in agents.AGENTS:
        assert agent.home.startswith(("~/", "$XDG_CONFIG_HOME/")), agent
        assert all(d.endswith("skills") and not d.startswith("/") for d in agent.project_dirs)
    home = Path("/home/u")
    claude, codex, goose = agents.agent("claude-code"), agents.agent("codex"), agents.agent("goose")
    assert claude and codex and goose
    assert claude.global_path({}, home) == home / ".claude" / "skills"
    assert claude.global_path({"CLAUDE_CONFIG_DIR": "/cfg/claude"}, home) == Path(
        "/cfg/claude/skills"
    )
    assert codex.global_path({"CODEX_HOME": " "}, home) == home / ".codex" / "skills"
    assert codex.global_path({"CODEX_HOME": "/c"}, home) == Path("/c/skills")
    assert goose.global_path({}, home) == home / ".config" / "goose" / "skills"
    assert goose.global_path({"XDG_CONFIG_HOME": "/x"}, home) == Path("/x/goose/skills")


def test_the_agent_table_is_documented() -> None:
    text = (REPO / "docs" / "configuration.md").read_text("utf-8")
    assert agents.markdown_table() in text


def test_every_project_directory_of_the_table_is_searched(tmp_path: Path) -> None:
    directories = agents.project_dirs()
    for index, directory in enumerate(directories):
        write(tmp_path / directory / f"s{index}" / "SKILL.md", skill_md(f"s{index}", "o: 1\n"))
    _proc, report = lint_json(tmp_path)
    assert _skills(report) == sorted(f"s{index}" for index in range(len(directories)))


def test_the_same_skill_installed_for_two_agents_is_one_skill(tmp_path: Path) -> None:
    """Identical copies in two agent directories are published once; copies that differ
    are an error (a bundle holds one skill per path), also in a commit touching one."""
    for rel in (".agents/skills", ".claude/skills"):
        write(tmp_path / rel / "review" / "SKILL.md", skill_md("review"))
        write(tmp_path / rel / "review" / "references" / "a.md", "a\n")
    proc = run_cli("lint", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert proc.stderr.strip() == "All checks passed (1 skill, 2 files checked)."
    (tmp_path / "skillpack.toml").write_text('name = "two"\nversion = "1.0.0"\n')
    proc = run_cli("build", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    names = zipfile.ZipFile(tmp_path / "dist" / "two-1.0.0.skp").namelist()
    assert sum(n.endswith("review/SKILL.md") for n in names) == 1, names

    write(tmp_path / ".claude" / "skills" / "review" / "references" / "a.md", "changed\n")
    proc, report = lint_json(tmp_path)
    assert proc.returncode == 1
    (conflict,) = report["findings"]
    assert (conflict["code"], conflict["path"]) == ("SP212", ".claude/skills/review")
    assert ".agents/skills/review" in conflict["message"]
    proc = run_cli("build", cwd=tmp_path)
    assert proc.returncode == 1 and "SP212" in proc.stderr
    subprocess_git_init(tmp_path)
    proc = run_cli("lint", ".claude/skills/review/references/a.md", cwd=tmp_path)
    assert proc.returncode == 1 and "SP212" in proc.stdout


def subprocess_git_init(path: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=60)
