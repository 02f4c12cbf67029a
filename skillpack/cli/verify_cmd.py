"""``skillpack verify BUNDLE``: the signature and every signed claim.

With signature options (``--cert-identity``/``--cert-oidc-issuer``, the GitHub
workflow flags, or ``--key``) the signature pipeline in
:mod:`skillpack.signing.verify` runs; without them the bundle's own integrity check
(``skillpack.verify.verify_bundle``, from the bundle branch) runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from ..signing.options import with_policy_options
from ..signing.policy import SignaturePolicy


@with_policy_options
def verify(
    bundle: Annotated[Path, typer.Argument(help="The bundle archive to verify.")],
    *,
    policy: SignaturePolicy,
) -> None:
    """Verify a bundle, and with signature options, who signed it.

    Keyless signatures are checked offline against the trusted root shipped with
    sigstore (or --trust-config FILE; --online refreshes it through TUF), then the
    statement: payload and predicate type, archive sha256, lock digest, every file.
    """
    if policy.requested or policy.signature is not None:
        from ..signing.verify import verify_signed_bundle

        typer.echo(verify_signed_bundle(bundle, policy).summary())
        return
    try:
        from ..verify import verify_bundle  # type: ignore[import-not-found]
    except ModuleNotFoundError:
        raise UsageError(
            "SIG020",
            "no signature options given",
            hint="pass --cert-identity ID --cert-oidc-issuer URL, GitHub workflow flags, "
            "or --key PUBLIC_KEY",
        ) from None
    verify_bundle(bundle)


def register(app: typer.Typer) -> None:
    app.command("verify")(verify)
