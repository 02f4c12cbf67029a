"""Signature verification: one pipeline for both modes, failing closed.

The signature is checked first, against the archive's raw bytes:

1. signature check: keyless (certificate chain to the trusted root, SCT, identity
   policy, transparency-log inclusion proof + checkpoint + SET, DSSE signature) or key
   mode (key hint, DSSE signature with ``cryptography``);
2. payload type is in-toto, the statement parses, the predicate type is skillpack's;
3. the subject digest is the sha256 of the archive file.

A changed archive is therefore reported as such (SIG010), whatever else is wrong with
it. Only then does the bundle reader open the archive in full mode (every entry
checked, every file hashed against the lock; its refusals keep their ``BND0xx`` and
``INT001`` codes), and the signed claims are compared with what it read:

4. the predicate's lock digest is the lock inside the archive;
5. the signed file list is the lock's file list, so the file bytes the reader checked
   against the lock are the signed ones.

Every failure is a :class:`~skillpack.signing.errors.SignatureError` naming the check;
an unexpected exception anywhere becomes SIG099, never a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Literal

from skillpack.bundle.reader import Bundle, open_bundle
from skillpack.errors import EXIT_FINDINGS, SkillpackError, display_path, missing_path
from skillpack.manifest import file_digest
from skillpack.signing.dsse import SignatureFile, not_a_bundle, read_signature_file
from skillpack.signing.errors import SignatureError, failed, unusable
from skillpack.signing.policy import SignaturePolicy, default_signature_path
from skillpack.signing.statement import PAYLOAD_TYPE, BundleStatement, SignedFile, parse_statement


@dataclass(frozen=True)
class VerifiedBundle:
    """A bundle whose signature and every signed claim checked out."""

    archive: Path
    signature: Path
    statement: BundleStatement
    mode: Literal["keyless", "key"]
    signer: str  #: certificate identity (keyless) or public-key hint (key mode)
    issuer: str | None
    signed_at: datetime | None
    label: str | None = None  #: how to name the archive (an oci:// reference), or its path

    def summary(self) -> str:
        who = f"{self.signer} (issuer {self.issuer})" if self.mode == "keyless" else (
            f"key {self.signer[:16]}…"
        )  # fmt: skip
        when = f" at {self.signed_at:%Y-%m-%d %H:%M:%S} UTC" if self.signed_at else ""
        count = len(self.statement.files)
        return (
            f"OK: {self.label or display_path(self.archive)} signed by {who}{when}; "
            f"lock and {count} file{'s' if count != 1 else ''} verified"
        )


@dataclass(frozen=True)
class SignatureCheck:
    """What step 1 established: the signed payload and who signed it."""

    payload_type: str
    payload: bytes
    mode: Literal["keyless", "key"]
    signer: str
    issuer: str | None = None
    signed_at: datetime | None = None


def check_signature(signature: SignatureFile, policy: SignaturePolicy) -> SignatureCheck:
    """Step 1: the cryptographic check, key mode or keyless."""
    where = signature.where
    if policy.key is not None:
        from skillpack.signing.keys import key_hint, load_public_key, verify_with_key

        if not signature.is_key_mode and not signature.is_keyless:
            raise not_a_bundle(where, ["it holds neither a public key nor a certificate"])
        if not signature.is_key_mode:
            raise failed(
                "SIG014",
                "this is a keyless (certificate) signature, not a key-mode one",
                where,
                hint="verify it with --cert-identity and --cert-oidc-issuer",
            )
        key = load_public_key(policy.key)
        payload_type, payload = verify_with_key(signature, key)
        return SignatureCheck(payload_type, payload, "key", key_hint(key))
    if not signature.is_key_mode and not signature.is_keyless:
        raise not_a_bundle(where, ["it holds neither a public key nor a certificate"])
    if signature.is_key_mode:
        raise failed(
            "SIG014",
            "this signature was made with a key, not keylessly",
            where,
            hint="verify it with --key PUBLIC_KEY",
        )
    from skillpack.signing.keyless import load_trust_config, verify_keyless

    trust = load_trust_config(
        policy.trust_config, staging=policy.staging, offline=not policy.online
    )
    payload_type, payload, signer = verify_keyless(signature, policy.sigstore_policy(), trust)
    return SignatureCheck(
        payload_type, payload, "keyless", signer.identity, signer.issuer, signer.signed_at
    )


def check_statement(payload_type: str, payload: bytes, where: str) -> BundleStatement:
    """Step 2: payload type, statement shape and predicate type."""
    if payload_type != PAYLOAD_TYPE:
        raise failed("SIG007", f"payload type is {payload_type!r}, not {PAYLOAD_TYPE!r}", where)
    return parse_statement(payload, where)


def check_subject(statement: BundleStatement, archive_digest: str, where: str) -> None:
    """Step 3: the statement is about exactly this archive."""
    if statement.archive_digest != archive_digest:
        raise failed(
            "SIG010",
            "the signed subject digest does not match the archive (sha256 differs)",
            where,
            details=[
                f"signed:  {statement.archive_name} {statement.archive_digest}",
                f"archive: {archive_digest}",
            ],
            hint="the archive was changed after signing, or the signature belongs to "
            "another bundle",
        )


def check_contents(statement: BundleStatement, bundle: Bundle, where: str) -> None:
    """Steps 4 and 5, on a bundle the reader opened in full mode (which checked every
    file's bytes against the lock): the lock and the file list are the signed ones."""
    if statement.lock_digest != bundle.lock_digest:
        raise failed(
            "SIG011",
            "the lock inside the archive is not the signed lock",
            where,
            details=[f"signed: {statement.lock_digest}", f"lock:   {bundle.lock_digest}"],
        )
    entries = bundle.manifest.unique_files()
    signed = {f.uri: f for f in statement.files}
    problems = [f"not signed: {uri}" for uri in sorted(entries.keys() - signed.keys())]
    problems += [f"signed but missing: {uri}" for uri in sorted(signed.keys() - entries.keys())]
    for uri in sorted(entries.keys() & signed.keys()):
        entry = entries[uri]
        if SignedFile(entry.uri, entry.digest, entry.size) != signed[uri]:
            problems.append(f"differs from the signed entry: {uri}")
    if problems:
        raise failed(
            "SIG012", "the archive's files are not the signed files", where, details=problems[:20]
        )


@contextmanager
def _fail_closed(where: str) -> Iterator[None]:
    """Let SkillpackErrors through; turn anything else into SIG099 (a rejection)."""
    try:
        yield
    except SkillpackError:
        raise
    except Exception as exc:
        raise failed(
            "SIG099",
            f"verification failed: {type(exc).__name__}: {exc}",
            where,
            hint="the bundle is rejected; rerun with SKILLPACK_DEBUG=1 to see why",
        ) from exc


def archive_digest(archive: Path) -> str:
    """``sha256:<hex>`` of the archive file, or SIG015 (exit 2) when it cannot be read."""
    try:
        digest, _ = file_digest(archive)
    except FileNotFoundError:
        raise missing_path(archive) from None
    except OSError as exc:
        raise unusable(
            "SIG015", f"cannot read the archive: {exc.strerror}", display_path(archive)
        ) from None
    return digest


def verify_signed_bundle(
    archive: Path,
    policy: SignaturePolicy,
    *,
    label: str | None = None,
    bundle: Bundle | None = None,
) -> VerifiedBundle:
    """Verify ``archive`` against its signature (``policy.signature`` or
    ``ARCHIVE.sigstore.json``) under ``policy``. Fails closed. ``label`` names the
    archive in messages instead of its path (a bundle pulled into a cache). ``bundle``:
    the archive already open in full mode (a caller that goes on reading its files
    checks the signature against the very bytes it reads).

    Steps 1 to 3 run on the archive's raw bytes before the reader opens it, so a
    changed archive is reported as SIG010, not as whatever the reader trips over."""
    archive = Path(archive)
    policy.validate()
    where = label or display_path(archive)
    with _fail_closed(where):
        # the archive's bytes: those of the open bundle when there is one (the bytes then
        # read), else the file's, before the reader opens it
        digest = bundle.archive_digest() if bundle is not None else archive_digest(archive)
        signature_path = policy.signature or default_signature_path(archive)
        signature = read_signature_file(signature_path)
        checked = check_signature(signature, policy)
        statement = check_statement(checked.payload_type, checked.payload, signature.where)
        check_subject(statement, digest, where)
        if bundle is not None:
            assert bundle.mode == "full", "the signed contents are checked on a full bundle"
            check_contents(statement, bundle, where)
        else:
            with open_bundle(archive, mode="full") as opened:
                check_subject(statement, opened.archive_digest(), where)  # unchanged meanwhile
                check_contents(statement, opened, where)
        return VerifiedBundle(
            archive,
            signature_path,
            statement,
            checked.mode,
            checked.signer,
            checked.issuer,
            checked.signed_at,
            label,
        )
    raise AssertionError("unreachable")  # _fail_closed re-raises


def claimed_subject(signature_path: Path) -> str:
    """The archive digest a signature file says it is about, read without verifying
    anything: a check before publishing a bundle with its signature (that they belong
    together), never a trust decision. SIG001/SIG002/SIG008 when it cannot be read."""
    import base64
    import binascii

    signature = read_signature_file(signature_path)
    envelope = signature.document.get("dsseEnvelope")
    payload = envelope.get("payload") if isinstance(envelope, dict) else None
    try:
        data = base64.b64decode(payload, validate=True) if isinstance(payload, str) else None
    except (binascii.Error, ValueError):
        data = None
    if data is None:
        raise failed("SIG002", "signature file has no DSSE payload", signature.where)
    return parse_statement(data, signature.where).archive_digest


def verify_any_signature(
    archive: Path,
    signatures: Sequence[Path],
    policy: SignaturePolicy,
    *,
    label: str | None = None,
    bundle: Bundle | None = None,
    refresh: Callable[[], Sequence[Path]] | None = None,
) -> VerifiedBundle:
    """Verify ``archive`` against candidate signature files, in order (a registry holds
    one signature referrer per signer): the first that verifies under ``policy`` wins.

    ``policy.signature``, when given (``--signature FILE``), is the one candidate. No
    candidate at all is SIG001 (exit 1). When every one fails, the first failure is
    raised, the others' codes listed in its details. A problem with the options or the
    trust configuration (exit 2) is raised at once: no other signature would fix it.

    ``refresh``: for candidates taken from a cache (a registry's referrers as first
    fetched), a function asking their source for the current ones. When no candidate
    verifies, it is called once and the candidates it gives are tried in turn (one
    signed and pushed since, say); when it gives none, the first refusal stands."""
    try:
        return _first_verifying(archive, signatures, policy, label, bundle)
    except SignatureError as exc:
        if refresh is None or policy.signature is not None or exc.exit_code != EXIT_FINDINGS:
            raise
        fresh = refresh()
        if not fresh:
            raise
    return _first_verifying(archive, fresh, policy, label, bundle)


def _first_verifying(
    archive: Path,
    signatures: Sequence[Path],
    policy: SignaturePolicy,
    label: str | None,
    bundle: Bundle | None,
) -> VerifiedBundle:
    where = label or display_path(archive)
    policy.validate()
    if policy.signature is not None:
        signatures = (policy.signature,)
    if not signatures:
        raise failed(
            "SIG001",
            "no signature: none is attached to this bundle",
            where,
            hint="push the bundle with its signature (skillpack push --sign, or "
            "BUNDLE.sigstore.json beside BUNDLE), or drop the signature options",
        )
    refused: list[SignatureError] = []
    for signature in signatures:
        try:
            return verify_signed_bundle(
                archive, replace(policy, signature=signature), label=label, bundle=bundle
            )
        except SignatureError as exc:
            refused.append(exc)
    first = refused[0]
    if len(refused) > 1:
        first.details.append(
            f"{len(refused) - 1} other signature(s) refused too: "
            + ", ".join(exc.code for exc in refused[1:])
        )
    raise first


def require_signature(bundle_path: Path, policy: SignaturePolicy) -> VerifiedBundle:
    """For hosts (``serve --require-signature``): return the verified signature, or
    raise a SkillpackError (exit code 1 for a bad or missing signature)."""
    return verify_signed_bundle(bundle_path, policy)


def enforce_signature(bundle_path: Path, policy: SignaturePolicy | None) -> VerifiedBundle | None:
    """``serve``'s start-up check: nothing without a policy, else :func:`require_signature`.

    Usage in the server's argparse entry point::

        add_require_signature_arguments(parser)          # skillpack.signing.options
        ...
        verified = enforce_signature(bundle, required_policy(args))
        if verified: print(verified.summary(), file=sys.stderr)

    On failure a SkillpackError propagates: print ``exc.render()`` on stderr and exit
    with ``exc.exit_code`` (1 for a missing or bad signature, 2 for bad options)."""
    return None if policy is None else require_signature(bundle_path, policy)
