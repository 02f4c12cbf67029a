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
    "REG052": "SOURCE_DATE_EPOCH is not a non-negative integer",
    "REG053": "the bundle or signature file cannot be read",
    # cache
    "REG060": "not in the cache (offline)",
    "REG061": "the cache cannot be written or read",
}

#: codes of failed integrity checks: exit 1 like any failed verification
INTEGRITY_CODES = frozenset({"REG040", "REG041", "REG042", "REG043"})

# the project's one registry of codes (skillpack/errors.py; docs/errors.md lists them)
register(
    Family("REG", "OCI registry client",
           "`skillpack.registry`: references, transport, authentication, registry answers, "
           "integrity, artifacts and the cache ([registry.md](registry.md))."),
    [ErrorCode(code, summary, EXIT_FINDINGS if code in INTEGRITY_CODES else EXIT_USAGE)
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
