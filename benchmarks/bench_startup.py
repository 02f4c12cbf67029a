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
import statistics
import subprocess
import sys
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


def timed(command: list[str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(
        command, cwd=cwd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def sample(runs: int, measure: Callable[[], float]) -> tuple[float, float]:
    measure()  # warm the file cache and the .pyc files
    times = [measure() for _ in range(runs)]
    return statistics.median(times), min(times)


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
    one = work / "one-skill" / "hello"
    one.mkdir(parents=True, exist_ok=True)
    (one / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    tree = work / f"tree-{args.skills}"
    if not (tree / ".done").exists():
        generate(tree, args.skills)
        (tree / ".done").write_text("")

    python = sys.executable
    skillpack = [python, "-m", "skillpack"]
    rows: list[tuple[str, float, float, float | None]] = []

    def add(name: str, target: float | None, measure: Callable[[], float]) -> None:
        print(f"{name} ...", file=sys.stderr)
        median, best = sample(args.runs, measure)
        rows.append((name, median, best, target))

    add("python -c pass (reference)", None, lambda: timed([python, "-c", "pass"]))
    add("python -c 'import typer' (reference)", None, lambda: timed([python, "-c", "import typer"]))
    add("skillpack --help", HELP_TARGET, lambda: timed([*skillpack, "--help"]))

    def help_of(name: str) -> Callable[[], float]:
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
        lambda: first_list_ms(serve_command) / 1000,
    )

    print(
        f"\nmedian (fastest) of {args.runs} fresh processes; Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}\n"
    )
    print("| command | median (s) | fastest (s) | target (s) | within |")
    print("|---|---:|---:|---:|:---:|")
    for name, median, best, target in rows:
        verdict = "" if target is None else ("yes" if median <= target else "**no**")
        shown = "" if target is None else f"{target:.3f}"
        print(f"| {name} | {median:.3f} | {best:.3f} | {shown} | {verdict} |")


if __name__ == "__main__":
    main()
