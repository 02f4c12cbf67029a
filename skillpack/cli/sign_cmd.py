"""``skillpack sign BUNDLE`` and ``skillpack keygen``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillpack.errors import display_path
from skillpack.signing.options import with_signing_options
from skillpack.signing.policy import SigningOptions


@with_signing_options
def sign(
    bundle: Annotated[Path, typer.Argument(help="The bundle archive to sign.")],
    *,
    signing: SigningOptions,
) -> None:
    """Sign a bundle: keylessly with sigstore (default) or with a local key (--key).

    Writes BUNDLE.sigstore.json, a Sigstore bundle v0.3 holding a DSSE envelope over an
    in-toto statement about the archive, its lock and every file.
    """
    from skillpack.signing.sign import sign_bundle

    output = sign_bundle(bundle, signing)
    typer.echo(f"wrote {display_path(output)}")


def keygen(
    out_dir: Annotated[
        Path, typer.Option("--out-dir", help="Where to write skillpack.key and skillpack.pub.")
    ] = Path("."),
) -> None:
    """Create a key pair for key-mode signing (air-gapped use).

    Writes skillpack.key (PEM private key, mode 0600; encrypted when
    SKILLPACK_KEY_PASSWORD is set) and skillpack.pub. Never overwrites either.
    """
    from skillpack.signing.keys import generate_keypair

    key, pub = generate_keypair(out_dir)
    typer.echo(f"wrote {display_path(key)} (private: keep it secret) and {display_path(pub)}")


def register(app: typer.Typer) -> None:
    app.command("sign")(sign)
    app.command("keygen")(keygen)
