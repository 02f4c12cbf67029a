"""Benchmark ``skillpack install`` against ``python -m zipfile -e`` and the ``skills`` CLI.

The synthetic 1,000-skill tree (``gen_tree.py``) and its bundle, into one agent
directory (``.claude/skills``), side by side in one run, each figure the median (and
best) of ``--runs`` fresh processes, both on the disk (``benchmarks/_work``) and under
``/dev/shm`` (creating a file on this machine's disk costs 0.3-0.9 ms, which hides the
tools' own cost there):

* ``skillpack install BUNDLE -a claude-code`` into an empty project: the whole bundle
  verified (every file against its lock), every skill staged and renamed into place, the
  install lock written;
* ``python -m zipfile -e BUNDLE DIR``: extraction alone, nothing verified;
* ``skills add TREE --copy --full-depth -a claude-code -y`` (npm ``skills`` 1.7.4, the
  node 22 of ``tests/install/skills_cli``): copies of the tree's skills, nothing
  verified (without ``--full-depth`` it finds only the skills at the first level);
* ``skillpack install --check`` of the 1,000 installed skills (every file read and
  hashed) against ``sha256sum`` over the same files (``find -print0 | xargs -0``): the
  check's own work is its time less ``skillpack --help``'s (the interpreter and the
  command line starting, about 0.12 s, which no amount of hashing can win back), and
  that is held to 1.5x ``sha256sum``;
* a no-op ``skillpack install`` (everything already installed: nothing written);
* the content scan's share: the same ``skillpack install`` with install's admission
  step switched off (this benchmark's own harness replaces ``installer._admit`` and
  the scan's start before the full open, ``prescan.start_prescan``; the product has no
  such switch), in fresh processes beside the real one, and the scan after the open
  (``admit`` over the opened bundle, in process, no early start) for the same question
  asked the other way; beside the two installs' wall times, their CPU time (every process
  of the command), which what runs side by side and the machine's other tenants do not
  change.

Run by hand; prints a Markdown table.

    python benchmarks/bench_install.py [--skills 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work"
SKILLS_CLI = REPO / "tests" / "install" / "skills_cli"
sys.path[:0] = [str(HERE)]

from _timing import compile_package  # noqa: E402
from gen_tree import generate  # noqa: E402

PYTHON = sys.executable


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    # an installed skillpack starts from its bytecode: let the first run write it
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), NO_COLOR="1",
               DISABLE_TELEMETRY="1", DO_NOT_TRACK="1")  # fmt: skip
    return env


def _time(
    argv: Sequence[str | Path],
    runs: int,
    env: dict[str, str],
    cwd: Path | None = None,
    before: Callable[[], object] | None = None,
    shell: bool = False,
    cpu: list[float] | None = None,
) -> list[float]:
    """Wall times of ``runs`` runs; ``cpu``: each run's CPU time (user and system, the
    command and every process it waited for) appended there."""
    times = []
    for _ in range(runs):
        if before is not None:
            before()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            argv if not shell else " ".join(map(str, argv)),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            shell=shell,
        )
        times.append(time.perf_counter() - start)
        if cpu is not None:
            now = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime)
    return times


def prepare(skills: int, home: Path) -> tuple[Path, Path]:
    tree = WORK / f"install-tree-{skills}"
    bundle = WORK / f"install-{skills}.skp"
    if not bundle.exists():
        shutil.rmtree(tree, ignore_errors=True)
        generate(tree, skills)
        subprocess.run([PYTHON, "-m", "skillpack", "build", tree, "-o", bundle, "--no-lint"],
                       check=True, stdout=subprocess.DEVNULL, env=_env(home))  # fmt: skip
    return tree, bundle


def skills_cli() -> tuple[Path, Path] | None:
    if shutil.which("npm") is None:
        return None
    subprocess.run(["bash", str(SKILLS_CLI / "install.sh")], check=True)
    node = SKILLS_CLI / "node_modules" / "node" / "bin" / "node"
    script = SKILLS_CLI / "node_modules" / "skills" / "bin" / "cli.mjs"
    return (node, script) if script.is_file() else None


def admission_times(bundle: Path, runs: int) -> list[float]:
    """The content scan as ``install`` runs it (``policy.admission.admit`` over a bundle
    opened in full, its bytes kept, forked workers as install forks them), in this
    process: what the scan adds to an install, seconds per run."""
    import functools

    sys.path.insert(0, str(REPO))
    from skillpack.bundle.reader import open_bundle
    from skillpack.install.sources import KEEP
    from skillpack.policy.admission import admit

    times = []
    with open_bundle(bundle, keep=KEEP) as opened:  # as install opens it: its bytes kept
        read = functools.partial(opened.read_verified, again=True)
        for _ in range(runs):
            start = time.perf_counter()
            admit(opened.manifest, read)
            times.append(time.perf_counter() - start)
    return times


#: ``skillpack ARGS`` with install's content scan switched off (measurement only): its
#: admission step, and the scan that starts in a worker before the bundle's full open
WITHOUT_SCAN = (
    "import sys\n"
    "import skillpack.install.installer as installer\n"
    "import skillpack.policy.prescan as prescan\n"
    "installer._admit = lambda *args, **kwargs: None\n"
    "prescan.start_prescan = lambda path: None\n"
    "from skillpack.__main__ import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def fmt(times: list[float]) -> str:
    return f"{statistics.median(times):.3f} ({min(times):.3f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    home = WORK / "install-home"
    home.mkdir(exist_ok=True)
    env = _env(home)
    tree, bundle = prepare(args.skills, home)
    compile_package()
    node = skills_cli()
    places = [("disk", WORK / "install-out")]
    if Path("/dev/shm").is_dir():
        places.append(("/dev/shm", Path("/dev/shm") / f"skillpack-bench-install-{os.getpid()}"))
    rows: list[tuple[str, dict[str, list[float]]]] = []
    for label, base in places:
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        project = base / "project"
        out = base / "zip"

        def fresh(project: Path = project) -> None:
            shutil.rmtree(project, ignore_errors=True)
            project.mkdir()

        try:
            found: dict[str, list[float]] = {"install": [], "noscan": []}
            cpu: dict[str, list[float]] = {"install": [], "noscan": []}
            # run by run in turn, so that a drift of the machine (the disk's write-back,
            # another process) weighs on both alike: their ratio is the scan's share
            for _ in range(args.runs):
                found["install"] += _time(
                    [PYTHON, "-m", "skillpack", "install", bundle, "-a", "claude-code"],
                    1, env, project, fresh, cpu=cpu["install"],
                )  # fmt: skip
                found["noscan"] += _time(
                    [PYTHON, "-c", WITHOUT_SCAN, "install", bundle, "-a", "claude-code"],
                    1, env, project, fresh, cpu=cpu["noscan"],
                )  # fmt: skip
            found["zipfile"] = _time(
                [PYTHON, "-m", "zipfile", "-e", bundle, out], args.runs, env,
                before=lambda out=out: shutil.rmtree(out, ignore_errors=True),
            )  # fmt: skip
            if node is not None:
                found["skills"] = _time(
                    [node[0], node[1], "add", tree, "--copy", "--full-depth", "-a",
                     "claude-code", "-y"],
                    args.runs, env, project, fresh,
                )  # fmt: skip
            fresh()
            subprocess.run([PYTHON, "-m", "skillpack", "install", bundle, "-a", "claude-code"],
                           check=True, stdout=subprocess.DEVNULL, env=env, cwd=project)  # fmt: skip
            found["noop"] = _time([PYTHON, "-m", "skillpack", "install"], args.runs, env, project)
            found["check"] = _time([PYTHON, "-m", "skillpack", "install", "--check"],
                                   args.runs, env, project)  # fmt: skip
            found["help"] = _time([PYTHON, "-m", "skillpack", "--help"], args.runs, env,
                                  project)  # fmt: skip
            found["sha256sum"] = _time(
                ["find", ".claude/skills", "-type", "f", "-print0", "|", "xargs", "-0",
                 "sha256sum", ">/dev/null"],
                args.runs, env, project, shell=True,
            )  # fmt: skip
        finally:
            shutil.rmtree(base, ignore_errors=True)
        found["install-cpu"], found["noscan-cpu"] = cpu["install"], cpu["noscan"]
        rows.append((label, found))
    scan = admission_times(bundle, args.runs)
    files = args.skills * 5
    print(f"{args.skills:,} skills, {files:,} files, bundle {bundle.stat().st_size:,} bytes; "
          f"median (best) of {args.runs} runs, seconds; Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    print()
    print("| where | skillpack install | zipfile -e | install / zipfile (<= 1.5x) | "
          "skills add --copy --full-depth | skills / install | install --check | sha256sum "
          "| --help | (check - --help) / sha256sum (<= 1.5x) "
          "| no-op install (< 0.5 s) |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, f in rows:
        med = {k: statistics.median(v) for k, v in f.items()}
        skills = f"{fmt(f['skills'])}" if "skills" in f else "n/a"
        ratio = f"{med['skills'] / med['install']:.1f}x" if "skills" in f else "n/a"
        print(f"| {label} | {fmt(f['install'])} | {fmt(f['zipfile'])} | "
              f"{med['install'] / med['zipfile']:.2f}x | {skills} | {ratio} | {fmt(f['check'])} "
              f"| {fmt(f['sha256sum'])} | {fmt(f['help'])} | "
              f"{(med['check'] - med['help']) / med['sha256sum']:.2f}x | "
              f"{fmt(f['noop'])} |")  # fmt: skip
    print()
    # the CPU time (every process of the command) does not depend on how much of it ran
    # side by side, nor on how busy the machine's other tenants kept its CPUs
    print("| where | install | install, scan switched off | what the scan adds (<= +20%): "
          "medians | median of the runs' pairs | CPU s, install / scan off (medians) "
          "|")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|")
    for label, f in rows:
        med = {k: statistics.median(v) for k, v in f.items()}
        pairs = statistics.median(a / b for a, b in zip(f["install"], f["noscan"], strict=True))
        print(f"| {label} | {fmt(f['install'])} | {fmt(f['noscan'])} | "
              f"{med['install'] / med['noscan'] - 1:+.0%} | {pairs - 1:+.0%} | "
              f"{med['install-cpu']:.3f} / {med['noscan-cpu']:.3f} |")  # fmt: skip
    took = statistics.median(scan)
    adds = ", ".join(
        f"+{took / (statistics.median(f['install']) - took):.0%} on {label}" for label, f in rows
    )
    print()
    print(f"the content scan as install runs it (in process): {fmt(scan)} s, against the "
          f"rest of the install: {adds}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
