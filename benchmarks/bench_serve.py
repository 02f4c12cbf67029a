"""Benchmark ``skillpack serve`` against FastMCP's ``SkillsDirectoryProvider``.

Serves the synthetic 1,000-skill tree (``gen_tree.py``) with each server and measures,
side by side in one run:

* spawn -> first ``skills/list`` response (median of ``--runs`` spawns);
* ``resources/read`` per second over one pipelined stdio connection (every file of
  the tree in turn, ``--reads`` requests);
* peak RSS of the server process (VmHWM) after those reads;

then the same peak RSS while serving a tree of about ``--big-mb`` MB (every file read
once). Run by hand; prints a Markdown table. Rows:

* ``skillpack bundle``: a real ``.skp`` built with ``skillpack build``;
* ``skillpack DIR``: ``skillpack serve DIR`` (discovery, hashing and frontmatter
  parsing at start, for authors);
* ``FastMCP 4.2.3``: ``SkillsDirectoryProvider`` over the same directory.

    python benchmarks/bench_serve.py [--skills 1000] [--reads 20000] [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work"
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(HERE)]  # skillpack, test helpers, gen_tree

from _timing import compile_package  # noqa: E402
from gen_tree import generate  # noqa: E402
from mcp_wire import request_line  # noqa: E402

FASTMCP_SERVER = """\
import sys
from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider
server = FastMCP("bench")
server.add_provider(SkillsDirectoryProvider(sys.argv[1]))
server.run(show_banner=False)
"""

Command = Callable[[Path], list[str]]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _spawn(command: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(),
    )


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def first_list_ms(command: list[str]) -> float:
    """Spawn the server, send skills/list at once, time until its response line."""
    start = time.perf_counter()
    proc = _spawn(command)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(request_line(1, "skills/list"))
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    response = json.loads(line)
    assert response["result"]["skills"], response
    _stop(proc)
    return elapsed


def file_uris(command: list[str]) -> list[str]:
    """Every file URI the server lists (skills/list, all pages)."""
    proc = _spawn(command)
    assert proc.stdin is not None and proc.stdout is not None
    uris: list[str] = []
    cursor: str | None = None
    request_id = 0
    while True:
        request_id += 1
        extra = {"cursor": cursor} if cursor else {}
        proc.stdin.write(request_line(request_id, "skills/list", **extra))
        proc.stdin.flush()
        result = json.loads(proc.stdout.readline())["result"]
        for skill in result["skills"]:
            uris += [r["uri"] for r in skill["resources"]]
        cursor = result.get("nextCursor")
        if not cursor:
            break
    _stop(proc)
    return list(dict.fromkeys(uris))


def reads(command: list[str], uris: list[str], count: int) -> tuple[float, float]:
    """(reads per second, peak RSS MB) for ``count`` pipelined resources/read."""
    proc = _spawn(command)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(request_line(0, "server/discover"))
    proc.stdin.flush()
    json.loads(proc.stdout.readline())  # started and ready
    payload = b"".join(
        request_line(i + 1, "resources/read", uri=uris[i % len(uris)]) for i in range(count)
    )
    stdin = proc.stdin

    def write() -> None:
        stdin.write(payload)
        stdin.flush()

    writer = threading.Thread(target=write)
    start = time.perf_counter()
    writer.start()
    errors = 0
    for _ in range(count):
        line = proc.stdout.readline()
        if b'"error"' in line[:200] and b'"result"' not in line[:200]:
            errors += 1
    elapsed = time.perf_counter() - start
    writer.join()
    rss = _peak_rss_mb(proc.pid)
    _stop(proc)
    if errors:
        print(f"  warning: {errors} error responses", file=sys.stderr)
    return count / elapsed, rss


@dataclass
class Row:
    name: str
    first_ms: float | None = None
    reads_per_s: float | None = None
    rss_mb: float | None = None
    big_rss_mb: float | None = None
    note: str = ""


def _fmt(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def generate_big(out: Path, megabytes: int) -> Path:
    """The 1,000-skill tree plus one skill per MB holding a 1 MiB binary asset."""
    if not (out / ".done").exists():
        generate(out / "base")
        rng = random.Random(7)
        for index in range(megabytes):
            name = f"large-{index:04d}"
            directory = out / "large" / name
            (directory / "assets").mkdir(parents=True, exist_ok=True)
            (directory / "SKILL.md").write_text(
                f"---\nname: {name}\ndescription: A skill with a large asset, number {index}.\n"
                f"---\n\n# {name}\n\nSee assets/blob.bin.\n"
            )
            (directory / "assets" / "blob.bin").write_bytes(rng.randbytes(1 << 20))
        (out / ".done").write_text("")
    return out


def subjects(tree: Path, work: Path) -> list[tuple[str, Command | None, str]]:
    python = sys.executable
    out: list[tuple[str, Command | None, str]] = []

    def bundle(source: Path) -> list[str]:
        target = work / f"{source.name}.skp"
        if not target.exists():
            subprocess.run(
                [python, "-m", "skillpack", "build", "--no-lint", str(source), "-o", str(target)],
                check=True,
                env=_env(),
            )
        return [python, "-m", "skillpack", "serve", "-q", str(target)]

    out.append(("skillpack bundle", bundle, ""))
    out.append(
        (
            "skillpack DIR",
            lambda s: [python, "-m", "skillpack", "serve", "-q", "--no-lint", str(s)],
            "",
        )
    )
    if importlib.util.find_spec("fastmcp") is not None:
        script = work / "fastmcp_server.py"
        script.write_text(FASTMCP_SERVER)
        out.append(
            ("FastMCP 4.2.3 SkillsDirectoryProvider", lambda s: [python, str(script), str(s)], "")
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--reads", type=int, default=20000)
    parser.add_argument(
        "--slow-reads", type=int, default=500, help="reads for servers under 1,000 reads/s"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--big-mb", type=int, default=200, help="0 to skip")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TEXT",
        help="measure only servers whose name contains TEXT",
    )
    args = parser.parse_args()
    compile_package()
    work: Path = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    tree = work / f"tree-{args.skills}"
    if not (tree / ".done").exists():
        generate(tree, args.skills)
        (tree / ".done").write_text("")
    big = generate_big(work / f"big-{args.big_mb}", args.big_mb) if args.big_mb else None

    rows: list[Row] = []
    for name, command, note in subjects(tree, work):
        if args.only and not any(text in name for text in args.only):
            continue
        row = Row(name, note=note)
        rows.append(row)
        if command is None:
            continue
        print(f"{name}: spawn to first list ...", file=sys.stderr)
        cmd = command(tree)
        row.first_ms = statistics.median(first_list_ms(cmd) for _ in range(args.runs))
        uris = file_uris(cmd)
        print(f"{name}: reads over {len(uris)} files ...", file=sys.stderr)
        probe, _ = reads(cmd, uris, min(200, args.reads))
        count = args.reads if probe >= 1000 else args.slow_reads
        row.reads_per_s, row.rss_mb = reads(cmd, uris, count)
        if big is not None:
            print(f"{name}: {args.big_mb} MB tree ...", file=sys.stderr)
            big_cmd = command(big)
            big_uris = file_uris(big_cmd)
            _, row.big_rss_mb = reads(big_cmd, big_uris, len(big_uris))

    size = sum(p.stat().st_size for p in tree.rglob("*") if p.is_file()) / 1e6
    print(
        f"\n{args.skills} skills, {size:.1f} MB; reads: {args.reads} pipelined "
        f"({args.slow_reads} for servers under 1,000/s); median of {args.runs} spawns; "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n"
    )
    big_title = f"peak RSS, {args.big_mb} MB tree (MB)" if big else "big tree"
    print(
        f"| server | spawn -> first skills/list (ms) | resources/read per s "
        f"| peak RSS (MB) | {big_title} | note |"
    )
    print("|---|---:|---:|---:|---:|---|")
    for row in rows:
        cells = [
            row.name,
            _fmt(row.first_ms, ".0f"),
            _fmt(row.reads_per_s, ",.0f"),
            _fmt(row.rss_mb, ".1f"),
            _fmt(row.big_rss_mb, ".1f"),
            row.note,
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
