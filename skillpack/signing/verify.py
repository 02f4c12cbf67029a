"""Signature verification: one pipeline for both modes, failing closed.

1. signature check: keyless (certificate chain to the trusted root, SCT, identity
   policy, transparency-log inclusion proof + checkpoint + SET, DSSE signature) or key
   mode (key hint, DSSE signature with ``cryptography``);
2. payload type is in-toto, the statement parses, the predicate type is skillpack's;
3. the subject digest is the archive's sha256;
4. the predicate's lock digest is the lock inside the archive;
5. the signed file list is the lock's, and every file's bytes match it.

Every failure is a :class:`~skillpack.signing.errors.SignatureError` naming the check;
an unexpected exception anywhere becomes SIG099, never a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from ..errors import SkillpackError, display_path
from ..manifest import file_digest
from .content import SignedContent, open_archive
from .dsse import SignatureFile, read_signature_file
from .errors import failed, unusable
from .policy import SignaturePolicy, default_signature_path
from .statement import PAYLOAD_TYPE, BundleStatement, SignedFile, parse_statement

Opener = Callable[[Path], AbstractContextManager[SignedContent]]


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

    def summary(self) -> str:
        who = f"{self.signer} (issuer {self.issuer})" if self.mode == "keyless" else (
            f"key {self.signer[:16]}…"
        )  # fmt: skip
        when = f" at {self.signed_at:%Y-%m-%d %H:%M:%S} UTC" if self.signed_at else ""
        count = len(self.statement.files)
        return (
            f"OK: {display_path(self.archive)} signed by {who}{when}; "
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
        from .keys import key_hint, load_public_key, verify_with_key

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
    if signature.is_key_mode:
        raise failed(
            "SIG014",
            "this signature was made with a key, not keylessly",
            where,
            hint="verify it with --key PUBLIC_KEY",
        )
    from .keyless import load_trust_config, verify_keyless

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
            "the signature is for another archive: subject sha256 differs",
            where,
            details=[
                f"signed:  {statement.archive_name} {statement.archive_digest}",
                f"archive: {archive_digest}",
            ],
            hint="the archive was changed after signing, or the signature belongs to "
            "another bundle",
        )


def check_contents(statement: BundleStatement, content: SignedContent, where: str) -> None:
    """Steps 4 and 5: the lock, the file list and every file's bytes."""
    if statement.lock_digest != content.lock_digest:
        raise failed(
            "SIG011",
            "the lock inside the archive is not the signed lock",
            where,
            details=[f"signed: {statement.lock_digest}", f"lock:   {content.lock_digest}"],
        )
    entries = content.manifest.unique_files()
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
    for _, entry in sorted(entries.items()):
        try:
            content.read_verified(entry)
        except SkillpackError as exc:
            raise failed(
                "SIG012", f"file does not match its signed digest: {entry.uri}", where,
                details=[exc.message],
            ) from None  # fmt: skip


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


def _signed_statement(
    archive: Path, policy: SignaturePolicy
) -> tuple[Path, SignatureCheck, BundleStatement]:
    """Steps 1 and 2 for ``archive``'s signature file."""
    signature_path = policy.signature or default_signature_path(archive)
    signature = read_signature_file(signature_path)
    checked = check_signature(signature, policy)
    statement = check_statement(checked.payload_type, checked.payload, signature.where)
    return signature_path, checked, statement


def _against(
    archive: Path,
    signed: tuple[Path, SignatureCheck, BundleStatement],
    content: SignedContent,
) -> VerifiedBundle:
    """Steps 3 to 5 against the opened archive."""
    signature_path, checked, statement = signed
    check_subject(statement, content.archive_digest(), display_path(archive))
    check_contents(statement, content, display_path(archive))
    return VerifiedBundle(
        archive,
        signature_path,
        statement,
        checked.mode,
        checked.signer,
        checked.issuer,
        checked.signed_at,
    )


def verify_signed_bundle(
    archive: Path, policy: SignaturePolicy, *, opener: Opener = open_archive
) -> VerifiedBundle:
    """Verify ``archive`` against its signature (``policy.signature`` or
    ``ARCHIVE.sigstore.json``) under ``policy``. Fails closed.

    The signature and the archive's sha256 are checked before the archive is opened,
    so a changed archive is reported as such (SIG010), not as whatever the reader
    trips over first."""
    archive = Path(archive)
    policy.validate()
    where = display_path(archive)
    with _fail_closed(where):
        try:
            archive_digest, _ = file_digest(archive)
        except OSError as exc:
            raise unusable("SIG015", f"cannot read the archive: {exc.strerror}", where) from None
        signed = _signed_statement(archive, policy)
        check_subject(signed[2], archive_digest, where)
        with opener(archive) as content:
            return _against(archive, signed, content)
    raise AssertionError("unreachable")  # _fail_closed re-raises


def signature_check(
    archive: Path, policy: SignaturePolicy
) -> Callable[[SignedContent], str | None]:
    """A check for an already opened bundle: ``skillpack.verify.verify_bundle(path,
    checks=[signature_check(path, policy)])`` runs the whole signature pipeline on the
    bundle it opened and reports the summary line. Raises like
    :func:`verify_signed_bundle`."""
    archive = Path(archive)
    policy.validate()

    def check(content: SignedContent) -> str | None:
        with _fail_closed(display_path(archive)):
            return _against(archive, _signed_statement(archive, policy), content).summary()
        raise AssertionError("unreachable")  # _fail_closed re-raises

    return check


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
