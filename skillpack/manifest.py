"""The manifest model: one description of every skill's files and digests.

A :class:`Manifest` is produced once, from a source tree
(:func:`skillpack.source.entries.build_manifest`) or from a lock, and consumed by
the lock writer, the archive writer, verify, diff and the server. Each
:class:`SkillEntry` is exactly a SEP-2640 skill entry: the ``SKILL.md`` URI, the
frontmatter as the strict reader produced it, and every file as a resource
``{uri, digest: "sha256:<hex>", size}`` (``SKILL.md`` first, nested skills' files
included in their enclosing skill).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillpack._internal.canonical import JSONValue
from skillpack._internal.digest import DIGEST_RE as DIGEST_RE
from skillpack._internal.pickling import ByFields
from skillpack.errors import SkillpackError

MAX_FILES_PER_SKILL = 512
MAX_BYTES_PER_SKILL = 16 * 1024 * 1024


def sha256_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> tuple[str, int]:
    """(``sha256:<hex>``, size) of a file, streamed."""
    with open(path, "rb") as fh:
        h = hashlib.file_digest(fh, "sha256")
        size = fh.tell()
    return "sha256:" + h.hexdigest(), size


#: the ``_meta`` member that skillpack's server adds to the ``resources/read`` contents of
#: a file its bundle records as executable (under skillpack's own prefix), from which
#: ``vendor`` restores the mode
EXECUTABLE_META = "dev.skillpack/executable"


@dataclass(frozen=True, slots=True)
class FileEntry(ByFields):
    """One published file of a skill."""

    path: str  #: relative to the skill root, ``/``-separated, not percent-encoded
    uri: str
    size: int
    digest: str  #: ``sha256:<64 lowercase hex>``
    executable: bool = False

    def resource(self) -> dict[str, Any]:
        """The SEP-2640 ``SkillResource`` for this file."""
        return {"uri": self.uri, "digest": self.digest, "size": self.size}


@dataclass(frozen=True)
class SkillEntry(ByFields):
    """One skill: its path, ``SKILL.md`` URI, frontmatter and complete file list."""

    skill_path: str
    uri: str
    frontmatter: Mapping[str, JSONValue]
    files: tuple[FileEntry, ...]

    @property
    def name(self) -> str:
        return self.skill_path.rsplit("/", 1)[-1]

    @property
    def total_size(self) -> int:
        return sum(f.size for f in self.files)

    def file(self, uri: str) -> FileEntry | None:
        for f in self.files:
            if f.uri == uri:
                return f
        return None

    def to_wire(self) -> dict[str, Any]:
        """The SEP-2640 ``Skill`` object (``skills/list`` and ``skills/get``)."""
        return {
            "uri": self.uri,
            "frontmatter": dict(self.frontmatter),
            "resources": [f.resource() for f in self.files],
        }


@dataclass(frozen=True)
class Manifest:
    """Every skill of a bundle or tree, sorted by skill path bytes."""

    name: str
    version: str
    skills: tuple[SkillEntry, ...]
    _by_uri: dict[str, SkillEntry] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for skill in self.skills:
            self._by_uri[skill.uri] = skill

    def skill(self, uri: str) -> SkillEntry | None:
        """The skill whose ``SKILL.md`` URI is ``uri``."""
        return self._by_uri.get(uri)

    def files(self) -> Iterator[tuple[SkillEntry, FileEntry]]:
        for skill in self.skills:
            for f in skill.files:
                yield skill, f

    def unique_files(self) -> dict[str, FileEntry]:
        """Every file once, by URI (nested skills' files appear in several entries)."""
        out: dict[str, FileEntry] = {}
        for _, f in self.files():
            out.setdefault(f.uri, f)
        return out

    @property
    def file_count(self) -> int:
        return len(self.unique_files())

    @property
    def total_size(self) -> int:
        return sum(f.size for f in self.unique_files().values())


class ManifestError(SkillpackError):
    """A skill cannot be put into a manifest (its SKILL.md cannot be read)."""
