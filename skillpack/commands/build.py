"""``skillpack build [PATH] [-o OUT] [--locked] [--no-lint] [--compression ...] [--sign ...]``.

Without typer (see :mod:`skillpack.commands`): for a large tree the build itself takes
about a second, and typer's start-up was a tenth of it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack.commands.parser import CommandParser
from skillpack.signing.options import SIGNING_OPTIONS, add_option_arguments, signing_from_args

if TYPE_CHECKING:
    from skillpack.source.config import Config

COMPRESSIONS = ("deflate", "stored")
#: signing options build leaves out: ``-o/--output`` names the bundle here
NOT_SIGNING = ("output",)
EPILOG = """\
Exit status: 0 built, 1 lint errors, a stale lock with --locked or files that cannot be
published, 2 usage or configuration error.
"""


def build_parser() -> CommandParser:
    parser = CommandParser.for_paths(
        "build", EPILOG, "project directory or a path inside it (default: cwd)", single=True
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="bundle to write (default: <output>/<name>-<version>.skp)",
    )
    parser.add_argument(
        "--locked", action="store_true", help="fail (exit 1) instead of updating a stale lock"
    )
    parser.add_argument("--no-lint", action="store_true", help="skip the lint gate")
    parser.add_argument(
        "--compression",
        choices=COMPRESSIONS,
        help="deflate (default) or stored (identical bytes across zlib builds too)",
    )
    signing = parser.add_argument_group("signing", "sign the bundle once written")
    signing.add_argument(
        "--sign",
        action="store_true",
        help="sign the bundle as 'skillpack sign' does (keylessly, or --key): writes "
        "<bundle>.sigstore.json",
    )
    add_option_arguments(signing, SIGNING_OPTIONS, skip=NOT_SIGNING)
    return parser


def _configuration(paths: list[Path], config_file: Path | None) -> Callable[[], Config]:
    """The configuration, resolved and checked against its schema in a forked child
    while this process imports the build pipeline (the two take about as long; the
    schema check imports jsonschema). Where the child fails, the configuration is
    resolved again here, which raises its error in full."""
    from skillpack._internal.parallel import Forked, WorkerError, can_fork
    from skillpack.source.config import resolve_config

    if not can_fork():
        return lambda: resolve_config(paths, config_file)
    pending = Forked(lambda: resolve_config(paths, config_file))

    def wait() -> Config:
        try:
            return pending.result()
        except WorkerError:
            return resolve_config(paths, config_file)

    return wait


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from skillpack.signing.errors import unusable

    signing = signing_from_args(args, skip=NOT_SIGNING)
    if signing.requested and not args.sign:
        raise unusable(
            "SIG020",
            "--key, --trust-config and --staging are signing options",
            hint="add --sign to sign the bundle after building it",
        )
    configuration = _configuration([args.path] if args.path else [], args.config)
    from skillpack.build.builder import build
    from skillpack.commands.output import ProgressBar, plural
    from skillpack.errors import display_path

    if not args.no_lint:  # imported while the configuration is resolved (used anyway)
        from skillpack.lint.checks import load

        load()
    cfg = configuration()
    bar = ProgressBar("building")
    try:
        result = build(
            cfg,
            output=args.output,
            locked=args.locked,
            lint=not args.no_lint,
            compression=args.compression,
            progress=bar,
            sign=signing if args.sign else None,
        )
    finally:
        bar.close()
    if result.lock_written:
        print(f"wrote {display_path(result.lock_path)}")
    print(f"built {display_path(result.output)}")
    print(f"  {result.digest}")
    print(
        f"  {plural(result.skills, 'skill')}, {plural(result.files, 'file')}, "
        f"{result.size} bytes (lint: {result.lint})"
    )
    if result.signature is not None:
        print(f"signed: wrote {display_path(result.signature)}")
    return 0
