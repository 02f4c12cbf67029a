"""The pre-commit hooks, run the way a user runs them: ``pre-commit run`` with a
configuration naming this repository and a revision.

pre-commit builds a virtualenv and pip-installs the hooks' repository into it (from
PyPI and the local wheel mirror), so this test takes a while: it is marked slow.
PRE_COMMIT_HOME points into a temporary directory, so nothing outside it is touched.

The repository is this checkout as ``pre-commit try-repo`` sees it: its HEAD, plus the
modified and staged tracked files, committed once into a clone (untracked files are not
included, so commit or stage new modules first). One revision for every test: pre-commit
installs its environment once and every hook run reuses it (``try-repo`` clones into a
new temporary directory each time, and so installed it again for each of the eight runs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.lintutil import skill_md, write

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PRE_COMMIT.exists(), reason="pre-commit is not installed"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture(scope="module")
def hooks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This checkout committed into a clone (see the module docstring): its path and
    the commit."""
    if not (REPO / ".git").exists():
        pytest.skip("the hooks' repository must be a git checkout")
    shadow = tmp_path_factory.mktemp("hooks") / "skillpack"
    subprocess.run(["git", "clone", "-q", "--no-local", str(REPO), str(shadow)],
                   check=True, capture_output=True)  # fmt: skip
    changed = subprocess.run(
        ["git", "diff", "--name-only", "--no-renames", "-z", "HEAD"],
        cwd=REPO, check=True, capture_output=True, text=True,
    ).stdout.split("\0")  # fmt: skip
    for rel in filter(None, changed):
        target = shadow / rel
        if (REPO / rel).is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, target)
        elif target.exists():
            target.unlink()
    _git(shadow, "add", "-A")
    _git(shadow, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q",
         "--allow-empty", "-m", "the checkout as try-repo sees it")  # fmt: skip
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=shadow, check=True,
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    return shadow, head


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _run_hook(
    repo: Path, hook: str, home: Path, hooks: tuple[Path, str]
) -> subprocess.CompletedProcess[str]:
    """``pre-commit run HOOK --all-files`` in ``repo``, the hook from ``hooks``."""
    config = repo.parent / f"pre-commit-{hook}.yaml"
    config.write_text(
        f"repos:\n  - repo: {hooks[0]}\n    rev: {hooks[1]}\n    hooks:\n      - id: {hook}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_"))}
    env["PRE_COMMIT_HOME"] = str(home)
    env.pop("PYTHONPATH", None)  # the hook must run the installed copy
    return subprocess.run(
        [str(PRE_COMMIT), "run", hook, "--all-files", "--color", "never", "-c", str(config)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_lint_hook_fails_on_the_bad_skill_and_passes_once_fixed(
    tmp_path: Path, pre_commit_home: Path, hooks: tuple[Path, str]
) -> None:
    repo = tmp_path / "repo"
    write(repo / "skills" / "good" / "SKILL.md", skill_md("good"))
    bad = write(repo / "skills" / "bad" / "SKILL.md", skill_md("not-bad"))
    write(repo / "README.md", "# skills\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")

    proc = _run_hook(repo, "skillpack-lint", pre_commit_home, hooks)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "skills/bad/SKILL.md:2:1: SP103" in output
    assert "skills/good" not in output

    bad.write_text(skill_md("bad"), encoding="utf-8")
    _git(repo, "add", ".")
    proc = _run_hook(repo, "skillpack-lint", pre_commit_home, hooks)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_fmt_hook_rewrites_and_then_passes(
    tmp_path: Path, pre_commit_home: Path, hooks: tuple[Path, str]
) -> None:
    repo = tmp_path / "repo"
    skill = write(
        repo / "skills" / "forms" / "SKILL.md",
        "---\ndescription: Fills forms.\nname: forms\nreviewed: yes\n---\nbody\n",
    )
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    proc = _run_hook(repo, "skillpack-fmt", pre_commit_home, hooks)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # files were modified
    assert "files were modified by this hook" in proc.stdout
    assert (
        skill.read_text()
        == '---\nname: forms\ndescription: Fills forms.\nreviewed: "yes"\n---\nbody\n'
    )
    _git(repo, "add", ".")
    proc = _run_hook(repo, "skillpack-fmt", pre_commit_home, hooks)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_install_check_hook_catches_drift(
    tmp_path: Path, pre_commit_home: Path, hooks: tuple[Path, str]
) -> None:
    from tests.conftest import run_cli, write_skill

    source = tmp_path / "source"
    (source / "skillpack.toml").parent.mkdir(parents=True)
    (source / "skillpack.toml").write_text('name = "team"\nversion = "1.0.0"\nroots = ["s"]\n')
    write_skill(source / "s", "deploy", files={"scripts/run.sh": "#!/bin/sh\n"})
    bundle = tmp_path / "team.skp"
    assert run_cli("build", source, "-o", bundle, "--no-lint").returncode == 0
    repo = tmp_path / "repo"
    repo.mkdir()
    assert run_cli("install", bundle, "-a", "claude-code", cwd=repo).returncode == 0
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    proc = _run_hook(repo, "skillpack-install-check", pre_commit_home, hooks)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (repo / ".claude" / "skills" / "deploy" / "scripts" / "run.sh").write_text("#!/bin/sh\nrm\n")
    _git(repo, "add", ".")
    proc = _run_hook(repo, "skillpack-install-check", pre_commit_home, hooks)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "modified: .claude/skills/deploy/scripts/run.sh" in proc.stdout


def test_plugins_hook_catches_a_stale_manifest(
    tmp_path: Path, pre_commit_home: Path, hooks: tuple[Path, str]
) -> None:
    from tests.conftest import run_cli

    repo = tmp_path / "repo"
    write(repo / "skillpack.toml", 'name = "acme"\nversion = "1.0.0"\n')
    write(repo / "skills" / "pdf" / "SKILL.md", skill_md("pdf"))
    assert run_cli("plugins", "--host", "gemini", cwd=repo).returncode == 0
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    proc = _run_hook(repo, "skillpack-plugins", pre_commit_home, hooks)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    write(repo / "skillpack.toml", 'name = "acme"\nversion = "1.1.0"\n')
    _git(repo, "add", ".")
    proc = _run_hook(repo, "skillpack-plugins", pre_commit_home, hooks)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'gemini-extension.json: version: "1.0.0" -> "1.1.0"' in proc.stdout
