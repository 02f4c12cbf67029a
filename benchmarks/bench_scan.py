"""The content scan side by side with Cisco's skill-scanner on the same skills: time and
findings.

    python benchmarks/bench_scan.py [--cisco PATH] [--corpus DIR ...] [--runs 1]

Trees: the attack corpus (tests/data/attacks: one skill per attack class) and each
``--corpus`` (default: the anthropics/skills checkout in /work/corpora, or the shared
corpus, when present). Each tool runs as a fresh process over the whole tree:

* skillpack: ``skillpack lint --select SP5 --format json TREE`` (the content scan only);
* skill-scanner 2.3.2 (``pip install cisco-ai-skill-scanner==2.3.2``, best in a separate
  venv; ``--cisco`` names its ``skill-scanner``): ``scan-all TREE --recursive --format
  json``, its default analyzers only (static, bytecode, pipeline: offline, no LLM, no
  VirusTotal, no behavioral analysis), with a temporary HOME.

A skill counts as flagged by skillpack when it has an error-level finding (a warning for
the warning-only zero-width class), and by skill-scanner when it reports the skill
unsafe (``is_safe: false``: a HIGH or CRITICAL finding). On the real corpus, flagged
skills are false alarms. Speed goals are read off the table, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from _timing import compile_package  # noqa: E402

ATTACKS = REPO / "tests" / "data" / "attacks"
CORPORA = (
    Path("/work/corpora/anthropics+skills/skills"),
    Path(os.environ.get("SKILLPACK_SHARED", REPO.parent / "shared"))
    / "corpus"
    / "anthropics-skills",
)


def _run(
    argv: list[str], env: dict[str, str], runs: int
) -> tuple[float, subprocess.CompletedProcess[str]]:
    times = []
    proc = None
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(argv, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
    assert proc is not None
    return statistics.median(times), proc


def skillpack(tree: Path, runs: int) -> tuple[float, dict[str, Counter[str]]]:
    """Median time, and per skill directory the count of findings by severity."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "skillpack", "lint", "--select", "SP5", "-f", "json", str(tree)]
    elapsed, proc = _run(argv, env, runs)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"skillpack lint failed:\n{proc.stderr}")
    per: dict[str, Counter[str]] = {}
    for f in json.loads(proc.stdout)["findings"]:
        rel = Path(f["path"]).resolve().relative_to(tree.resolve())
        per.setdefault(rel.parts[0], Counter())[f["severity"]] += 1
        per[rel.parts[0]]["codes:" + f["code"]] += 1
    return elapsed, per


def cisco(exe: str, tree: Path, runs: int, work: Path) -> tuple[float, dict[str, dict[str, Any]]]:
    """Median time, and per skill directory skill-scanner's verdict."""
    out = work / "cisco.json"
    home = work / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home)}
    argv = [
        exe,
        "scan-all",
        str(tree),
        "--recursive",
        "--format",
        "json",
        "--output-json",
        str(out),
    ]
    elapsed, proc = _run(argv, env, runs)
    if not out.is_file():
        raise SystemExit(f"skill-scanner wrote no report:\n{proc.stdout}\n{proc.stderr}")
    per = {}
    for result in json.loads(out.read_text())["results"]:
        rel = Path(result["skill_path"]).resolve().relative_to(tree.resolve())
        per[rel.parts[0]] = result
    return elapsed, per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cisco", default=shutil.which("skill-scanner"))
    parser.add_argument("--corpus", type=Path, action="append")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    compile_package()
    corpora = (
        args.corpus
        or [c for c in CORPORA[:1] if c.is_dir()]
        or [c for c in CORPORA[1:] if c.is_dir()]
    )
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        attacks = work / "attacks"
        shutil.copytree(ATTACKS, attacks, ignore=shutil.ignore_patterns("expected.json"))
        expected = json.loads((ATTACKS / "expected.json").read_text())
        trees = [("attacks", attacks), *((c.name, c) for c in corpora)]
        summary = []
        detail = []
        alarms: list[tuple[str, list[str], list[str]]] = []
        for label, tree in trees:
            skills = sorted(p.parent.relative_to(tree).parts[0] for p in tree.glob("*/SKILL.md"))
            sp_time, sp = skillpack(tree, args.runs)
            warning_only = {s for s, e in expected.items() if e["expected"] == ["SP504"]}
            sp_flagged = {
                s
                for s, c in sp.items()
                if c["error"] or (label == "attacks" and s in warning_only and c["warning"])
            }
            row = [label, len(skills), "skillpack", sp_time, len(sp_flagged),
                   sum(c["error"] + c["warning"] for c in sp.values())]  # fmt: skip
            summary.append(row)
            ci: dict[str, dict[str, Any]] = {}
            if args.cisco:
                ci_time, ci = cisco(args.cisco, tree, args.runs, work)
                ci_flagged = {s for s, r in ci.items() if not r["is_safe"]}
                summary.append([label, len(skills), "skill-scanner", ci_time, len(ci_flagged),
                                sum(r["findings_count"] for r in ci.values())])  # fmt: skip
            if label != "attacks":
                ci_names = sorted(s for s, r in ci.items() if not r["is_safe"])
                alarms.append((label, sorted(sp_flagged), ci_names))
            if label == "attacks":
                for s in skills:
                    codes = sorted(k[6:] for k in sp.get(s, Counter()) if k.startswith("codes:"))
                    verdict = ci.get(s)
                    detail.append((
                        s, ",".join(expected[s]["expected"]), "yes" if s in sp_flagged else "NO",
                        ",".join(codes),
                        "-" if verdict is None else ("yes" if not verdict["is_safe"] else "NO"),
                        "-" if verdict is None else verdict["max_severity"],
                    ))  # fmt: skip
    print(
        f"\npython {sys.version.split()[0]}, {os.cpu_count()} CPUs, median of {args.runs} run(s)\n"
    )
    print("| tree | skills | tool | time s | s/skill | skills flagged | findings |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for label, n, tool, t, flagged, count in summary:
        print(f"| {label} | {n} | {tool} | {t:.2f} | {t / max(n, 1):.3f} | {flagged} | {count} |")
    for label, sp_names, ci_names in alarms:
        print(
            f"\n{label}: flagged by skillpack: {', '.join(sp_names) or 'none'}; "
            f"by skill-scanner: {', '.join(ci_names) or 'none'}"
        )
    print("\nattack corpus, per skill:\n")
    print("| skill | expected | skillpack flags | its codes | skill-scanner flags | its max |")
    print("|---|---|---|---|---|---|")
    for row in detail:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
