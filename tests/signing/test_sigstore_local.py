"""The local sigstore instance is faithful: the real sigstore library and CLI accept
what it issues and reject what they should."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sigstore.dsse import Statement, StatementBuilder, Subject
from sigstore.errors import CertValidationError, VerificationError
from sigstore.models import Bundle, ClientTrustConfig
from sigstore.oidc import IdentityToken, detect_credential
from sigstore.sign import SigningContext
from sigstore.verify import Verifier, policy

from tests.conftest import cli_env
from tests.sigstore_local import (
    DEFAULT_ISSUER,
    GITHUB_ISSUER,
    LocalSigstore,
    inclusion_path,
    leaf_hash,
    tree_root,
)


def _root_from_path(index: int, size: int, leaf: bytes, path: list[bytes]) -> bytes | None:
    """RFC 9162 section 2.1.3.2, written independently of the harness."""
    if index >= size:
        return None
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = hashlib.sha256(b"\x01" + p + r).digest()
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = hashlib.sha256(b"\x01" + r + p).digest()
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def test_inclusion_proofs_match_rfc9162_for_every_leaf_of_small_trees() -> None:
    for size in range(1, 34):
        leaves = [leaf_hash(bytes([i])) for i in range(size)]
        root = tree_root(leaves)
        for index in range(size):
            path = inclusion_path(index, leaves)
            assert _root_from_path(index, size, leaves[index], path) == root, (size, index)


def _context(instance: LocalSigstore) -> tuple[SigningContext, Verifier]:
    config = ClientTrustConfig.from_json(json.dumps(instance.trust_config()))
    return SigningContext.from_trust_config(config), Verifier(trusted_root=config.trusted_root)


def _statement(data: bytes) -> Statement:
    digest: Any = {"sha256": hashlib.sha256(data).hexdigest()}
    return (
        StatementBuilder()
        .subjects([Subject(name="a.bin", digest=digest)])
        .predicate_type("https://skillpack.test/harness")
        .predicate({"n": 1})
        .build()
    )


EMAIL = policy.Identity(identity="dev@skillpack.test", issuer=DEFAULT_ISSUER)


def test_real_signer_and_verifier_round_trip(local_sigstore: LocalSigstore) -> None:
    ctx, verifier = _context(local_sigstore)
    with ctx.signer(IdentityToken(local_sigstore.token())) as signer:
        artifact = signer.sign_artifact(b"payload")
        dsse = signer.sign_dsse(_statement(b"payload"))
    for bundle in (artifact, dsse):
        # a JSON round trip, as a file on disk would do
        assert Bundle.from_json(bundle.to_json()).to_json() == bundle.to_json()
    verifier.verify_artifact(b"payload", Bundle.from_json(artifact.to_json()), EMAIL)
    payload_type, payload = verifier.verify_dsse(Bundle.from_json(dsse.to_json()), EMAIL)
    assert payload_type == "application/vnd.in-toto+json"
    assert json.loads(payload)["predicateType"] == "https://skillpack.test/harness"
    assert dsse.log_entry._inner.inclusion_proof.tree_size > 1  # a real path, not a lone leaf


def test_real_verifier_rejects_what_it_should(
    local_sigstore: LocalSigstore, foreign_sigstore: LocalSigstore
) -> None:
    ctx, verifier = _context(local_sigstore)
    with ctx.signer(IdentityToken(local_sigstore.token())) as signer:
        bundle = signer.sign_artifact(b"payload")
    with pytest.raises(VerificationError, match="digest mismatch"):
        verifier.verify_artifact(b"payloaX", bundle, EMAIL)
    with pytest.raises(VerificationError, match="SANs do not match"):
        verifier.verify_artifact(
            b"payload", bundle, policy.Identity(identity="eve@x.test", issuer=DEFAULT_ISSUER)
        )
    with pytest.raises(VerificationError, match="OIDCIssuer does not match"):
        verifier.verify_artifact(
            b"payload", bundle, policy.Identity(identity="dev@skillpack.test", issuer="https://x")
        )
    _, foreign = _context(foreign_sigstore)
    with pytest.raises(CertValidationError):
        foreign.verify_artifact(b"payload", bundle, EMAIL)
    data = json.loads(bundle.to_json())
    proof = data["verificationMaterial"]["tlogEntries"][0]["inclusionProof"]
    proof["hashes"][0] = "A" * 43 + "="
    with pytest.raises(VerificationError, match="inclusion proof"):
        verifier.verify_artifact(b"payload", Bundle.from_json(json.dumps(data)), EMAIL)


def test_ambient_github_credential_and_workflow_extensions(local_sigstore: LocalSigstore) -> None:
    with pytest.MonkeyPatch.context() as mp:
        for name, value in local_sigstore.github_actions_env().items():
            mp.setenv(name, value)
        token = detect_credential()
    assert token is not None
    ctx, verifier = _context(local_sigstore)
    with ctx.signer(IdentityToken(token)) as signer:
        bundle = signer.sign_dsse(_statement(b"x"))
    workflow = local_sigstore.github
    verifier.verify_dsse(
        bundle,
        policy.AllOf(
            [
                policy.Identity(identity=workflow.identity, issuer=GITHUB_ISSUER),
                policy.GitHubWorkflowRepository(workflow.repository),
                policy.GitHubWorkflowRef(workflow.ref),
                policy.GitHubWorkflowSHA(workflow.sha),
                policy.GitHubWorkflowTrigger(workflow.event_name),
                policy.GitHubWorkflowName(workflow.workflow),
                policy.OIDCSourceRepositoryURI(f"https://github.com/{workflow.repository}"),
            ]
        ),
    )


def test_stock_sigstore_cli_signs_and_verifies_offline(
    local_sigstore: LocalSigstore, trust_config: Path, tmp_path: Path
) -> None:
    artifact = tmp_path / "a.txt"
    artifact.write_text("hello\n")
    base = [sys.executable, "-m", "sigstore", "--trust-config", str(trust_config)]
    verify = [
        *base,
        *("verify", "identity", "--offline"),
        *("--cert-identity", "dev@skillpack.test", "--cert-oidc-issuer", DEFAULT_ISSUER),
        str(artifact),
    ]

    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, env=cli_env(), capture_output=True, text=True, timeout=120)

    signed = run([*base, "sign", "--identity-token", local_sigstore.token(), str(artifact)])
    assert signed.returncode == 0, signed.stderr
    assert (tmp_path / "a.txt.sigstore.json").is_file()
    ok = run(verify)
    assert ok.returncode == 0, ok.stderr
    assert "OK:" in ok.stderr
    artifact.write_text("hellO\n")
    bad = run(verify)
    assert bad.returncode == 1
    assert "digest mismatch" in bad.stderr
