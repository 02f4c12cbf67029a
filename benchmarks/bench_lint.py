"""Time ``skillpack lint`` on the synthetic tree, side by side with the reference validator.

    python benchmarks/bench_lint.py [--skills 1000] [--runs 5] [--tree DIR]

Cases (wall-clock time of a fresh process, best and median of ``--runs``):

* ``skillpack lint TREE``: every rule over every skill (per-skill checks shared by one
  forked worker per CPU), the content scan (SP5xx) included; the same with
  ``SKILLPACK_JOBS=1`` (one process), and without the scan (``--ignore SP5``) to show
  what the scan costs;
* ``skills-ref validate``: the Agent Skills reference validator (``pip install
  skills-ref``; not a skillpack dependency), its ``validate`` function called for each
  skill in one process (``--reference-python PY``: a Python that has it, such as a
  separate venv's);
* ``skillpack lint FILES`` as pre-commit runs it after a commit touching one skill (its
  SKILL.md and one reference file): one skill checked, the whole tree discovered.

The tree gets a ``skillpack.toml`` at its top, as a skills repository has.

Targets (issue 2, on a 2-core machine): the whole tree in no more time than the
reference validator and at most 1.5 s; the pre-commit run at most 0.3 s. Issue 22: with
the content scan on, the whole tree in at most 0.5x the reference validator's time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from _timing import compile_package  # noqa: E402
from gen_tree import generate, skill_name  # noqa: E402

REFERENCE = """
import sys
from pathlib import Path
from skills_ref import validate
dirs = sorted(p.parent for p in Path(sys.argv[1]).rglob("SKILL.md"))
errors = sum(len(validate(d)) for d in dirs)
print(len(dirs), errors)
"""


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra or {})
    return env


def time_command(
    argv: Sequence[str], runs: int, cwd: Path, env: dict[str, str] | None = None
) -> tuple[list[float], str]:
    """Wall times of ``runs`` runs (after one warm-up run) and the last run's output."""
    times: list[float] = []
    output = ""
    for i in range(runs + 1):
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, env=_env(env), capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr}")
        output = (proc.stdout + proc.stderr).strip()
        if i:  # the first run warms the file system cache
            times.append(elapsed)
    return times, output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tree", type=Path, help="reuse or create the tree here")
    parser.add_argument(
        "--reference-python",
        default=sys.executable,
        help="the Python that runs skills-ref (default: this one)",
    )
    args = parser.parse_args()
    compile_package()

    with tempfile.TemporaryDirectory() as tmp:
        tree = args.tree or Path(tmp) / "tree"
        if not tree.exists():
            size = generate(tree, args.skills, args.seed)
            print(f"generated {args.skills} skills, {size / 1e6:.1f} MB in {tree}")
        config = tree / "skillpack.toml"
        if not config.exists():  # a skills repository with its configuration at the top
            config.write_text('name = "bench"\nroots = ["."]\n', encoding="utf-8")
        one = tree / skill_name(1)
        lint = [sys.executable, "-m", "skillpack", "lint"]
        pre_commit = [*lint, str(one / "SKILL.md"), str(one / "references" / "guide.md")]
        reference = [args.reference_python, "-c", REFERENCE, str(tree)]
        # (label, command, target seconds, extra environment)
        cases: list[tuple[str, list[str], float | None, dict[str, str] | None]] = [
            ("skillpack lint TREE", [*lint, str(tree)], 1.5, None),
            ("skillpack lint TREE, one process", [*lint, str(tree)], None, {"SKILLPACK_JOBS": "1"}),
            (
                "skillpack lint TREE, scan off (--ignore SP5)",
                [*lint, "--ignore", "SP5", str(tree)],
                None,
                None,
            ),
            ("skills-ref validate (per skill, 1 process)", reference, None, None),
            ("skillpack lint (pre-commit, 1 skill)", pre_commit, 0.3, None),
        ]
        rows = []
        for label, argv, target, env in cases:
            try:
                times, output = time_command(argv, args.runs, tree.parent, env)
            except SystemExit as exc:
                if "skills_ref" in str(exc):
                    print("skills-ref is not installed: pip install skills-ref", file=sys.stderr)
                    continue
                raise
            rows.append(
                (label, min(times), statistics.median(times), target, output.splitlines()[-1])
            )

    reference = next((best for label, best, *_ in rows if label.startswith("skills-ref")), None)
    cpus, version = os.cpu_count(), sys.version.split()[0]
    print(f"\n{cpus} CPUs, Python {version}, best and median of {args.runs} runs\n")
    print(f"| {'case':<44} | {'best s':>6} | {'median s':>8} | {'target':<22} | last output line")
    print(f"|{'-' * 46}|{'-' * 8}|{'-' * 10}|{'-' * 24}|{'-' * 30}")
    for label, best, median, target, last in rows:
        goal = ""
        if target is not None:
            limit = (
                min(target, reference) if label == "skillpack lint TREE" and reference else target
            )
            verdict = "ok" if best <= limit else "MISSED"
            goal = f"<= {limit:.2f} s {verdict}"
        print(f"| {label:<44} | {best:>6.3f} | {median:>8.3f} | {goal:<22} | {last[:60]}")
    best = {label: value for label, value, *_ in rows}
    if reference and "skillpack lint TREE" in best:
        ratio = best["skillpack lint TREE"] / reference
        verdict = "ok" if ratio <= 0.5 else "MISSED"
        print(f"\nlint TREE (scan on) / skills-ref: {ratio:.2f}x (target <= 0.50x {verdict})")
        off = best.get("skillpack lint TREE, scan off (--ignore SP5)")
        if off:
            print(
                f"lint TREE scan off / skills-ref: {off / reference:.2f}x; the scan adds "
                f"{(best['skillpack lint TREE'] / off - 1) * 100:+.0f}%"
            )


if __name__ == "__main__":
    main()
