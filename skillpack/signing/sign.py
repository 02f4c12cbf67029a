"""Signing a built bundle: the statement from the archive, then key or keyless."""

from __future__ import annotations

from pathlib import Path

from ..errors import display_path
from ..fsutil import atomic_write
from ..manifest import file_digest
from .content import open_archive
from .errors import unusable
from .policy import SigningOptions, default_signature_path
from .statement import BundleStatement, make_statement
from .verify import Opener, check_contents, check_subject


def statement_for(archive: Path, *, opener: Opener = open_archive) -> BundleStatement:
    """The statement for ``archive``, after checking every file against its lock."""
    archive = Path(archive)
    where = display_path(archive)
    try:
        digest, _ = file_digest(archive)
    except OSError as exc:
        raise unusable("SIG015", f"cannot read the archive: {exc.strerror}", where) from None
    with opener(archive) as content:
        statement = make_statement(archive.name, digest, content.lock_digest, content.manifest)
        check_subject(statement, content.archive_digest(), where)  # unchanged meanwhile
        check_contents(statement, content, where)
    return statement


def sign_statement(statement: BundleStatement, options: SigningOptions) -> bytes:
    """The signature file's bytes for ``statement``."""
    options.validate()
    if options.key is not None:
        from .keys import load_private_key, sign_with_key

        return sign_with_key(statement, load_private_key(options.key))
    from .keyless import identity_token, load_trust_config, sign_keyless

    trust = load_trust_config(options.trust_config, staging=options.staging, offline=False)
    token = identity_token(options.identity_token, trust, interactive=options.interactive)
    return sign_keyless(statement, token, trust)


def sign_bundle(archive: Path, options: SigningOptions, *, opener: Opener = open_archive) -> Path:
    """Sign ``archive``; write ``options.output`` (default ``ARCHIVE.sigstore.json``)
    atomically and return its path. ``build --sign`` calls this after writing."""
    options.validate()
    statement = statement_for(archive, opener=opener)
    data = sign_statement(statement, options)
    output = options.output or default_signature_path(Path(archive))
    atomic_write(output, data)
    return output
