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
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, BinaryIO

from skillpack._internal.cliparse import Parser
from skillpack._internal.version import __version__
from skillpack.errors import SkillpackError, UsageError, report_internal_error
from skillpack.signing.options import add_require_signature_arguments, required_policy

if TYPE_CHECKING:
    from skillpack.signing.policy import SignaturePolicy
    from skillpack.signing.verify import VerifiedBundle

DESCRIPTION = """\
Serve Agent Skills over MCP on stdin/stdout (the Skills extension, SEP-2640; MCP
2026-07-28 and the legacy 2024-11-05..2025-11-25 handshake on the same process).
SOURCE is a .skp bundle, an oci://REGISTRY/REPOSITORY(:TAG|@sha256:DIGEST) reference
(pulled into the cache, then served from it; by digest and cached: no network), or a
skills directory (authors: the manifest is built in memory behind the lint gate).
Read-only: every file's size and sha256 are checked against the lock before it is
sent."""

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


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


#: what names a registry source rather than a path
OCI_SCHEME = "oci://"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="skillpack serve", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a .skp bundle, an oci:// reference or a skills directory; several may be given",
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
    add_registry_arguments(parser)
    return parser


def add_registry_arguments(parser: argparse.ArgumentParser) -> None:
    """The registry options of an ``oci://`` source (those of ``pull``, less the
    credentials on stdin: stdin is the protocol's here)."""
    group = parser.add_argument_group(
        "registry", "oci:// sources (credentials: the docker configuration or the environment)"
    )
    group.add_argument(
        "--offline",
        action="store_true",
        help="use the cache only: a tag resolves to the digest it last had; anything "
        "missing is an error (REG060)",
    )
    group.add_argument(
        "--insecure-registry",
        action="store_true",
        help="allow plain http to a registry that is not on loopback",
    )
    group.add_argument(
        "--timeout",
        type=_seconds,
        default=30.0,
        metavar="SECONDS",
        help="seconds for each exchange with a registry, retries included (default 30)",
    )


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
    policy = required_policy(args)
    sources = [_resolve(source, args, policy is not None, info) for source in args.sources]
    sources = _check_signatures(sources, policy, args, info)
    mounts = load_mounts(
        [s.path for s in sources],
        prefixes,
        lint=args.lint,
        log=info,
        origins=[s.origin for s in sources],
    )
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


@dataclass(frozen=True)
class _Source:
    """A source given on the command line: a path, or a bundle pulled into the cache."""

    path: Path
    origin: str  #: as logged: the path given, or the reference by digest
    pulled: bool = False
    signatures: tuple[Path, ...] = ()  #: a pulled bundle's signature referrers
    from_cache: bool = False


def _resolve(
    text: str,
    args: argparse.Namespace,
    signatures: bool,
    info: Callable[[str], None],
    *,
    refresh: bool = False,
) -> _Source:
    """A path, or an ``oci://`` reference fetched into the content-addressed cache (the
    registry package, and ``requests`` when the network is needed, are imported only
    here). The fetch checks the manifest against its digest and the blob against the
    manifest; the bundle is then checked as any bundle file is."""
    if not text.startswith(OCI_SCHEME):
        return _Source(Path(text), text)
    from skillpack.registry import fetch_bundle
    from skillpack.registry.options import ClientOptions

    options = ClientOptions(timeout=args.timeout, insecure=args.insecure_registry)
    fetched = fetch_bundle(
        text,
        offline=args.offline,
        signatures=signatures,
        options=options,
        refresh_signatures=refresh,
    )
    origin = str(fetched.reference)
    info(
        f"{origin}: {'from the cache' if fetched.from_cache else 'pulled'} "
        f"({fetched.bundle_size} bytes, {fetched.bundle_digest})"
    )
    return _Source(fetched.bundle_path, origin, True, fetched.signature_paths, fetched.from_cache)


def _check_signatures(
    sources: list[_Source],
    policy: SignaturePolicy | None,
    args: argparse.Namespace,
    info: Callable[[str], None],
) -> list[_Source]:
    """With ``--require-signature``: every source must be a bundle whose signature
    (``BUNDLE.sigstore.json``, or for an ``oci://`` source one of its signature
    referrers) verifies under the policy, before anything is served. Returns the
    sources (a pulled one fetched again when its cached signatures did not verify:
    the cache holds those seen at its first fetch, the registry may have newer)."""
    if policy is None:
        return sources
    from skillpack.signing.errors import SignatureError
    from skillpack.signing.verify import enforce_signature, verify_any_signature

    checked: list[_Source] = []
    for source in sources:
        verified: VerifiedBundle | None
        if source.pulled:
            try:
                verified = verify_any_signature(
                    source.path, source.signatures, policy, label=source.origin
                )
            except SignatureError:
                if not source.from_cache or args.offline:
                    raise
                source = _resolve(source.origin, args, True, info, refresh=True)
                verified = verify_any_signature(
                    source.path, source.signatures, policy, label=source.origin
                )
        elif source.path.is_dir():
            raise UsageError(
                "SRV010",
                f"{source.path} is a directory: only bundles carry signatures",
                hint="build and sign a bundle, or drop --require-signature",
            )
        else:
            verified = enforce_signature(source.path, policy)
        if verified is not None:
            info(verified.summary())
        checked.append(source)
    return checked


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
