"""``skill://`` URIs (SEP-2640 "Resource Mapping").

A skill file is published at ``skill://<skill-path>/<file-path>``. The skill path is
one or more ``/``-separated segments; its first segment sits in the URI authority.
File paths are percent-encoded where RFC 3986 requires it: every byte of the UTF-8
encoding that is not a ``pchar`` (unreserved, sub-delims, ``:`` or ``@``). Skill-path
segments are restricted to unreserved characters by lint rule SP201, so they never
need encoding.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

SCHEME = "skill://"
SKILL_MD = "SKILL.md"

# RFC 3986 pchar minus pct-encoded: unreserved / sub-delims / ":" / "@".
# urllib.parse.quote never encodes ALPHA, DIGIT and "_.-~".
_PCHAR_SAFE = "!$&'()*+,;=:@"

# Skill-path segment: letters, digits and the unreserved marks "-", ".", "_", "~".
SEGMENT_RE = re.compile(r"[A-Za-z0-9._~-]+")


def encode_segment(segment: str) -> str:
    """Percent-encode one path segment as RFC 3986 requires."""
    if SEGMENT_RE.fullmatch(segment):  # nothing to encode (the common case)
        return segment
    return quote(segment, safe=_PCHAR_SAFE)


#: paths that need no percent-encoding (the common case, checked without quoting)
_PLAIN_PATH_RE = re.compile(r"[A-Za-z0-9._~/-]*")


def encode_path(path: str) -> str:
    """Percent-encode a ``/``-separated relative path segment by segment."""
    if _PLAIN_PATH_RE.fullmatch(path):
        return path
    return "/".join(encode_segment(s) for s in path.split("/"))


def file_uri(skill_path: str, file_path: str) -> str:
    """``skill://<skill-path>/<file-path>`` with the file path percent-encoded."""
    return f"{SCHEME}{encode_path(skill_path)}/{encode_path(file_path)}"


def skill_md_uri(skill_path: str) -> str:
    return file_uri(skill_path, SKILL_MD)


def decode_path(encoded: str) -> str:
    return unquote(encoded, errors="strict")


def is_valid_segment(segment: str) -> bool:
    return SEGMENT_RE.fullmatch(segment) is not None and segment not in (".", "..")


def is_valid_authority(segment: str) -> bool:
    """An RFC 3986 reg-name made of unreserved characters, not empty."""
    return is_valid_segment(segment)


_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_PERCENT_RE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _normal_octet(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else "%" + match.group(1).upper()


def normalize_uri(uri: str) -> str:
    """``uri`` after the RFC 3986 normalizations that never change what a URI names
    (section 6.2.2): the scheme in lowercase, a percent-encoded unreserved character
    decoded (``%7E`` is ``~``), every other percent-encoding in uppercase hex (``%c3%a9``
    is ``%C3%A9``). Nothing else changes: reserved characters stay encoded or not as
    sent, dot segments stay (a served URI has none, so they match nothing), and the
    authority keeps its case. URIs the bundle publishes are already in this form."""
    scheme = _SCHEME_RE.match(uri)
    if scheme is not None and not scheme.group(0).islower():
        uri = scheme.group(0).lower() + uri[scheme.end() :]
    if "%" in uri:
        uri = _PERCENT_RE.sub(_normal_octet, uri)
    return uri
