"""``skillpack build [PATH] [-o OUT] [--locked] [--no-lint] [--compression ...] [--sign ...]``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ..signing.options import with_signing_options
from ..signing.policy import SigningOptions
from ._common import plural
from .lock_cmd import ConfigOpt, PathArg


class CompressionChoice(StrEnum):
    deflate = "deflate"
    stored = "stored"


@with_signing_options
def build_command(
    path: PathArg = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o", "--output", help="Bundle to write (default: <output>/<name>-<version>.skp)."
        ),
    ] = None,
    locked: Annotated[
        bool, typer.Option("--locked", help="Fail (exit 1) instead of updating a stale lock.")
    ] = False,
    no_lint: Annotated[bool, typer.Option("--no-lint", help="Skip the lint gate.")] = False,
    compression: Annotated[
        CompressionChoice | None,
        typer.Option(
            "--compression",
            help="deflate (default) or stored (identical bytes across zlib builds too).",
        ),
    ] = None,
    config: ConfigOpt = None,
    sign: Annotated[
        bool,
        typer.Option(
            "--sign",
            help="Sign the bundle once written, as 'skillpack sign' does (keylessly, or "
            "--key): writes <bundle>.sigstore.json.",
        ),
    ] = False,
    *,
    signing: SigningOptions,
) -> None:
    """Lint, lock and write a reproducible bundle archive (.skp); with --sign, sign it."""
    from ..build import build
    from ..config import resolve_config
    from ..errors import display_path
    from ..signing.errors import unusable
    from ._progress import ProgressBar

    if signing.requested and not sign:
        raise unusable(
            "SIG020",
            "--key, --trust-config and --staging are signing options",
            hint="add --sign to sign the bundle after building it",
        )
    cfg = resolve_config([path] if path else [], config)
    bar = ProgressBar("building")
    try:
        result = build(
            cfg,
            output=output,
            locked=locked,
            lint=not no_lint,
            compression=compression.value if compression else None,
            progress=bar,
            sign=signing if sign else None,
        )
    finally:
        bar.close()
    if result.lock_written:
        typer.echo(f"wrote {display_path(result.lock_path)}")
    typer.echo(f"built {display_path(result.output)}")
    typer.echo(f"  {result.digest}")
    typer.echo(
        f"  {plural(result.skills, 'skill')}, {plural(result.files, 'file')}, "
        f"{result.size} bytes (lint: {result.lint})"
    )
    if result.signature is not None:
        typer.echo(f"signed: wrote {display_path(result.signature)}")


def register(app: typer.Typer) -> None:
    app.command("build")(build_command)
