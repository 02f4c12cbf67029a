"""Benchmark ``skillpack build`` against ``zip -X -r`` and ``sha256sum`` on the same trees.

Builds the synthetic 1,000-skill tree (``gen_tree.py``, generated once under
``benchmarks/_work/``) and, when present, the shared corpus (``../shared/corpus`` or
``$SKILLPACK_SHARED/corpus``), with ``--no-lint`` and with the lint gate. Every command
runs as a fresh process, ``--runs`` times; the table shows the median and best wall
time. Also measured: ``skillpack verify`` and opening the bundle in fast mode (in
process, best of 20). Run by hand:

    python benchmarks/bench_build.py [--runs 5]
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


def timed(
    cmd: Sequence[str | os.PathLike[str]],
    runs: int,
    cwd: Path | None = None,
    before: Path | None = None,
) -> tuple[float, float]:
    """(median, best) wall time of ``cmd``; ``before`` is deleted ahead of each run."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    times = []
    for _ in range(runs):
        if before is not None:
            before.unlink(missing_ok=True)
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def fast_open_ms(bundle: Path) -> float:
    from skillpack.archive.reader import open_bundle

    best = float("inf")
    for _ in range(20):
        start = time.perf_counter()
        open_bundle(bundle, mode="fast").close()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def bench_tree(label: str, tree: Path, runs: int) -> list[tuple[str, str]]:
    project = WORK / f"project-{label}"
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir(parents=True)
    (project / "skillpack.toml").write_text(
        f'name = "{label}"\nversion = "1.0.0"\nroots = ["{tree}"]\n', encoding="utf-8"
    )
    files = [p for p in tree.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    py = sys.executable
    out = project / "out.skp"
    linted = [py, "-m", "skillpack", "build", project, "-o", out]
    build = [*linted, "--no-lint"]
    results = {
        "skillpack build (deflate)": timed(build, runs),
        "skillpack build (stored)": timed([*build, "--compression", "stored"], runs),
    }
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if subprocess.run(linted, env=env, capture_output=True).returncode == 0:  # lint passes
        results["skillpack build (deflate, lint gate)"] = timed(linted, runs)
    timed(build, 1)  # leave the deflate bundle for verify and open
    zip_out = project / "zip.zip"
    zip_cmd = ["zip", "-q", "-X", "-r", zip_out, tree.name]
    results["zip -X -r"] = timed(zip_cmd, runs, cwd=tree.parent, before=zip_out)
    sha = f"find {tree.name} -type f -print0 | xargs -0 sha256sum > /dev/null"
    results["sha256sum (all files)"] = timed(["sh", "-c", sha], runs, cwd=tree.parent)
    results["skillpack verify"] = timed([py, "-m", "skillpack", "verify", out], runs)
    rows = [(name, f"{med:.3f} s   {best:.3f} s") for name, (med, best) in results.items()]
    for kind in ("deflate", "deflate, lint gate"):
        if f"skillpack build ({kind})" not in results:
            continue
        for i in (0, 1):  # median, best
            ratio = results[f"skillpack build ({kind})"][i] / results["zip -X -r"][i]
            rows.append((f"build ({kind}) / zip, {('median', 'best')[i]}", f"{ratio:.2f}x"))
    rows.append(("open_bundle(mode='fast')", f"{fast_open_ms(out):.1f} ms"))
    rows.append(("bundle / zip size", f"{out.stat().st_size:,} / {zip_out.stat().st_size:,} B"))
    header = f"{label}: {len(files):,} files, {size / 1e6:.1f} MB   (median, best)"
    return [(header, ""), *rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
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
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.runs} runs each\n")
    for label, tree in trees:
        rows = bench_tree(label, tree, args.runs)
        width = max(len(name) for name, _ in rows)
        for name, value in rows:
            print(f"  {name:<{width}}  {value}" if value else name)
        print()


if __name__ == "__main__":
    main()
