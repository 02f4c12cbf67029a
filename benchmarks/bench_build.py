"""Benchmark ``skillpack build`` against ``zip -X -r`` and ``sha256sum`` on the same trees.

Builds the synthetic 1,000-skill tree (``gen_tree.py``, generated once under
``benchmarks/_work/``) and, when present, the shared corpus (``../shared/corpus`` or
``$SKILLPACK_SHARED/corpus``), with ``--no-lint`` and with the lint gate, and with
``--big-mb N`` bench_serve's large tree (N MiB of 1 MiB assets besides the 1,000
skills). Every command runs as a fresh process, ``--runs`` times; the table shows the
median and best wall time and the peak RSS of the largest process. The builds and zip
run interleaved, one of each per round, so that a change of the machine's speed (a VM's
neighbours) weighs on all of them alike; a ratio is the median of the rounds' ratios
(and best over best). Also measured: ``skillpack verify`` and opening the bundle in fast
mode (in process, best of 20). The lint gate includes the content scan (SP5xx); the same
gate with the scan off (``[lint] ignore = ["SP5"]``) shows what it costs. Target (issue
22): the build with the lint gate at most 2.0x ``zip -X -r``.
Run by hand:

    python benchmarks/bench_build.py [--runs 5] [--big-mb 200]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from _timing import compile_package  # noqa: E402

#: GNU time reports a command's peak RSS; measured from this process instead, a child
#: would count this process's memory too (Linux charges it up to the exec)
GNU_TIME = Path("/usr/bin/time").is_file()


Command = tuple[Sequence["str | os.PathLike[str]"], "Path | None", "Path | None"]


def run_once(cmd: Sequence[str | os.PathLike[str]], cwd: Path | None = None,
             before: Path | None = None) -> tuple[float, float | None]:  # fmt: skip
    """Wall time of one fresh run of ``cmd`` and its peak RSS in MB (the largest
    process; None without GNU time); ``before`` is deleted first."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    prefix = ["/usr/bin/time", "-f", "%M"] if GNU_TIME else []
    if before is not None:
        before.unlink(missing_ok=True)
    start = time.perf_counter()
    proc = subprocess.run(
        [*prefix, *cmd], cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, proc.args, stderr=proc.stderr)
    if not prefix:
        return elapsed, None
    return elapsed, int(proc.stderr.decode().strip().splitlines()[-1]) / 1024


def interleaved(commands: dict[str, Command], runs: int) -> dict[str, list[float]]:
    """``runs`` rounds, each running every command once in turn, so that a change of the
    machine's speed (a VM's neighbours) weighs on every command alike; the times by
    command, and its peak RSS under the key ``name + " rss"`` (one value)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    peaks: dict[str, float] = {}
    for _ in range(runs):
        for name, (cmd, cwd, before) in commands.items():
            elapsed, rss = run_once(cmd, cwd, before)
            times[name].append(elapsed)
            if rss is not None:
                peaks[name] = max(peaks.get(name, 0.0), rss)
    return {**times, **{f"{name} rss": [rss] for name, rss in peaks.items()}}


def timed(
    cmd: Sequence[str | os.PathLike[str]],
    runs: int,
    cwd: Path | None = None,
    before: Path | None = None,
) -> tuple[float, float, float | None]:
    """(median, best) wall time of ``cmd`` over ``runs`` fresh runs and its peak RSS."""
    got = interleaved({"cmd": (cmd, cwd, before)}, runs)
    peak = got.get("cmd rss", [None])[0]
    return statistics.median(got["cmd"]), min(got["cmd"]), peak


def fast_open_ms(bundle: Path) -> float:
    from skillpack.bundle.reader import open_bundle

    best = float("inf")
    for _ in range(20):
        start = time.perf_counter()
        open_bundle(bundle, mode="fast").close()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def bench_tree(label: str, tree: Path, runs: int, lint: bool = True) -> list[tuple[str, str]]:
    project = WORK / f"project-{label}"
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir(parents=True)
    (project / "skillpack.toml").write_text(
        f'name = "{label}"\nversion = "1.0.0"\nroots = ["{tree}"]\n', encoding="utf-8"
    )
    files = [p for p in tree.rglob("*") if p.is_file() and not p.name.startswith(".")]
    size = sum(p.stat().st_size for p in files)
    py = sys.executable
    out = project / "out.skp"
    linted: list[str | os.PathLike[str]] = [py, "-m", "skillpack", "build", project, "-o", out]
    build: list[str | os.PathLike[str]] = [*linted, "--no-lint"]
    zip_out = project / "zip.zip"
    # the builds and zip run in turn, round after round (interleaved): the ratios compare
    # runs made at the same moment
    commands: dict[str, Command] = {
        "skillpack build (deflate)": (build, None, None),
        "skillpack build (stored)": ([*build, "--compression", "stored"], None, None),
        "zip -X -r": (["zip", "-q", "-X", "-r", zip_out, tree.name], tree.parent, zip_out),
    }
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if lint and subprocess.run(linted, env=env, capture_output=True).returncode == 0:
        commands["skillpack build (deflate, lint gate)"] = (linted, None, None)
        no_scan = WORK / f"project-{label}-no-scan"
        shutil.rmtree(no_scan, ignore_errors=True)
        no_scan.mkdir(parents=True)
        (no_scan / "skillpack.toml").write_text(
            f'name = "{label}"\nversion = "1.0.0"\nroots = ["{tree}"]\n[lint]\nignore = ["SP5"]\n',
            encoding="utf-8",
        )
        gate: list[str | os.PathLike[str]] = [
            py, "-m", "skillpack", "build", no_scan, "-o", no_scan / "out.skp"
        ]  # fmt: skip
        commands["skillpack build (deflate, lint gate, scan off)"] = (gate, None, None)
    times = interleaved(commands, runs)
    results: dict[str, tuple[float, float, float | None]] = {
        name: (statistics.median(times[name]), min(times[name]),
               times.get(f"{name} rss", [None])[0])
        for name in commands
    }  # fmt: skip
    run_once(build)  # leave the deflate bundle for verify and open
    sha = f"find {tree.name} -type f -print0 | xargs -0 sha256sum > /dev/null"
    results["sha256sum (all files)"] = timed(["sh", "-c", sha], runs, cwd=tree.parent)
    results["skillpack verify"] = timed([py, "-m", "skillpack", "verify", out], runs)
    rows = [
        (name, f"{med:.3f} s   {best:.3f} s   " + (f"{rss:6.1f} MB" if rss else "     -"))
        for name, (med, best, rss) in results.items()
    ]
    zips = times["zip -X -r"]
    for kind in ("deflate", "deflate, lint gate", "deflate, lint gate, scan off"):
        name = f"skillpack build ({kind})"
        if name not in times:
            continue
        goal = "  (target <= 2.00x)" if kind == "deflate, lint gate" else ""
        per_round = statistics.median(b / z for b, z in zip(times[name], zips, strict=True))
        rows.append((f"build ({kind}) / zip, median of rounds", f"{per_round:.2f}x{goal}"))
        best = min(times[name]) / min(zips)
        rows.append((f"build ({kind}) / zip, best / best", f"{best:.2f}x{goal}"))
    rows.append(("open_bundle(mode='fast')", f"{fast_open_ms(out):.1f} ms"))
    rows.append(("bundle / zip size", f"{out.stat().st_size:,} / {zip_out.stat().st_size:,} B"))
    header = f"{label}: {len(files):,} files, {size / 1e6:.1f} MB   (median, best, peak RSS)"
    return [(header, ""), *rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--big-mb",
        type=int,
        default=0,
        help="also build bench_serve's large tree (the 1,000 skills plus this many 1 MiB "
        "assets), 3 runs, --no-lint; 0 (default) skips it",
    )
    args = parser.parse_args()
    compile_package()
    if shutil.which("zip") is None:
        sys.exit("zip (Info-ZIP) is not installed: apt-get install -y zip")
    synthetic = WORK / "synthetic"
    if not synthetic.is_dir():
        from gen_tree import generate

        generate(synthetic)
    trees = [("synthetic", synthetic)]
    shared = Path(os.environ.get("SKILLPACK_SHARED", REPO.parent / "shared"))
    corpus = shared / "corpus" / "anthropics-skills"
    if corpus.is_dir():
        trees.append(("corpus", corpus))
    runs = {label: args.runs for label, _ in trees}
    if args.big_mb:
        from bench_serve import generate_big

        label = f"big-{args.big_mb}"
        trees.append((label, generate_big(WORK / label, args.big_mb)))
        runs[label] = min(3, args.runs)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.runs} runs each\n")
    for label, tree in trees:
        rows = bench_tree(label, tree, runs[label], lint=not label.startswith("big"))
        width = max(len(name) for name, _ in rows)
        for name, value in rows:
            print(f"  {name:<{width}}  {value}" if value else name)
        print()


if __name__ == "__main__":
    main()
