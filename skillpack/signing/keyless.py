"""Keyless signing and verification through sigstore-python (Fulcio + Rekor).

Trust comes from a ``ClientTrustConfig``: sigstore's production instance by default,
staging on request, or a private instance from ``--trust-config FILE``. Verification
is offline by default (the trusted root shipped in sigstore, cached under the XDG
cache dir); ``online`` refreshes it through TUF first.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack.errors import display_path
from skillpack.signing.dsse import SignatureFile, not_a_bundle
from skillpack.signing.errors import failed, unusable
from skillpack.signing.statement import BundleStatement

if TYPE_CHECKING:
    from sigstore.models import Bundle, ClientTrustConfig
    from sigstore.oidc import IdentityToken
    from sigstore.verify.policy import VerificationPolicy

_ISSUER_OID = "1.3.6.1.4.1.57264.1.1"


def load_trust_config(
    path: Path | None, *, staging: bool = False, offline: bool = True
) -> ClientTrustConfig:
    """The ClientTrustConfig from ``path``, or sigstore's staging/production one."""
    from sigstore.errors import Error as SigstoreError
    from sigstore.models import ClientTrustConfig

    if path is not None:
        where = display_path(path)
        try:
            text = Path(path).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise unusable("SIG021", f"cannot read trust config: {exc}", where) from None
        try:
            return ClientTrustConfig.from_json(text)
        except Exception as exc:  # pydantic / protobuf-json errors: the file is unusable
            raise unusable(
                "SIG021",
                f"not a sigstore ClientTrustConfig: {str(exc).splitlines()[0]}",
                where,
                hint="expected mediaType application/vnd.dev.sigstore.clienttrustconfig"
                ".v0.1+json with trustedRoot and signingConfig",
            ) from None
    if offline:  # offline is skillpack's documented default: sigstore need not warn about it
        logging.getLogger("sigstore._internal.tuf").setLevel(logging.ERROR)
    try:
        if staging:
            return ClientTrustConfig.staging(offline=offline)
        return ClientTrustConfig.production(offline=offline)
    except (SigstoreError, OSError) as exc:
        instance = "staging" if staging else "production"
        raise unusable(
            "SIG021",
            f"cannot load sigstore's {instance} trusted root: {exc}",
            hint="check the network, or pin one with --trust-config FILE"
            if not offline
            else "pin a trusted root with --trust-config FILE",
        ) from None


# ---------------------------------------------------------------- signing


def identity_token(
    explicit: str | None, trust: ClientTrustConfig, *, interactive: bool = True
) -> IdentityToken:
    """An OIDC identity token: ``explicit``, else the ambient CI credential, else the
    interactive browser flow when a terminal is attached."""
    from sigstore.errors import Error as SigstoreError
    from sigstore.oidc import IdentityToken, Issuer, detect_credential

    raw = explicit
    try:
        if raw is None:
            raw = detect_credential()
        if raw is None:
            if not (interactive and sys.stdin.isatty()):
                raise unusable(
                    "SIG030",
                    "no identity token for keyless signing",
                    hint="pass --identity-token, run in CI with an OIDC credential "
                    "(GitHub Actions: 'permissions: id-token: write'), run in a "
                    "terminal for the browser flow, or sign with --key",
                )
            return Issuer(trust.signing_config.get_oidc_url()).identity_token()
        return IdentityToken(raw)
    except SigstoreError as exc:
        raise unusable("SIG031", f"identity token rejected: {exc}") from None
    except Exception as exc:  # IssuerError and ExpiredIdentity are plain Exceptions
        if type(exc).__module__.startswith("sigstore"):
            raise unusable("SIG031", f"identity token rejected: {exc}") from None
        raise


def sign_keyless(
    statement: BundleStatement, token: IdentityToken, trust: ClientTrustConfig
) -> bytes:
    """Sign ``statement`` as a DSSE envelope; return the Sigstore bundle JSON."""
    from sigstore.dsse import Statement
    from sigstore.errors import Error as SigstoreError
    from sigstore.sign import SigningContext

    try:
        context = SigningContext.from_trust_config(trust)
        with context.signer(token, cache=True) as signer:
            bundle = signer.sign_dsse(Statement(statement.to_bytes()))
    except (SigstoreError, OSError) as exc:  # requests' errors are OSErrors
        raise unusable("SIG032", f"signing failed: {exc}") from None
    except Exception as exc:  # FulcioClientError, RekorClientError, ExpiredCertificate
        if type(exc).__module__.startswith("sigstore"):
            message = str(exc) or type(exc).__name__
            raise unusable("SIG032", f"signing failed: {message}") from None
        raise
    return (bundle.to_json() + "\n").encode()


# ---------------------------------------------------------------- verification


@dataclass(frozen=True)
class KeylessSigner:
    """Who signed, as the verified certificate says."""

    identity: str
    issuer: str
    signed_at: datetime | None


def _signer_of(bundle: Bundle) -> KeylessSigner:
    from cryptography import x509

    cert = bundle.signing_certificate
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        names = [str(n.value) for n in san if isinstance(n.value, str)]
    except x509.ExtensionNotFound:
        names = []
    issuer = ""
    for ext in cert.extensions:
        if ext.oid.dotted_string == _ISSUER_OID and isinstance(
            ext.value, x509.UnrecognizedExtension
        ):
            issuer = ext.value.value.decode(errors="replace")
    integrated = bundle.log_entry._inner.integrated_time
    when = datetime.fromtimestamp(integrated, UTC) if integrated else None
    return KeylessSigner(", ".join(names), issuer, when)


def _short(message: str, limit: int = 240) -> str:
    """sigstore's messages can embed whole proofs: keep the first line, bounded."""
    line = message.strip().splitlines()[0] if message.strip() else "(no message)"
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _classify(exc: Exception, bundle: Bundle, policy: VerificationPolicy, where: str) -> None:
    """Raise the SignatureError that names the check sigstore failed."""
    from sigstore.errors import CertValidationError

    message = _short(str(exc))
    if isinstance(exc, CertValidationError):
        raise failed(
            "SIG003",
            "the signing certificate does not chain to the trusted root",
            where,
            details=[message],
            hint="signed on another sigstore instance? pass its --trust-config, --staging, "
            "or --online to refresh sigstore's trusted root",
        )
    try:
        policy.verify(bundle.signing_certificate)
    except Exception as policy_exc:
        signer = _signer_of(bundle)
        raise failed(
            "SIG004",
            "signer does not match the policy",
            where,
            details=[
                _short(str(policy_exc)),
                f"signed by {signer.identity} (issuer {signer.issuer})",
            ],
        ) from None
    if message.startswith(("invalid log entry", "SET:")):
        raise failed("SIG005", "transparency log entry is invalid", where, details=[message])
    raise failed("SIG006", "signature does not verify", where, details=[message])


def verify_keyless(
    signature: SignatureFile, policy: VerificationPolicy, trust: ClientTrustConfig
) -> tuple[str, bytes, KeylessSigner]:
    """Check the certificate chain, SCT, policy, log entry and DSSE signature of a
    keyless bundle; return (payload type, payload, signer)."""
    from sigstore.errors import Error as SigstoreError
    from sigstore.models import Bundle
    from sigstore.verify import Verifier

    where = signature.where
    try:
        bundle = Bundle.from_json(signature.data)
    except SigstoreError as exc:
        raise not_a_bundle(where, [_short(str(exc))]) from None
    if bundle._dsse_envelope is None:
        raise failed(
            "SIG002",
            "signature is over raw bytes, not a skillpack statement (no DSSE envelope)",
            where,
            hint="sign the bundle with 'skillpack sign'",
        )
    try:
        verifier = Verifier(trusted_root=trust.trusted_root)
        payload_type, payload = verifier.verify_dsse(bundle, policy)
    except SigstoreError as exc:
        _classify(exc, bundle, policy, where)
        raise  # unreachable: _classify always raises
    return payload_type, payload, _signer_of(bundle)
