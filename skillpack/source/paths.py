"""What makes a path inside a bundle (or a lock) safe to use.

One check, shared by the lock reader (skill and file paths) and the archive reader
(entry names), so that ``unpack`` can never be made to write outside its directory.
"""

from __future__ import annotations

import re
import unicodedata

_DRIVE = re.compile(r"[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: relative paths of unreserved characters whose segments do not start with a dot:
#: safe and publishable, known without the checks below (most paths of a tree)
_PLAIN = re.compile(r"[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*")

# Refusal kinds (the archive reader gives each its own error code)
ABSOLUTE = "absolute"
PARENT = "parent"
BACKSLASH = "backslash"
DRIVE = "drive"
MALFORMED = "malformed"
RESERVED = "reserved"


def unsafe_path(path: str) -> tuple[str, str] | None:
    """(kind, reason) when ``path`` is not a safe relative ``/``-separated path, else None."""
    if not path:
        return MALFORMED, "empty path"
    if "\\" in path:
        return BACKSLASH, "contains a backslash"
    if path.startswith("/"):
        return ABSOLUTE, "is an absolute path"
    if _DRIVE.match(path):
        return DRIVE, "starts with a drive letter"
    segments = path.split("/")
    if ".." in segments:
        return PARENT, "contains a '..' segment"
    if "" in segments or "." in segments:
        return MALFORMED, "has an empty or '.' segment"
    if _CONTROL.search(path):
        return MALFORMED, "contains a control character"
    return None


def unsafe_published_path(path: str) -> tuple[str, str] | None:
    """:func:`unsafe_path`, and no segment may start with a dot: those names are never
    published, and ``.skillpack/`` is reserved for bundle metadata."""
    if _PLAIN.fullmatch(path):
        return None
    problem = unsafe_path(path)
    if problem is None and any(s.startswith(".") for s in path.split("/")):
        return RESERVED, "has a segment starting with '.' (reserved for bundle metadata)"
    return problem


def collision_key(path: str) -> str:
    """The form under which two names would land on the same file on a case-insensitive
    or normalizing file system (macOS, Windows)."""
    if path.isascii():  # NFC changes nothing, and casefold is lower
        return path.lower()
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())
