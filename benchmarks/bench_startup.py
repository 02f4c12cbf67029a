"""Start-up of the command line: every ``skillpack CMD --help``, ``skillpack lint FILE``
of one skill, and ``skillpack serve`` from spawn to the first ``skills/list`` answer on
the synthetic 1,000-skill bundle (``gen_tree.py``).

Each row is the median (and the fastest) of ``--runs`` fresh processes, after one
warm-up run (which writes the bytecode, as an installed package has it). Targets: at
most 0.25 s for every build-tool command (typer's own import is part of it), at most
150 ms for ``serve``. Reference rows: a bare interpreter and ``import typer``. Run by
hand; prints a Markdown table.

    python benchmarks/bench_startup.py [--runs 21] [--skills 1000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work"
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(HERE)]

from bench_serve import first_list_ms  # noqa: E402
from gen_tree import generate  # noqa: E402

from skillpack.cli.table import COMMANDS  # noqa: E402

HELP_TARGET = 0.25
SERVE_TARGET = 0.150
SKILL_MD = "---\nname: hello\ndescription: Says hello. Use it to greet someone.\n---\n\n# hello\n"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("SKILLPACK_DEBUG", None)
    return env


# an installed skillpack has its bytecode: let the warm-up runs write it (here and in
# bench_serve's spawns), or every row would include compiling every module
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


Sample = tuple[float, float | None]  #: (wall seconds, CPU seconds of the process or None)


def timed(command: list[str], cwd: Path | None = None) -> Sample:
    """Wall time of one run, and the CPU time (user + system) the process used: on a
    busy machine the wall time waits for a CPU, the CPU time does not."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=cwd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = 0  # reaped above
    return wall, usage.ru_utime + usage.ru_stime


def sample(runs: int, measure: Callable[[], Sample]) -> tuple[float, float, float | None]:
    """(median wall, fastest wall, median CPU) of ``runs`` runs after a warm-up."""
    measure()  # warm the file cache and write the bytecode
    samples = [measure() for _ in range(runs)]
    walls = [wall for wall, _ in samples]
    cpus = [cpu for _, cpu in samples if cpu is not None]
    return statistics.median(walls), min(walls), statistics.median(cpus) if cpus else None


def bundle_of(tree: Path, work: Path) -> Path:
    target = work / f"{tree.name}.skp"
    if not target.exists():
        subprocess.run(
            [sys.executable, "-m", "skillpack", "build", "--no-lint", str(tree), "-o", str(target)],
            check=True,
            env=_env(),
            stdout=subprocess.DEVNULL,
        )
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args()
    work: Path = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    # outside any git work tree: lint FILE of a file in a repository discovers the
    # whole repository (its project), which would measure the repository, not start-up
    one = Path(tempfile.mkdtemp(prefix="bench-startup-")) / "hello"
    one.mkdir()
    (one / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    tree = work / f"tree-{args.skills}"
    if not (tree / ".done").exists():
        generate(tree, args.skills)
        (tree / ".done").write_text("")

    python = sys.executable
    skillpack = [python, "-m", "skillpack"]
    rows: list[tuple[str, float, float, float | None, float | None]] = []

    def add(name: str, target: float | None, measure: Callable[[], Sample]) -> None:
        print(f"{name} ...", file=sys.stderr)
        rows.append((name, *sample(args.runs, measure), target))

    add("python -c pass (reference)", None, lambda: timed([python, "-c", "pass"]))
    add("python -c 'import typer' (reference)", None, lambda: timed([python, "-c", "import typer"]))
    add("skillpack --help", HELP_TARGET, lambda: timed([*skillpack, "--help"]))

    def help_of(name: str) -> Callable[[], Sample]:
        return lambda: timed([*skillpack, name, "--help"])

    for row in COMMANDS:
        add(f"skillpack {row.name} --help", HELP_TARGET, help_of(row.name))
    add(
        "skillpack lint FILE (one skill)",
        HELP_TARGET,
        lambda: timed([*skillpack, "lint", str(one / "SKILL.md")], cwd=one.parent),
    )
    served = bundle_of(tree, work)
    serve_command = [*skillpack, "serve", "-q", str(served)]
    add(
        f"skillpack serve BUNDLE: spawn -> first skills/list ({args.skills} skills)",
        SERVE_TARGET,
        lambda: (first_list_ms(serve_command) / 1000, None),
    )

    shutil.rmtree(one.parent)
    print(
        f"\nmedian (fastest) of {args.runs} fresh processes; Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}\n"
    )
    print("| command | median (s) | fastest (s) | CPU, median (s) | target (s) | within |")
    print("|---|---:|---:|---:|---:|:---:|")
    for name, median, best, cpu, target in rows:
        verdict = "" if target is None else ("yes" if median <= target else "**no**")
        shown = "" if target is None else f"{target:.3f}"
        cpu_shown = "n/a" if cpu is None else f"{cpu:.3f}"
        print(f"| {name} | {median:.3f} | {best:.3f} | {cpu_shown} | {shown} | {verdict} |")


if __name__ == "__main__":
    main()
