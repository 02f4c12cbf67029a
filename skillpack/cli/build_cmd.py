"""``skillpack build [PATH] [-o OUT] [--locked] [--no-lint] [--compression ...] [--sign ...]``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import ConfigOpt
from skillpack.cli.signing_options import with_signing_options
from skillpack.signing.policy import SigningOptions

app = CommandApp()


@app.command(
    "build",
    epilog="Exit status: 0 built, 1 lint errors, a stale lock with --locked, files that "
    "cannot be published or a failed write (nothing is replaced), 2 usage or configuration "
    "error.",
)
@with_signing_options
def build_command(
    path: Annotated[
        Path | None,
        typer.Argument(
            metavar="PATH",
            help="Project directory or a path inside it (default: cwd).",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help="Bundle to write (default: <output>/<name>-<version>.skp; - for stdout).",
        ),
    ] = None,
    locked: Annotated[
        bool, typer.Option("--locked", help="Fail (exit 1) instead of updating a stale lock.")
    ] = False,
    no_lint: Annotated[bool, typer.Option("--no-lint", help="Skip the lint gate.")] = False,
    compression: Annotated[
        Literal["deflate", "stored"] | None,
        typer.Option(
            "--compression",
            help="deflate (default) or stored (identical bytes across zlib builds too).",
            show_default=False,
        ),
    ] = None,
    config: ConfigOpt = None,
    sign: Annotated[
        bool,
        typer.Option(
            "--sign",
            help="Sign the bundle as 'skillpack sign' does (keylessly, or --key): writes "
            "<bundle>.sigstore.json.",
        ),
    ] = False,
    *,
    signing: SigningOptions,
) -> int:
    """Lint, lock and write a reproducible bundle (.skp); sign it with --sign."""
    from skillpack.signing.errors import unusable

    if signing.requested and not sign:
        raise unusable(
            "SIG020",
            "--key, --trust-config and --staging are signing options",
            hint="add --sign to sign the bundle after building it",
        )
    from skillpack._internal.memory import keep_freed_memory
    from skillpack.build.builder import build
    from skillpack.cli.output import ProgressBar, plural
    from skillpack.errors import display_path
    from skillpack.source.config import resolve_config

    cfg = resolve_config([path] if path else [], config)
    keep_freed_memory()  # process-wide, before workers fork: thousands of small compressions
    bar = ProgressBar("building")
    try:
        result = build(
            cfg,
            output=output,
            locked=locked,
            lint=not no_lint,
            compression=compression,
            progress=bar,
            sign=signing if sign else None,
        )
    finally:
        bar.close()
    # with -o -, stdout carries the bundle: what was done goes to stderr
    report = sys.stderr if result.to_stdout else sys.stdout
    if result.lock_written:
        print(f"wrote {display_path(result.lock_path)}", file=report)
    print(f"built {'stdout' if result.to_stdout else display_path(result.output)}", file=report)
    print(f"  {result.digest}", file=report)
    print(
        f"  {plural(result.skills, 'skill')}, {plural(result.files, 'file')}, "
        f"{plural(result.size, 'byte')} (lint: {result.lint})",
        file=report,
    )
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if result.signature is not None:
        print(f"signed: wrote {display_path(result.signature)}", file=report)
    if result.removed_signature is not None:
        print(
            f"removed {display_path(result.removed_signature)}: it signed the previous bundle "
            "(sign this one with 'skillpack sign' or build --sign)",
            file=report,
        )
    return 0
