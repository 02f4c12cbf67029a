"""Benchmark ``skillpack push`` and ``skillpack pull`` against ``skopeo copy``.

Builds the synthetic 1,000-skill bundle (``gen_tree.py``, as ``bench_serve.py`` does),
signs it in key mode, starts Debian's ``docker-registry`` on loopback (the test
fixture, ``tests/registry/servers.py``) and measures, side by side in one run, the
median wall time of ``--runs`` runs of each:

* push: ``skillpack push BUNDLE oci://...`` (bundle verified in full, then pushed with
  its signature referrer) into a fresh repository each run, against ``skopeo copy`` of
  the same artifact from an OCI layout into a fresh repository;
* pull + verify: ``skillpack pull oci://...@sha256:... -o FILE`` with an empty cache
  (manifest and blob digests, then the full bundle verification, then the atomic
  write), without and with ``--key`` (the signature referrer fetched and verified),
  against ``skopeo copy`` of the same artifact from the registry into a fresh OCI
  layout (which checks the digests only);
* ``skillpack verify BUNDLE`` of the local file: the verification alone;
* ``skillpack serve`` spawn to first ``skills/list`` response: the bundle file, and
  ``oci://...@sha256:...`` answered from the cache (no network).

Run by hand; prints Markdown tables.

    python benchmarks/bench_registry.py [--skills 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "_work"
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(HERE)]  # skillpack, test helpers, gen_tree

from _timing import compile_package  # noqa: E402
from gen_tree import generate  # noqa: E402
from mcp_wire import request_line  # noqa: E402

from tests.registry.servers import REGISTRY_BINARY, DistributionRegistry  # noqa: E402

PYTHON = sys.executable


def _env(work: Path, cache: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["DOCKER_CONFIG"] = str(work / "docker-config")  # no credentials from this machine
    for var in ("SKILLPACK_REGISTRY_USERNAME", "SKILLPACK_REGISTRY_PASSWORD"):
        env.pop(var, None)
    env["SKILLPACK_CACHE_DIR"] = str(cache if cache is not None else work / "cache")
    return env


def _skopeo_env(work: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(work / "skopeo-home")}


def _run(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """(wall seconds, stdout) of ``command``; fails loudly when it fails."""
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{proc.stderr}")
    return elapsed, proc.stdout


def median_ms(runs: int, measure: Callable[[int], float]) -> float:
    return statistics.median(measure(i) for i in range(runs)) * 1000


def first_list_ms(command: list[str], env: dict[str, str]) -> float:
    """Spawn the server, send skills/list at once, time until its response line."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(request_line(1, "skills/list"))
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    proc.stdin.close()
    proc.wait(timeout=60)
    if not line:
        raise SystemExit(f"{' '.join(command)}: no answer\n{proc.stderr.read().decode()}")
    assert json.loads(line)["result"]["skills"]
    return elapsed


def prepare(work: Path, skills: int) -> tuple[Path, Path]:
    """The built bundle, signed in key mode (BUNDLE.sigstore.json), and the public key."""
    tree = work / f"tree-{skills}"
    if not (tree / ".done").exists():
        generate(tree, skills)
        (tree / ".done").write_text("")
    bundle = work / f"registry-{skills}.skp"
    env = _env(work)
    if not bundle.exists():
        _run([PYTHON, "-m", "skillpack", "build", "--no-lint", str(tree), "-o", str(bundle)], env)
    keys = work / "keys"
    if not (keys / "skillpack.pub").exists():
        _run([PYTHON, "-m", "skillpack", "keygen", "--out-dir", str(keys)], env)
    private = keys / "skillpack.key"
    _run([PYTHON, "-m", "skillpack", "sign", str(bundle), "--key", str(private)], env)
    return bundle, keys / "skillpack.pub"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args()
    for tool in (REGISTRY_BINARY, "skopeo"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed (apt-get install docker-registry skopeo)")
    compile_package()
    work: Path = args.work.resolve() / "registry"
    if work.exists():
        shutil.rmtree(work / "run", ignore_errors=True)
    (work / "docker-config").mkdir(parents=True, exist_ok=True)
    (work / "skopeo-home").mkdir(exist_ok=True)
    bundle, public = prepare(work, args.skills)
    run = work / "run"
    run.mkdir()
    runs = args.runs
    skopeo = ["skopeo", "--insecure-policy", "copy", "--preserve-digests"]

    with DistributionRegistry(run / "registry") as registry:
        host = registry.host
        print(f"registry {host}, bundle {bundle.stat().st_size} bytes", file=sys.stderr)
        env = _env(work, run / "cache")
        _, out = _run([PYTHON, "-m", "skillpack", "push", str(bundle), f"oci://{host}/src:1"], env)
        reference = out.strip()
        # the OCI layout skopeo pushes from: the same artifact, copied out of the registry
        layout = run / "layout"
        _run([*skopeo, "--src-tls-verify=false", "--src-no-creds",
              f"docker://{host}/src:1", f"oci:{layout}:1"], _skopeo_env(work))  # fmt: skip

        def push(i: int) -> float:
            command = [PYTHON, "-m", "skillpack", "push", str(bundle), f"oci://{host}/push{i}:1"]
            return _run(command, env)[0]

        def skopeo_push(i: int) -> float:
            command = [*skopeo, "--dest-tls-verify=false", "--dest-no-creds",
                       f"oci:{layout}:1", f"docker://{host}/skopeo{i}:1"]  # fmt: skip
            return _run(command, _skopeo_env(work))[0]

        def pull(*extra: str) -> Callable[[int], float]:
            def measure(i: int) -> float:
                cold = _env(work, run / f"pull-cache-{extra[:1]}-{i}")
                target = run / f"pulled-{i}.skp"
                command = [PYTHON, "-m", "skillpack", "pull", reference, "-o", str(target), *extra]
                elapsed = _run(command, cold)[0]
                assert target.read_bytes() == bundle.read_bytes()
                return elapsed

            return measure

        def warm_pull(i: int) -> float:
            target = run / f"warm-{i}.skp"
            command = [PYTHON, "-m", "skillpack", "pull", reference, "-o", str(target)]
            return _run(command, env)[0]

        def skopeo_pull(i: int) -> float:
            command = [*skopeo, "--src-tls-verify=false", "--src-no-creds",
                       f"docker://{host}/src:1", f"oci:{run / f'skopeo-layout-{i}'}:1"]  # fmt: skip
            return _run(command, _skopeo_env(work))[0]

        def verify(i: int) -> float:
            return _run([PYTHON, "-m", "skillpack", "verify", str(bundle)], env)[0]

        print("push ...", file=sys.stderr)
        push_ms, skopeo_push_ms = median_ms(runs, push), median_ms(runs, skopeo_push)
        print("pull ...", file=sys.stderr)
        skopeo_pull_ms = median_ms(runs, skopeo_pull)
        pull_ms = median_ms(runs, pull())
        pull_key_ms = median_ms(runs, pull("--key", str(public)))
        _run([PYTHON, "-m", "skillpack", "pull", reference, "-o", str(run / "w.skp")], env)
        warm_ms = median_ms(runs, warm_pull)
        verify_ms = median_ms(runs, verify)

        print("serve ...", file=sys.stderr)
        serve = [PYTHON, "-m", "skillpack", "serve", "-q"]
        # interleaved, so that both see the same machine load
        file_times, oci_times = [], []
        for _ in range(max(runs, 7)):
            file_times.append(first_list_ms([*serve, str(bundle)], env))
            oci_times.append(first_list_ms([*serve, reference], env))
        file_ms, oci_ms = statistics.median(file_times), statistics.median(oci_times)

    def row(name: str, ours: float, theirs: float | None) -> str:
        if theirs is None:
            return f"| {name} | {ours:.0f} | | |"
        return f"| {name} | {ours:.0f} | {theirs:.0f} | {ours / theirs:.2f}x |"

    print(f"\n{args.skills} skills, {bundle.stat().st_size} bytes; median of {runs} runs\n")
    print("| operation | skillpack ms | skopeo copy ms | ratio |")
    print("|---|---:|---:|---:|")
    print(row("push (verify, push bundle + signature referrer)", push_ms, skopeo_push_ms))
    print(row("pull + verify, empty cache", pull_ms, skopeo_pull_ms))
    print(row("pull + verify + key signature, empty cache", pull_key_ms, skopeo_pull_ms))
    print(row("pull + verify by digest, cached", warm_ms, None))
    print(row("verify BUNDLE (the local file)", verify_ms, None))
    print("\n| serve, spawn to first skills/list | ms |")
    print("|---|---:|")
    print(f"| serve BUNDLE (the file) | {file_ms:.0f} |")
    print(f"| serve oci://...@sha256:... (cache hit) | {oci_ms:.0f} |")
    print(f"| difference | {oci_ms - file_ms:+.0f} |")


if __name__ == "__main__":
    main()
