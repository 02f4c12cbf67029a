"""``skillpack verify BUNDLE``: every file against the lock, and with signature options,
the signature and every signed claim."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import FormatOpt
from skillpack.cli.signing_options import with_policy_options
from skillpack.signing.policy import SignaturePolicy

app = CommandApp()

BundleArg = Annotated[Path, typer.Argument(metavar="BUNDLE", help="The .skp bundle.")]


@app.command("verify")
@with_policy_options
def verify(
    bundle: BundleArg,
    output_format: FormatOpt = "text",
    *,
    policy: SignaturePolicy,
) -> None:
    """Check every file of a bundle against its lock; with signature options, who signed it.

    Keyless signatures are checked offline against the trusted root shipped with
    sigstore (or --trust-config FILE; --online refreshes it through TUF), then the
    statement: payload and predicate type, archive sha256, lock digest, every file.
    Exit 1 naming the first check that failed.
    """
    from skillpack.cli.output import echo_json, plural
    from skillpack.errors import display_path

    if policy.requested or policy.signature is not None:
        from skillpack.signing.verify import verify_signed_bundle

        signed = verify_signed_bundle(bundle, policy)
        if output_format == "json":
            statement = signed.statement
            echo_json(
                {
                    "bundle": display_path(signed.archive),
                    "name": statement.bundle_name,
                    "version": statement.bundle_version,
                    "archive-digest": statement.archive_digest,
                    "lock-digest": statement.lock_digest,
                    "files": len(statement.files),
                    "signature": _signature_json(signed),
                }
            )
        else:
            print(signed.summary())
        return
    from skillpack.bundle.verify import verify_bundle

    report = verify_bundle(bundle)
    if output_format == "json":
        echo_json(
            {
                "bundle": display_path(report.path),
                "name": report.name,
                "version": report.version,
                "archive-digest": report.archive_digest,
                "lock-digest": report.lock_digest,
                "skills": report.skills,
                "files": report.files,
                "signature": None,
            }
        )
        return
    print(
        f"OK {display_path(report.path)}: {report.name} {report.version}, "
        f"{plural(report.skills, 'skill')}, {plural(report.files, 'file')} verified"
    )
    print(f"  archive {report.archive_digest}")
    print(f"  lock    {report.lock_digest}")


def _signature_json(signed: Any) -> dict[str, Any]:
    from skillpack.errors import display_path

    return {
        "file": display_path(signed.signature),
        "mode": signed.mode,
        "signer": signed.signer,
        "issuer": signed.issuer,
        "signed-at": signed.signed_at.isoformat() if signed.signed_at else None,
    }
