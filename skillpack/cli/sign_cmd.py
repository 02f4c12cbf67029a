"""``skillpack sign BUNDLE``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.signing_options import with_signing_options
from skillpack.signing.policy import SigningOptions

app = CommandApp()


@app.command("sign")
@with_signing_options
def sign(
    bundle: Annotated[Path, typer.Argument(metavar="BUNDLE", help="The bundle archive to sign.")],
    *,
    signing: SigningOptions,
) -> None:
    """Sign a bundle: keylessly with sigstore (default) or with a local key (--key).

    Writes BUNDLE.sigstore.json, a Sigstore bundle v0.3 holding a DSSE envelope over an
    in-toto statement about the archive, its lock and every file.
    """
    from skillpack.errors import display_path
    from skillpack.signing.sign import sign_bundle

    output = sign_bundle(bundle, signing)
    if str(output) == "-":  # the signature went to stdout
        print("wrote the signature to stdout", file=sys.stderr)
    else:
        print(f"wrote {display_path(output)}")
