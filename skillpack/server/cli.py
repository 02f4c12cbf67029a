"""``skillpack serve``: argument parsing and start-up, with the standard library only.

``skillpack/__main__.py`` calls :func:`main` before typer is imported. Start-up errors
are rendered as :class:`~skillpack.errors.SkillpackError` on stderr with their exit
code; once serving, stdout carries protocol messages only and logs go to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import BinaryIO

from skillpack._internal.cliparse import Parser
from skillpack._internal.version import __version__
from skillpack.errors import SkillpackError, UsageError, report_internal_error
from skillpack.signing.options import add_require_signature_arguments, required_policy

DESCRIPTION = """\
Serve Agent Skills over MCP on stdin/stdout (the Skills extension, SEP-2640; MCP
2026-07-28 and the legacy 2024-11-05..2025-11-25 handshake on the same process).
SOURCE is a .skp bundle, or a skills directory (authors: the manifest is built in
memory behind the lint gate). Read-only: every file's size and sha256 are checked
against the lock before it is sent."""

EPILOG = """\
host configuration:  {"command": "skillpack", "args": ["serve", "/path/to/skills.skp"]}
exit codes: 0 stdin closed or SIGTERM; 1 lint errors (DIR), a bundle or signature that
fails verification; 2 usage or sources; 3 a bug; 130 interrupted (docs/errors.md)"""


class _Terminated(Exception):
    """SIGTERM arrived."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise _Terminated


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="skillpack serve", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument(
        "sources",
        nargs="+",
        type=Path,
        metavar="SOURCE",
        help="a .skp bundle or a skills directory; several may be given",
    )
    parser.add_argument(
        "--prefix",
        action="append",
        default=[],
        metavar="PATH",
        help="mount under this skill-path prefix (skill://PATH/...); give it once for "
        "every source, or once per source in order",
    )
    parser.add_argument(
        "--ttl-ms",
        type=_non_negative,
        default=300_000,
        metavar="MS",
        help="ttlMs caching hint on cacheable results (default 300000)",
    )
    parser.add_argument(
        "--cache-scope",
        choices=("public", "private"),
        default="public",
        help="cacheScope on cacheable results (default public)",
    )
    parser.add_argument(
        "--page-size",
        type=_positive,
        default=100,
        metavar="N",
        help="entries per page of every paginated list (default 100)",
    )
    parser.add_argument(
        "--cache-mb",
        type=_non_negative,
        default=16,
        metavar="MB",
        help="memory for verified file contents kept between reads (default 16; 0: none)",
    )
    parser.add_argument(
        "--no-directory-read",
        dest="directory_read",
        action="store_false",
        help="do not offer resources/directory/read",
    )
    parser.add_argument(
        "--no-lint",
        dest="lint",
        action="store_false",
        help="serve a directory even when lint reports errors",
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="log nothing to stderr but errors"
    )
    parser.add_argument("--version", action="version", version=f"skillpack {__version__}")
    add_require_signature_arguments(parser)
    return parser


def _prefixes(given: Sequence[str], count: int) -> list[str]:
    from skillpack.server.sources import check_prefix

    cleaned = [check_prefix(p) for p in given]
    if not cleaned:
        return [""] * count
    if len(cleaned) == 1:
        return cleaned * count
    if len(cleaned) == count:
        return cleaned
    raise UsageError(
        "SRV009",
        f"{len(cleaned)} --prefix values for {count} sources",
        hint="give --prefix once (for every source) or once per source",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``skillpack serve ARGV``; return the exit code (never raises SystemExit)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 2
    except SkillpackError as exc:  # usage errors (USE000), as every command reports them
        print(exc.render(), file=sys.stderr)
        return exc.exit_code
    protocol_out: BinaryIO = os.fdopen(os.dup(1), "wb", buffering=256 * 1024)
    sys.stdout = sys.stderr  # nothing but protocol messages may reach stdout
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _serve(args, protocol_out)
    except _Terminated:
        return 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the client went away
        return 0
    except SkillpackError as exc:
        print(exc.render(), file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # a bug: a message, not a traceback
        return report_internal_error(exc, "skillpack serve")
    finally:
        with contextlib.suppress(OSError):
            protocol_out.close()


def _serve(args: argparse.Namespace, out: BinaryIO) -> int:
    from skillpack._internal.words import plural
    from skillpack.server.content import VerifiedReader
    from skillpack.server.handlers import Methods, ServeOptions
    from skillpack.server.index import Index
    from skillpack.server.protocol import Protocol
    from skillpack.server.sources import load_mounts, stderr_log
    from skillpack.server.transports.stdio import LineServer

    def log(message: str) -> None:
        stderr_log(message)

    def info(message: str) -> None:
        if not args.quiet:
            stderr_log(message)

    prefixes = _prefixes(args.prefix, len(args.sources))
    _check_signatures(args, info)
    mounts = load_mounts(args.sources, prefixes, lint=args.lint, log=info)
    try:
        index = Index(mounts)
        options = ServeOptions(args.ttl_ms, args.cache_scope, args.page_size, args.directory_read)
        reader = VerifiedReader(log, cache_bytes=args.cache_mb * 1024 * 1024)
        protocol = Protocol(Methods(index, options, reader), log)
        info(
            f"serving {plural(len(index.skills), 'skill')} ({plural(len(index.files), 'file')}) "
            "from " + ", ".join(f"{m.label} ({m.origin})" for m in mounts)
        )
        LineServer(protocol, 0, out).run()
    finally:
        for mount in mounts:
            mount.source.close()
    return 0


def _check_signatures(args: argparse.Namespace, info: Callable[[str], None]) -> None:
    """With ``--require-signature``: every source must be a bundle whose signature
    (``BUNDLE.sigstore.json``) verifies under the policy, before anything is served."""
    policy = required_policy(args)
    if policy is None:
        return
    from skillpack.signing.verify import enforce_signature

    for source in args.sources:
        if source.is_dir():
            raise UsageError(
                "SRV010",
                f"{source} is a directory: only bundles carry signatures",
                hint="build and sign a bundle, or drop --require-signature",
            )
        verified = enforce_signature(source, policy)
        if verified is not None:
            info(verified.summary())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
