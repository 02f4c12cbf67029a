"""Benchmark ``skillpack unpack`` (and ``verify``) against ``python -m zipfile -e``.

Builds the synthetic 1,000-skill bundle (``gen_tree.py``) once, then measures side by
side in one run, on the disk (``benchmarks/_work``) and under ``/dev/shm`` (where
creating a file costs little, so the tools' own cost shows), the median and best wall
time of ``--runs`` fresh processes of:

* ``skillpack unpack BUNDLE DIR``: the whole bundle verified (every file against the
  lock), then every file written into a staging directory renamed into place;
* ``python -m zipfile -e BUNDLE DIR``: extraction alone (CRC-32 only);
* ``skillpack verify BUNDLE``: the verification alone, nothing written.

Run by hand; prints a Markdown table.

    python benchmarks/bench_unpack.py [--skills 1000] [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work"
sys.path[:0] = [str(HERE)]

from gen_tree import generate  # noqa: E402

PYTHON = sys.executable
TARGET = 1.5  # unpack / zipfile -e


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    # an installed skillpack starts from its bytecode: let the first run write it
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _time(argv: list[str], runs: int, before: object = None) -> list[float]:
    times = []
    for _ in range(runs):
        if callable(before):
            before()
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=_env())
        times.append(time.perf_counter() - start)
    return times


def bundle(skills: int) -> Path:
    tree = WORK / f"unpack-tree-{skills}"
    out = WORK / f"unpack-{skills}.skp"
    if not out.exists():
        shutil.rmtree(tree, ignore_errors=True)
        generate(tree, skills)
        subprocess.run(
            [PYTHON, "-m", "skillpack", "build", tree, "-o", out, "--no-lint"],
            check=True,
            stdout=subprocess.DEVNULL,
            env=_env(),
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    skp = bundle(args.skills)
    # as installed: the package's bytecode is there
    subprocess.run([PYTHON, "-m", "compileall", "-q", REPO / "skillpack"], check=True)
    places = [("disk", WORK / "unpack-out")]
    if Path("/dev/shm").is_dir():
        places.append(("/dev/shm", Path("/dev/shm") / f"skillpack-bench-{os.getpid()}"))
    rows = []
    for label, base in places:
        base.mkdir(parents=True, exist_ok=True)
        dest = base / "dest"

        def clear(dest: Path = dest) -> None:
            shutil.rmtree(dest, ignore_errors=True)

        try:
            unpack = _time([PYTHON, "-m", "skillpack", "unpack", str(skp), str(dest)],
                           args.runs, clear)  # fmt: skip
            zipx = _time([PYTHON, "-m", "zipfile", "-e", str(skp), str(dest)], args.runs, clear)
            clear()
        finally:
            shutil.rmtree(base, ignore_errors=True)
        rows.append((label, unpack, zipx))
    verify = _time([PYTHON, "-m", "skillpack", "verify", str(skp)], args.runs)
    files = args.skills * 5
    print(f"{args.skills:,} skills, {files:,} files, bundle {skp.stat().st_size:,} bytes; "
          f"median (best) of {args.runs} runs; Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    print()
    print("| where | skillpack unpack (s) | python -m zipfile -e (s) | unpack / zipfile | "
          f"target <= {TARGET}x |")  # fmt: skip
    print("|---|---:|---:|---:|:---:|")
    for label, unpack, zipx in rows:
        ratio = statistics.median(unpack) / statistics.median(zipx)
        print(f"| {label} | {statistics.median(unpack):.3f} ({min(unpack):.3f}) | "
              f"{statistics.median(zipx):.3f} ({min(zipx):.3f}) | {ratio:.2f}x | "
              f"{'yes' if ratio <= TARGET else 'no'} |")  # fmt: skip
    print(f"| skillpack verify (nothing written) | {statistics.median(verify):.3f} "
          f"({min(verify):.3f}) | | | |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
