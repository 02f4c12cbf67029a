"""Signing a built bundle: the statement from the archive, then key or keyless.

The signer (a loaded key, or a trust configuration plus an identity token) is made
before the archive is read, so a missing token or an unusable key stops the command
before any work; ``build --sign`` makes it before building.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from skillpack._internal.fsutil import atomic_write
from skillpack.bundle.reader import open_bundle
from skillpack.errors import missing_path
from skillpack.signing.policy import SigningOptions, default_signature_path
from skillpack.signing.statement import BundleStatement, make_statement

#: Signs a statement; returns the signature file's bytes.
Signer = Callable[[BundleStatement], bytes]


def statement_for(archive: Path) -> BundleStatement:
    """The statement for ``archive``, which the bundle reader opens in full mode (every
    entry checked and every file hashed against the lock; refusals raise its errors)."""
    archive = Path(archive)
    with open_bundle(archive, mode="full") as bundle:
        return make_statement(
            archive.name, bundle.archive_digest(), bundle.lock_digest, bundle.manifest
        )


def signer_for(options: SigningOptions) -> Signer:
    """Validate ``options`` and get ready to sign: load the key, or the trust
    configuration and an identity token (ambient, explicit or interactive)."""
    options.validate()
    if options.key is not None:
        from skillpack.signing.keys import load_private_key, sign_with_key

        key = load_private_key(options.key)
        return lambda statement: sign_with_key(statement, key)
    from skillpack.signing.keyless import identity_token, load_trust_config, sign_keyless

    trust = load_trust_config(options.trust_config, staging=options.staging, offline=False)
    token = identity_token(options.identity_token, trust, interactive=options.interactive)
    return lambda statement: sign_keyless(statement, token, trust)


def sign_statement(statement: BundleStatement, options: SigningOptions) -> bytes:
    """The signature file's bytes for ``statement``."""
    return signer_for(options)(statement)


def write_signature(archive: Path, signer: Signer, output: Path | None = None) -> Path:
    """Sign ``archive`` with ``signer``; write ``output`` (default
    ``ARCHIVE.sigstore.json``) atomically and return its path."""
    data = signer(statement_for(archive))
    target = output or default_signature_path(Path(archive))
    atomic_write(target, data)
    return target


def sign_bundle(archive: Path, options: SigningOptions) -> Path:
    """Sign ``archive`` as ``options`` say; return the signature file's path."""
    if not Path(archive).exists():  # before any sign-in or network use
        raise missing_path(archive)
    return write_signature(archive, signer_for(options), options.output)
