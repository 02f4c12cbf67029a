"""``skillpack serve oci://...``: the real server process pulls a bundle from a real
registry into the cache and serves it over stdio; a digest already cached needs no
registry; ``--offline`` uses the cache only; ``--require-signature`` checks the pulled
bundle's signature referrers; a cache hit imports no HTTP library."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from skillpack.registry import ClientOptions, PushResult, push_bundle
from skillpack.signing.keys import generate_keypair
from tests.conftest import cli_env, run_cli
from tests.mcp_wire import HANG_GUARD_S, request_line
from tests.registry.servers import DistributionRegistry, closed_port

#: the skills of the ``bundle`` fixture
SKILLS = {"skill://review/SKILL.md", "skill://release/SKILL.md"}


def serve(
    *args: str | Path, env: dict[str, str], python: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``python -m skillpack serve ARGS`` answering one ``skills/list``."""
    return subprocess.run(
        [sys.executable, *python, "-m", "skillpack", "serve", *map(str, args)],
        input=request_line(1, "skills/list").decode(),
        capture_output=True,
        text=True,
        env=cli_env(env),
        timeout=HANG_GUARD_S,
    )


def listed(proc: subprocess.CompletedProcess[str]) -> set[str]:
    assert proc.returncode == 0, proc.stderr
    (response,) = (json.loads(line) for line in proc.stdout.splitlines())
    return {skill["uri"] for skill in response["result"]["skills"]}


def refused(proc: subprocess.CompletedProcess[str], code: str, exit_code: int) -> str:
    assert proc.returncode == exit_code, proc.stderr
    assert code in proc.stderr, proc.stderr
    assert proc.stdout == ""  # not one protocol message
    return proc.stderr


def _push(
    registry: DistributionRegistry, bundle: Path, options: ClientOptions, **kwargs: Path
) -> PushResult:
    return push_bundle(
        bundle,
        registry.ref("acme/skills", "1.2.3"),
        name="oci-demo",
        version="1.2.3",
        options=options,
        **kwargs,  # type: ignore[arg-type]
    )


def test_serve_pulls_then_serves_from_the_cache_without_the_registry(
    registry: DistributionRegistry,
    options: ClientOptions,
    bundle: Path,
    cli_registry_env: dict[str, str],
) -> None:
    pushed = _push(registry, bundle, options)
    by_tag = serve(registry.ref("acme/skills", "1.2.3"), env=cli_registry_env)
    assert listed(by_tag) == SKILLS
    assert f"{pushed}: pulled" in by_tag.stderr
    assert f"oci-demo 1.2.3 ({pushed})" in by_tag.stderr  # the mount names the digest
    registry.__exit__(None, None, None)  # gone: the digest is served from the cache
    by_digest = serve(str(pushed), env=cli_registry_env)
    assert listed(by_digest) == SKILLS
    assert f"{pushed}: from the cache" in by_digest.stderr
    offline_tag = serve(registry.ref("acme/skills", "1.2.3"), "--offline", env=cli_registry_env)
    assert listed(offline_tag) == SKILLS
    # a tag is asked of the registry when online: down now, a coded error, no hang
    down = serve(registry.ref("acme/skills", "1.2.3"), "--timeout", "5", env=cli_registry_env)
    refused(down, "REG011", 2)


def test_offline_without_a_cached_copy_fails_clearly(
    registry: DistributionRegistry,
    options: ClientOptions,
    bundle: Path,
    cli_registry_env: dict[str, str],
) -> None:
    pushed = _push(registry, bundle, options)
    message = refused(serve(str(pushed), "--offline", env=cli_registry_env), "REG060", 2)
    assert str(pushed) in message
    nowhere = f"oci://127.0.0.1:{closed_port()}/acme/skills:1"
    refused(serve(nowhere, "--timeout", "5", env=cli_registry_env), "REG011", 2)


def test_require_signature_on_a_pulled_bundle(
    registry: DistributionRegistry,
    options: ClientOptions,
    bundle: Path,
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    copy = tmp_path / "signed" / bundle.name
    copy.parent.mkdir()
    copy.write_bytes(bundle.read_bytes())
    private, public = generate_keypair(tmp_path / "keys")
    _, other = generate_keypair(tmp_path / "other-keys")
    unsigned = _push(registry, copy, options)
    message = refused(
        serve(str(unsigned), "--require-signature", "--key", public, env=cli_registry_env),
        "SIG001",
        1,
    )
    assert str(unsigned) in message
    signed = run_cli("sign", copy, "--key", private)
    assert signed.returncode == 0, signed.stderr
    pushed = _push(registry, copy, options, signature_path=Path(f"{copy}.sigstore.json"))
    assert pushed.manifest_digest == unsigned.manifest_digest  # the same bundle, now signed
    tagged = registry.ref("acme/skills", "1.2.3")
    ok = serve(tagged, "--require-signature", "--key", public, env=cli_registry_env)
    assert listed(ok) == SKILLS
    assert f"OK: {pushed} signed by key" in ok.stderr
    wrong = serve(str(pushed), "--require-signature", "--key", other, env=cli_registry_env)
    refused(wrong, "SIG013", 1)


def test_a_cached_digest_imports_no_http_library_and_a_file_no_registry(
    registry: DistributionRegistry,
    options: ClientOptions,
    bundle: Path,
    cli_registry_env: dict[str, str],
) -> None:
    pushed = _push(registry, bundle, options)
    assert listed(serve(str(pushed), env=cli_registry_env))  # now cached

    def imported(proc: subprocess.CompletedProcess[str]) -> set[str]:
        assert proc.returncode == 0, proc.stderr
        return {
            line.rsplit("|", 1)[-1].strip()
            for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line
        }

    hit = imported(serve(str(pushed), env=cli_registry_env, python=("-X", "importtime")))
    assert "skillpack.registry.cache" in hit  # the cache was really read
    assert not {m for m in hit if m.split(".")[0] in ("requests", "urllib3", "typer", "jsonschema")}
    assert "skillpack.registry.transport" not in hit
    plain = imported(serve(bundle, env=cli_registry_env, python=("-X", "importtime")))
    assert not {m for m in plain if m.startswith("skillpack.registry") or m == "requests"}
