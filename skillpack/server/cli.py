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
from typing import TYPE_CHECKING, Any, BinaryIO

from skillpack._internal.cliparse import Parser, show_default
from skillpack._internal.options import (
    ACCEPT_FLAG,
    ACCEPT_HELP,
    POLICY_FLAG,
    POLICY_HELP,
    add_option_arguments,
    at_least,
    converter,
    positive_seconds,
)
from skillpack._internal.registry_flags import CREDENTIALS_ON_STDIN, REGISTRY_OPTIONS
from skillpack._internal.version import __version__
from skillpack.errors import Location, SkillpackError, UsageError, report_internal_error
from skillpack.server.transports import http_defaults as defaults
from skillpack.signing.options import add_require_signature_arguments, required_policy

if TYPE_CHECKING:
    from skillpack.bundle.reader import Bundle
    from skillpack.policy.file import Policy
    from skillpack.server.content import VerifiedReader
    from skillpack.server.handlers import ServeOptions
    from skillpack.server.sources import Mount
    from skillpack.signing.policy import SignaturePolicy

DESCRIPTION = """\
Serve skills over MCP (stdio or HTTP) from bundles, oci:// or directories.

The Skills extension (SEP-2640) on stdin/stdout, or over Streamable HTTP with --http;
MCP 2026-07-28 and the legacy 2024-11-05..2025-11-25 handshake on the same server.

SOURCE is a .skp bundle, an oci://REGISTRY/REPOSITORY(:TAG|@sha256:DIGEST) reference
(pulled into the cache, then served from it; by digest and cached: no network), or a
skills directory (authors: the manifest is built in memory behind the lint gate).
Read-only: every file's size and sha256 are checked against the lock before it is
sent."""

#: paragraphs as typer's epilogs (a "\b" paragraph is kept line by line)
EPILOG = """\
\b
Host configuration:
  {"command": "skillpack", "args": ["serve", "/path/to/skills.skp"]}
Over HTTP (endpoint /mcp):
  skillpack serve --http 127.0.0.1:8080 skills.skp

Exit status: 0 stdin closed or SIGTERM; 1 lint errors (DIR), a bundle or signature that
fails verification; 2 usage or sources; 3 a bug; 130 interrupted (docs/errors.md)."""

#: The environment variable ``--http`` reads the bearer token from (``--token-file``
#: takes precedence).
TOKEN_ENV = "SKILLPACK_SERVE_TOKEN"
HTTP_EXTRA_HINT = "pip install 'skillpack[http]'"


class _Terminated(Exception):
    """SIGTERM arrived."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise _Terminated


#: argparse types, refusing a value as the typer commands do (``invalid int value: 'x'``)
_non_negative = converter(int, at_least(0))
_positive = converter(int, at_least(1))
_seconds = converter(float, positive_seconds)


def _http_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` -> (host, port); IPv6 hosts in brackets (``[::1]:8080``)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    if host.startswith("[") != host.endswith("]") or (":" in host and not host.startswith("[")):
        raise argparse.ArgumentTypeError(f"{text!r}: write an IPv6 host in brackets, [::1]:8080")
    if not host or host == "[]" or any(c.isspace() for c in host):
        raise argparse.ArgumentTypeError(f"{text!r}: no host before the ':'")
    if not (port.isascii() and port.isdigit()) or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: the port must be a number 0-65535")
    return host, int(port)


def _endpoint_path(text: str) -> str:
    if not text.startswith("/") or any(c in text for c in "?#% ") or not text.isprintable():
        raise argparse.ArgumentTypeError(f"{text!r}: a path starting with '/', like /mcp")
    return text


#: The HTTP options (argparse dest -> flag), refused without --http.
HTTP_OPTIONS = {
    "path": "--path",
    "workers": "--workers",
    "allow_host": "--allow-host",
    "allow_origin": "--allow-origin",
    "token_file": "--token-file",
    "no_auth": "--no-auth",
    "certfile": "--certfile",
    "keyfile": "--keyfile",
    "log_format": "--log-format",
    "max_body_bytes": "--max-body-bytes",
    "max_connections": "--max-connections",
    "max_sessions": "--max-sessions",
    "session_idle": "--session-idle",
    "header_timeout": "--header-timeout",
    "body_timeout": "--body-timeout",
    "keepalive_timeout": "--keepalive-timeout",
    "grace": "--grace",
}


def _add_http_arguments(parser: argparse.ArgumentParser) -> None:
    http = parser.add_argument_group(
        "Streamable HTTP", f"serve over HTTP instead of stdio (needs {HTTP_EXTRA_HINT})"
    )

    def add(*flags: str, applied: object = None, **settings: Any) -> None:
        """An HTTP option; its default (``applied``, shown in the help) is applied by the
        HTTP server (server/transports/http*.py): None here tells one not given."""
        action = http.add_argument(*flags, **settings)
        if applied is not None:
            show_default(action, applied)

    add(
        "--http",
        type=_http_address,
        metavar="[HOST:]PORT",
        help="listen on HOST (default 127.0.0.1) and PORT (0: a free one, printed on stderr)",
    )
    add("--path", type=_endpoint_path, metavar="PATH", help="the MCP endpoint",
        applied=defaults.PATH)  # fmt: skip
    add("--workers", type=_positive, metavar="N", help="serve from N processes",
        applied=defaults.WORKERS)  # fmt: skip
    add(
        "--allow-host",
        action="append",
        metavar="HOST[:PORT]",
        help="also answer requests whose Host is this name (any port unless given; '*': "
        "any Host). The bound address and localhost, 127.0.0.1, [::1] with the bound "
        "port are always accepted",
    )
    add(
        "--allow-origin",
        action="append",
        metavar="ORIGIN",
        help="also accept browser requests from this Origin (https://app.example; '*': "
        "any): its CORS preflights are answered and its replies readable by the page. "
        "The server's own address is always accepted; an --allow-host name never is",
    )
    add(
        "--token-file",
        type=Path,
        metavar="FILE",
        help=f"require 'Authorization: Bearer TOKEN', TOKEN read from FILE (or set {TOKEN_ENV})",
    )
    add(
        "--no-auth",
        action="store_true",
        default=None,
        help="serve a non-loopback address without a token (refused otherwise)",
    )
    add("--certfile", type=Path, metavar="PEM", help="serve HTTPS with this certificate chain")
    add("--keyfile", type=Path, metavar="PEM", help="the private key of --certfile")
    add(
        "--log-format",
        choices=("text", "json"),
        help="access log lines on stderr, as text or JSON; -q turns the log off",
        applied=defaults.LOG_FORMAT,
    )
    add("--max-body-bytes", type=_positive, metavar="N", help="largest message, in bytes",
        applied=defaults.MAX_BODY_BYTES)  # fmt: skip
    add("--max-connections", type=_positive, metavar="N", help="open connections",
        applied=defaults.MAX_CONNECTIONS)  # fmt: skip
    add("--max-sessions", type=_positive, metavar="N", help="live legacy sessions",
        applied=defaults.MAX_SESSIONS)  # fmt: skip
    add("--session-idle", type=_seconds, metavar="S",
        help="a legacy session unused this long expires",
        applied=defaults.SESSION_IDLE_S)  # fmt: skip
    add("--header-timeout", type=_seconds, metavar="S",
        help="time for a request's headers to arrive",
        applied=defaults.HEADER_TIMEOUT_S)  # fmt: skip
    add("--body-timeout", type=_seconds, metavar="S",
        help="time for a request's body to arrive", applied=defaults.BODY_TIMEOUT_S)  # fmt: skip
    add("--keepalive-timeout", type=_seconds, metavar="S",
        help="an idle keep-alive connection is closed after this",
        applied=defaults.KEEPALIVE_TIMEOUT_S)  # fmt: skip
    add("--grace", type=_seconds, metavar="S",
        help="on SIGTERM, time to finish the requests in flight",
        applied=defaults.GRACE_S)  # fmt: skip


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
        help="ttlMs caching hint on cacheable results",
    )
    parser.add_argument(
        "--cache-scope",
        choices=("public", "private"),
        default="public",
        help="cacheScope on cacheable results",
    )
    parser.add_argument(
        "--page-size",
        type=_positive,
        default=100,
        metavar="N",
        help="entries per page of every paginated list",
    )
    parser.add_argument(
        "--cache-mb",
        type=_non_negative,
        default=16,
        metavar="MB",
        help="memory for verified file contents kept between reads (0: none)",
    )
    parser.add_argument(
        "--no-directory-read",
        dest="directory_read",
        action="store_false",
        help="do not offer resources/directory/read",
    )
    parser.add_argument(
        "--extension-only",
        dest="fallbacks",
        action="store_false",
        help="serve skills through the Skills extension and resources only: no skills "
        "named in the instructions, no prompts, no load_skill tool (for hosts that speak "
        "the extension)",
    )
    parser.add_argument(
        ACCEPT_FLAG,
        dest="accept",
        action="append",
        default=[],
        metavar="SKILL:CODE",
        help=ACCEPT_HELP,
    )
    parser.add_argument(POLICY_FLAG, dest="policy", type=Path, metavar="FILE", help=POLICY_HELP)
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
    _add_http_arguments(parser)
    return parser


def add_registry_arguments(parser: argparse.ArgumentParser) -> None:
    """The registry options of an ``oci://`` source
    (:mod:`skillpack._internal.registry_flags`, as ``pull`` has them, less the
    credentials on stdin: stdin is the protocol's here)."""
    group = parser.add_argument_group(
        "registry", "oci:// sources (credentials: the docker configuration or the environment)"
    )
    add_option_arguments(group, REGISTRY_OPTIONS, skip=CREDENTIALS_ON_STDIN)


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
    if args.http is not None:
        return _main_http(args)
    given = [flag for dest, flag in HTTP_OPTIONS.items() if getattr(args, dest) is not None]
    if given:
        error = UsageError(
            "SRV025", f"{', '.join(given)} only apply to --http", hint="add --http [HOST:]PORT"
        )
        print(error.render(), file=sys.stderr)
        return error.exit_code
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


def _main_http(args: argparse.Namespace) -> int:
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _serve_http(args)
    except _Terminated:
        return 0
    except KeyboardInterrupt:
        return 130
    except SkillpackError as exc:
        print(exc.render(), file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # a bug: a message, not a traceback
        return report_internal_error(exc, "skillpack serve")


def _serve(args: argparse.Namespace, out: BinaryIO) -> int:
    from skillpack._internal.words import plural
    from skillpack.server.handlers import Methods
    from skillpack.server.index import Index
    from skillpack.server.protocol import Protocol
    from skillpack.server.sources import stderr_log
    from skillpack.server.transports.stdio import LineServer

    def log(message: str) -> None:
        stderr_log(message)

    def info(message: str) -> None:
        if not args.quiet:
            stderr_log(message)

    mounts = _mounts(args, info)
    try:
        index = Index(mounts)
        options = _options(args)
        reader = _reader(args, log)
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


def _options(args: argparse.Namespace) -> ServeOptions:
    from skillpack.server.handlers import ServeOptions

    return ServeOptions(
        args.ttl_ms, args.cache_scope, args.page_size, args.directory_read, args.fallbacks
    )


def _admission(args: argparse.Namespace) -> Policy | None:
    """The consumer's policy (``--policy``, the user's, the project's) with ``--accept``;
    None when there is neither a policy file nor an ``--accept`` (nothing is imported)."""
    from skillpack.policy.places import project_policies, user_policy

    here = Path.cwd()
    if not (args.accept or args.policy or project_policies(here) or user_policy(os.environ)):
        return None
    from skillpack.policy.admission import parse_accepts
    from skillpack.policy.file import load_policy

    policy = load_policy(args.policy, here, os.environ)
    return policy.with_accepts(parse_accepts(args.accept))


def _reader(args: argparse.Namespace, log: Callable[[str], None]) -> VerifiedReader:
    """The verified reader, judging each file's first read under the policy."""
    from skillpack.server.content import VerifiedReader

    admission: Policy | None = args.admission
    if admission is None:
        return VerifiedReader(log, args.cache_mb * 1024 * 1024)
    return VerifiedReader(log, args.cache_mb * 1024 * 1024, admission.accepts, admission.block)


def _mounts(args: argparse.Namespace, info: Callable[[str], None]) -> list[Mount]:
    """The sources, resolved (``oci://`` ones fetched), signature-checked when asked, and
    mounted at their prefixes: what either transport serves."""
    from skillpack.server.sources import load_mounts

    prefixes = _prefixes(args.prefix, len(args.sources))
    policy = required_policy(args)
    args.admission = admission = _admission(args)
    if admission is not None:
        names = [_policy_name(text) for text in args.sources]
        for name in names:
            admission.check_source(name)  # before anything is fetched
        from skillpack.policy.file import signature_policy

        checks = [signature_policy(admission, name, policy) for name in names]
        if any(check is not None for check in checks) and policy is None:
            policy = next(check for check in checks if check is not None)

    sources: list[_Source] = []
    try:
        for source in args.sources:
            sources.append(_resolve(source, args, policy, info))
        _check_signatures(sources, policy, info)
        mounts = load_mounts(
            [s.bundle if s.bundle is not None else s.path for s in sources],
            prefixes,
            lint=args.lint,
            log=info,
            origins=[s.origin for s in sources],
        )
    except BaseException:
        for opened in sources:
            if opened.bundle is not None:
                opened.bundle.close()
        raise
    return _judged(mounts, args, info)


def _judged(
    mounts: list[Mount], args: argparse.Namespace, log: Callable[[str], None]
) -> list[Mount]:
    """``mounts``, once their listings pass admission (closed when they do not)."""
    try:
        _judge_listings(mounts, args, log)
    except BaseException:
        for mount in mounts:
            mount.source.close()
        raise
    return mounts


def _judge_listings(
    mounts: list[Mount], args: argparse.Namespace, log: Callable[[str], None]
) -> None:
    """Refuse to start (``ADM001``) when a listed skill's frontmatter carries what the
    content scan refuses: ``skills/list`` sends every frontmatter string to every host
    before any file is read, and ``instructions``, the prompts and the ``load_skill``
    tool carry the names and descriptions, so a refused skill would reach the agent
    through them whatever its files' verdict. Every string is judged with the whole
    scan (:func:`~skillpack.policy.admission.judge_frontmatter`); warnings and accepted
    findings are logged. Admission's own module is imported only when the scan finds
    something."""
    from skillpack.policy.listing import frontmatter_findings

    hits = frontmatter_findings(s for mount in mounts for s in mount.source.manifest.skills)
    if not hits:
        return
    from skillpack.policy.admission import Admission, flag_frontmatter

    admission: Policy | None = args.admission
    accepts, block = (admission.accepts, admission.block) if admission else ((), frozenset())
    found = Admission(flag_frontmatter(hits, accepts, block))
    found.check(", ".join(m.origin for m in mounts), "not serving")
    for flagged in found.warnings + found.accepted:
        log(f"scan: {flagged.line()}")


def _policy_name(text: str) -> str:
    """How a policy's patterns see a source: an ``oci://`` reference normalized, a path
    absolute."""
    if text.startswith(OCI_SCHEME):
        from skillpack.registry.reference import parse_reference

        return str(parse_reference(text))
    return Path(text).resolve().as_posix()


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _read_token(args: argparse.Namespace) -> bytes | None:
    """The bearer token from --token-file or the environment (None when neither)."""
    if args.token_file is not None:
        path: Path = args.token_file
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise UsageError(
                "SRV021",
                f"--token-file: cannot read it: {exc.strerror}",
                Location(str(path)),
            ) from None
        where = f"--token-file {path}"
    elif os.environ.get(TOKEN_ENV):
        raw, where = os.environ[TOKEN_ENV].encode("utf-8"), TOKEN_ENV
    else:
        return None
    token = raw.strip()
    if not token or any(c <= 0x20 or c >= 0x7F for c in token):
        raise UsageError(
            "SRV021",
            f"{where}: the token must be one line of visible ASCII characters",
            hint="generate one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'",
        )
    return token


def _serve_http(args: argparse.Namespace) -> int:
    """``skillpack serve --http``: every check that needs no socket, then the sources,
    then the listening socket, then serve until SIGTERM."""
    host, port = args.http
    token = _read_token(args)
    if token is not None and args.no_auth:
        raise UsageError("SRV021", "--no-auth and a bearer token contradict each other")
    if token is None and not args.no_auth and not _is_loopback(host):
        raise UsageError(
            "SRV021",
            f"--http {host}:{port} is reachable from other machines and no token is set",
            hint=f"give --token-file FILE (or set {TOKEN_ENV}); or pass --no-auth to serve "
            "without authentication on purpose",
        )
    if (args.certfile is None) != (args.keyfile is None):
        raise UsageError("SRV023", "--certfile and --keyfile go together")
    for option, path in (("--certfile", args.certfile), ("--keyfile", args.keyfile)):
        if path is not None and not path.is_file():
            raise UsageError("SRV023", f"{option}: no such file", Location(str(path)))
    workers = args.workers or 1
    if workers > 1 and not hasattr(os, "fork"):
        raise UsageError("SRV026", "--workers needs a system with fork(); use one worker")
    from skillpack.server.transports import uvicorn_core

    try:
        uvicorn_core.load()  # uvicorn's server, without its command line
    except ImportError:
        raise UsageError(
            "SRV020",
            "--http needs the optional HTTP server, which is not installed",
            hint=HTTP_EXTRA_HINT,
        ) from None
    from skillpack._internal.words import plural
    from skillpack.server.handlers import Methods
    from skillpack.server.index import Index
    from skillpack.server.protocol import Protocol
    from skillpack.server.sources import stderr_log
    from skillpack.server.transports import http, http_serve

    def log(message: str) -> None:
        stderr_log(message)

    def info(message: str) -> None:
        if not args.quiet:
            stderr_log(message)

    mounts = _mounts(args, info)
    try:
        index = Index(mounts)
        options = _options(args)
        reader = _reader(args, log)
        methods = Methods(index, options, reader)
        sock = http_serve.bind(host, port)
        try:
            port = sock.getsockname()[1]  # port 0: the one chosen (Host checks use it)
            settings = http.HttpSettings(
                host=host,
                port=port,
                path=args.path or defaults.PATH,
                tls=args.certfile is not None,
                allow_hosts=tuple(args.allow_host or ()),
                allow_origins=tuple(args.allow_origin or ()),
                token=token,
                max_body_bytes=args.max_body_bytes or http.DEFAULT_MAX_BODY_BYTES,
            )
            sessions = http.SessionTable(
                args.max_sessions or http.DEFAULT_MAX_SESSIONS,
                args.session_idle or http.DEFAULT_SESSION_IDLE_S,
            )
            contract = http.Contract(
                settings,
                Protocol(methods, log, sticky=False),
                http.legacy_protocols(
                    lambda version: Protocol(methods, log, legacy_version=version, sticky=False)
                ),
                sessions,
            )
            access = None if args.quiet else http.AccessLog(args.log_format or defaults.LOG_FORMAT)
            app = http.App(
                contract, access, body_timeout=args.body_timeout or defaults.BODY_TIMEOUT_S, log=log
            )
            limits = http_serve.Limits(
                header_timeout=args.header_timeout or defaults.HEADER_TIMEOUT_S,
                max_connections=args.max_connections or defaults.MAX_CONNECTIONS,
                keepalive_timeout=args.keepalive_timeout or defaults.KEEPALIVE_TIMEOUT_S,
                grace=args.grace or defaults.GRACE_S,
            )
            config = http_serve.make_config(
                app,
                limits,
                certfile=str(args.certfile) if args.certfile else None,
                keyfile=str(args.keyfile) if args.keyfile else None,
                quiet=args.quiet,
            )
            info(
                f"serving {plural(len(index.skills), 'skill')} "
                f"({plural(len(index.files), 'file')}) from "
                + ", ".join(f"{m.label} ({m.origin})" for m in mounts)
            )
            scheme = "https" if args.certfile else "http"
            auth = "bearer token required" if token else "no token"
            stderr_log(
                f"listening on {scheme}://{host}:{port}{settings.path} "
                f"({plural(workers, 'worker')}, {auth})"
            )
            if workers > 1:
                sessions.share_between_processes()
            return http_serve.run(config, sock, workers, log)
        finally:
            sock.close()
    finally:
        for mount in mounts:
            mount.source.close()


@dataclass(frozen=True)
class _Source:
    """A source given on the command line: a path, or a bundle pulled into the cache
    and opened verified (its signature checked when a policy asks)."""

    path: Path
    origin: str  #: as logged: the path given, or the reference by digest
    bundle: Bundle | None = None  #: a pulled bundle, open


def _resolve(
    text: str,
    args: argparse.Namespace,
    policy: SignaturePolicy | None,
    info: Callable[[str], None],
) -> _Source:
    """A path, or an ``oci://`` reference through the one verified fetch
    (:mod:`skillpack.fetch`: the registry package, and ``requests`` when the network is
    needed, are imported only here), opened fast: the lock, the index and the archive's
    directory now, every file against its digest on its first read, as for any bundle
    file; with ``policy``, one of its signature referrers verified first."""
    if not text.startswith(OCI_SCHEME):
        return _Source(Path(text), text)
    from skillpack.fetch import fetch_verified
    from skillpack.registry.options import NO_REGISTRY, ClientOptions
    from skillpack.registry.reference import parse_reference

    # SKILLPACK_REGISTRY_USERNAME/PASSWORD go to the registry SKILLPACK_REGISTRY names,
    # else to the one registry of the oci:// sources; with several, to none of them
    registries = {parse_reference(s).registry for s in args.sources if s.startswith(OCI_SCHEME)}
    options = ClientOptions(
        timeout=args.timeout,
        insecure=args.insecure_registry,
        environment_registry=None if len(registries) <= 1 else NO_REGISTRY,
    )
    fetched = fetch_verified(
        text,
        options=options,
        policy=policy,
        offline=args.offline,
        signatures=policy is not None,
        mode="fast",
    )
    origin = fetched.reference
    result = fetched.fetch
    info(
        f"{origin}: {'from the cache' if result.from_cache else 'pulled'} "
        f"({result.bundle_size} bytes, {result.bundle_digest})"
    )
    if fetched.stale:
        info(f"{origin}: the cached copy had changed since it was fetched: fetched again")
    for note in fetched.notes:
        info(f"{origin}: note: {note}")
    if fetched.verified is not None:
        info(fetched.verified.summary())
    return _Source(fetched.path, origin, fetched.bundle)


def _check_signatures(
    sources: list[_Source],
    policy: SignaturePolicy | None,
    info: Callable[[str], None],
) -> None:
    """With ``--require-signature``: every source must be a bundle whose signature
    (``BUNDLE.sigstore.json``; a pulled one's referrers were checked by its fetch)
    verifies under the policy, before anything is served."""
    if policy is None:
        return
    from skillpack.signing.verify import enforce_signature

    for source in sources:
        if source.bundle is not None:
            continue
        if source.path.is_dir():
            raise UsageError(
                "SRV010",
                f"{source.path} is a directory: only bundles carry signatures",
                hint="build and sign a bundle, or drop --require-signature",
            )
        verified = enforce_signature(source.path, policy)
        if verified is not None:
            info(verified.summary())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
