"""The signing library with the real bundle reader: the statement, checks a CLI round
trip cannot reach (a signer that signed a wrong lock, file list or a bad archive),
the order of the checks, fail-closed behaviour, and the option tables shared by typer
and argparse."""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest

from skillpack._internal.fsutil import atomic_write
from skillpack.bundle.reader import Bundle, open_bundle
from skillpack.bundle.verify import verify_bundle
from skillpack.errors import SkillpackError
from skillpack.signing.keys import generate_keypair, load_private_key, sign_with_key
from skillpack.signing.options import POLICY_OPTIONS, add_policy_arguments, policy_from_args
from skillpack.signing.policy import GITHUB_ISSUER, SignaturePolicy, SigningOptions
from skillpack.signing.sign import sign_bundle, sign_statement, statement_for
from skillpack.signing.statement import (
    BundleStatement,
    SignedFile,
    make_statement,
    parse_statement,
)
from skillpack.signing.verify import require_signature, verify_signed_bundle
from tests._bundles import add_entries, info, rewrite, set_entry
from tests.signing.conftest import EMAIL, LOGO
from tests.sigstore_local import DEFAULT_ISSUER, LocalSigstore


def _code(exc: pytest.ExceptionInfo[SkillpackError]) -> str:
    return exc.value.code


@pytest.fixture
def keys(tmp_path: Path) -> tuple[Path, Path]:
    return generate_keypair(tmp_path / "keys")


def _key_policy(keys: tuple[Path, Path]) -> SignaturePolicy:
    return SignaturePolicy(key=keys[1])


def _sign_raw(bundle: Path, statement: BundleStatement, keys: tuple[Path, Path]) -> None:
    """Sign ``statement`` as it is: a signer that made a mistake, or lies."""
    data = sign_with_key(statement, load_private_key(keys[0]))
    atomic_write(bundle.with_name(bundle.name + ".sigstore.json"), data)


# ---------------------------------------------------------------- statement


def test_statement_is_deterministic_sorted_and_parses_back(bundle: Path) -> None:
    first = statement_for(bundle)
    second = statement_for(bundle)
    assert first.to_bytes() == second.to_bytes()
    uris = [f.uri for f in first.files]
    assert uris == sorted(uris, key=str.encode)
    assert len(uris) == len(set(uris))  # nested skills' files appear once
    assert parse_statement(first.to_bytes(), "x") == first
    body = json.loads(first.to_bytes())
    assert body["subject"][0]["digest"]["sha256"] == hashlib.sha256(bundle.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda s: s.update(predicateType="https://slsa.dev/provenance/v1"), "SIG009"),
        (lambda s: s.update(_type="https://in-toto.io/Statement/v0.1"), "SIG008"),
        (lambda s: s["subject"].append(dict(s["subject"][0])), "SIG008"),
        (lambda s: s["subject"][0].update(digest={"sha512": "00"}), "SIG008"),
        (lambda s: s["predicate"].update(extra=1), "SIG008"),
        (lambda s: s["predicate"]["files"][0].update(size=-1), "SIG008"),
        (lambda s: s["predicate"]["lock"].update(digest="md5:00"), "SIG008"),
    ],
)
def test_parse_statement_rejects_foreign_or_malformed(bundle: Path, mutate, code: str) -> None:
    body = json.loads(statement_for(bundle).to_bytes())
    mutate(body)
    with pytest.raises(SkillpackError) as exc:
        parse_statement(json.dumps(body).encode(), "sig.json")
    assert _code(exc) == code


def test_make_statement_refuses_bad_inputs(bundle: Path) -> None:
    with open_bundle(bundle) as content:
        with pytest.raises(ValueError, match="bare file name"):
            make_statement(
                "dist/demo.skp", "sha256:" + "0" * 64, "sha256:" + "0" * 64, content.manifest
            )
        with pytest.raises(ValueError, match="archive digest"):
            make_statement("demo.skp", "0" * 64, "sha256:" + "0" * 64, content.manifest)


# ---------------------------------------------------------------- checks after the signature


def test_signed_lock_digest_must_be_the_lock_in_the_archive(
    bundle: Path, keys: tuple[Path, Path]
) -> None:
    honest = statement_for(bundle)
    _sign_raw(bundle, replace(honest, lock_digest="sha256:" + "1" * 64), keys)
    with pytest.raises(SkillpackError) as exc:
        verify_signed_bundle(bundle, _key_policy(keys))
    assert _code(exc) == "SIG011"
    assert "not the signed lock" in str(exc.value)


def test_signed_file_list_must_be_the_lock_file_list(bundle: Path, keys: tuple[Path, Path]) -> None:
    honest = statement_for(bundle)
    dropped = replace(honest, files=honest.files[1:])
    _sign_raw(bundle, dropped, keys)
    with pytest.raises(SkillpackError) as exc:
        verify_signed_bundle(bundle, _key_policy(keys))
    assert _code(exc) == "SIG012"
    assert f"not signed: {honest.files[0].uri}" in str(exc.value)

    changed = SignedFile(honest.files[0].uri, "sha256:" + "2" * 64, honest.files[0].size)
    _sign_raw(bundle, replace(honest, files=(changed, *honest.files[1:])), keys)
    with pytest.raises(SkillpackError) as exc:
        verify_signed_bundle(bundle, _key_policy(keys))
    assert _code(exc) == "SIG012"
    assert "differs from the signed entry" in str(exc.value)


def _sha(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_signed_archive_the_reader_refuses_is_refused(
    bundle: Path, keys: tuple[Path, Path]
) -> None:
    """A signer that signed a bad archive: the lock is honest, a file's bytes are not
    (same size), and the statement's subject is that archive. The signature and the
    subject check out; the reader's full open then refuses the file (fails closed)."""
    honest = statement_for(bundle)
    rewrite(bundle, bundle, set_entry(LOGO, b"<svg!>\n"))
    _sign_raw(bundle, replace(honest, archive_digest=_sha(bundle)), keys)
    with pytest.raises(SkillpackError) as exc:
        verify_signed_bundle(bundle, _key_policy(keys))
    assert (_code(exc), exc.value.exit_code) == ("INT001", 1)
    assert "skill://brand/assets/logo.svg: digest" in str(exc.value)
    # and skillpack would not have signed it in the first place
    with pytest.raises(SkillpackError) as exc:
        sign_bundle(bundle, SigningOptions(key=keys[0]))
    assert _code(exc) == "INT001"


def test_the_signature_is_checked_before_the_reader_opens_the_archive(
    bundle: Path, keys: tuple[Path, Path]
) -> None:
    """An entry the reader refuses (an absolute path) added after signing: the user
    hears that the archive is not the signed one, not what the reader found; signed
    that way by a lying signer, the reader's refusal is what stops it."""
    sign_bundle(bundle, SigningOptions(key=keys[0]))
    honest = statement_for(bundle)
    rewrite(bundle, bundle, add_entries((info("/etc/evil.md"), b"x")))
    with pytest.raises(SkillpackError) as exc:
        verify_bundle(bundle)  # no signature wanted: the reader's refusal
    assert _code(exc) == "BND002"
    with pytest.raises(SkillpackError) as exc:
        verify_signed_bundle(bundle, _key_policy(keys))
    assert (_code(exc), exc.value.exit_code) == ("SIG010", 1)
    assert "subject digest does not match the archive" in str(exc.value)
    _sign_raw(bundle, replace(honest, archive_digest=_sha(bundle)), keys)
    with pytest.raises(SkillpackError) as exc:
        verify_signed_bundle(bundle, _key_policy(keys))
    assert (_code(exc), exc.value.exit_code) == ("BND002", 1)


def test_the_reader_reads_the_bytes_that_were_hashed(bundle: Path) -> None:
    """The subject is checked again through the reader's own handle: replacing the
    file after it was opened does not change what the opened bundle hashes."""
    original = _sha(bundle)
    with open_bundle(bundle, mode="full") as opened:
        replacement = bundle.with_name("replacement.skp")
        replacement.write_bytes(bundle.read_bytes() + b"trailing")
        replacement.replace(bundle)
        assert opened.archive_digest() == original != _sha(bundle)


def test_payload_type_must_be_in_toto(bundle: Path, keys: tuple[Path, Path]) -> None:
    import base64

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec

    from skillpack.signing.dsse import pae

    sign_bundle(bundle, SigningOptions(key=keys[0]))
    signature = bundle.with_name("demo.skp.sigstore.json")
    document = json.loads(signature.read_text())
    envelope = document["dsseEnvelope"]
    payload = base64.b64decode(envelope["payload"])
    sig = load_private_key(keys[0]).sign(pae("text/plain", payload), ec.ECDSA(hashes.SHA256()))
    envelope["payloadType"] = "text/plain"
    envelope["signatures"] = [{"sig": base64.b64encode(sig).decode(), "keyid": ""}]
    signature.write_text(json.dumps(document))
    with pytest.raises(SkillpackError) as exc:
        verify_signed_bundle(bundle, _key_policy(keys))
    assert _code(exc) == "SIG007"


def test_fails_closed_on_unexpected_errors(
    bundle: Path, keys: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    sign_bundle(bundle, SigningOptions(key=keys[0]))

    def broken(self: Bundle) -> str:
        raise RuntimeError("reader exploded")

    monkeypatch.setattr(Bundle, "archive_digest", broken)  # a bug after the signature check
    with pytest.raises(SkillpackError) as exc:
        verify_signed_bundle(bundle, _key_policy(keys))
    assert _code(exc) == "SIG099"
    assert exc.value.exit_code == 1
    assert "reader exploded" in str(exc.value)


# ---------------------------------------------------------------- keyless, in process


def test_keyless_in_process_and_require_signature(
    bundle: Path, local_sigstore: LocalSigstore, trust_config: Path
) -> None:
    options = SigningOptions(identity_token=local_sigstore.token(), trust_config=trust_config)
    statement = statement_for(bundle)
    data = sign_statement(statement, options)
    bundle.with_name("demo.skp.sigstore.json").write_bytes(data)
    policy = SignaturePolicy(
        cert_identity=EMAIL, cert_oidc_issuer=DEFAULT_ISSUER, trust_config=trust_config
    )
    verified = verify_signed_bundle(bundle, policy)
    assert (verified.mode, verified.signer, verified.issuer) == ("keyless", EMAIL, DEFAULT_ISSUER)
    assert verified.statement == statement
    assert verified.signed_at is not None

    # the subject of a statement about other bytes: signed fine, still not this archive
    other = replace(statement, archive_digest="sha256:" + "3" * 64)
    bundle.with_name("demo.skp.sigstore.json").write_bytes(sign_statement(other, options))
    with pytest.raises(SkillpackError) as exc:
        verify_signed_bundle(bundle, policy)
    assert _code(exc) == "SIG010"


def test_require_signature_opens_the_archive_with_the_reader(
    bundle: Path, keys: tuple[Path, Path]
) -> None:
    """``serve --require-signature``: the whole pipeline, the real reader included."""
    sign_bundle(bundle, SigningOptions(key=keys[0]))
    verified = require_signature(bundle, _key_policy(keys))
    assert verified.mode == "key"
    with open_bundle(bundle, mode="full") as opened:
        assert verified.statement.lock_digest == opened.lock_digest
        assert len(verified.statement.files) == len(opened.manifest.unique_files())


# ---------------------------------------------------------------- policy and options


def test_policy_validation() -> None:
    with pytest.raises(SkillpackError, match="no signer to check the signature against"):
        SignaturePolicy().validate()
    with pytest.raises(SkillpackError, match="needs --cert-oidc-issuer"):
        SignaturePolicy(cert_identity=EMAIL).validate()
    with pytest.raises(SkillpackError, match="--trust-config pins"):
        SignaturePolicy(
            cert_identity=EMAIL, cert_oidc_issuer="x", trust_config=Path("t"), online=True
        ).validate()
    github = SignaturePolicy(repository="acme/skills").validate()
    assert github.issuer == GITHUB_ISSUER
    assert "repository acme/skills" in github.describe()
    assert not SignaturePolicy().requested
    assert SignaturePolicy(online=True).requested


def test_argparse_options_match_the_typer_table() -> None:
    parser = argparse.ArgumentParser()
    add_policy_arguments(parser)
    args = parser.parse_args(
        ["--cert-identity", EMAIL, "--cert-oidc-issuer", DEFAULT_ISSUER, "--ref", "refs/x",
         "--trust-config", "tc.json", "--signature", "s.json"]
    )  # fmt: skip
    policy = policy_from_args(args)
    assert policy == SignaturePolicy(
        cert_identity=EMAIL,
        cert_oidc_issuer=DEFAULT_ISSUER,
        workflow_ref="refs/x",
        trust_config=Path("tc.json"),
        signature=Path("s.json"),
    )
    fields = {o.field for o in POLICY_OPTIONS}
    assert fields == set(SignaturePolicy.__dataclass_fields__)


# ---------------------------------------------------------------- the serve seam


def test_serve_require_signature_seam(bundle: Path, keys: tuple[Path, Path]) -> None:
    """What ``skillpack serve`` wires in: argparse options, then enforce at start-up."""
    from skillpack.signing.options import add_require_signature_arguments, required_policy
    from skillpack.signing.verify import enforce_signature

    parser = argparse.ArgumentParser(prog="skillpack serve")
    parser.add_argument("bundle", type=Path)
    add_require_signature_arguments(parser)

    def start(*argv: str | Path) -> object:
        args = parser.parse_args([str(a) for a in argv])
        return enforce_signature(args.bundle, required_policy(args))

    assert start(bundle) is None  # no signature wanted: nothing checked
    with pytest.raises(SkillpackError) as exc:
        start(bundle, "--key", keys[1])
    assert (exc.value.code, exc.value.exit_code) == ("SIG020", 2)
    with pytest.raises(SkillpackError) as exc:
        start(bundle, "--require-signature")
    assert (exc.value.code, exc.value.exit_code) == ("SIG020", 2)
    with pytest.raises(SkillpackError) as exc:
        start(bundle, "--require-signature", "--key", keys[1])
    assert (exc.value.code, exc.value.exit_code) == ("SIG001", 1)  # unsigned: refuse

    sign_bundle(bundle, SigningOptions(key=keys[0]))
    verified = start(bundle, "--require-signature", "--key", keys[1])
    assert verified is not None and verified.mode == "key"  # type: ignore[attr-defined]
    rewrite(bundle, bundle, set_entry("brand/SKILL.md", b"evil"))
    with pytest.raises(SkillpackError) as exc:
        start(bundle, "--require-signature", "--key", keys[1])
    assert (exc.value.code, exc.value.exit_code) == ("SIG010", 1)


# ---------------------------------------------------------------- sigstore's own trust roots


@pytest.mark.parametrize(("staging", "rekor"), [(False, "rekor.sigstore.dev"), (True, "sigstage")])
def test_default_trust_roots_load_offline_into_the_tmp_cache(staging: bool, rekor: str) -> None:
    import os

    from skillpack.signing.keyless import load_trust_config

    trust = load_trust_config(None, staging=staging, offline=True)
    assert any(rekor in t.base_url for t in trust.trusted_root._inner.tlogs)
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "sigstore-python"
    assert cache.is_dir()  # never the user's ~/.cache in tests


def test_unreadable_trust_config_is_a_usage_error(tmp_path: Path) -> None:
    from skillpack.signing.keyless import load_trust_config

    bad = tmp_path / "tc.json"
    bad.write_text('{"mediaType": "something/else"}')
    with pytest.raises(SkillpackError) as exc:
        load_trust_config(bad)
    assert (exc.value.code, exc.value.exit_code) == ("SIG021", 2)
    with pytest.raises(SkillpackError) as exc:
        load_trust_config(tmp_path / "missing.json")
    assert exc.value.code == "SIG021"


@pytest.mark.online
def test_online_refresh_of_the_production_root(online: None) -> None:
    from skillpack.signing.keyless import load_trust_config

    trust = load_trust_config(None, offline=False)
    assert trust.trusted_root._inner.tlogs
