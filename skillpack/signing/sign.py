"""Signing a built bundle: the statement from the archive, then key or keyless.

The signer (a loaded key, or a trust configuration plus an identity token) is made
before the archive is read, so a missing token or an unusable key stops the command
before any work; ``build --sign`` makes it before building.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from skillpack._internal.fsutil import Output
from skillpack.bundle.reader import open_bundle
from skillpack.errors import missing_path
from skillpack.signing.policy import SigningOptions, default_signature_path
from skillpack.signing.statement import BundleStatement, make_statement

#: Signs a statement; returns the signature file's bytes.
Signer = Callable[[BundleStatement], bytes]


def statement_for(archive: Path, name: str | None = None) -> BundleStatement:
    """The statement for ``archive``, which the bundle reader opens in full mode (every
    entry checked and every file hashed against the lock; refusals raise its errors).
    ``name``: the archive's file name in the statement, when ``archive`` is a staged copy
    of it (default: ``archive``'s own name)."""
    archive = Path(archive)
    with open_bundle(archive, mode="full") as bundle:
        return make_statement(
            name or archive.name, bundle.archive_digest(), bundle.lock_digest, bundle.manifest
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


def signature_output(archive: Path, output: Path | None = None) -> Output:
    """Where the signature of ``archive`` goes: ``output`` (``-`` is stdout), default
    ``ARCHIVE.sigstore.json`` (checked now, before any signing)."""
    return Output(output or default_signature_path(Path(archive)), what="the signature")


def write_signature(archive: Path, signer: Signer, output: Path | None = None) -> Path:
    """Sign ``archive`` with ``signer``; write ``output`` (default
    ``ARCHIVE.sigstore.json``; ``-`` is stdout) as every output is written
    (:class:`~skillpack._internal.fsutil.Output`) and return its path."""
    target = signature_output(archive, output)
    target.write(signer(statement_for(archive)))
    return Path(target.given)


def sign_bundle(archive: Path, options: SigningOptions) -> Path:
    """Sign ``archive`` as ``options`` say; return the signature file's path (``-`` when
    it went to stdout)."""
    if not Path(archive).exists():  # before any sign-in or network use
        raise missing_path(archive)
    target = signature_output(archive, options.output)  # a bad -o stops before signing
    target.write(signer_for(options)(statement_for(archive)))
    return Path(target.given)
