"""Benchmark ``skillpack install git+file://...`` against ``skills add`` of the same repository.

The synthetic 1,000-skill tree (``gen_tree.py``) committed to a local bare repository,
installed into one agent directory (``.claude/skills``), side by side in one run, each
figure the median (and best) of ``--runs`` fresh processes, on the disk
(``benchmarks/_work``) and under ``/dev/shm``:

* ``skillpack install git+file://BARE@main -a claude-code`` into an empty project with
  an empty cache: the ref resolved (``ls-remote``), the commit fetched shallowly, its tree
  read with ``cat-file`` (no checkout), built into a bundle as ``build`` does (discovery,
  path policy, structural rules), the bundle verified in full, every skill staged and
  renamed into place, the install lock written with every file's size and sha256;
* ``skills add file://BARE --copy --full-depth -a claude-code -y`` (npm ``skills``
  1.7.4): a clone and copies of the skills, nothing verified;
* a pinned no-op ``skillpack install --offline`` (the bundle from the cache, its digest
  checked against the pin, every installed file against the lock: nothing written; no
  git process runs).

Between runs the last run's project and cache are moved aside and removed only after
the place is measured: on ext4, creating files in the minute after removing thousands
costs each new inode a scan past the recently deleted ones (``recently_deleted`` in the
kernel's inode allocator), which no real install meets and which hit both tools.

Run by hand; prints a Markdown table.

    python benchmarks/bench_git_install.py [--skills 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]

from _timing import compile_package  # noqa: E402
from bench_install import PYTHON, WORK, _env, _time, fmt, skills_cli  # noqa: E402
from gen_tree import generate  # noqa: E402

GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip


def prepare(skills: int) -> Path:
    """The bare repository of the tree (made once), packed as a hosted repository is
    (a repository of loose objects makes every fetch compress them all first)."""
    bare = WORK / f"git-{skills}.git"
    if (bare / "HEAD").is_file():
        subprocess.run(["git", "-C", str(bare), "gc", "-q"], check=True)
        return bare
    tree = WORK / f"git-tree-{skills}"
    shutil.rmtree(tree, ignore_errors=True)
    generate(tree, skills)
    env = {**os.environ, **GIT_ENV}
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                 ["git", "commit", "-qm", "tree"]):  # fmt: skip
        subprocess.run(argv, cwd=tree, env=env, check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(tree), str(bare)], env=env, check=True)
    subprocess.run(["git", "-C", str(bare), "gc", "-q"], check=True)
    return bare


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skills-cli", type=Path, default=None, metavar="DIR",
                        help="a directory where npm installed skills 1.7.4 and node 22 "
                        "(default: tests/install/skills_cli, installed there)")  # fmt: skip
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    home = WORK / "git-install-home"
    home.mkdir(exist_ok=True)
    bare = prepare(args.skills)
    compile_package()
    if args.skills_cli is not None:
        modules = args.skills_cli / "node_modules"
        node = (modules / "node" / "bin" / "node", modules / "skills" / "bin" / "cli.mjs")
    else:
        node = skills_cli()
    places = [("disk", WORK / "git-install-out")]
    if Path("/dev/shm").is_dir():
        places.append(("/dev/shm", Path("/dev/shm") / f"skillpack-bench-git-{os.getpid()}"))
    rows: list[tuple[str, dict[str, list[float]]]] = []
    source = f"git+file://{bare}@main"
    for label, base in places:
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        project, cache = base / "project", base / "cache"
        env = {**_env(home), "SKILLPACK_CACHE_DIR": str(cache)}

        trash = base / "trash"
        trash.mkdir()

        def fresh(project: Path = project, cache: Path = cache, trash: Path = trash) -> None:
            # the last run's files are moved aside, removed once the place is measured:
            # ext4 skips inodes deleted in the last minute when it allocates new ones
            # (recently_deleted), so a run right after removing 10,000 files spends
            # seconds in the kernel that no user's install does
            for path in (project, cache):
                if path.exists():
                    path.rename(trash / f"{len(list(trash.iterdir()))}")
            project.mkdir()

        try:
            found: dict[str, list[float]] = {}
            found["install"] = _time(
                [PYTHON, "-m", "skillpack", "install", source, "-a", "claude-code"],
                args.runs, env, project, fresh,
            )  # fmt: skip
            if node is not None:
                found["skills"] = _time(
                    [node[0], node[1], "add", f"file://{bare}", "--copy", "--full-depth",
                     "-a", "claude-code", "-y"],
                    args.runs, env, project, fresh,
                )  # fmt: skip
            fresh()
            subprocess.run([PYTHON, "-m", "skillpack", "install", source, "-a", "claude-code"],
                           check=True, stdout=subprocess.DEVNULL, env=env, cwd=project)  # fmt: skip
            found["noop"] = _time([PYTHON, "-m", "skillpack", "install", "--offline"],
                                  args.runs, env, project)  # fmt: skip
        finally:
            shutil.rmtree(base, ignore_errors=True)
        rows.append((label, found))
    print(f"{args.skills:,} skills, {args.skills * 5:,} files in one commit of a local bare "
          f"repository; median (best) of {args.runs} runs, seconds; Python "
          f"{sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}")  # fmt: skip
    print()
    print(
        "| where | skillpack install git+file:// | skills add file:// --copy --full-depth "
        "| skills / skillpack (>= 4x) | pinned no-op install --offline (< 0.5 s) |"
    )
    print("|---|---:|---:|---:|---:|")
    for label, f in rows:
        med = {k: statistics.median(v) for k, v in f.items()}
        skills = fmt(f["skills"]) if "skills" in f else "n/a"
        ratio = f"{med['skills'] / med['install']:.1f}x" if "skills" in f else "n/a"
        print(f"| {label} | {fmt(f['install'])} | {skills} | {ratio} | {fmt(f['noop'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
