"""``skillpack sign`` / ``keygen`` / ``verify`` end to end through the real CLI, against
the local sigstore instance: every signature check and every signed claim."""

from __future__ import annotations

import base64
import hashlib
import json
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from skillpack._internal.schemas import validation_errors
from skillpack._internal.uri import SCHEME, encode_path
from tests._bundles import (
    LOCK,
    Change,
    add_entries,
    edit_lock,
    info,
    rewrite,
    set_entry,
)
from tests.conftest import cli_env
from tests.signing.conftest import CHECKLIST, EMAIL, IDENTITY, payload_of, skillpack
from tests.sigstore_local import DEFAULT_ISSUER, LocalSigstore


def sign_keyless(bundle: Path, instance: LocalSigstore, trust: Path, *extra: str) -> Path:
    proc = skillpack(
        "sign", bundle, "--identity-token", instance.token(), "--trust-config", trust, *extra
    )
    assert proc.returncode == 0, proc.stderr
    signature = bundle.with_name(bundle.name + ".sigstore.json")
    assert f"wrote {signature.name}" in proc.stdout or str(signature) in proc.stdout
    return signature


def verify(bundle: Path, *options: str | Path) -> subprocess.CompletedProcess[str]:
    return skillpack("verify", bundle, *options)


def assert_rejected(proc: subprocess.CompletedProcess[str], code: str, text: str = "") -> None:
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert code in proc.stderr, proc.stderr
    assert text in proc.stderr, proc.stderr
    assert "OK:" not in proc.stdout


def archive_contents(archive: Path) -> tuple[bytes, dict[str, bytes]]:
    """(lock bytes, {uri: bytes}) read with zipfile, independently of skillpack's reader."""
    with zipfile.ZipFile(archive) as zf:
        files = [n for n in zf.namelist() if not n.startswith(".skillpack/")]
        return zf.read(LOCK), {SCHEME + encode_path(n): zf.read(n) for n in files}


#: Changes to a signed archive: (change, what the reader alone says about the result).
TAMPERING: dict[str, tuple[Change, str]] = {
    "file": (set_entry(CHECKLIST, b"- tests fail\n"), "INT001"),  # same size, other bytes
    "lock": (edit_lock(b'version = "1.0.0"', b'version = "6.6.6"'), "BND013"),
    "extra": (add_entries((info("acme/review/evil.sh", 0o100755), b"rm -rf /\n")), "BND011"),
}


@pytest.fixture
def signed(bundle: Path, local_sigstore: LocalSigstore, trust_config: Path) -> Path:
    sign_keyless(bundle, local_sigstore, trust_config)
    return bundle


# ---------------------------------------------------------------- keyless


def test_keyless_round_trip_and_statement(signed: Path, trust_config: Path) -> None:
    signature = signed.with_name("demo.skp.sigstore.json")
    document = json.loads(signature.read_text())
    assert document["mediaType"] == "application/vnd.dev.sigstore.bundle.v0.3+json"
    assert document["dsseEnvelope"]["payloadType"] == "application/vnd.in-toto+json"
    assert document["verificationMaterial"]["tlogEntries"][0]["kindVersion"]["kind"] == "dsse"

    statement = payload_of(signature)
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["predicateType"] == "https://skillpack.dev/bundle/v1"
    archive_sha = hashlib.sha256(signed.read_bytes()).hexdigest()
    assert statement["subject"] == [{"name": "demo.skp", "digest": {"sha256": archive_sha}}]
    lock, contents = archive_contents(signed)
    predicate = statement["predicate"]
    assert validation_errors("bundle-predicate.schema.json", predicate) == []
    assert predicate["lock"]["digest"] == "sha256:" + hashlib.sha256(lock).hexdigest()
    assert predicate["bundle"] == {"name": "demo", "version": "1.0.0"}
    uris = [f["uri"] for f in predicate["files"]]
    assert uris == sorted(contents, key=str.encode)  # every file once, sorted
    assert "skill://acme/review/deep/notes/caf%C3%A9.md" in uris
    for entry in predicate["files"]:
        data = contents[entry["uri"]]
        assert entry["size"] == len(data)
        assert entry["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()

    ok = verify(signed, *IDENTITY, "--trust-config", trust_config)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(f"OK {signed}: ")
    assert f"{len(contents)} files verified" in ok.stdout
    assert f"  signature: verified, signed by {EMAIL} (issuer {DEFAULT_ISSUER})" in ok.stdout


def test_stock_sigstore_cli_accepts_the_signature(signed: Path, trust_config: Path) -> None:
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "sigstore", "--trust-config", str(trust_config)),
            *("verify", "identity", "--offline", *IDENTITY),
            *("--bundle", str(signed) + ".sigstore.json", str(signed)),
        ],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"OK: {signed}" in proc.stderr


def test_ambient_github_credential_and_workflow_policy(
    bundle: Path, local_sigstore: LocalSigstore, trust_config: Path
) -> None:
    signed = skillpack(
        "sign", bundle, "--trust-config", trust_config, env=local_sigstore.github_actions_env()
    )
    assert signed.returncode == 0, signed.stderr
    workflow = local_sigstore.github
    trust = ("--trust-config", trust_config)
    ok = verify(bundle, "--repository", workflow.repository, "--ref", workflow.ref, *trust)
    assert ok.returncode == 0, ok.stderr
    assert f"signed by {workflow.identity}" in ok.stdout
    full = verify(
        bundle,
        *("--cert-identity", workflow.identity, "--repository", workflow.repository),
        *("--workflow-name", workflow.workflow, "--workflow-trigger", workflow.event_name),
        *("--workflow-sha", workflow.sha, "--workflow-ref", workflow.ref),
        *trust,
    )
    assert full.returncode == 0, full.stderr
    assert_rejected(verify(bundle, "--repository", "acme/other", *trust), "SIG004", "acme/other")
    assert_rejected(
        verify(bundle, "--repository", workflow.repository, "--ref", "refs/heads/main", *trust),
        "SIG004",
    )
    # the e-mail identity's issuer is not GitHub's
    assert_rejected(verify(bundle, *IDENTITY, *trust), "SIG004", "OIDCIssuer")


def test_wrong_identity_and_wrong_issuer(signed: Path, trust_config: Path) -> None:
    trust = ("--trust-config", trust_config)
    wrong_identity = verify(
        signed, "--cert-identity", "eve@evil.test", "--cert-oidc-issuer", DEFAULT_ISSUER, *trust
    )
    assert_rejected(wrong_identity, "SIG004", f"signed by {EMAIL}")
    wrong_issuer = verify(
        signed, "--cert-identity", EMAIL, "--cert-oidc-issuer", "https://evil.test", *trust
    )
    assert_rejected(wrong_issuer, "SIG004", "OIDCIssuer does not match")


def test_foreign_and_default_trust_roots(signed: Path, foreign_trust_config: Path) -> None:
    foreign = verify(signed, *IDENTITY, "--trust-config", foreign_trust_config)
    assert_rejected(foreign, "SIG003", "does not chain to the trusted root")
    # offline against the production root shipped with sigstore: not our CA either
    production = verify(signed, *IDENTITY)
    assert_rejected(production, "SIG003")


@pytest.mark.parametrize("case", sorted(TAMPERING))
def test_tampered_archive_is_reported_by_the_signature_check_first(
    case: str, signed: Path, trust_config: Path
) -> None:
    """A changed file, a changed lock or an added file: the reader alone refuses each
    archive with its own code, but with a signature to check, the user is told the
    archive is not the signed one (SIG010), because the signature is checked first."""
    change, reader_code = TAMPERING[case]
    trust = ("--trust-config", trust_config)
    original = signed.read_bytes()
    rewrite(signed, signed, change)
    assert_rejected(verify(signed), reader_code)
    assert_rejected(
        verify(signed, *IDENTITY, *trust), "SIG010", "subject digest does not match the archive"
    )
    signed.write_bytes(original)
    assert verify(signed, *IDENTITY, *trust).returncode == 0


def test_bad_inclusion_proof(signed: Path, trust_config: Path) -> None:
    signature = signed.with_name("demo.skp.sigstore.json")
    document = json.loads(signature.read_text())
    proof = document["verificationMaterial"]["tlogEntries"][0]["inclusionProof"]
    assert proof["hashes"], "the local log is seeded so proofs have a path"
    proof["hashes"][0] = base64.b64encode(b"\x00" * 32).decode()
    signature.write_text(json.dumps(document))
    proc = verify(signed, *IDENTITY, "--trust-config", trust_config)
    assert_rejected(proc, "SIG005", "inclusion proof")


def test_signature_swapped_from_another_bundle(
    signed: Path, other_bundle: Path, local_sigstore: LocalSigstore, trust_config: Path
) -> None:
    other_signature = sign_keyless(other_bundle, local_sigstore, trust_config)
    proc = verify(signed, *IDENTITY, "--trust-config", trust_config, "--signature", other_signature)
    assert_rejected(proc, "SIG010", "other.skp")
    mine = signed.with_name("demo.skp.sigstore.json")
    mine.write_bytes(other_signature.read_bytes())
    assert_rejected(verify(signed, *IDENTITY, "--trust-config", trust_config), "SIG010")


def test_missing_or_garbage_signature(bundle: Path, trust_config: Path) -> None:
    trust = ("--trust-config", trust_config)
    assert_rejected(verify(bundle, *IDENTITY, *trust), "SIG001", "signature file not found")
    bundle.with_name("demo.skp.sigstore.json").write_text("not json")
    assert_rejected(verify(bundle, *IDENTITY, *trust), "SIG002")
    bundle.with_name("demo.skp.sigstore.json").write_text('{"mediaType": "nope"}')
    assert_rejected(verify(bundle, *IDENTITY, *trust), "SIG002")


def test_identity_token_from_the_environment(
    bundle: Path, local_sigstore: LocalSigstore, trust_config: Path
) -> None:
    env = {"SIGSTORE_IDENTITY_TOKEN": local_sigstore.token("env@skillpack.test")}
    assert skillpack("sign", bundle, "--trust-config", trust_config, env=env).returncode == 0
    ok = verify(
        bundle, "--cert-identity", "env@skillpack.test", "--cert-oidc-issuer", DEFAULT_ISSUER,
        "--trust-config", trust_config,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr


def test_sign_without_any_identity_token_fails_with_advice(
    bundle: Path, trust_config: Path
) -> None:
    proc = skillpack("sign", bundle, "--trust-config", trust_config)
    assert proc.returncode == 2
    assert "SIG030 no identity token" in proc.stderr
    assert "id-token: write" in proc.stderr
    assert not bundle.with_name("demo.skp.sigstore.json").exists()


def test_expired_token_is_refused(
    bundle: Path, local_sigstore: LocalSigstore, trust_config: Path
) -> None:
    token = local_sigstore.token(lifetime=-60)
    proc = skillpack("sign", bundle, "--identity-token", token, "--trust-config", trust_config)
    assert proc.returncode == 2
    assert "SIG031" in proc.stderr
    assert not bundle.with_name("demo.skp.sigstore.json").exists()


def test_signature_options_usage_errors(bundle: Path, tmp_path: Path) -> None:
    no_issuer = verify(bundle, "--cert-identity", EMAIL)
    assert no_issuer.returncode == 2
    assert "SIG020 --cert-identity needs --cert-oidc-issuer" in no_issuer.stderr
    mixed = verify(bundle, "--key", tmp_path / "k.pub", *IDENTITY)
    assert mixed.returncode == 2
    assert "SIG020" in mixed.stderr
    both = skillpack("sign", bundle, "--key", tmp_path / "k", "--identity-token", "x")
    assert both.returncode == 2
    assert "SIG020" in both.stderr


# ---------------------------------------------------------------- key mode


@pytest.fixture
def keypair(tmp_path: Path) -> tuple[Path, Path]:
    proc = skillpack("keygen", "--out-dir", tmp_path / "keys")
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "keys" / "skillpack.key", tmp_path / "keys" / "skillpack.pub"


def test_keygen_writes_a_private_key_0600_and_refuses_to_overwrite(
    keypair: tuple[Path, Path],
) -> None:
    key, pub = keypair
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert key.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    assert pub.read_text().startswith("-----BEGIN PUBLIC KEY-----")
    before = key.read_bytes(), pub.read_bytes()
    again = skillpack("keygen", "--out-dir", key.parent)
    assert again.returncode == 2
    assert "SIG033 refusing to overwrite" in again.stderr
    assert (key.read_bytes(), pub.read_bytes()) == before
    assert sorted(p.name for p in key.parent.iterdir()) == ["skillpack.key", "skillpack.pub"]


def test_key_mode_round_trip_and_tampering(
    bundle: Path, keypair: tuple[Path, Path], tmp_path: Path
) -> None:
    key, pub = keypair
    signed = skillpack("sign", bundle, "--key", key)
    assert signed.returncode == 0, signed.stderr
    signature = bundle.with_name("demo.skp.sigstore.json")
    document = json.loads(signature.read_text())
    assert document["verificationMaterial"] == {
        "publicKey": {"hint": hashlib.sha256(pub.read_bytes()).hexdigest()},
        "tlogEntries": [],
    }
    assert payload_of(signature)["predicateType"] == "https://skillpack.dev/bundle/v1"
    ok = verify(bundle, "--key", pub)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("OK ") and "  signature: verified, signed by key " in ok.stdout

    # a different key
    other = skillpack("keygen", "--out-dir", tmp_path / "other")
    assert other.returncode == 0
    assert_rejected(verify(bundle, "--key", tmp_path / "other" / "skillpack.pub"), "SIG013")
    # keyless options against a key-mode signature
    assert_rejected(verify(bundle, *IDENTITY), "SIG014", "--key")

    # a statement edited inside the envelope
    original_signature = signature.read_bytes()
    statement = payload_of(signature)
    statement["predicate"]["lock"]["digest"] = "sha256:" + "0" * 64
    document["dsseEnvelope"]["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    signature.write_text(json.dumps(document))
    assert_rejected(verify(bundle, "--key", pub), "SIG013", "does not verify")
    signature.write_bytes(original_signature)

    # a changed archive: a file, the lock, an extra file
    original = bundle.read_bytes()
    for change, _ in TAMPERING.values():
        rewrite(bundle, bundle, change)
        assert_rejected(verify(bundle, "--key", pub), "SIG010", "does not match the archive")
        bundle.write_bytes(original)
    assert verify(bundle, "--key", pub).returncode == 0


def test_key_mode_with_encrypted_key(bundle: Path, tmp_path: Path) -> None:
    env = {"SKILLPACK_KEY_PASSWORD": "correct horse"}
    assert skillpack("keygen", "--out-dir", tmp_path, env=env).returncode == 0
    key = tmp_path / "skillpack.key"
    assert "ENCRYPTED" in key.read_text()
    no_password = skillpack("sign", bundle, "--key", key)
    assert no_password.returncode == 2
    assert "SIG034" in no_password.stderr and "SKILLPACK_KEY_PASSWORD" in no_password.stderr
    assert skillpack("sign", bundle, "--key", key, env=env).returncode == 0
    assert verify(bundle, "--key", tmp_path / "skillpack.pub").returncode == 0


def test_keyless_signature_checked_with_a_key_is_refused(
    signed: Path, keypair: tuple[Path, Path]
) -> None:
    assert_rejected(verify(signed, "--key", keypair[1]), "SIG014", "keyless")


# ------------------------------------------------ an unchecked signature is said so


def test_verify_says_plainly_when_the_signature_beside_it_was_not_checked(
    bundle: Path, keypair: tuple[Path, Path]
) -> None:
    """Issue 10 §2: a signature beside the bundle, but no identity or key: verify checks
    the contents and says the signature was not checked (text and JSON), never a bare OK
    that reads like a signature check."""
    key, pub = keypair
    unsigned = verify(bundle)
    assert unsigned.returncode == 0
    assert unsigned.stdout.splitlines()[-1] == "  signature: none"
    assert skillpack("sign", bundle, "--key", key).returncode == 0
    proc = verify(bundle)
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.splitlines()[-1]
    assert last.startswith("  signature: present (") and last.endswith(
        "demo.skp.sigstore.json), not checked (give --cert-identity/--repository or --key)"
    ), proc.stdout
    report = json.loads(verify(bundle, "--format", "json").stdout)
    assert report["signature"] is None  # nothing verified: no signer to show
    assert report["signature-status"] == "not-checked"
    assert report["signature-file"].endswith("demo.skp.sigstore.json")
    checked = json.loads(verify(bundle, "--key", pub, "--format", "json").stdout)
    assert checked["signature-status"] == "verified" and checked["signature"]["mode"] == "key"


def test_verify_require_signature_fails_unless_a_signature_verifies(
    bundle: Path, keypair: tuple[Path, Path], tmp_path: Path
) -> None:
    """CI semantics, as serve --require-signature: no signer given is a usage error; no
    signature, or one that does not verify under the policy, fails."""
    key, pub = keypair
    no_policy = verify(bundle, "--require-signature")
    assert no_policy.returncode == 2
    assert no_policy.stderr.startswith(
        "SIG020 no signer to check the signature against\n  hint: pass --cert-identity"
    ), no_policy.stderr
    served = skillpack("serve", bundle, "--require-signature")  # worded as serve's, hint too
    assert (served.returncode, served.stderr) == (2, no_policy.stderr)
    missing = verify(bundle, "--require-signature", "--key", pub)
    assert_rejected(missing, "SIG001")
    assert skillpack("sign", bundle, "--key", key).returncode == 0
    unchecked = verify(bundle, "--require-signature")  # present, but nobody to check it by
    assert unchecked.returncode == 2 and "SIG020" in unchecked.stderr
    assert skillpack("keygen", "--out-dir", tmp_path / "other").returncode == 0
    wrong = verify(bundle, "--require-signature", "--key", tmp_path / "other" / "skillpack.pub")
    assert_rejected(wrong, "SIG013")
    ok = verify(bundle, "--require-signature", "--key", pub)
    assert ok.returncode == 0, ok.stderr
    assert "signed by key" in ok.stdout


HOSTILE_SIGNATURES = {
    "not a sigstore bundle": (b'{"not": "sigstore"}', "neither a public key nor a certificate"),
    "arrays nested 100,000 deep": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    "objects nested 50,000 deep": (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "nested too deeply"),
    "two megabytes of zeros": (b"\0" * (2 << 20), "larger than 1 MiB"),
}


@pytest.mark.parametrize("shape", sorted(HOSTILE_SIGNATURES))
@pytest.mark.parametrize("mode", ["key", "keyless"])
def test_a_hostile_signature_file_is_sig002_never_a_wrong_kind_or_a_crash(
    bundle: Path, keypair: tuple[Path, Path], shape: str, mode: str
) -> None:
    """Issue 21 §1: ``{"not":"sigstore"}`` was called a keyless signature (SIG014) and
    nested JSON a RecursionError (SIG099): each is SIG002, naming the file."""
    data, why = HOSTILE_SIGNATURES[shape]
    Path(f"{bundle}.sigstore.json").write_bytes(data)
    options = ["--key", keypair[1]] if mode == "key" else [*IDENTITY]
    proc = verify(bundle, *options)
    assert_rejected(proc, "SIG002", why)
    assert "demo.skp.sigstore.json: SIG002 " in proc.stderr.splitlines()[0], proc.stderr


def test_a_signature_that_is_a_link_to_an_endless_device_is_read_with_a_bound(
    bundle: Path, keypair: tuple[Path, Path]
) -> None:
    Path(f"{bundle}.sigstore.json").symlink_to("/dev/zero")
    assert_rejected(verify(bundle, "--key", keypair[1]), "SIG002", "larger than 1 MiB")
