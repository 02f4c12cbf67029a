"""``skillpack keygen [--out-dir DIR]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp

app = CommandApp()


@app.command("keygen")
def keygen(
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out-dir", metavar="DIR", help="Where to write skillpack.key and skillpack.pub."
        ),
    ] = Path("."),
) -> None:
    """Create a key pair for key-mode signing (air-gapped use).

    Writes skillpack.key (PEM private key, mode 0600; encrypted when
    SKILLPACK_KEY_PASSWORD is set) and skillpack.pub. Never overwrites either.
    """
    from skillpack.errors import display_path
    from skillpack.signing.keys import generate_keypair

    key, pub = generate_keypair(out_dir)
    print(f"wrote {display_path(key)} (private: keep it secret) and {display_path(pub)}")
