"""``skillpack push``, ``pull``, ``verify oci://``, ``inspect oci://`` and ``serve oci://``
through the real CLI against real registries (Debian's docker-registry: anonymous,
htpasswd, bearer tokens), with bundles signed in key mode and keylessly against the
local sigstore instance.

Round trips: the pulled bundle is byte for byte the one built. Refusals: each has a
code and an exit status, writes nothing where the bundle was to go, and returns well
within the subprocess timeout (no hang)."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillpack.errors import SkillpackError
from skillpack.signing.keys import generate_keypair
from tests.conftest import cli_env, run_cli
from tests.mcp_wire import HANG_GUARD_S, request_line
from tests.registry.conftest import PASSWORDS, READER, USERS, WRITER, files_under
from tests.registry.fake_registry import FakeRegistry
from tests.registry.servers import DistributionRegistry, TokenServer, closed_port
from tests.signing.conftest import IDENTITY
from tests.sigstore_local import LocalSigstore

#: no run of a command here may take longer (a hang fails the test)
LIMIT = 60.0


def skillpack(
    *args: str | Path, env: dict[str, str], stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return run_cli(
        *args,
        env=env,
        cwd=cwd,
        input=stdin.encode() if stdin is not None else None,
        timeout=LIMIT,
    )


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    return proc


def refused(proc: subprocess.CompletedProcess[str], code: str, exit_code: int) -> str:
    assert proc.returncode == exit_code, (proc.stdout, proc.stderr)
    assert code in proc.stderr, proc.stderr
    assert "wrote" not in proc.stdout
    return proc.stderr


def serve_list(
    *args: str | Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, object]]]:
    """``skillpack serve ARGS`` answering skills/list and one resources/read."""
    requests = request_line(1, "skills/list") + request_line(
        2, "resources/read", uri="skill://review/references/checklist.md"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "skillpack", "serve", *map(str, args)],
        input=requests.decode(),
        capture_output=True,
        text=True,
        env=cli_env(env),
        timeout=HANG_GUARD_S,
    )
    return proc, [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.fixture
def project(bundle: Path, tmp_path: Path) -> Path:
    """A copy of the built bundle in its own directory (its signature goes beside it)."""
    directory = tmp_path / "dist"
    directory.mkdir()
    return Path(shutil.copyfile(bundle, directory / bundle.name))


@pytest.fixture
def keys(tmp_path: Path) -> tuple[Path, Path]:
    return generate_keypair(tmp_path / "keys")


def _pushed_reference(proc: subprocess.CompletedProcess[str], host: str) -> str:
    (line,) = ok(proc).stdout.splitlines()  # stdout is the reference, nothing else
    assert line.startswith(f"oci://{host}/acme/skills@sha256:") and len(line.split("@")[1]) == 71
    return line


def test_key_mode_round_trip_through_the_cli(
    registry: DistributionRegistry,
    project: Path,
    keys: tuple[Path, Path],
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    env = cli_registry_env
    private, public = keys
    built = project.read_bytes()
    ok(skillpack("sign", project, "--key", private, env=env))
    signature = Path(f"{project}.sigstore.json").read_bytes()
    tagged = registry.ref("acme/skills", "1.2.3")
    push = skillpack("push", project, tagged, env=env)
    by_digest = _pushed_reference(push, registry.host)
    assert f"pushed oci-demo 1.2.3 ({len(built)} bytes" in push.stderr
    assert "as referrer sha256:" in push.stderr
    # the same bundle again: the same digest (deterministic manifest)
    assert (
        _pushed_reference(skillpack("push", project, tagged, env=env), registry.host) == by_digest
    )

    out = tmp_path / "out"
    pulled_tag = ok(skillpack("pull", tagged, "--key", public, "-o", out / "a.skp", env=env))
    assert f"pulled {by_digest} (from the registry)" in pulled_tag.stdout
    assert f"OK {by_digest}: oci-demo 1.2.3, 2 skills" in pulled_tag.stdout
    assert "verified; signed by key" in pulled_tag.stdout
    assert (out / "a.skp").read_bytes() == built
    assert (out / "a.skp.sigstore.json").read_bytes() == signature
    pulled_digest = ok(skillpack("pull", by_digest, "--key", public, env=env, cwd=out))
    assert "(from the cache)" in pulled_digest.stdout  # the digest was fetched already
    assert (out / "oci-demo-1.2.3.skp").read_bytes() == built  # NAME-VERSION.skp by default
    # a fresh cache: by digest from the registry
    fresh = {**env, "SKILLPACK_CACHE_DIR": str(tmp_path / "fresh-cache")}
    ok(skillpack("pull", by_digest, "--key", public, "-o", out / "b.skp", env=fresh))
    assert (out / "b.skp").read_bytes() == built
    # the written pair verifies as any bundle file does
    ok(skillpack("verify", out / "b.skp", "--key", public, env=env))
    # a directory where the file should go: refused (a path that cannot be a file: exit 2,
    # before anything is fetched), nothing replaced or left behind
    before = files_under(out)
    refused(skillpack("pull", by_digest, "-o", out, env=env), "OUT002", 2)
    assert files_under(out) == before
    # -o -: the verified bundle on stdout, what was done on stderr, no file written
    piped = subprocess.run(
        [sys.executable, "-m", "skillpack", "pull", by_digest, "--key", public, "-o", "-"],
        env=cli_env(env),
        cwd=out,
        capture_output=True,
        timeout=LIMIT,
    )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == built and b"wrote stdout" in piped.stderr
    assert files_under(out) == before

    verified = ok(skillpack("verify", by_digest, "--key", public, env=env))
    assert f"OK {by_digest}: oci-demo 1.2.3, 2 skills" in verified.stdout
    assert "  signature: verified, signed by key " in verified.stdout
    unsigned_check = ok(skillpack("verify", tagged, env=env))
    assert f"OK {by_digest}: oci-demo 1.2.3, 2 skills" in unsigned_check.stdout
    # no signer to check against: it says whether there is a signature to check
    assert "signature: present (1 signature referrer), not checked" in unsigned_check.stdout
    as_json = json.loads(ok(skillpack("verify", tagged, "-f", "json", env=env)).stdout)
    assert as_json["signature-status"] == "not-checked" and as_json["signature-referrers"] == 1
    inspected = json.loads(ok(skillpack("inspect", by_digest, "--json", env=env)).stdout)
    assert inspected["reference"] == by_digest and inspected["name"] == "oci-demo"
    assert {s["path"] for s in inspected["skills"]} == {"review", "release"}

    proc, responses = serve_list(by_digest, "--require-signature", "--key", public, env=env)
    assert proc.returncode == 0, proc.stderr
    listing, read = responses
    assert {s["uri"] for s in listing["result"]["skills"]} == {  # type: ignore[index]
        "skill://review/SKILL.md",
        "skill://release/SKILL.md",
    }
    assert read["result"]["contents"][0]["text"] == "- [ ] tests\n"  # type: ignore[index]
    assert f"OK: {by_digest} signed by key" in proc.stderr


def test_keyless_round_trip_with_token_auth(
    token_server: TokenServer,
    bearer_registry: DistributionRegistry,
    project: Path,
    sigstore_instance: LocalSigstore,
    sigstore_trust: Path,
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """Signed keylessly by ``push --sign``; pushed with credentials on stdin (a push
    token), pulled with a pull-only account from the environment."""
    env = cli_registry_env
    built = project.read_bytes()
    tagged = bearer_registry.ref("acme/skills", "1.2.3")
    sign = (
        "--sign",
        "--identity-token",
        sigstore_instance.token(),
        "--trust-config",
        sigstore_trust,
    )
    push = skillpack(
        "push", project, tagged, *sign, "--username", WRITER, "--password-stdin",
        env=env, stdin=PASSWORDS[WRITER] + "\n",
    )  # fmt: skip
    by_digest = _pushed_reference(push, bearer_registry.host)
    assert Path(f"{project}.sigstore.json").is_file()  # --sign wrote it, as sign does
    assert PASSWORDS[WRITER] not in push.stdout + push.stderr

    reader = {
        **env,
        "SKILLPACK_REGISTRY_USERNAME": READER,
        "SKILLPACK_REGISTRY_PASSWORD": PASSWORDS[READER],
    }
    policy = (*IDENTITY, "--trust-config", sigstore_trust)
    out = tmp_path / "out"
    ok(skillpack("pull", tagged, *policy, "-o", out / "tag.skp", env=reader))
    fresh = {**reader, "SKILLPACK_CACHE_DIR": str(tmp_path / "fresh-cache")}
    pulled = ok(skillpack("pull", by_digest, *policy, "-o", out / "digest.skp", env=fresh))
    assert f"signed by {IDENTITY[1]}" in pulled.stdout
    assert (out / "tag.skp").read_bytes() == (out / "digest.skp").read_bytes() == built
    ok(skillpack("verify", by_digest, *policy, env=reader))

    proc, responses = serve_list(tagged, "--require-signature", *policy, env=reader)
    assert proc.returncode == 0, proc.stderr
    assert len(responses[0]["result"]["skills"]) == 2  # type: ignore[index]
    assert f"OK: {by_digest} signed by {IDENTITY[1]}" in proc.stderr
    # the reader may not push: refused by the registry, nothing pushed under that tag
    denied = skillpack("push", project, bearer_registry.ref("acme/skills", "2"), env=reader)
    refused(denied, "REG022", 2)


# -- refusals --------------------------------------------------------------------------------


def _nothing_written(directory: Path) -> None:
    assert files_under(directory) == [], files_under(directory)


def test_tampered_registry_storage_is_refused_and_nothing_is_written(
    registry: DistributionRegistry,
    project: Path,
    other_bundle: Path,
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    env = cli_registry_env
    out = tmp_path / "out"
    out.mkdir()
    first = _pushed_reference(
        skillpack("push", project, registry.ref("acme/skills", "1"), env=env), registry.host
    )
    second = _pushed_reference(
        skillpack("push", other_bundle, registry.ref("acme/skills", "2"), env=env), registry.host
    )
    # a manifest for another digest: the storage of the first holds the second's bytes
    first_data = registry.blob_data(first.rpartition("@")[2])
    original_manifest = first_data.read_bytes()
    first_data.write_bytes(registry.blob_data(second.rpartition("@")[2]).read_bytes())
    refused(skillpack("pull", first, "-o", out / "x.skp", env=env), "REG040", 1)
    by_tag = skillpack("pull", registry.ref("acme/skills", "1"), "-o", out / "x.skp", env=env)
    refused(by_tag, "REG041", 1)
    refused(skillpack("verify", first, env=env), "REG040", 1)
    first_data.write_bytes(original_manifest)
    # a blob changed in storage: same size, one bit off
    layer = json.loads(original_manifest)["layers"][0]["digest"]
    blob = registry.blob_data(layer)
    data = blob.read_bytes()
    blob.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    refused(skillpack("pull", first, "-o", out / "x.skp", env=env), "REG042", 1)
    served = serve_list(first, env=env)[0]
    refused(served, "REG042", 1)
    assert served.stdout == ""
    _nothing_written(out)
    assert not [p for p in files_under(tmp_path / "cache") if layer[7:] in p.name]


@pytest.fixture
def other_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.conftest import write_skill

    root = tmp_path_factory.mktemp("other")
    (root / "skillpack.toml").write_text(
        'name = "other"\nversion = "2.0.0"\nroots = ["skills"]\n', encoding="utf-8"
    )
    write_skill(root / "skills", "solo", files={"a.txt": "a\n"})
    out = root / "other-2.0.0.skp"
    ok(run_cli("build", root, "-o", out, "--no-lint"))
    return out


def test_signatures_that_do_not_match_the_policy_are_refused(
    registry: DistributionRegistry,
    project: Path,
    keys: tuple[Path, Path],
    sigstore_instance: LocalSigstore,
    sigstore_trust: Path,
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    env = cli_registry_env
    out = tmp_path / "out"
    out.mkdir()
    private, public = keys
    _, other_public = generate_keypair(tmp_path / "other-keys")
    unsigned = _pushed_reference(
        skillpack("push", project, registry.ref("acme/skills", "unsigned"), env=env),
        registry.host,
    )
    # no signature, but identity options: a refusal, not an unchecked bundle
    policy = (*IDENTITY, "--trust-config", sigstore_trust)
    message = refused(
        skillpack("pull", unsigned, *policy, "-o", out / "x.skp", env=env), "SIG001", 1
    )
    assert unsigned in message
    refused(skillpack("pull", unsigned, "--key", public, "-o", out / "x.skp", env=env), "SIG001", 1)
    refused(skillpack("verify", unsigned, "--key", public, env=env), "SIG001", 1)

    key_signed = tmp_path / "key" / project.name
    key_signed.parent.mkdir()
    shutil.copyfile(project, key_signed)
    signed = _pushed_reference(
        skillpack("push", key_signed, registry.ref("acme/skills", "key"), "--sign", "--key",
                  private, env=env),
        registry.host,
    )  # fmt: skip
    assert signed == unsigned  # the same bundle: its manifest now has a signature referrer
    wrong_key = skillpack("pull", signed, "--key", other_public, "-o", out / "x.skp", env=env)
    refused(wrong_key, "SIG013", 1)
    # a key-mode signature where a keyless identity is asked for
    refused(skillpack("pull", signed, *policy, "-o", out / "x.skp", env=env), "SIG014", 1)

    keyless = tmp_path / "keyless" / project.name
    keyless.parent.mkdir()
    shutil.copyfile(project, keyless)
    ok(skillpack("sign", keyless, "--identity-token", sigstore_instance.token("someone@else.test"),
                 "--trust-config", sigstore_trust, env=env))  # fmt: skip
    ok(skillpack("push", keyless, registry.ref("acme/skills", "keyless"), env=env))
    # two referrers now (one key-mode, one keyless by someone else): neither is ours
    wrong_identity = skillpack("pull", signed, *policy, "-o", out / "x.skp", env=env)
    message = refused(wrong_identity, "SIG0", 1)
    assert "SIG004" in message and "other signature(s) refused too" in message
    served = serve_list(signed, "--require-signature", *policy, env=env)[0]
    refused(served, "SIG004", 1)
    assert served.stdout == ""
    _nothing_written(out)
    # an existing file is not replaced by a refused pull
    kept = out / "kept.skp"
    kept.write_bytes(b"the previous release")
    refused(skillpack("pull", signed, *policy, "-o", kept, env=env), "SIG004", 1)
    assert files_under(out) == [kept] and kept.read_bytes() == b"the previous release"
    kept.unlink()
    # the right key among the two: accepted
    ok(skillpack("pull", signed, "--key", public, "-o", out / "x.skp", env=env))


def test_a_stale_signature_beside_the_bundle_is_not_pushed(
    registry: DistributionRegistry,
    project: Path,
    other_bundle: Path,
    keys: tuple[Path, Path],
    cli_registry_env: dict[str, str],
) -> None:
    env = cli_registry_env
    ok(skillpack("sign", other_bundle, "--key", keys[0], env=env))
    shutil.copyfile(f"{other_bundle}.sigstore.json", f"{project}.sigstore.json")
    proc = skillpack("push", project, registry.ref("acme/skills", "1"), env=env)
    refused(proc, "SIG010", 1)
    assert proc.stdout == ""
    with urllib.request.urlopen(f"http://{registry.host}/v2/_catalog", timeout=5) as answer:
        assert json.load(answer)["repositories"] == []  # refused before anything was sent


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections and never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        yield int(server.getsockname()[1])


def test_unreachable_registries_and_wrong_credentials_are_refused_without_hanging(
    basic_registry: DistributionRegistry,
    project: Path,
    silent_port: int,
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    env = cli_registry_env
    out = tmp_path / "out"
    out.mkdir()
    down = f"oci://127.0.0.1:{closed_port()}/acme/skills:1"
    refused(skillpack("pull", down, "-o", out / "x.skp", env=env), "REG011", 2)
    refused(skillpack("push", project, down, env=env), "REG011", 2)
    silent = f"oci://127.0.0.1:{silent_port}/acme/skills:1"
    message = refused(
        skillpack("pull", silent, "--timeout", "2", "-o", out / "x.skp", env=env), "REG012", 2
    )
    assert f"127.0.0.1:{silent_port}" in message
    refused(serve_list(silent, "--timeout", "2", env=env)[0], "REG012", 2)

    tagged = basic_registry.ref("acme/skills", "1")
    wrong = skillpack(
        "push", project, tagged, "--username", "alice", "--password-stdin",
        env=env, stdin="not-the-password\n",
    )  # fmt: skip
    message = refused(wrong, "REG021", 2)
    assert "not-the-password" not in message
    refused(skillpack("pull", tagged, "-o", out / "x.skp", env=env), "REG020", 2)
    right = ("--username", "alice", "--password-stdin")
    ok(skillpack("push", project, tagged, *right, env=env, stdin=USERS["alice"]))
    ok(skillpack("pull", tagged, *right, "-o", out / "ok.skp", env=env, stdin=USERS["alice"]))
    assert (out / "ok.skp").read_bytes() == project.read_bytes()
    (out / "ok.skp").unlink()
    (out / "ok.skp.sigstore.json").unlink(missing_ok=True)
    bad = {**env, "SKILLPACK_REGISTRY_USERNAME": "alice", "SKILLPACK_REGISTRY_PASSWORD": "nope"}
    refused(skillpack("pull", tagged, "-o", out / "x.skp", env=bad), "REG021", 2)
    _nothing_written(out)


def test_usage_errors_name_the_option(
    project: Path, cli_registry_env: dict[str, str], tmp_path: Path
) -> None:
    env = cli_registry_env
    ref = f"oci://127.0.0.1:{closed_port()}/acme/skills"
    refused(skillpack("pull", ref, env=env), "REG006", 2)  # no tag, no digest
    refused(skillpack("push", project, ref + "@sha256:" + "0" * 64, env=env), "REG007", 2)
    refused(skillpack("push", project, "ghcr.io/acme/skills:1", env=env), "REG001", 2)
    alone = skillpack("pull", ref + ":1", "--username", "alice", env=env)
    assert "--password-stdin" in refused(alone, "REG025", 2)
    empty = skillpack("pull", ref + ":1", "--username", "a", "--password-stdin", env=env, stdin="")
    refused(empty, "REG025", 2)
    refused(skillpack("push", project, ref + ":1", "--key", "k", env=env), "SIG020", 2)
    issuer = skillpack("pull", ref + ":1", "--cert-identity", "a@b.c", env=env)
    refused(issuer, "SIG020", 2)  # bad options stop before the registry is asked
    offline = skillpack("pull", ref + "@sha256:" + "1" * 64, "--offline", env=env)
    refused(offline, "REG060", 2)
    _nothing_written(tmp_path / "cache")


# -- the manifest, referrers and files beside a pull ----------------------------------------


def _manifest(registry: DistributionRegistry, reference: str) -> dict[str, object]:
    repository, _, digest = reference.removeprefix(f"oci://{registry.host}/").partition("@")
    request = urllib.request.Request(
        f"http://{registry.host}/v2/{repository}/manifests/{digest}",
        headers={"Accept": "application/vnd.oci.image.manifest.v1+json"},
    )
    with urllib.request.urlopen(request, timeout=5) as answer:
        return json.load(answer)  # type: ignore[no-any-return]


def test_the_manifest_digest_does_not_depend_on_the_file_names(
    registry: DistributionRegistry,
    project: Path,
    keys: tuple[Path, Path],
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """The same signed bundle pushed as dist/oci-demo-1.2.3.skp and as renamed.skp (its
    signature renamed with it): the same manifest and the same signature referrer; the
    titles come from the verified lock's name and version."""
    env = cli_registry_env
    ok(skillpack("sign", project, "--key", keys[0], env=env))
    renamed = tmp_path / "elsewhere" / "renamed.skp"
    renamed.parent.mkdir()
    shutil.copyfile(project, renamed)
    shutil.copyfile(f"{project}.sigstore.json", f"{renamed}.sigstore.json")
    first = skillpack("push", project, registry.ref("acme/skills", "a"), env=env)
    second = skillpack("push", renamed, registry.ref("acme/skills", "b"), env=env)
    assert _pushed_reference(first, registry.host) == _pushed_reference(second, registry.host)

    def referrer(proc: subprocess.CompletedProcess[str]) -> str:
        (line,) = [line for line in proc.stderr.splitlines() if "as referrer" in line]
        return line.rpartition(" ")[2]

    assert referrer(first) == referrer(second)
    manifest = _manifest(registry, first.stdout.strip())
    assert manifest["annotations"]["org.opencontainers.image.title"] == "oci-demo-1.2.3.skp"  # type: ignore[index]
    (layer,) = manifest["layers"]  # type: ignore[misc]
    assert layer["annotations"] == {"org.opencontainers.image.title": "oci-demo-1.2.3.skp"}
    signature = _manifest(registry, first.stdout.strip().rpartition("@")[0] + "@" + referrer(first))
    (sig_layer,) = signature["layers"]  # type: ignore[misc]
    assert sig_layer["annotations"] == {
        "org.opencontainers.image.title": "oci-demo-1.2.3.skp.sigstore.json"
    }


def _delete_manifest(registry: DistributionRegistry, repository: str, digest: str) -> None:
    request = urllib.request.Request(
        f"http://{registry.host}/v2/{repository}/manifests/{digest}", method="DELETE"
    )
    with urllib.request.urlopen(request, timeout=5) as answer:
        assert answer.status == 202


def _referrer_of(push: subprocess.CompletedProcess[str]) -> str:
    (line,) = [line for line in push.stderr.splitlines() if "as referrer" in line]
    return line.rpartition(" ")[2]


def test_a_signature_referrer_deleted_from_the_registry_is_skipped(
    registry: DistributionRegistry,
    project: Path,
    keys: tuple[Path, Path],
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """The referrers tag schema's index still lists the signature manifest, which is gone
    (404). A pull without signature options does not need it: pulled, with a note. With
    signature options there is no signature left: SIG001 (exit 1), never REG030."""
    env = cli_registry_env
    private, public = keys
    tagged = registry.ref("acme/skills", "1")
    push = skillpack("push", project, tagged, "--sign", "--key", private, env=env)
    by_digest = _pushed_reference(push, registry.host)
    _delete_manifest(registry, "acme/skills", _referrer_of(push))
    out = tmp_path / "out"
    out.mkdir()

    pulled = ok(skillpack("pull", tagged, "-o", out / "a.skp", env=env))
    assert "gone from the registry (HTTP 404): skipped" in pulled.stderr
    assert files_under(out) == [out / "a.skp"]  # no signature to write beside it
    assert (out / "a.skp").read_bytes() == project.read_bytes()
    checked = ok(skillpack("verify", tagged, env=env))
    assert "signature: none" in checked.stdout  # the only referrer is gone
    assert "gone from the registry (HTTP 404): skipped" in checked.stderr

    fresh = {**env, "SKILLPACK_CACHE_DIR": str(tmp_path / "fresh-cache")}
    for environment in (env, fresh):  # the cache's record, and the registry itself
        message = refused(
            skillpack("pull", by_digest, "--key", public, "-o", out / "b.skp", env=environment),
            "SIG001",
            1,
        )
        assert "gone from the registry (HTTP 404)" in message and "REG030" not in message
    refused(skillpack("verify", tagged, "--key", public, env=fresh), "SIG001", 1)
    for environment in (env, {**env, "SKILLPACK_CACHE_DIR": str(tmp_path / "serve-cache")}):
        served = serve_list(tagged, "--require-signature", "--key", public, env=environment)[0]
        assert "REG030" not in refused(served, "SIG001", 1)
        assert served.stdout == ""
    assert files_under(out) == [out / "a.skp"]


def test_signature_referrers_that_cannot_be_fetched_stop_only_what_needs_them(
    registry: DistributionRegistry,
    project: Path,
    keys: tuple[Path, Path],
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """The signature blob changed in the registry's storage: a pull without signature
    options is not about signatures (pulled, a note, no signature written); with
    --key it is a failed check (REG042, exit 1), and the cache recorded no referrers."""
    env = cli_registry_env
    private, public = keys
    tagged = registry.ref("acme/skills", "1")
    push = skillpack("push", project, tagged, "--sign", "--key", private, env=env)
    _pushed_reference(push, registry.host)
    signature = _manifest(registry, f"oci://{registry.host}/acme/skills@{_referrer_of(push)}")
    blob = registry.blob_data(signature["layers"][0]["digest"])  # type: ignore[index]
    data = blob.read_bytes()
    blob.write_bytes(data[:-2] + b"\n\n")
    out = tmp_path / "out"
    out.mkdir()
    pulled = ok(skillpack("pull", tagged, "-o", out / "a.skp", env=env))
    assert "note: the signature referrer" in pulled.stderr and "REG042" in pulled.stderr
    assert files_under(out) == [out / "a.skp"]
    refused(skillpack("pull", tagged, "--key", public, "-o", out / "b.skp", env=env), "REG042", 1)
    refused(serve_list(tagged, "--require-signature", "--key", public, env=env)[0], "REG042", 1)
    assert files_under(out) == [out / "a.skp"]
    blob.write_bytes(data)  # repaired: the next pull fetches the referrers again
    ok(skillpack("pull", tagged, "--key", public, "-o", out / "b.skp", env=env))


def test_an_unsigned_pull_never_lands_beside_another_archives_signature(
    registry: DistributionRegistry,
    project: Path,
    other_bundle: Path,
    keys: tuple[Path, Path],
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """out.skp.sigstore.json from an earlier pull of another bundle: pulling an unsigned
    bundle to out.skp removes it (verify --key then says SIG001, no signature, not a
    mismatch); a signature of this very archive is kept; a write that fails puts the
    old signature back."""
    env = cli_registry_env
    private, public = keys
    signed = _pushed_reference(
        skillpack("push", other_bundle, registry.ref("acme/skills", "other"), "--sign", "--key",
                  private, env=env),
        registry.host,
    )  # fmt: skip
    unsigned = _pushed_reference(
        skillpack("push", project, registry.ref("acme/skills", "1"), env=env), registry.host
    )
    out = tmp_path / "out"
    target = out / "out.skp"
    ok(skillpack("pull", signed, "--key", public, "-o", target, env=env))
    ok(skillpack("verify", target, "--key", public, env=env))
    pulled = ok(skillpack("pull", unsigned, "-o", target, env=env))
    assert "removed" in pulled.stdout and "out.skp.sigstore.json" in pulled.stdout
    assert files_under(out) == [target] and target.read_bytes() == project.read_bytes()
    ok(skillpack("verify", target, env=env))
    refused(skillpack("verify", target, "--key", public, env=env), "SIG001", 1)

    # a signature of this archive (signed here, never pushed) stays beside it
    ok(skillpack("sign", target, "--key", private, env=env))
    kept = Path(f"{target}.sigstore.json").read_bytes()
    again = ok(skillpack("pull", unsigned, "-o", target, env=env))
    assert "removed" not in again.stdout
    assert Path(f"{target}.sigstore.json").read_bytes() == kept
    ok(skillpack("verify", target, "--key", public, env=env))

    # a path that cannot be the bundle (a directory): refused before anything, the
    # signature beside it untouched
    blocked = out / "blocked.skp"
    (blocked / "x").mkdir(parents=True)
    stale = Path(f"{blocked}.sigstore.json")
    stale.write_bytes(b"an old signature")
    refused(skillpack("pull", unsigned, "-o", blocked, env=env), "OUT002", 2)
    assert stale.read_bytes() == b"an old signature"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["out.skp", "out.skp.sigstore.json", "blocked.skp", "blocked.skp.sigstore.json"]
    )


def test_a_stale_signature_set_aside_is_put_back_when_the_bundle_cannot_be_written(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The bundle's commit fails (a full disk, say) after the stale signature was set
    aside: it is put back, the old bundle stays, nothing else is left."""
    import errno

    from skillpack._internal import fsutil
    from skillpack.bundle.reader import open_bundle
    from skillpack.fetch import Fetched
    from skillpack.fetch.pulled import write_pulled
    from skillpack.registry import FetchResult
    from skillpack.registry.reference import parse_reference

    digest = "sha256:" + hashlib.sha256(project.read_bytes()).hexdigest()
    fetched = FetchResult(
        reference=parse_reference("oci://127.0.0.1:5000/acme/skills@sha256:" + "a" * 64),
        manifest_digest="sha256:" + "a" * 64,
        manifest=b"{}",
        bundle_path=project,
        bundle_digest=digest,
        bundle_size=project.stat().st_size,
        name=None,
        version=None,
        signatures=(),
        from_cache=True,
    )
    bundle = open_bundle(project, mode="full")
    request.addfinalizer(bundle.close)
    pulled = Fetched(bundle, str(fetched.reference), None, digest, digest, fetch=fetched)
    out = tmp_path / "out"
    out.mkdir()
    target = out / "out.skp"
    target.write_bytes(b"the previous bundle")
    Path(f"{target}.sigstore.json").write_bytes(b"the previous bundle's signature")

    def full(self: fsutil.Output) -> None:
        raise self.error(OSError(errno.ENOSPC, "No space left on device"))

    monkeypatch.setattr(fsutil.Output, "commit", full)
    with pytest.raises(SkillpackError) as info:
        write_pulled(pulled, target)
    assert info.value.code == "OUT003"
    assert sorted(p.name for p in out.iterdir()) == ["out.skp", "out.skp.sigstore.json"]
    assert target.read_bytes() == b"the previous bundle"
    assert Path(f"{target}.sigstore.json").read_bytes() == b"the previous bundle's signature"
    monkeypatch.undo()
    written = write_pulled(pulled, target)
    assert written.removed == Path(f"{target}.sigstore.json")
    assert sorted(p.name for p in out.iterdir()) == ["out.skp"]
    assert target.read_bytes() == project.read_bytes()


# -- credentials: only the ones meant for this registry --------------------------------------


def _netrc(tmp_path: Path, login: str, password: str) -> dict[str, str]:
    path = tmp_path / "netrc"
    path.write_text(f"machine 127.0.0.1 login {login} password {password}\n", encoding="utf-8")
    path.chmod(0o600)
    return {"NETRC": str(path)}


def test_a_netrc_entry_for_the_registry_host_is_never_used(
    basic_registry: DistributionRegistry,
    token_server: TokenServer,
    bearer_registry: DistributionRegistry,
    project: Path,
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """requests would read ~/.netrc or $NETRC (trust_env) and put its credentials over
    the client's own Authorization header, and on the first, anonymous request."""
    # a wrong password in netrc: --username with --password-stdin still pushes (the
    # token server gets the right one)
    wrong = {**cli_registry_env, **_netrc(tmp_path, WRITER, "netrc-Wrong-pw")}
    tagged = bearer_registry.ref("acme/skills", "1")
    ok(skillpack("push", project, tagged, "--username", WRITER, "--password-stdin",
                 env=wrong, stdin=PASSWORDS[WRITER]))  # fmt: skip
    assert all(not r.get("refused") for r in token_server.requests)
    # the right password in netrc: not used either (no credentials given: REG020)
    right = {**cli_registry_env, **_netrc(tmp_path, "alice", USERS["alice"])}
    basic = basic_registry.ref("acme/skills", "1")
    refused(skillpack("push", project, basic, env=right), "REG020", 2)
    ok(skillpack("push", project, basic, "--username", "alice", "--password-stdin",
                 env=right, stdin=USERS["alice"]))  # fmt: skip
    refused(skillpack("pull", basic, "-o", tmp_path / "x.skp", env=right), "REG020", 2)
    refused(serve_list(basic, env=right)[0], "REG020", 2)
    assert not (tmp_path / "x.skp").exists()


def test_environment_credentials_go_to_one_registry_only(
    basic_registry: DistributionRegistry,
    fake: FakeRegistry,
    project: Path,
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """SKILLPACK_REGISTRY_USERNAME/PASSWORD are offered to the registry SKILLPACK_REGISTRY
    names, else to the registry of the command's own reference, and serve with sources
    on several registries offers them to none: another registry that asks for
    credentials (the fake one, recording every Authorization header) never gets them."""
    fake.challenge = 'Basic realm="elsewhere"'
    ok(skillpack("push", project, basic_registry.ref("acme/skills", "1"), "--username", "alice",
                 "--password-stdin", env=cli_registry_env, stdin=USERS["alice"]))  # fmt: skip
    creds = {
        **cli_registry_env,
        "SKILLPACK_REGISTRY_USERNAME": "alice",
        "SKILLPACK_REGISTRY_PASSWORD": USERS["alice"],
    }
    pinned = {**creds, "SKILLPACK_REGISTRY": basic_registry.host}
    basic, other = basic_registry.ref("acme/skills", "1"), fake.ref("acme/skills", "1")
    out = tmp_path / "out"

    ok(skillpack("pull", basic, "-o", out / "a.skp", env=pinned))
    message = refused(skillpack("pull", other, "-o", out / "b.skp", env=pinned), "REG020", 2)
    assert f"SKILLPACK_REGISTRY={fake.host}" in message  # says why they were not offered
    served = serve_list(basic, other, env=pinned)[0]  # the first pulled, the other refused
    assert f"oci://{basic_registry.host}/acme/skills@sha256:" in served.stderr
    assert ": pulled (" in served.stderr
    refused(served, "REG020", 2)
    # no SKILLPACK_REGISTRY: serve's sources are on two registries, so neither gets them
    refused(serve_list(other, basic, env=creds)[0], "REG020", 2)
    refused(serve_list(basic, other, env=creds)[0], "REG020", 2)
    assert fake.authorizations == []
    assert USERS["alice"] not in message
    # the command's own reference: the one registry they are offered to (the fake one
    # takes any credentials, then has no such manifest)
    refused(skillpack("pull", other, "-o", out / "b.skp", env=creds), "REG030", 2)
    assert fake.authorizations and all(a.startswith("Basic ") for a in fake.authorizations)
    # SKILLPACK_REGISTRY must be host[:port]
    bad = {**creds, "SKILLPACK_REGISTRY": f"https://{basic_registry.host}/v2/"}
    refused(skillpack("pull", basic, "-o", out / "c.skp", env=bad), "REG025", 2)
    assert files_under(out) == [out / "a.skp"]


def test_registry_failures_show_the_http_status(
    token_server: TokenServer,
    bearer_registry: DistributionRegistry,
    project: Path,
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    env = cli_registry_env
    tagged = bearer_registry.ref("acme/skills", "1")
    # the token server refuses the password: its 401 is shown, not only the code
    wrong = skillpack("push", project, tagged, "--username", WRITER, "--password-stdin",
                      env=env, stdin="not-the-password")  # fmt: skip
    message = refused(wrong, "REG021", 2)
    assert "the token server" in message and "\n  HTTP 401" in message
    assert "not-the-password" not in message
    # a tag that is not there
    absent = skillpack("pull", tagged, "--username", READER, "--password-stdin",
                       "-o", tmp_path / "x.skp", env=env, stdin=PASSWORDS[READER])  # fmt: skip
    message = refused(absent, "REG030", 2)
    assert "HTTP 404" in message and "MANIFEST_UNKNOWN" in message
    # a token server that answers 200 without a token (a fake registry's /v2/ answers
    # {}): REG023 with its status
    with FakeRegistry() as realm, FakeRegistry() as fake:
        fake.challenge = f'Bearer realm="http://{realm.host}/v2/",service="fake"'
        broken = skillpack("pull", fake.ref("acme/skills", "1"), "-o", tmp_path / "x.skp",
                           env=env)  # fmt: skip
    message = refused(broken, "REG023", 2)
    assert "sent no token" in message and "\n  HTTP 200" in message
    assert not (tmp_path / "x.skp").exists()


# -- the cache: a bundle blob hashed when written, not on every read -------------------------


def _cached_blob(env: dict[str, str], digest: str) -> Path:
    return Path(env["SKILLPACK_CACHE_DIR"]) / "oci" / "blobs" / "sha256" / digest[7:]


def _forge_stamp(env: dict[str, str], digest: str) -> None:
    """Make the stamp match the changed file, as if its bytes had rotted on the disk
    without any write (which changes nothing a stat shows)."""
    status = _cached_blob(env, digest).stat()
    stamp = Path(env["SKILLPACK_CACHE_DIR"]) / "oci" / "stamps" / "sha256" / digest[7:]
    assert stamp.is_file()
    stamp.write_text(
        f"{status.st_size} {status.st_mtime_ns} {status.st_ctime_ns} "
        f"{status.st_ino} {status.st_dev}\n"
    )


def _flip(path: Path, offset: int) -> None:
    with path.open("r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0xFF]))


def test_a_cached_bundle_that_changed_is_fetched_again(
    registry: DistributionRegistry,
    project: Path,
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """A cached blob is not hashed on every read: its stamp (size, times, inode) says
    it is the file whose digest was checked. A blob written since (stamp differs) is
    hashed; one changed without a trace (the stamp forged here) is caught by the
    verification (pull) or the reader (serve). Either way the copy is removed and
    fetched again; offline, it is missing (REG060)."""
    env = cli_registry_env
    reference = _pushed_reference(
        skillpack("push", project, registry.ref("acme/skills", "1"), env=env), registry.host
    )
    layer = _manifest(registry, reference)["layers"][0]["digest"]  # type: ignore[index]
    out = tmp_path / "out"
    ok(skillpack("pull", reference, "-o", out / "a.skp", env=env))
    blob = _cached_blob(env, layer)
    assert blob.read_bytes() == project.read_bytes()
    cached = ok(skillpack("pull", reference, "-o", out / "a.skp", env=env))
    assert "(from the cache)" in cached.stdout

    middle = blob.stat().st_size // 2
    _flip(blob, middle)  # a write: the stamp no longer matches
    again = ok(skillpack("pull", reference, "-o", out / "b.skp", env=env))
    assert "(from the registry)" in again.stdout
    assert (out / "b.skp").read_bytes() == project.read_bytes() == blob.read_bytes()

    _flip(blob, middle)
    _forge_stamp(env, layer)  # unchanged to a stat: the full verification finds it
    again = ok(skillpack("pull", reference, "-o", out / "c.skp", env=env))
    assert "(from the registry)" in again.stdout
    assert (out / "c.skp").read_bytes() == project.read_bytes() == blob.read_bytes()
    ok(skillpack("verify", reference, env=env))

    # serve (by tag): the central directory's end record broken without a trace: the
    # reader refuses to open it, the copy is hashed, found changed and fetched again,
    # by digest
    end = project.read_bytes().rfind(b"PK\x05\x06")
    _flip(blob, end)
    _forge_stamp(env, layer)
    proc, responses = serve_list(registry.ref("acme/skills", "1"), env=env)
    assert proc.returncode == 0, proc.stderr
    assert "the cached copy had changed since it was fetched" in proc.stderr
    assert len(responses[0]["result"]["skills"]) == 2  # type: ignore[index]
    assert blob.read_bytes() == project.read_bytes()
    # a change a stat shows: hashed at once, before anything is opened
    _flip(blob, middle)
    proc, responses = serve_list(reference, env=env)
    assert proc.returncode == 0 and f"{reference}: pulled" in proc.stderr, proc.stderr
    # offline, a changed copy is a missing one
    _flip(blob, middle)
    refused(skillpack("pull", reference, "--offline", "-o", out / "d.skp", env=env), "REG060", 2)
    assert not blob.exists()  # removed: the next online fetch gets it again
    assert sorted(p.name for p in out.iterdir()) == ["a.skp", "b.skp", "c.skp"]
