"""Where the time of ``skillpack build`` goes on the synthetic 1,000-skill tree.

``bench_build.py`` times whole builds against ``zip -X -r``; this one explains them:

1. the stages of one build as the main process sees them (in process, best of
   ``--runs``): start-up and imports (a fresh interpreter importing what the build
   command imports), the configuration (with its schema check), discovery, the one
   pass over the skills (``skillpack.build.pipeline``, with and without the lint gate,
   shared between processes as a build shares it), the lock and the index, the archive
   writer;
2. the CPU cost of each kind of per-skill work, measured alone in one process over every
   skill: reading the files, sha256, the frontmatter parse, deflate, tomli-w rendering the
   skills' lock tables;
3. the lower bound these imply for a build with the work as it is (every per-skill cost
   perfectly shared by the CPUs, nothing else), next to ``zip -X -r``.

Run by hand (the tree is generated once under ``benchmarks/_work/``)::

    python benchmarks/bench_build_stages.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from benchmarks._timing import best_of, compile_package  # noqa: E402
from skillpack._internal.memory import keep_freed_memory  # noqa: E402
from skillpack.build.pipeline import Pass, Refusal, one_pass  # noqa: E402
from skillpack.bundle.writer import COMPRESS_LEVEL, write_bundle  # noqa: E402
from skillpack.bundle.zipformat import dos_datetime  # noqa: E402
from skillpack.lockfile.lock import render_lock_and_index, render_skill  # noqa: E402
from skillpack.manifest import Manifest, sha256_digest  # noqa: E402
from skillpack.source.config import resolve_config  # noqa: E402
from skillpack.source.discovery import SourceTree, discover  # noqa: E402
from skillpack.source.entries import build_manifest, read_file  # noqa: E402
from skillpack.source.frontmatter import parse_skill_md  # noqa: E402


def best(func: Callable[[], object], runs: int) -> float:
    return best_of(runs, func)


def startup(project: Path, runs: int) -> tuple[float, float, float]:
    """Fresh interpreters, less a bare one: (importing what the build command imports;
    importing the configuration's reader and resolving the configuration, schema check
    included (jsonschema is imported only for a table that does not conform); a bare
    interpreter)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    imports = "import skillpack.__main__, skillpack.cli.build_cmd, skillpack.build.builder"
    config = (
        f"from skillpack.source.config import resolve_config; resolve_config([{str(project)!r}])"
    )

    def run(*args: str) -> Callable[[], object]:
        return lambda: subprocess.run([sys.executable, *args], env=env, check=True)

    bare = best(run("-c", "pass"), runs)
    return best(run("-c", imports), runs) - bare, best(run("-c", config), runs) - bare, bare


REFUSAL = Refusal("BENCH", "the synthetic tree should lint clean", "see gen_tree.py")


def stages(project: Path, runs: int) -> list[tuple[str, float]]:
    config = resolve_config([project])
    tree = discover(config)
    stamp = dos_datetime(None)

    def run(lint: bool) -> Pass:
        return one_pass(tree, lint=lint, refusal=REFUSAL, compression="deflate", stamp=stamp)

    lint_time = best(lambda: run(True), runs)
    pass_time = best(lambda: run(False), runs)
    done = run(False)
    tables = [render_skill(skill) for skill in done.manifest.skills]
    lock_time = best(lambda: render_lock_and_index(done.manifest, tables), runs)

    def write() -> None:
        with open(WORK / "stages.skp", "wb") as fh:
            write_bundle(fh, done.manifest, done.lock, done.source, prepared=done.entries,
                         index=done.index)  # fmt: skip

    imports, configuration, bare = startup(project, runs)
    return [
        ("interpreter start (python -c pass)", bare),
        ("imports on the critical path", imports),
        ("configuration (its reader imported, the schema checked)", configuration),
        ("discovery", best(lambda: discover(config), runs)),
        ("one pass over the skills, --no-lint (all CPUs)", pass_time),
        ("one pass over the skills, lint gate (all CPUs)", lint_time),
        ("lock and index (joining the skills' tables)", lock_time),
        ("archive writer (entries made already)", best(write, runs)),
    ]


def per_skill_costs(tree: SourceTree, manifest: Manifest, runs: int) -> list[tuple[str, float]]:
    files = [f for skill in tree.skills for f in skill.files]
    datas = [read_file(f) for f in files]
    skill_mds = [read_file(skill.files[0]) for skill in tree.skills]
    return [
        ("read every file (os.read)", best(lambda: [read_file(f) for f in files], runs)),
        ("sha256 of every file", best(lambda: [sha256_digest(d) for d in datas], runs)),
        ("parse every SKILL.md", best(lambda: [parse_skill_md(d) for d in skill_mds], runs)),
        (
            f"deflate every file (zlib level {COMPRESS_LEVEL})",
            best(lambda: [zlib.compress(d, COMPRESS_LEVEL, wbits=-15) for d in datas], runs),
        ),
        (
            "tomli-w: every skill's lock table",
            best(lambda: [render_skill(s) for s in manifest.skills], runs),
        ),
    ]


def zip_time(tree: Path, runs: int) -> float:
    out = WORK / "stages.zip"

    def run() -> None:
        out.unlink(missing_ok=True)
        subprocess.run(["zip", "-q", "-X", "-r", out, tree.name], cwd=tree.parent, check=True)

    return statistics.median(best(run, 1) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    compile_package()  # the start-up measured is an installed package's
    keep_freed_memory()  # as a build does
    synthetic = WORK / "synthetic"
    if not synthetic.is_dir():
        from gen_tree import generate

        generate(synthetic)
    project = WORK / "project-stages"
    project.mkdir(parents=True, exist_ok=True)
    (project / "skillpack.toml").write_text(
        f'name = "stages"\nversion = "1.0.0"\nroots = ["{synthetic}"]\n', encoding="utf-8"
    )
    tree = discover(resolve_config([project]))
    manifest = build_manifest(tree)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, best of {args.runs}\n")
    rows = stages(project, args.runs)
    width = 56
    print("1. stages of a build (wall, main process)")
    for name, seconds in rows:
        print(f"  {name:<{width}} {seconds * 1000:7.1f} ms")
    costs = per_skill_costs(tree, manifest, args.runs)
    print("\n2. per-skill work, alone, one process, all 1,000 skills (CPU)")
    for name, seconds in costs:
        print(f"  {name:<{width}} {seconds * 1000:7.1f} ms")
    by_name = dict(rows)
    serial = sum(seconds for name, seconds in by_name.items() if not name.startswith("one pass"))
    shared = sum(seconds for _, seconds in costs) / (os.cpu_count() or 1)
    zipped = zip_time(synthetic, args.runs)
    print("\n3. lower bound of a --no-lint build with this work")
    print(f"  {'serial stages (all but the one pass)':<{width}} {serial * 1000:7.1f} ms")
    print(f"  {'per-skill work above / CPUs, no overhead':<{width}} {shared * 1000:7.1f} ms")
    print(f"  {'sum':<{width}} {(serial + shared) * 1000:7.1f} ms")
    print(f"  {'zip -X -r (median)':<{width}} {zipped * 1000:7.1f} ms")
    print(f"  {'lower bound / zip':<{width}} {(serial + shared) / zipped:7.2f}x")


if __name__ == "__main__":
    main()
