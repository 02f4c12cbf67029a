"""The git fetcher against real repositories (real git, file:// and a loopback git
daemon): refs resolved to commits, shallow fetches by id into the cache, trees read
without running anything of the repository, and its refusals."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillpack.errors import SkillpackError
from skillpack.gitsource.git import Bounds, export_tree, fetch_commit, resolve
from skillpack.gitsource.spec import parse_git_source, redact

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **ENV},
                          capture_output=True, text=True, check=True)  # fmt: skip
    return proc.stdout.strip()


def commit_all(work: Path, message: str) -> str:
    git(work, "add", "-A")
    git(work, "commit", "-qm", message)
    return git(work, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    work = tmp_path / "work"
    (work / "skills" / "review").mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    (work / "skills" / "review" / "SKILL.md").write_text("---\nname: review\n---\nv1\n")
    (work / "skills" / "review" / "run.sh").write_text("#!/bin/sh\n")
    (work / "skills" / "review" / "run.sh").chmod(0o755)
    os.symlink("SKILL.md", work / "skills" / "review" / "alias.md")
    v1 = commit_all(work, "v1")
    git(work, "tag", "v1")
    (work / "skills" / "review" / "SKILL.md").write_text("---\nname: review\n---\nv2\n")
    v2 = commit_all(work, "v2")
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    return work, bare, {"v1": v1, "v2": v2}


def test_refs_resolve_to_commits_and_export_the_tree(
    repo: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    _, bare, commits = repo
    url = f"git+file://{bare}"
    assert resolve(parse_git_source(url + "@v1")).commit == commits["v1"]
    assert resolve(parse_git_source(url + "@main")).commit == commits["v2"]
    assert resolve(parse_git_source(url)).commit == commits["v2"]
    spec = parse_git_source(f"{url}@v1#path=skills")
    assert spec.path == "skills" and spec.key == f"git+file://{bare}@v1#path=skills"
    cache = tmp_path / "cache"
    repo_dir = fetch_commit(spec, commits["v1"], cache)
    out = tmp_path / "out"
    out.mkdir()
    export_tree(repo_dir, commits["v1"], "skills", out)
    assert (out / "review" / "SKILL.md").read_text().endswith("v1\n")
    assert os.access(out / "review" / "run.sh", os.X_OK)
    # a link inside the tree is a copy of its file, never a link
    assert not (out / "review" / "alias.md").is_symlink()
    assert (out / "review" / "alias.md").read_bytes() == (out / "review" / "SKILL.md").read_bytes()
    # the commit is cached: fetched again with the repository gone, no network needed
    bare.rename(tmp_path / "gone.git")
    assert fetch_commit(spec, commits["v1"], cache, offline=True) == repo_dir


def test_unknown_ref_and_an_unreachable_commit_are_coded(
    repo: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    bare = repo[1]
    with pytest.raises(SkillpackError) as err:
        resolve(parse_git_source(f"git+file://{bare}@nope"))
    assert err.value.code == "GIT004"
    with pytest.raises(SkillpackError) as err:
        fetch_commit(parse_git_source(f"git+file://{bare}"), "0" * 40, tmp_path / "c")
    assert err.value.code == "GIT005"


def _export(work: Path, tmp_path: Path, name: str) -> None:
    sha = commit_all(work, name)
    bare = tmp_path / f"{name}.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    spec = parse_git_source(f"git+file://{bare}")
    repo_dir = fetch_commit(spec, sha, tmp_path / "cache")
    out = tmp_path / f"out-{name}"
    out.mkdir()
    export_tree(repo_dir, sha, None, out, bounds=Bounds(files=20))


def test_a_link_out_of_the_tree_an_lfs_pointer_and_the_bounds_are_refused(
    repo: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    work, _, _ = repo
    os.symlink("../../../etc/passwd", work / "skills" / "review" / "out.md")
    with pytest.raises(SkillpackError) as err:
        _export(work, tmp_path, "link")
    assert err.value.code == "GIT006" and "out.md" in err.value.message
    assert not (tmp_path / "out-link" / "skills" / "review" / "out.md").exists()
    (work / "skills" / "review" / "out.md").unlink()
    (work / "big.bin").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:ab\n")
    with pytest.raises(SkillpackError) as err:
        _export(work, tmp_path, "lfs")
    assert err.value.code == "GIT007" and "big.bin" in err.value.message
    (work / "big.bin").unlink()
    for i in range(25):
        (work / f"f{i}.txt").write_text("x")
    with pytest.raises(SkillpackError) as err:
        _export(work, tmp_path, "many")
    assert err.value.code == "GIT008"


def test_no_hook_and_no_filter_of_the_users_config_runs(
    repo: tuple[Path, Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, _, _ = repo
    marker = tmp_path / "marker"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("reference-transaction", "post-checkout", "post-merge"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (hooks / hook).chmod(0o755)
    (work / ".gitattributes").write_text("*.md filter=mark\n")
    config = tmp_path / "gitconfig"
    config.write_text(f"[core]\n\thooksPath = {hooks}\n[filter \"mark\"]\n"
                      f"\tsmudge = touch {marker}; cat\n\tclean = cat\n"
                      "\trequired = true\n")  # fmt: skip
    sha = commit_all(work, "attrs")
    bare = tmp_path / "attrs.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    spec = parse_git_source(f"git+file://{bare}")
    out = tmp_path / "out"
    out.mkdir()
    export_tree(fetch_commit(spec, sha, tmp_path / "cache"), sha, None, out)
    assert (out / "skills" / "review" / "SKILL.md").is_file()
    assert not marker.exists()


def test_userinfo_is_never_shown() -> None:
    spec = parse_git_source("git+https://me:s3cret@example.com/a/b.git@v1")
    assert spec.ref == "v1" and "s3cret" in spec.url
    assert "s3cret" not in spec.key and spec.key == "git+https://example.com/a/b.git@v1"
    assert redact("fatal: https://tok@host/x failed") == "fatal: https://host/x failed"
    gh = parse_git_source("github:acme/skills@main")
    assert gh.url == "https://github.com/acme/skills.git" and gh.ref == "main"
    for bad in ("git+ftp://x/y", "github:nope", "git+https://h/r#sub=x", "git+https://h/r@-x"):
        with pytest.raises(SkillpackError) as err:
            parse_git_source(bad)
        assert err.value.code == "GIT002"


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    base = tmp_path / "served"
    base.mkdir()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            "/usr/lib/git-core/git-daemon",
            "--export-all",
            f"--base-path={base}",
            "--listen=127.0.0.1",
            f"--port={port}",
            "--reuseaddr",
            str(base),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield base, port
    finally:
        proc.kill()
        proc.wait()


def test_a_git_daemon_serves_a_shallow_fetch_by_commit(
    repo: tuple[Path, Path, dict[str, str]], daemon: tuple[Path, int], tmp_path: Path
) -> None:
    _, bare, commits = repo
    base, port = daemon
    bare.rename(base / "r.git")
    spec = parse_git_source(f"git+git://127.0.0.1:{port}/r.git@v1")
    found = resolve(spec)
    assert (found.commit, found.kind) == (commits["v1"], "tag")
    repo_dir = fetch_commit(spec, found.commit, tmp_path / "cache", ref=found.ref)
    assert git(repo_dir, "rev-parse", "--is-shallow-repository") == "true"
    out = tmp_path / "out"
    out.mkdir()
    export_tree(repo_dir, found.commit, "skills/review", out)
    assert sorted(p.name for p in out.iterdir()) == ["SKILL.md", "alias.md", "run.sh"]
