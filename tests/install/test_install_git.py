"""``skillpack install`` from git repositories and skills directories, through the real
CLI and real git: local bare repositories over ``file://`` and a loopback ``git daemon``.
Refs pin to commits, every file is pinned, ``--frozen`` fetches the pinned commit in a
fresh clone of the project, a moved tag is refused until ``--upgrade``, and nothing of a
repository runs (hooks, filters) or is followed (links out of the tree)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillpack.install.lockfile import read_install_lock
from tests.install.conftest import LOCK, Run, ok, refused, snapshot, tree_files

ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_NOSYSTEM": "1",
}
DAEMON = Path("/usr/lib/git-core/git-daemon")


def git(cwd: Path, *args: str, home: Path | None = None) -> str:
    env = {**os.environ, **ENV, **({"HOME": str(home)} if home else {})}
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def skill(work: Path, name: str, body: str, **files: str) -> None:
    d = work / "skills" / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill. Use it for {name}.\n---\n{body}\n"
    )
    for rel, text in files.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)


def commit(work: Path, message: str) -> str:
    git(work, "add", "-A")
    git(work, "commit", "-qm", message)
    return git(work, "rev-parse", "HEAD")


class Repo:
    """A working repository and the bare repository it pushes to."""

    def __init__(self, base: Path) -> None:
        self.work, self.bare = base / "work", base / "bare.git"
        self.work.mkdir(parents=True)
        git(self.work, "init", "-q", "-b", "main")
        git(base, "init", "-q", "--bare", "-b", "main", str(self.bare))
        git(self.work, "remote", "add", "origin", str(self.bare))

    @property
    def url(self) -> str:
        return f"git+file://{self.bare}"

    def push(self, *refs: str, force: bool = False) -> None:
        git(self.work, "push", "-q", *(["--force"] if force else []), "origin", *refs)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    skill(r.work, "review", "v1", **{"scripts/run.sh": "echo 1\n"})
    skill(r.work, "notes", "notes v1")
    commit(r.work, "v1")
    git(r.work, "tag", "v1")
    r.push("main", "v1")
    return r


def agent_project(project: Path) -> None:
    (project / ".claude").mkdir(exist_ok=True)


def test_a_tag_installs_pinned_to_its_commit_and_reinstalls_offline(
    sp: Run, project: Path, repo: Repo, tmp_path: Path
) -> None:
    agent_project(project)
    v1 = git(repo.work, "rev-parse", "v1")
    ok(sp("install", f"{repo.url}@v1", "-a", "claude-code"))
    lock = read_install_lock(project / LOCK)
    (pin,) = lock.sources
    assert pin.source == f"{repo.url}@v1" and pin.commit == v1
    review = next(s for s in lock.skills if s.name == "review")
    assert {f.path for f in review.files} == {"SKILL.md", "scripts/run.sh"}
    installed = project / ".claude" / "skills" / "review"
    assert (installed / "scripts" / "run.sh").read_text() == "echo 1\n"
    assert not (repo.work / "skillpack.lock").exists()  # nothing written into a tree
    # the repository gone: a pinned re-install, --check and uninstall use cache and lock
    shutil.move(repo.bare, tmp_path / "gone.git")
    shutil.rmtree(installed)
    out = ok(sp("install"))
    assert (installed / "SKILL.md").is_file(), out.stderr
    ok(sp("install", "--check"))
    (installed / "SKILL.md").write_text("tampered\n")
    drift = sp("install", "--check")
    assert drift.returncode == 1 and "review" in drift.stdout + drift.stderr
    ok(sp("uninstall", "notes"))
    assert not (project / ".claude" / "skills" / "notes").exists()


def recording_git(directory: Path) -> tuple[dict[str, str], Path]:
    """A ``git`` first on PATH that records each call (its arguments, one line) and runs
    the real one: the environment to run with, and the record."""
    real = shutil.which("git")
    assert real is not None
    directory.mkdir()
    calls = directory / "calls.log"
    wrapper = directory / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{calls}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return {"PATH": f"{directory}{os.pathsep}{os.environ['PATH']}"}, calls


def test_a_pinned_reinstall_runs_no_git_and_still_finds_drift(
    sp: Run, project: Path, repo: Repo, tmp_path: Path
) -> None:
    agent_project(project)
    ok(sp("install", f"{repo.url}@v1", "-a", "claude-code"))
    extra, calls = recording_git(tmp_path / "bin")
    installed = project / ".claude" / "skills" / "review"
    # the pin and the cache hold the commit: a re-install, offline or not, and --check
    # run no git at all (no ref listed, nothing fetched, no bundle built again)
    for args in (("install",), ("install", "--offline"), ("install", "--check")):
        out = ok(sp(*args, extra=extra))
        assert not calls.exists(), f"{args}: {calls.read_text()}"
        assert args[-1] == "--check" or "0 written" in out.stdout + out.stderr
    # a modified installed file is still found, by a run that runs no git either
    (installed / "scripts" / "run.sh").write_text("echo tampered\n")
    for args in (("install",), ("install", "--offline")):
        err = refused(sp(*args, extra=extra), "INS017", 1)
        assert "scripts/run.sh" in err
    drift = sp("install", "--check", extra=extra)
    assert drift.returncode == 1 and "run.sh" in drift.stdout + drift.stderr
    ok(sp("install", "--force", extra=extra))  # repaired from the cached bundle
    assert (installed / "scripts" / "run.sh").read_text() == "echo 1\n"
    assert not calls.exists(), calls.read_text()
    # without the built bundle, the commit comes from the git cache: local git only
    shutil.rmtree(tmp_path / "cache" / "git" / "bundles")
    shutil.rmtree(installed)
    ok(sp("install", "--offline", extra=extra))
    assert (installed / "scripts" / "run.sh").read_text() == "echo 1\n"
    ran = calls.read_text().splitlines()
    assert ran and not [c for c in ran if {"fetch", "ls-remote"} & set(c.split())], ran


def test_branches_and_commits_pin_the_commit(sp: Run, project: Path, repo: Repo) -> None:
    agent_project(project)
    skill(repo.work, "review", "v2")
    v2 = commit(repo.work, "v2")
    repo.push("main")
    ok(sp("install", f"{repo.url}@main", "-a", "claude-code", "-s", "review"))
    assert read_install_lock(project / LOCK).sources[0].commit == v2
    v1 = git(repo.work, "rev-parse", "v1")
    ok(sp("install", f"{repo.url}@{v1}", "-a", "claude-code", "-s", "notes"))
    pins = {p.source: p.commit for p in read_install_lock(project / LOCK).sources}
    assert pins == {f"{repo.url}@main": v2, f"{repo.url}@{v1}": v1}


def test_a_moved_tag_is_refused_until_upgrade(sp: Run, project: Path, repo: Repo) -> None:
    agent_project(project)
    ok(sp("install", f"{repo.url}@v1", "-a", "claude-code"))
    v1 = git(repo.work, "rev-parse", "v1")
    skill(repo.work, "review", "moved", **{"scripts/run.sh": "echo 2\n"})
    moved = commit(repo.work, "moved")
    git(repo.work, "tag", "-f", "v1")
    repo.push("v1", force=True)
    before = snapshot(project)
    err = refused(sp("install", f"{repo.url}@v1", "-a", "claude-code"), "GIT010", 1)
    assert v1 in err and moved in err
    assert snapshot(project) == before
    ok(sp("install"))  # the pinned commit, from the cache
    assert "v1" in (project / ".claude/skills/review/SKILL.md").read_text()
    up = ok(sp("install", "--upgrade"))
    assert "moved from" in up.stderr
    assert "echo 2" in (project / ".claude/skills/review/scripts/run.sh").read_text()
    assert read_install_lock(project / LOCK).sources[0].commit == moved


def test_frozen_in_a_fresh_clone_fetches_the_pinned_commit(
    sp: Run, project: Path, repo: Repo, tmp_path: Path, env: dict[str, str]
) -> None:
    agent_project(project)
    (project / "skillpack.toml").write_text(
        f'[[install]]\nsource = "{repo.url}@main"\nagents = ["claude-code"]\n'
    )
    ok(sp("install"))
    pinned = read_install_lock(project / LOCK).sources[0].commit
    git(project, "init", "-q", "-b", "main")
    (project / ".gitignore").write_text(".claude/\n")
    commit(project, "project")
    # the branch moves on: --frozen still installs the pinned commit
    skill(repo.work, "review", "v2")
    commit(repo.work, "v2")
    repo.push("main")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(project), str(clone))
    fresh = {**env, "SKILLPACK_CACHE_DIR": str(tmp_path / "fresh-cache")}
    ok(sp("install", "--frozen", cwd=clone, extra=fresh))
    assert tree_files(clone / ".claude") == tree_files(project / ".claude")
    assert (clone / LOCK).read_bytes() == (project / LOCK).read_bytes()
    # a lock whose digests the commit's tree does not give: refused, nothing written
    text = (clone / LOCK).read_text()
    digest = read_install_lock(clone / LOCK).sources[0].bundle_digest
    (clone / LOCK).write_text(text.replace(digest, "sha256:" + "0" * 64))
    shutil.rmtree(clone / ".claude" / "skills")
    refused(sp("install", "--frozen", cwd=clone, extra=fresh), "INS007", 1)
    assert not (clone / ".claude" / "skills").exists()
    # a force-push that removes the pinned commit: coded, in a cache without it
    git(repo.work, "checkout", "-q", "--orphan", "rewritten")
    skill(repo.work, "review", "rewritten")
    commit(repo.work, "rewritten")
    repo.push("rewritten:main", force=True)
    git(repo.bare, "tag", "-d", "v1")
    git(repo.bare, "reflog", "expire", "--expire=now", "--all")
    git(repo.bare, "gc", "-q", "--prune=now")
    (clone / LOCK).write_text(text)
    other = {**env, "SKILLPACK_CACHE_DIR": str(tmp_path / "other-cache")}
    err = refused(sp("install", "--frozen", cwd=clone, extra=other), "GIT005", 1)
    assert pinned is not None and pinned in err


def test_a_deleted_ref_and_userinfo(sp: Run, project: Path, repo: Repo) -> None:
    agent_project(project)
    git(repo.bare, "tag", "-d", "v1")
    err = refused(sp("install", f"{repo.url}@v1", "-a", "claude-code"), "GIT004", 2)
    assert "refs/heads/main" in err
    proc = sp("install", "git+http://alice:s3cret@127.0.0.1:1/x.git@v1", "-a", "claude-code")
    assert proc.returncode == 2 and "GIT003" in proc.stderr
    assert "s3cret" not in proc.stdout + proc.stderr and "alice" not in proc.stderr
    assert not (project / LOCK).exists()


def test_nothing_of_the_repository_runs_or_is_followed(
    sp: Run, project: Path, repo: Repo, home: Path, tmp_path: Path
) -> None:
    """A hook, a filter driver in .gitattributes (defined in the user's git config, as an
    attacker would hope), and the links of the tree."""
    agent_project(project)
    marker = tmp_path / "ran"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in ("reference-transaction", "post-checkout", "post-merge", "post-index-change"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (hooks / name).chmod(0o755)
    (home / ".gitconfig").write_text(
        f'[core]\n\thooksPath = {hooks}\n[filter "evil"]\n\tsmudge = touch {marker}; cat\n'
        f"\tclean = cat\n"
    )
    (repo.work / ".gitattributes").write_text("* filter=evil\n")
    (repo.work / ".githooks").mkdir()
    (repo.work / ".githooks" / "post-checkout").write_text(f"#!/bin/sh\ntouch {marker}\n")
    os.symlink("SKILL.md", repo.work / "skills" / "review" / "alias.md")
    commit(repo.work, "hostile but harmless")
    repo.push("main")
    ok(sp("install", f"{repo.url}@main", "-a", "claude-code"))
    assert not marker.exists()
    alias = project / ".claude" / "skills" / "review" / "alias.md"
    assert not alias.is_symlink() and alias.read_bytes() == (alias.parent / "SKILL.md").read_bytes()
    os.symlink("../../../../etc/passwd", repo.work / "skills" / "review" / "out.md")
    commit(repo.work, "link out")
    repo.push("main")
    refused(sp("install", "--upgrade"), "GIT006", 1)
    assert not marker.exists()


def test_lfs_pointers_and_bounds_are_refused(sp: Run, project: Path, repo: Repo) -> None:
    agent_project(project)
    (repo.work / "skills" / "review" / "big.bin").write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:" + "a" * 64 + "\nsize 9\n"
    )
    commit(repo.work, "lfs")
    git(repo.work, "tag", "lfs")
    git(repo.work, "rm", "-q", "skills/review/big.bin")
    commit(repo.work, "no lfs")
    repo.push("main", "lfs")
    err = refused(sp("install", f"{repo.url}@lfs", "-a", "claude-code"), "GIT007", 1)
    assert "big.bin" in err
    err = refused(
        sp(
            "install",
            f"{repo.url}@main",
            "-a",
            "claude-code",
            extra={"SKILLPACK_GIT_MAX_FILES": "2"},
        ),
        "GIT008",
        1,
    )
    assert not (project / LOCK).exists()
    # --path installs a subdirectory, within the bounds
    ok(
        sp(
            "install",
            f"{repo.url}@main",
            "--path",
            "skills/notes",
            "-a",
            "claude-code",
            extra={"SKILLPACK_GIT_MAX_FILES": "2"},
        )
    )
    assert read_install_lock(project / LOCK).sources[0].source.endswith("#path=skills/notes")


def test_a_directory_is_a_source_and_is_left_as_it_was(sp: Run, project: Path, repo: Repo) -> None:
    agent_project(project)
    before = snapshot(repo.work)
    ok(sp("install", repo.work, "-a", "claude-code"))
    assert snapshot(repo.work) == before
    assert (project / ".claude/skills/notes/SKILL.md").is_file()
    skill(repo.work, "notes", "changed")
    refused(sp("install"), "INS007", 1)  # the pin is the bundle the directory made
    ok(sp("install", "--upgrade"))
    assert "changed" in (project / ".claude/skills/notes/SKILL.md").read_text()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def daemon(repo: Repo) -> Iterator[str]:
    if not DAEMON.is_file():
        pytest.skip("git daemon is not installed")
    port = _free_port()
    proc = subprocess.Popen(
        [
            str(DAEMON),
            "--export-all",
            "--reuseaddr",
            "--listen=127.0.0.1",
            f"--port={port}",
            f"--base-path={repo.bare.parent}",
            str(repo.bare.parent),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"git+git://127.0.0.1:{port}/{repo.bare.name}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_over_the_git_protocol(sp: Run, project: Path, repo: Repo, daemon: str) -> None:
    agent_project(project)
    ok(sp("install", f"{daemon}@v1", "-a", "claude-code"))
    assert read_install_lock(project / LOCK).sources[0].commit == git(repo.work, "rev-parse", "v1")
    shutil.rmtree(project / ".claude" / "skills")
    ok(sp("install", "--frozen"))
    assert (project / ".claude/skills/review/SKILL.md").is_file()


def test_a_plugin_of_a_marketplace(sp: Run, project: Path, repo: Repo, tmp_path: Path) -> None:
    """``--plugin NAME``: a relative source of the repository, and a ``url`` and a
    ``git-subdir`` source of another repository, each installed and pinned by commit."""
    agent_project(project)
    other = Repo(tmp_path / "other")
    skill(other.work, "deploy", "deploy v1")
    other_commit = commit(other.work, "other")
    other.push("main")
    plugin = repo.work / "plugins" / "helper" / "skills" / "helper"
    plugin.mkdir(parents=True)
    (plugin / "SKILL.md").write_text("---\nname: helper\ndescription: Helps. Use it.\n---\nhi\n")
    (repo.work / ".claude-plugin").mkdir()
    market = {
        "name": "acme",
        "owner": {"name": "acme"},
        "plugins": [
            {"name": "helper", "source": "./plugins/helper"},
            {
                "name": "deployer",
                "source": {"source": "url", "url": f"file://{other.bare}", "sha": other_commit},
            },
            {
                "name": "sub",
                "source": {
                    "source": "git-subdir",
                    "url": f"file://{other.bare}",
                    "path": "skills/deploy",
                },
            },
        ],
    }
    (repo.work / ".claude-plugin" / "marketplace.json").write_text(json.dumps(market))
    commit(repo.work, "marketplace")
    repo.push("main")
    ok(sp("install", f"{repo.url}@main", "--plugin", "helper", "-a", "claude-code"))
    lock = read_install_lock(project / LOCK)
    assert [s.name for s in lock.skills] == ["helper"]
    assert lock.sources[0].source == f"{repo.url}@main#path=plugins/helper"
    ok(sp("install", f"{repo.url}@main", "--plugin", "deployer", "-a", "claude-code"))
    pins = {p.source: p.commit for p in read_install_lock(project / LOCK).sources}
    assert pins[f"git+file://{other.bare}@{other_commit}"] == other_commit
    assert (project / ".claude/skills/deploy/SKILL.md").is_file()
    err = refused(
        sp("install", f"{repo.url}@main", "--plugin", "nope", "-a", "claude-code"), "PLG004", 2
    )
    assert "helper" in err and "marketplace.json" in err and "skillpack-marketplace" not in err
    ok(sp("uninstall", "deploy"))
    ok(sp("install", f"{repo.url}@main", "--plugin", "sub", "-a", "claude-code"))
    assert f"git+file://{other.bare}#path=skills/deploy" in {
        p.source for p in read_install_lock(project / LOCK).sources
    }


def test_a_tree_configuration_cannot_reach_outside_it(
    sp: Run, project: Path, repo: Repo, tmp_path: Path
) -> None:
    """A repository's skillpack.toml naming a root outside the exported tree (to pack the
    installing user's files into the skills) is refused."""
    agent_project(project)
    secret = tmp_path / "secret"
    skill(secret, "stolen", "private")
    (repo.work / "skillpack.toml").write_text(f'roots = ["skills", "{secret / "skills"}"]\n')
    commit(repo.work, "reach out")
    repo.push("main")
    refused(sp("install", f"{repo.url}@main", "-a", "claude-code"), "GIT011", 1)
    assert not (project / ".claude" / "skills" / "stolen").exists()


def test_from_skills_lock_maps_each_source_type(sp: Run, project: Path, repo: Repo) -> None:
    """github, git (scp form too) and local entries, in the format skills 1.7.4 writes;
    other types are reported, not guessed; a lock of another shape is INS021."""
    lock = {
        "version": 1,
        "skills": {
            "a": {
                "source": "acme/skills",
                "ref": "v1",
                "sourceType": "github",
                "skillPath": "skills/a/SKILL.md",
                "computedHash": "0" * 64,
            },
            "b": {
                "source": "acme/skills",
                "ref": "v1",
                "sourceType": "github",
                "computedHash": "0" * 64,
            },
            "c": {
                "source": "git@git.example.com:team/s.git",
                "sourceType": "git",
                "sourceUrl": "git@git.example.com:team/s.git",
                "computedHash": "0" * 64,
            },
            "d": {"source": "../repo/work", "sourceType": "local", "computedHash": "0" * 64},
            "e": {
                "source": "https://example.com",
                "sourceType": "well-known",
                "computedHash": "0" * 64,
            },
        },
    }
    (project / "skills-lock.json").write_text(json.dumps(lock))
    out = ok(sp("install", "--from-skills-lock", "skills-lock.json"))
    assert "skipped e" in out.stderr
    import tomllib

    tables = tomllib.loads((project / "skillpack.toml").read_text())["install"]
    assert tables == [
        {"source": "../repo/work", "skills": ["d"]},
        {"source": "git+ssh://git@git.example.com/team/s.git", "skills": ["c"]},
        {"source": "github:acme/skills@v1", "skills": ["a", "b"]},
    ]
    (project / "bad.json").write_text('{"version": 2, "skills": {}}')
    before = (project / "skillpack.toml").read_bytes()
    refused(sp("install", "--from-skills-lock", "bad.json"), "INS021", 2)
    assert (project / "skillpack.toml").read_bytes() == before
