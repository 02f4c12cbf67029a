"""``skillpack verify BUNDLE``: every file against the lock, and with signature options,
the signature and every signed claim."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli._common import plural
from skillpack.signing.options import with_policy_options
from skillpack.signing.policy import SignaturePolicy

BundleArg = Annotated[Path, typer.Argument(help="The .skp bundle.", dir_okay=False)]


@with_policy_options
def verify(
    bundle: BundleArg,
    *,
    policy: SignaturePolicy,
) -> None:
    """Check every file of a bundle against its lock; with signature options, who signed it.

    Keyless signatures are checked offline against the trusted root shipped with
    sigstore (or --trust-config FILE; --online refreshes it through TUF), then the
    statement: payload and predicate type, archive sha256, lock digest, every file.
    Exit 1 naming the first check that failed.
    """
    if policy.requested or policy.signature is not None:
        from skillpack.signing.verify import verify_signed_bundle

        typer.echo(verify_signed_bundle(bundle, policy).summary())
        return
    from skillpack.bundle.verify import verify_bundle
    from skillpack.errors import display_path

    report = verify_bundle(bundle)
    typer.echo(
        f"OK {display_path(report.path)}: {report.name} {report.version}, "
        f"{plural(report.skills, 'skill')}, {plural(report.files, 'file')} verified"
    )
    typer.echo(f"  archive {report.archive_digest}")
    typer.echo(f"  lock    {report.lock_digest}")


def register(app: typer.Typer) -> None:
    app.command("verify")(verify)
