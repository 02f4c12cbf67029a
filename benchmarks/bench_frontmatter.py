"""Time the frontmatter reader per SKILL.md: the fast path against the ruamel event walk.

For every SKILL.md of the synthetic tree (``gen_tree.py``, generated once under
``benchmarks/_work/``), the shared corpus (``../shared/corpus`` or
``$SKILLPACK_SHARED/corpus``, found as the tests find it; skipped when absent) and
``examples/``, the YAML block is read

* by the ruamel path alone (the raw-text checks, then ruamel.yaml's event walk), and
* by ``parse_yaml_subset`` as the reader runs it (the fast path, falling back to the walk).

In process, after one warm-up pass; each pass reads every block once, the table shows the
best of ``--runs`` passes divided by the number of files, and the fast path's hit rate.
Run by hand:

    python benchmarks/bench_frontmatter.py [--runs 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work"
sys.path.insert(0, str(REPO))

from skillpack.source import frontmatter as fm  # noqa: E402
from tests.conftest import CORPUS, EXAMPLES  # noqa: E402  (where the shared corpus lies)

Block = tuple[str, int]  # the YAML text and its line offset in the file


def ruamel_path(block: str, line_offset: int) -> object:
    fm.check_block(block, line_offset)
    return fm.walk_events(block, line_offset, {})


def reader_path(block: str, line_offset: int) -> object:
    return fm.parse_yaml_subset(block, line_offset, {})


def blocks_of(tree: Path) -> list[Block]:
    out: list[Block] = []
    for path in sorted(tree.rglob("SKILL.md")):
        text = fm.decode_skill_md(path.read_bytes())
        block, block_line, _close, _body, _bom = fm.split_frontmatter(text)
        out.append((block, block_line - 1))
    return out


def best_us_per_file(read: Callable[[str, int], object], blocks: list[Block], runs: int) -> float:
    for block, offset in blocks:  # warm-up: imports, the ruamel parser object
        read(block, offset)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        for block, offset in blocks:
            read(block, offset)
        best = min(best, time.perf_counter() - start)
    return best / len(blocks) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    synthetic = WORK / "synthetic"
    if not synthetic.is_dir():
        sys.path.insert(0, str(HERE))
        from gen_tree import generate

        generate(synthetic)
    trees = [("synthetic", synthetic), ("corpus", CORPUS), ("examples", EXAMPLES)]
    print(f"python {sys.version.split()[0]}, best of {args.runs} passes\n")
    header = ("tree", "files", "fast-path hits", "ruamel µs/file", "reader µs/file", "speed-up")
    rows = [header]
    for label, tree in trees:
        blocks = blocks_of(tree)
        if not blocks:
            continue
        hits = sum(fm.fast_parse(block, offset) is not None for block, offset in blocks)
        slow = best_us_per_file(ruamel_path, blocks, args.runs)
        fast = best_us_per_file(reader_path, blocks, args.runs)
        rate = f"{hits}/{len(blocks)} ({hits / len(blocks):.0%})"
        rows.append(
            (label, str(len(blocks)), rate, f"{slow:.1f}", f"{fast:.1f}", f"{slow / fast:.1f}x")
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)))


if __name__ == "__main__":
    main()
