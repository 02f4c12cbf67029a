"""The registry package's error codes, in one table.

Every failure of :mod:`skillpack.registry` is a :class:`RegistryError` (a
:class:`~skillpack.errors.SkillpackError`) with a ``REG…`` code from :data:`CODES`. The
table is kept here, in one place, so that it can be folded into the project's error
registry later without touching the raising sites.

Exit codes: a failed integrity check (a digest or size that does not match) exits with
:data:`~skillpack.errors.EXIT_FINDINGS` (1), like any failed verification; everything
else (a bad reference, a registry that is down or refuses us, a missing cache entry) is
an error of use or environment, :data:`~skillpack.errors.EXIT_USAGE` (2).
"""

from __future__ import annotations

from dataclasses import dataclass

from skillpack.errors import EXIT_FINDINGS, EXIT_USAGE, ErrorCode, Family, SkillpackError, register

CODES: dict[str, str] = {
    # references
    "REG001": "not an oci:// reference",
    "REG002": "invalid registry host or port",
    "REG003": "invalid repository name",
    "REG004": "invalid tag",
    "REG005": "invalid or unsupported digest",
    "REG006": "the reference needs a tag or a digest here",
    "REG007": "the reference must not carry a digest here",
    # transport
    "REG010": "plain http refused for a registry that is not on loopback",
    "REG011": "registry unreachable",
    "REG012": "registry timed out",
    "REG013": "TLS failure talking to the registry",
    "REG014": "too many redirects, or a redirect without a location",
    # authentication
    "REG020": "the registry requires authentication and no credentials were found",
    "REG021": "the registry or its token server refused the credentials",
    "REG022": "access denied: the credentials do not grant this action",
    "REG023": "the token server failed or answered something unusable",
    "REG024": "a docker credential helper failed",
    "REG025": "the credentials configuration cannot be used",
    "REG026": "a host the registry redirected to asked for credentials",
    # registry answers
    "REG030": "not found in the registry",
    "REG031": "the registry refused the request",
    "REG032": "the registry answered something unusable",
    # integrity
    "REG040": "manifest does not match the digest asked for",
    "REG041": "manifest does not match the registry's Docker-Content-Digest",
    "REG042": "blob does not match its digest",
    "REG043": "blob does not match its size",
    "REG044": "manifest or blob larger than allowed",
    # artifacts
    "REG050": "not a skillpack bundle artifact",
    "REG051": "malformed manifest or index",
    "REG053": "the bundle or signature file cannot be read",
    # cache
    "REG060": "not in the cache (offline)",
    "REG061": "the cache cannot be written or read",
}

#: when each code happens and what to do (Markdown), for docs/errors.md
DOCS: dict[str, str] = {
    "REG001": (
        "A registry source or target is written `oci://REGISTRY/REPOSITORY:TAG` or "
        "`oci://REGISTRY/REPOSITORY@sha256:HEX`, without spaces, control characters, `?`, `#` "
        "or `\\`."
    ),
    "REG002": (
        "The part before the first `/` must be a host name (DNS labels), an IPv4 address or an "
        "IPv6 address in brackets (`[::1]`), optionally followed by `:PORT` (1-65535)."
    ),
    "REG003": (
        "Repository path components are lowercase letters and digits, separated by `.`, `_`, "
        "`__` or dashes and joined by `/`; host and repository together are at most 255 "
        "characters."
    ),
    "REG004": (
        "A tag is up to 128 letters, digits, `_`, `.` and `-`, and does not start with `.` or `-`."
    ),
    "REG005": (
        "A digest is `sha256:` followed by 64 lowercase hexadecimal digits; other algorithms "
        "are not supported."
    ),
    "REG006": (
        "`pull`, `verify`, `inspect`, `install` and `serve` fetch one bundle: add `:TAG` or "
        "`@sha256:DIGEST` to the reference."
    ),
    "REG007": (
        "A push goes to a tag (or to the repository alone); the digest of what was pushed is "
        "printed. Drop the `@sha256:...` part."
    ),
    "REG010": (
        "Registries are reached over https; plain http only on loopback (`localhost`, "
        "`127.0.0.1`, `[::1]`). Use https, or pass `--insecure-registry` for a registry you "
        "trust on this network."
    ),
    "REG011": (
        "The registry could not be reached, or a transfer broke, after the retries (DNS, "
        "connection refused or reset). Check the address, the network and that the registry is "
        "up."
    ),
    "REG012": (
        "No answer within `--timeout` seconds (default 30, retries included). Raise `--timeout` "
        "for a slow registry, or check that it is reachable."
    ),
    "REG013": (
        "The TLS handshake failed: an untrusted or expired certificate, or one for another "
        "name. Fix the registry's certificate or trust its CA (`REQUESTS_CA_BUNDLE`); "
        "`--insecure-registry` allows plain http, never an unchecked certificate."
    ),
    "REG014": (
        "More than 5 redirects, or a redirect without a `Location` header: the registry or a "
        "proxy in front of it is misconfigured."
    ),
    "REG020": (
        "The registry answered 401 and no credentials were found for it: none in the docker "
        "configuration (`docker login`) or its credential helpers, none in "
        "`SKILLPACK_REGISTRY_USERNAME`/`SKILLPACK_REGISTRY_PASSWORD`. Log in, set the "
        "variables, or pass `--username` with `--password-stdin`."
    ),
    "REG021": (
        "The registry or its token server answered 401 to the credentials given: a wrong user "
        "name, password or token, or an expired one. The message says where the credentials "
        "came from."
    ),
    "REG022": (
        "The credentials were accepted but do not allow this action (pull or push) on this "
        "repository (403). Get access, or use a token with the right scopes."
    ),
    "REG023": (
        "The token server named by the registry's authentication challenge answered an HTTP "
        "error, or no token. The registry's authentication service is failing; try again later."
    ),
    "REG024": (
        "The docker configuration (`credsStore`, `credHelpers`) names a `docker-credential-*` "
        "helper that is not on `PATH`, cannot be run, fails, does not answer in time or answers "
        "something unusable. Install or fix the helper, or remove it from the configuration."
    ),
    "REG025": (
        "The docker configuration cannot be read or is not a JSON object, an `auths` entry is "
        "not base64 of `user:password`, only one of `SKILLPACK_REGISTRY_USERNAME` and "
        "`SKILLPACK_REGISTRY_PASSWORD` is set, `SKILLPACK_REGISTRY` is not a registry's "
        "`host[:port]`, or `--username` and `--password-stdin` are not given together (or "
        "give an empty name or password). The message says which."
    ),
    "REG026": (
        "The registry redirected a request (a blob, to its storage) to another host, which "
        "answered 401 or 403. The registry's credentials go to the registry only: never to "
        "a redirect target, nor to a token realm such a host names. The message names the "
        "host that answered; the storage should accept the redirect (a signed URL) as it is."
    ),
    "REG030": (
        "The registry answered 404: no such repository, tag or digest there. Check the "
        "reference (`skillpack push` prints what it pushed)."
    ),
    "REG031": (
        "The registry answered an HTTP error other than 401, 403, 404 and 413 (5xx answers are "
        "retried first); the message gives the status and the registry's own error codes."
    ),
    "REG032": (
        "The registry's answer breaks the distribution protocol: an upload started without a "
        "`Location`, a redirect to a URL that is not http(s), more than 16 pages of referrers. "
        "The registry or a proxy in front of it misbehaves."
    ),
    "REG040": (
        "The manifest bytes the registry sent do not hash to the digest asked for (given with "
        "`@sha256:`, or the one a tag resolved to): they were altered on the way or in the "
        "registry. Nothing is used; do not trust that copy."
    ),
    "REG041": (
        "The registry's `Docker-Content-Digest` header disagrees with the sha256 of the "
        "manifest bytes it sent, or of the manifest pushed: something between skillpack and the "
        "registry alters content."
    ),
    "REG042": (
        "A blob's bytes (the bundle archive, a signature) do not hash to the digest the "
        "manifest gives, or the registry stored a pushed blob under another digest. Nothing is "
        "written; do not trust that copy."
    ),
    "REG043": (
        "A blob is longer or shorter than the size its descriptor (or the registry's "
        "`Content-Length`) gives: a cut or padded transfer, or an altered blob. Nothing is "
        "written."
    ),
    "REG044": (
        "A manifest over 4 MiB, a blob over the size allowed for it, or the registry answered "
        "413 to a push. A pull of it is not a skillpack bundle of a sane size; for a push, the "
        "registry's limit is below the bundle's size."
    ),
    "REG050": (
        "The reference holds an OCI manifest whose `artifactType` is not skillpack's bundle "
        "type, or without exactly one bundle layer: a container image or another artifact, not "
        "a bundle pushed by `skillpack push`. Check the reference."
    ),
    "REG051": (
        "A manifest, or an index of referrers, is not JSON of the OCI shape skillpack expects "
        "(`schemaVersion`, `mediaType`, descriptors with a digest and a size). The registry "
        "holds something skillpack did not push, or a damaged copy."
    ),
    "REG053": (
        "`push` reads the bundle and its signature before connecting; one of them exists but "
        "cannot be read. The message gives the system's reason."
    ),
    "REG060": (
        "Offline (`--offline`), only the cache is used, and it does not hold this digest, or "
        "any digest for this tag. Fetch it once online, or drop `--offline`."
    ),
    "REG061": (
        "The cache directory (`$SKILLPACK_CACHE_DIR/oci`, else `$XDG_CACHE_HOME/skillpack/oci`, "
        "else `~/.cache/skillpack/oci`) cannot be created, written or read. Point "
        "`SKILLPACK_CACHE_DIR` to a writable directory."
    ),
}

#: codes of failed integrity checks: exit 1 like any failed verification
INTEGRITY_CODES = frozenset({"REG040", "REG041", "REG042", "REG043"})

# the project's one registry of codes (skillpack/errors.py; docs/errors.md lists them)
register(
    Family("REG", "OCI registry client",
           "`skillpack.registry`: references, transport, authentication, registry answers, "
           "integrity, artifacts and the cache ([registry.md](registry.md))."),
    [ErrorCode(code, summary, EXIT_FINDINGS if code in INTEGRITY_CODES else EXIT_USAGE,
               DOCS[code])
     for code, summary in CODES.items()],
)  # fmt: skip


@dataclass
class RegistryError(SkillpackError):
    """A registry failure with a ``REG…`` code; for HTTP failures, ``status`` is the
    HTTP status and ``registry_codes`` the codes of the registry's JSON error body.

    The status is always shown: an ``HTTP <status>`` detail line is added unless the
    message or a detail already names it (``error_parts`` gives ``HTTP 401
    Unauthorized`` and the registry's own codes)."""

    status: int | None = None
    registry_codes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown registry error code {self.code!r}")
        self.exit_code = EXIT_FINDINGS if self.code in INTEGRITY_CODES else EXIT_USAGE
        if self.status is not None:
            shown = f"HTTP {self.status}"
            if not any(shown in text for text in (self.message, *self.details)):
                self.details.insert(0, shown)
        super().__post_init__()


def registry_error(
    code: str,
    message: str,
    *,
    hint: str | None = None,
    details: list[str] | None = None,
    status: int | None = None,
    registry_codes: tuple[str, ...] = (),
) -> RegistryError:
    """A :class:`RegistryError` (keyword arguments only past the message)."""
    return RegistryError(
        code,
        message,
        hint=hint,
        details=list(details or ()),
        status=status,
        registry_codes=registry_codes,
    )
