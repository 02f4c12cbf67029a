"""``skillpack build --sign``: the real build, then the real signing, end to end against
the local sigstore instance (keyless) and with a key."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
from pathlib import Path

from skillpack.build.builder import build
from skillpack.signing.keys import generate_keypair
from skillpack.signing.policy import SignaturePolicy, SigningOptions
from skillpack.signing.verify import verify_signed_bundle
from skillpack.source.config import resolve_config
from tests.signing.conftest import EMAIL, IDENTITY, payload_of, skillpack
from tests.sigstore_local import LocalSigstore


def build_cli(
    project: Path, out: Path, *extra: str | Path, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    return skillpack("build", project, "-o", out, "--no-lint", *extra, **kwargs)


def test_build_sign_keyless(
    demo_project: Path,
    built_demo: Path,
    local_sigstore: LocalSigstore,
    trust_config: Path,
    tmp_path: Path,
) -> None:
    out = tmp_path / "dist" / "demo.skp"
    token = local_sigstore.token()
    proc = build_cli(
        demo_project, out, "--sign", "--identity-token", token, "--trust-config", trust_config
    )
    assert proc.returncode == 0, proc.stderr
    signature = out.with_name("demo.skp.sigstore.json")
    assert f"signed: wrote {signature}" in proc.stdout
    assert out.read_bytes() == built_demo.read_bytes()  # signing leaves the archive as built
    subject = payload_of(signature)["subject"][0]
    assert subject == {"name": "demo.skp", "digest": {"sha256": _sha(out)}}
    assert json.loads(signature.read_text())["verificationMaterial"]["tlogEntries"]
    ok = skillpack("verify", out, *IDENTITY, "--trust-config", trust_config)
    assert ok.returncode == 0, ok.stderr
    assert f"signed by {EMAIL}" in ok.stdout
    assert sorted(p.name for p in out.parent.iterdir()) == ["demo.skp", "demo.skp.sigstore.json"]


def test_build_sign_with_a_key(demo_project: Path, tmp_path: Path) -> None:
    key, pub = generate_keypair(tmp_path / "keys")
    out = tmp_path / "dist" / "demo.skp"
    proc = build_cli(demo_project, out, "--sign", "--key", key)
    assert proc.returncode == 0, proc.stderr
    signature = out.with_name("demo.skp.sigstore.json")
    hint = json.loads(signature.read_text())["verificationMaterial"]["publicKey"]["hint"]
    assert hint == hashlib.sha256(pub.read_bytes()).hexdigest()
    ok = skillpack("verify", out, "--key", pub)
    assert ok.returncode == 0, ok.stderr
    assert "signed by key" in ok.stdout
    # building again re-signs: the signature is replaced, still valid
    again = build_cli(demo_project, out, "--sign", "--key", key)
    assert again.returncode == 0, again.stderr
    assert skillpack("verify", out, "--key", pub).returncode == 0


def test_the_library_build_signs_too(demo_project: Path, tmp_path: Path) -> None:
    key, pub = generate_keypair(tmp_path / "keys")
    out = tmp_path / "lib.skp"
    result = build(
        resolve_config([demo_project]), output=out, lint=False, sign=SigningOptions(key=key)
    )
    assert result.signature == tmp_path / "lib.skp.sigstore.json"
    verified = verify_signed_bundle(out, SignaturePolicy(key=pub))
    assert verified.statement.archive_digest == result.digest
    unsigned = build(resolve_config([demo_project]), output=tmp_path / "plain.skp", lint=False)
    assert unsigned.signature is None
    assert not (tmp_path / "plain.skp.sigstore.json").exists()


def test_signing_problems_stop_the_build_before_it_starts(
    demo_project: Path, trust_config: Path, tmp_path: Path
) -> None:
    out = tmp_path / "dist" / "demo.skp"
    without_sign = build_cli(demo_project, out, "--key", tmp_path / "absent.key")
    assert without_sign.returncode == 2
    assert "SIG020" in without_sign.stderr and "add --sign" in without_sign.stderr
    no_token = build_cli(demo_project, out, "--sign", "--trust-config", trust_config)
    assert no_token.returncode == 2
    assert "SIG030 no identity token" in no_token.stderr
    bad_key = tmp_path / "bad.key"
    bad_key.write_text("not a key")
    unusable_key = build_cli(demo_project, out, "--sign", "--key", bad_key)
    assert unusable_key.returncode == 2
    assert "SIG034" in unusable_key.stderr
    assert not out.parent.exists()  # nothing was built


def test_an_ambient_identity_token_alone_does_not_sign(
    demo_project: Path, local_sigstore: LocalSigstore, tmp_path: Path
) -> None:
    out = tmp_path / "demo.skp"
    env = {"SIGSTORE_IDENTITY_TOKEN": local_sigstore.token()}
    proc = build_cli(demo_project, out, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "signed" not in proc.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.skp"]


def test_signing_failure_after_the_build_leaves_no_signature(
    demo_project: Path, local_sigstore: LocalSigstore, trust_config: Path, tmp_path: Path
) -> None:
    """The archive is staged, then Fulcio is unreachable: exit 2, and nothing is put in
    place (a failed build replaces nothing): no bundle, no signature, no temporary file,
    not even the directory made for them."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed_port = sock.getsockname()[1]
    document = json.loads(trust_config.read_text())
    document["signingConfig"]["caUrls"][0]["url"] = f"http://127.0.0.1:{closed_port}"
    dead = tmp_path / "dead-fulcio.json"
    dead.write_text(json.dumps(document))
    out = tmp_path / "dist" / "demo.skp"
    token = local_sigstore.token()
    proc = build_cli(demo_project, out, "--sign", "--identity-token", token, "--trust-config", dead)
    assert proc.returncode == 2, proc.stderr
    assert "SIG032 signing failed" in proc.stderr
    assert not out.parent.exists()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
