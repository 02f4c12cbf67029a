"""What makes a path inside a bundle (or a lock) safe to use.

One check, shared by the lock reader (skill and file paths) and the archive reader
(entry names), so that ``unpack`` can never be made to write outside its directory;
and one judgement of a whole tree of paths (:func:`tree_problems`: collisions and
file/directory clashes besides), shared by the bundle writer and ``vendor``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

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


COLLISION = "collision"
CLASH = "clash"

#: plain paths (:data:`_PLAIN`), one a line
_PLAIN_LINES = re.compile(f"{_PLAIN.pattern}(?:\n{_PLAIN.pattern})*")


def all_plain(paths: Sequence[str]) -> str | None:
    """``paths`` joined by line breaks when every one is a plain path (relative, of
    unreserved ASCII characters, no segment empty or starting with a dot: safe to
    publish, nothing to percent-encode, its collision key its lowercase form), else
    None; told by one expression over them all."""
    joined = "\n".join(paths)
    if joined.count("\n") != len(paths) - 1 or _PLAIN_LINES.fullmatch(joined) is None:
        return None
    return joined


def _plain_and_apart(paths: list[str]) -> bool:
    """Whether :func:`tree_problems` finds nothing in ``paths`` (given once each) because
    every one is plain and no two collide or clash: a tree's usual case, told by a few
    operations over all the paths at once (a third of the time of judging them one by
    one). False means only that they must be judged one by one."""
    joined = all_plain(paths)
    if joined is None:
        return not paths
    keys = joined.lower().split("\n")  # a plain path is ASCII: its collision key
    if len(set(keys)) != len(keys):
        return False
    return directories(keys).isdisjoint(keys)


def directories(paths: Iterable[str]) -> set[str]:
    """Every directory that ``paths`` (``/``-separated, relative) lie in, each once,
    ``a`` and ``a/b`` for ``a/b/c.md``; each directory's parents are looked at once."""
    found: set[str] = set()
    for parent in {path[: path.rfind("/")] for path in paths if "/" in path}:
        while parent not in found:
            found.add(parent)
            slash = parent.rfind("/")
            if slash < 0:
                break
            parent = parent[:slash]
    return found


class PathProblem(NamedTuple):
    """Why ``path`` cannot be one of a tree's published paths: ``kind`` is one of the
    refusal kinds of :func:`unsafe_path` (``reserved`` too), :data:`COLLISION` or
    :data:`CLASH`; ``reason`` completes a sentence starting with the path."""

    path: str
    kind: str
    reason: str
    other: str | None = None  #: the path it collides or clashes with


def tree_problems(paths: Iterable[str]) -> Iterator[PathProblem]:
    """Every path of ``paths`` that a tree skillpack publishes cannot hold, in order:
    one :func:`unsafe_published_path` refuses (a ``..``, a dot segment such as ``.git/``,
    a backslash, a control character), one that lands on the same file as an earlier
    one on a case-insensitive or normalizing file system (:func:`collision_key`:
    ``README.md`` and ``readme.md``, NFC and NFD ``café.md``), and one that needs a file
    where another needs a directory (``docs`` and ``docs/a.md``, or ``Docs/a.md``).
    A path given twice is one path. The bundle writer, ``vendor`` and ``install`` judge
    a whole tree of paths with it before writing anything."""
    unique = list(dict.fromkeys(paths))
    if _plain_and_apart(unique):
        return
    files: dict[str, str] = {}  # collision key -> path
    dirs: dict[str, str] = {}  # collision key of a directory -> a path below it
    for path in unique:
        unsafe = unsafe_published_path(path)
        if unsafe is not None:
            yield PathProblem(path, unsafe[0], unsafe[1])
            continue
        key = collision_key(path)
        other = files.get(key)
        if other is not None:
            why = f"and '{other}' differ only in case or Unicode normalization"
            yield PathProblem(path, COLLISION, why, other)
            continue
        if key in dirs:
            below = dirs[key]
            why = f"is a file, and '{below}' needs a directory there"
            yield PathProblem(path, CLASH, why, below)
            continue
        slash = key.rfind("/")
        if slash < 0 or key[:slash] in dirs:
            # its directory is one already (and so are the directories above it): no
            # file is at any of them, since a file there would have clashed
            files[key] = path
            continue
        parents = []  # the key's directories, outermost first
        slash = key.find("/")
        while slash >= 0:
            parents.append(key[:slash])
            slash = key.find("/", slash + 1)
        clash = next((files[p] for p in parents if p in files), None)
        if clash is not None:
            yield PathProblem(path, CLASH, f"needs a directory where '{clash}' is a file", clash)
            continue
        files[key] = path
        for parent in parents:
            dirs.setdefault(parent, path)
