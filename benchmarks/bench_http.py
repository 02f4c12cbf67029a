"""Benchmark ``skillpack serve --http`` against FastMCP 4.2.3 over its HTTP transport.

Serves the synthetic 1,000-skill tree (``gen_tree.py``; skillpack as a built bundle,
FastMCP's ``SkillsDirectoryProvider`` over the directory) and measures, side by side in
one run:

* spawn -> first HTTP 200 (a 2026-07-28 ``resources/read``, polled from the moment the
  process is started; median of ``--runs`` spawns);
* keep-alive POSTs of 2026-07-28 ``resources/read`` with ``wrk -t1 -c2`` (Debian's
  ``wrk``; a Lua script cycles through every file of the tree, with the headers the
  transport requires), for ``--seconds`` seconds after ``--warmup`` seconds of the same
  (so every file has been read and verified once, as on a server that has been up);
* peak RSS of each server process (VmHWM; per worker with ``--workers``).

Run by hand on an otherwise quiet machine; prints a Markdown table. Every address used
is 127.0.0.1.

    python benchmarks/bench_http.py [--skills 1000] [--seconds 10] [--runs 5]
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work"
sys.path[:0] = [str(REPO), str(HERE)]

from gen_tree import generate  # noqa: E402

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}

FASTMCP_SERVER = """\
import sys
from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider
server = FastMCP("bench")
server.add_provider(SkillsDirectoryProvider(sys.argv[1]))
server.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False,
           log_level="warning")
"""

#: wrk's request generator: every URI of uris.txt in turn, one POST each.
WRK_SCRIPT = """\
local uris = {}
for line in io.lines("%(uris)s") do uris[#uris + 1] = line end
local index = 0
local head = '{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"'
local tail = '","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
  .. '"io.modelcontextprotocol/clientCapabilities":{}}}}'
request = function()
  index = index %% #uris + 1
  local uri = uris[index]
  return wrk.format("POST", "%(path)s", {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2026-07-28",
    ["Mcp-Method"] = "resources/read",
    ["Mcp-Name"] = uri,
  }, head .. uri .. tail)
end
-- every JSON-RPC error of this transport has a 4xx or 5xx status: counted by wrk
done = function(summary, latency, requests)
  io.write(string.format("BENCH requests=%%d seconds=%%f failed=%%d\\n",
    summary.requests, summary.duration / 1e6,
    summary.errors.status + summary.errors.connect + summary.errors.read
      + summary.errors.write + summary.errors.timeout))
end
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    # an installed server starts from cached bytecode: let the first spawn write it
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _read_body(uri: str) -> bytes:
    params = {"uri": uri, "_meta": META}
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": params}
    ).encode()


def _headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
    }
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


def _post(port: int, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", path, body=body, headers=headers)
        reply = conn.getresponse()
        return reply.status, reply.read()
    finally:
        conn.close()


@dataclass
class Subject:
    name: str
    command: Callable[[int], list[str]]  #: the server command for a port
    path: str = "/mcp"


def first_200_ms(subject: Subject, uri: str) -> float:
    """Spawn, then poll a resources/read until it is answered 200."""
    port = _free_port()
    start = time.perf_counter()
    proc = subprocess.Popen(
        subject.command(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env()
    )
    try:
        body, headers = _read_body(uri), _headers("resources/read", uri)
        deadline = start + 60
        while True:
            try:
                status, _ = _post(port, subject.path, body, headers)
                if status == 200:
                    return (time.perf_counter() - start) * 1000
            except OSError:
                pass
            if time.perf_counter() > deadline or proc.poll() is not None:
                raise RuntimeError(f"{subject.name}: no 200 within 60 s")
            time.sleep(0.002)
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def file_uris(port: int, path: str) -> list[str]:
    """Every file URI the server lists (skills/list, all pages)."""
    uris: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, object] = {"_meta": META, **({"cursor": cursor} if cursor else {})}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": params})
        _, data = _post(port, path, body.encode(), _headers("skills/list"))
        result = json.loads(data)["result"]
        for skill in result["skills"]:
            uris += [r["uri"] for r in skill["resources"]]
        cursor = result.get("nextCursor")
        if not cursor:
            return list(dict.fromkeys(uris))


@dataclass
class Row:
    name: str
    first_ms: float | None = None
    reads_per_s: float | None = None
    rss_mb: float | None = None
    failed: int = 0
    note: str = ""


def measure(
    subject: Subject, runs: int, seconds: float, warmup: float, work: Path, uri: str
) -> Row:
    row = Row(subject.name)
    print(f"{subject.name}: spawn to first 200 ...", file=sys.stderr)
    row.first_ms = statistics.median(first_200_ms(subject, uri) for _ in range(runs))
    port = _free_port()
    proc = subprocess.Popen(
        subject.command(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env()
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if (
                    _post(port, subject.path, _read_body(uri), _headers("resources/read", uri))[0]
                    == 200
                ):
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{subject.name} did not start")
            time.sleep(0.01)
        uris = file_uris(port, subject.path)
        uris_file = work / "uris.txt"
        uris_file.write_text("\n".join(uris) + "\n")
        script = work / "read.lua"
        script.write_text(WRK_SCRIPT % {"uris": uris_file, "path": subject.path})
        print(f"{subject.name}: wrk over {len(uris)} files for {seconds:g} s ...", file=sys.stderr)
        if warmup > 0:  # every file read and verified once, as a long-running server has
            subprocess.run(
                [
                    "wrk",
                    "-t1",
                    "-c2",
                    f"-d{warmup:g}s",
                    "-s",
                    str(script),
                    f"http://127.0.0.1:{port}{subject.path}",
                ],
                capture_output=True,
                check=True,
            )
        out = subprocess.run(
            [
                "wrk",
                "-t1",
                "-c2",
                f"-d{seconds:g}s",
                "-s",
                str(script),
                f"http://127.0.0.1:{port}{subject.path}",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        match = re.search(r"BENCH requests=(\d+) seconds=([\d.]+) failed=(\d+)", out)
        if match is None:
            raise RuntimeError(f"unexpected wrk output:\n{out}")
        requests, elapsed, failed = match.groups()
        row.reads_per_s = int(requests) / float(elapsed)
        row.failed = int(failed)
        pids = _children(proc.pid) or [proc.pid]
        row.rss_mb = max(_vm_hwm_mb(pid) for pid in pids)
        if len(pids) > 1:
            row.note = f"peak RSS of the largest of {len(pids)} workers"
    finally:
        _stop(proc)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--warmup", type=float, default=3.0, help="seconds of wrk before measuring (0: none)"
    )
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--workers", type=int, default=2, help="also measure N workers (0: no)")
    parser.add_argument("--no-fastmcp", action="store_true")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk not found: apt-get install -y wrk")
    work: Path = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    tree = work / f"tree-{args.skills}"
    if not (tree / ".done").exists():
        generate(tree, args.skills)
        (tree / ".done").write_text("")
    bundle = work / f"tree-{args.skills}.skp"
    if not bundle.exists():
        subprocess.run(
            [sys.executable, "-m", "skillpack", "build", "--no-lint", str(tree), "-o", str(bundle)],
            check=True,
            env=_env(),
        )
    python = sys.executable
    serve = [python, "-m", "skillpack", "serve", "-q", "--http"]
    subjects = [
        Subject(
            "skillpack serve --http (1 worker)", lambda p: [*serve, f"127.0.0.1:{p}", str(bundle)]
        )
    ]
    if args.workers > 1:
        subjects.append(
            Subject(
                f"skillpack serve --http --workers {args.workers}",
                lambda p: [*serve, f"127.0.0.1:{p}", "--workers", str(args.workers), str(bundle)],
            )
        )
    subjects.append(
        Subject(
            "skillpack serve --http, access log on",
            lambda p: [python, "-m", "skillpack", "serve", "--http", f"127.0.0.1:{p}", str(bundle)],
        )
    )
    if not args.no_fastmcp and importlib.util.find_spec("fastmcp") is not None:
        script = work / "fastmcp_http_server.py"
        script.write_text(FASTMCP_SERVER)
        subjects.append(
            Subject(
                "FastMCP 4.2.3 SkillsDirectoryProvider (http)",
                lambda p: [python, str(script), str(tree), str(p)],
            )
        )
    first = min(p.parent.relative_to(tree).as_posix() for p in tree.rglob("SKILL.md"))
    uri = f"skill://{first}/SKILL.md"
    with tempfile.TemporaryDirectory(dir=work) as scratch:
        rows = [
            measure(s, args.runs, args.seconds, args.warmup, Path(scratch), uri) for s in subjects
        ]
    size = sum(p.stat().st_size for p in tree.rglob("*") if p.is_file()) / 1e6
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split()[:2]
    print(
        f"\n{args.skills} skills, {size:.1f} MB; wrk -t1 -c2 -d{args.seconds:g}s, keep-alive "
        f"POSTs of 2026-07-28 resources/read cycling through every file, after "
        f"{args.warmup:g} s of warm-up; spawn -> first 200: "
        f"median of {args.runs}; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
        f"{' '.join(wrk_version)}\n"
    )
    print(
        "| server | spawn -> first 200 (ms) | resources/read per s | peak RSS (MB) | failed "
        "| note |"
    )
    print("|---|---:|---:|---:|---:|---|")
    for row in rows:
        cells = [
            row.name,
            "n/a" if row.first_ms is None else f"{row.first_ms:.0f}",
            "n/a" if row.reads_per_s is None else f"{row.reads_per_s:,.0f}",
            "n/a" if row.rss_mb is None else f"{row.rss_mb:.1f}",
            str(row.failed),
            row.note,
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
