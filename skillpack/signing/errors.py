"""Signing and verification failures, each with a stable code.

Verification failures exit 1 (a failed check); problems with the inputs a user gave
(options, key files, trust configuration, identity tokens, unreachable services) exit 2.

====== =================================================================
SIG001 signature file missing or unreadable
SIG002 signature file is not a Sigstore bundle skillpack can use
SIG003 certificate does not chain to the trusted root (foreign or stale trust root)
SIG004 signer identity does not match the policy (identity, issuer, workflow)
SIG005 transparency log entry invalid (inclusion proof, checkpoint, SET)
SIG006 signature invalid (envelope, certificate profile, signing time)
SIG007 DSSE payload type is not in-toto
SIG008 statement is not a valid skillpack in-toto statement
SIG009 predicate type is not skillpack's
SIG010 statement subject is not this archive (sha256 differs)
SIG011 signed lock digest differs from the lock inside the archive
SIG012 signed file list or file bytes differ from the archive
SIG013 key-mode signature does not verify with the given public key
SIG014 signature kind does not match the options (key vs. keyless)
SIG015 archive unreadable (a missing one is USE001)
SIG020 signature options missing or contradictory
SIG021 trust configuration unreadable or trusted root unavailable
SIG030 no identity token available for keyless signing
SIG031 identity token rejected
SIG032 signing service failed
SIG033 refusing to overwrite an existing key file
SIG034 key file unreadable or of an unsupported kind
SIG099 verification failed on an unexpected error (fails closed)
====== =================================================================
"""

from __future__ import annotations

from skillpack.errors import EXIT_FINDINGS, EXIT_USAGE, Location, SkillpackError


class SignatureError(SkillpackError):
    """A signature did not verify, or a signed claim does not match the bundle (exit 1)."""


class SigningError(SkillpackError):
    """Signing or verification could not run with the given inputs (exit 2)."""


def failed(
    code: str,
    message: str,
    path: str | None = None,
    *,
    hint: str | None = None,
    details: list[str] | None = None,
) -> SignatureError:
    return SignatureError(
        code,
        message,
        Location(path) if path else None,
        hint=hint,
        exit_code=EXIT_FINDINGS,
        details=details or [],
    )


def unusable(
    code: str, message: str, path: str | None = None, *, hint: str | None = None
) -> SigningError:
    return SigningError(
        code, message, Location(path) if path else None, hint=hint, exit_code=EXIT_USAGE
    )
