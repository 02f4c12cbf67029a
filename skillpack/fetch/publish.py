"""Pushing a bundle file, the fetch's way out: verified in full first, signed on the
way when asked, its signature beside it pushed as its referrer (only one about this
very archive). The registry package moves the bytes; what is worth pushing is decided
here, beside what is worth taking in."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack.errors import display_path

if TYPE_CHECKING:
    from skillpack.registry import PushResult
    from skillpack.registry.options import ClientOptions
    from skillpack.signing.policy import SigningOptions


@dataclass(frozen=True)
class Pushed:
    result: PushResult
    name: str
    version: str
    signature: Path | None


def push_file(
    bundle: Path,
    reference: str,
    options: ClientOptions,
    *,
    signing: SigningOptions | None = None,
) -> Pushed:
    """Push ``bundle`` (verified in full first) to ``reference``, with
    ``BUNDLE.sigstore.json`` as its signature referrer when that file exists; with
    ``signing``, sign it first, writing that file (or ``signing.output``) as
    ``skillpack sign`` does, and push that signature."""
    from skillpack.registry import push_bundle
    from skillpack.registry.errors import registry_error
    from skillpack.registry.reference import parse_reference
    from skillpack.signing.policy import default_signature_path

    target = parse_reference(reference)
    if target.digest is not None:  # before signing anything
        raise registry_error(
            "REG007",
            f"{target}: a push goes to a tag or to the repository, not to a digest",
            hint="drop the @sha256:... part; the pushed digest is printed",
        )
    signature_path = default_signature_path(bundle)
    if signing is not None:
        signature_path = signing.output or signature_path
        from skillpack._internal.fsutil import Output
        from skillpack.signing.errors import unusable
        from skillpack.signing.sign import signer_for, statement_for

        written = Output(signature_path, what="the signature")
        if not written.is_file:  # the signature is pushed from the file written
            raise unusable(
                "SIG020",
                f"push --sign -o {signature_path}: the signature is pushed from the file it "
                "is written to, a regular file",
                hint="name a file with -o FILE (or leave -o out: BUNDLE.sigstore.json)",
            )
        signer = signer_for(signing)  # a missing token or key stops before any work
        statement = statement_for(bundle)  # the bundle in full mode
        written.write(signer(statement))
        name, version = statement.bundle_name, statement.bundle_version
        archive_digest = statement.archive_digest
    else:
        from skillpack.bundle.verify import verify_bundle

        report = verify_bundle(bundle)
        name, version, archive_digest = report.name, report.version, report.archive_digest
    signature: Path | None = signature_path if signature_path.is_file() else None
    if signature is not None:
        from skillpack.signing.errors import failed
        from skillpack.signing.verify import claimed_subject

        claimed = claimed_subject(signature)
        if claimed != archive_digest:
            raise failed(
                "SIG010",
                "the signature beside the bundle is about another archive; not pushing",
                display_path(signature),
                details=[f"signed:  {claimed}", f"archive: {archive_digest}"],
                hint="sign the bundle again (skillpack sign, or push --sign)",
            )
    result = push_bundle(
        bundle, target, name=name, version=version, signature_path=signature, options=options
    )
    return Pushed(result, name, version, signature)
