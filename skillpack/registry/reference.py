"""``oci://`` references: parse, validate and print them.

Grammar (the OCI distribution specification's, with Docker's host rules)::

    reference  := "oci://" registry "/" repository [ ":" tag ] [ "@" digest ]
    registry   := host [ ":" port ]           host: a DNS name, an IPv4 address or [IPv6]
    repository := component ( "/" component )*
    component  := [a-z0-9]+ ( ( "." | "_" | "__" | "-"+ ) [a-z0-9]+ )*
    tag        := [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}
    digest     := "sha256:" [a-f0-9]{64}

``docker.io`` (and ``index.docker.io``, ``registry-1.docker.io``) is normalised to
``docker.io``, a one-component repository there gets ``library/``, and the API is
reached at ``registry-1.docker.io`` (:attr:`Reference.endpoint`). Host names are
lowercased. ``str()`` prints the normalised form, and parsing it gives the same value.

With both a tag and a digest, the digest decides what is fetched; the tag is kept for
display. Only sha256 digests are accepted (every registry computes them; one algorithm
keeps the cache and the checks simple).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from skillpack.registry.errors import registry_error

SCHEME = "oci://"
DOCKER_HUB = "docker.io"
DOCKER_HUB_ENDPOINT = "registry-1.docker.io"
_DOCKER_HUB_ALIASES = frozenset({"docker.io", "index.docker.io", "registry-1.docker.io"})

_COMPONENT = re.compile(r"[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*")
_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")
_DIGEST = re.compile(r"sha256:[a-f0-9]{64}")
_ANY_DIGEST = re.compile(r"[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_MAX_NAME = 255  # host + "/" + repository, the limit Docker and most registries apply


@dataclass(frozen=True)
class Reference:
    """A parsed ``oci://`` reference (normalised; see the module docstring)."""

    registry: str
    repository: str
    tag: str | None = None
    digest: str | None = None

    def __str__(self) -> str:
        text = f"{SCHEME}{self.registry}/{self.repository}"
        if self.tag is not None:
            text += f":{self.tag}"
        if self.digest is not None:
            text += f"@{self.digest}"
        return text

    @classmethod
    def parse(cls, text: str) -> Reference:
        """Parse ``text``; raise a :class:`~skillpack.registry.errors.RegistryError`."""
        return parse_reference(text)

    @property
    def endpoint(self) -> str:
        """The host[:port] the registry API is reached at."""
        return DOCKER_HUB_ENDPOINT if self.registry == DOCKER_HUB else self.registry

    @property
    def target(self) -> str | None:
        """What goes in a manifest URL: the digest if any, else the tag, else None."""
        return self.digest if self.digest is not None else self.tag

    def by_digest(self, digest: str) -> Reference:
        """This repository at ``digest`` (no tag)."""
        return replace(self, tag=None, digest=validate_digest(digest))

    def with_tag(self, tag: str | None) -> Reference:
        """This repository at ``tag`` (no digest)."""
        return replace(self, tag=None if tag is None else validate_tag(tag), digest=None)


def parse_reference(text: str) -> Reference:
    """Parse an ``oci://REGISTRY/REPOSITORY[:TAG][@sha256:HEX]`` reference."""
    if not isinstance(text, str) or not text.startswith(SCHEME):
        raise registry_error(
            "REG001",
            f"{_show(text)} is not an oci:// reference",
            hint="write oci://REGISTRY/REPOSITORY:TAG or oci://REGISTRY/REPOSITORY@sha256:HEX",
        )
    rest = text[len(SCHEME) :]
    if not rest or any(c.isspace() or ord(c) < 0x20 or c in "?#\\" for c in rest):
        raise registry_error(
            "REG001",
            f"{_show(text)} is not an oci:// reference (empty, or with spaces, control "
            "characters, '?', '#' or '\\')",
        )
    host, slash, remainder = rest.partition("/")
    if not slash or not remainder:
        raise registry_error(
            "REG003",
            f"{_show(text)} names no repository",
            hint="write oci://REGISTRY/REPOSITORY:TAG, e.g. oci://ghcr.io/acme/skills:1.0.0",
        )
    registry = normalise_registry(host, text)

    digest: str | None = None
    if "@" in remainder:
        remainder, _, digest_text = remainder.partition("@")
        digest = validate_digest(digest_text, text)
    tag: str | None = None
    last_slash = remainder.rfind("/")
    colon = remainder.find(":", last_slash + 1)
    if colon >= 0:
        remainder, tag_text = remainder[:colon], remainder[colon + 1 :]
        tag = validate_tag(tag_text, text)
    repository = validate_repository(remainder, text)
    if registry == DOCKER_HUB and "/" not in repository:
        repository = f"library/{repository}"
    if len(registry) + 1 + len(repository) > _MAX_NAME:
        raise registry_error(
            "REG003",
            f"{_show(text)}: the registry and repository name together are longer than "
            f"{_MAX_NAME} characters",
        )
    return Reference(registry, repository, tag, digest)


def normalise_registry(host: str, text: str | None = None) -> str:
    """Validate and normalise a ``host[:port]`` (lowercase, Docker Hub aliases)."""
    where = _show(text if text is not None else host)
    if not host:
        raise registry_error("REG002", f"{where} names no registry host")
    port: str | None = None
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            raise registry_error("REG002", f"{where}: unterminated IPv6 address in the host")
        name, after = host[1:end], host[end + 1 :]
        import ipaddress  # only for a bracketed IPv6 host

        try:
            ipaddress.IPv6Address(name)
        except ValueError:
            raise registry_error("REG002", f"{where}: {name!r} is not an IPv6 address") from None
        if after:
            if not after.startswith(":"):
                raise registry_error("REG002", f"{where}: unexpected {after!r} after the host")
            port = after[1:]
        name = f"[{name.lower()}]"
    else:
        name, colon, port_text = host.partition(":")
        if colon:
            port = port_text
        labels = name.split(".")
        if not all(_LABEL.fullmatch(label) for label in labels):
            raise registry_error(
                "REG002",
                f"{where}: {name!r} is not a valid registry host name",
                hint="a host is DNS labels of letters, digits and '-' separated by dots, "
                "optionally with :PORT",
            )
        name = name.lower()
    if port is not None:
        if not port.isdigit() or not port.isascii() or not 0 < int(port) < 65536:
            raise registry_error("REG002", f"{where}: {port!r} is not a port number (1-65535)")
        port = str(int(port))
    if port is None and name in _DOCKER_HUB_ALIASES:
        return DOCKER_HUB
    return name if port is None else f"{name}:{port}"


def validate_repository(repository: str, text: str | None = None) -> str:
    """Return ``repository`` if it follows the distribution spec's name grammar."""
    where = _show(text if text is not None else repository)
    if not repository:
        raise registry_error("REG003", f"{where} names no repository")
    for component in repository.split("/"):
        if _COMPONENT.fullmatch(component):
            continue
        if component and _COMPONENT.fullmatch(component.lower()):
            raise registry_error(
                "REG003",
                f"{where}: repository names are lowercase ({component!r})",
                hint=f"write {component.lower()!r}",
            )
        raise registry_error(
            "REG003",
            f"{where}: {component!r} is not a valid repository path component",
            hint="components are lowercase letters and digits, separated by '.', '_', '__' "
            "or dashes, and joined by '/'",
        )
    return repository


def validate_tag(tag: str, text: str | None = None) -> str:
    """Return ``tag`` if it is a valid tag (at most 128 characters)."""
    if not _TAG.fullmatch(tag):
        where = _show(text if text is not None else tag)
        raise registry_error(
            "REG004",
            f"{where}: {tag!r} is not a valid tag",
            hint="a tag is up to 128 letters, digits, '_', '.' and '-', not starting with "
            "'.' or '-'",
        )
    return tag


def validate_digest(digest: str, text: str | None = None) -> str:
    """Return ``digest`` if it is ``sha256:`` and 64 lowercase hex digits."""
    if _DIGEST.fullmatch(digest):
        return digest
    where = _show(text if text is not None else digest)
    if _ANY_DIGEST.fullmatch(digest) and not digest.startswith("sha256:"):
        algorithm = digest.partition(":")[0]
        raise registry_error(
            "REG005",
            f"{where}: digest algorithm {algorithm!r} is not supported",
            hint="use the sha256 digest the registry reports",
        )
    raise registry_error(
        "REG005",
        f"{where}: {digest!r} is not a sha256 digest",
        hint="a digest is sha256: followed by 64 lowercase hexadecimal digits",
    )


def is_digest(value: str) -> bool:
    """Whether ``value`` is a valid sha256 digest."""
    return _DIGEST.fullmatch(value) is not None


def _show(text: object) -> str:
    shown = repr(text)
    return shown if len(shown) <= 300 else shown[:297] + "..."
