"""The manifest model: one description of every skill's files and digests.

A :class:`Manifest` is produced once, from a source tree (:func:`build_manifest`) or
from a lock, and consumed by the lock writer, the archive writer, verify, diff and the
server. Each :class:`SkillEntry` is exactly a SEP-2640 skill entry: the ``SKILL.md``
URI, the frontmatter as the strict reader produced it, and every file as a resource
``{uri, digest: "sha256:<hex>", size}`` (``SKILL.md`` first, nested skills' files
included in their enclosing skill).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import EXIT_FINDINGS, Location, SkillpackError
from .frontmatter import FrontmatterError, JSONValue, parse_skill_md
from .uri import SKILL_MD, file_uri, skill_md_uri

if TYPE_CHECKING:  # discovery (and pathspec) stay off the serve path
    from .discovery import SourceFile, SourceSkill, SourceTree

DIGEST_RE = re.compile(r"sha256:[0-9a-f]{64}")
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


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One published file of a skill."""

    path: str  #: relative to the skill root, ``/``-separated, not percent-encoded
    uri: str
    size: int
    digest: str  #: ``sha256:<64 lowercase hex>``
    executable: bool = False

    def resource(self) -> dict[str, Any]:
        """The SEP-2640 ``SkillResource`` for this file."""
        return {"uri": self.uri, "digest": self.digest, "size": self.size}

    def __reduce__(self) -> tuple[Any, ...]:
        # by value: several times faster than the default for slots dataclasses (forked
        # workers send back thousands of entries)
        return (FileEntry, (self.path, self.uri, self.size, self.digest, self.executable))


@dataclass(frozen=True)
class SkillEntry:
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

    def __reduce__(self) -> tuple[Any, ...]:
        return (SkillEntry, (self.skill_path, self.uri, self.frontmatter, self.files))

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


def _frontmatter_of(skill: SourceSkill, data: bytes) -> dict[str, JSONValue]:
    try:
        return parse_skill_md(data).data
    except FrontmatterError as exc:
        raise ManifestError(
            exc.code,
            exc.message,
            Location(str(skill.skill_md), exc.line, exc.column),
            hint=exc.hint or "run 'skillpack lint' for details",
            exit_code=EXIT_FINDINGS,
        ) from None


#: files up to this size are read whole, once, and their bytes handed on (to the lint
#: checks, a per-skill hook); larger files are hashed as a stream
WHOLE_READ_MAX = 1024 * 1024

#: reads a file whole: the default reads it from disk; the lint gate passes one that
#: shares what its checks already read
Reader = Callable[["SourceFile"], bytes]
#: made in the same (worker) process from a skill's finished entry and the bytes of the
#: files hashed for it (by path relative to the skill; files read whole only); its
#: result travels back with the entry (so it must pickle)
SkillHook = Callable[[SkillEntry, dict[str, bytes]], Any]


def read_file(f: SourceFile) -> bytes:
    """The whole of ``f``: one ``read`` call when it still has the size discovery saw,
    more until the end of the file when it does not."""
    fd = os.open(f.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        want = f.size + 1
        data = os.read(fd, want)
        if len(data) == f.size:  # a short read of a regular file is its end
            return data
        parts = [data]
        while data:
            data = os.read(fd, max(want, 65536))
            parts.append(data)
        return b"".join(parts)
    finally:
        os.close(fd)


def build_skill_entry(
    skill: SourceSkill,
    digests: dict[Path, tuple[str, int]],
    skill_md: tuple[bytes, dict[str, JSONValue]] | None = None,
    *,
    read: Reader = read_file,
    contents: dict[str, bytes] | None = None,
) -> SkillEntry:
    """The entry of ``skill``: every file hashed (``digests`` caches them by path), the
    ``SKILL.md`` frontmatter read strictly. ``skill_md``: its bytes and frontmatter when
    the caller has read and parsed them already (the lint gate has). ``contents``, when
    given, receives the bytes of every file hashed here that was read whole (by path
    relative to the skill): exactly the bytes the digests describe."""
    files: list[FileEntry] = []
    frontmatter: dict[str, JSONValue] | None = None
    for sf in skill.files:
        data: bytes | None = None
        if sf.rel == SKILL_MD:
            data, frontmatter = skill_md or _read_skill_md(skill, sf, read)
            digest, size = sha256_digest(data), len(data)
            digests[sf.path] = (digest, size)
        elif sf.path in digests:
            digest, size = digests[sf.path]
        else:
            if sf.size <= WHOLE_READ_MAX:
                data = read(sf)
                digest, size = sha256_digest(data), len(data)
            else:
                digest, size = file_digest(sf.path)
            digests[sf.path] = (digest, size)
        if contents is not None and data is not None:
            contents[sf.rel] = data
        files.append(FileEntry(sf.rel, file_uri(skill.skill_path, sf.rel), size, digest,
                               sf.executable))  # fmt: skip
    if frontmatter is None:  # discovery only yields directories holding SKILL.md
        raise ManifestError("SP001", "SKILL.md is missing", Location(str(skill.directory)))
    return SkillEntry(skill.skill_path, skill_md_uri(skill.skill_path), frontmatter, tuple(files))


def _read_skill_md(
    skill: SourceSkill, sf: SourceFile, read: Reader
) -> tuple[bytes, dict[str, JSONValue]]:
    data = read(sf)
    return data, _frontmatter_of(skill, data)


@dataclass(frozen=True, slots=True)
class PreparedSkill:
    """A skill's entry, built in a worker, and what the per-skill hook made of it."""

    entry: SkillEntry
    product: Any = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (PreparedSkill, (self.entry, self.product))


def prepare_skill(
    skill: SourceSkill,
    digests: dict[Path, tuple[str, int]],
    skill_md: tuple[bytes, dict[str, JSONValue]] | None = None,
    *,
    read: Reader = read_file,
    hook: SkillHook | None = None,
) -> PreparedSkill | None:
    """:func:`build_skill_entry` and ``hook`` of it, or None where the entry cannot be
    built: for workers, whose errors :func:`prepare_manifest` raises again, in order, by
    building that entry itself."""
    try:
        return _prepared(skill, digests, skill_md, read, hook)
    except (OSError, SkillpackError):
        return None


def _prepared(
    skill: SourceSkill,
    digests: dict[Path, tuple[str, int]],
    skill_md: tuple[bytes, dict[str, JSONValue]] | None,
    read: Reader,
    hook: SkillHook | None,
) -> PreparedSkill:
    contents: dict[str, bytes] | None = {} if hook is not None else None
    entry = build_skill_entry(skill, digests, skill_md, read=read, contents=contents)
    return PreparedSkill(entry, None if hook is None else hook(entry, contents or {}))


def prepare_manifest(
    tree: SourceTree,
    skills: Iterable[SourceSkill] | None = None,
    *,
    prepared: Sequence[PreparedSkill | None] | None = None,
    hook: SkillHook | None = None,
    jobs: int | None = None,
) -> tuple[Manifest, list[Any]]:
    """The manifest of ``tree`` (or of ``skills``), and ``hook``'s product for each skill
    (None without a hook). ``prepared``: skills already prepared (by :func:`prepare_skill`,
    one per skill, None for any to build here). Otherwise large trees are shared between
    ``jobs`` forked workers (default: :func:`~skillpack.parallel.default_jobs`), each
    file read once for its digest and ``hook``."""
    chosen = tree.skills if skills is None else list(skills)
    if prepared is None:
        from .parallel import default_jobs, map_ranges

        def prepare_range(start: int, stop: int) -> list[PreparedSkill | None]:
            digests: dict[Path, tuple[str, int]] = {}
            return [prepare_skill(s, digests, hook=hook) for s in chosen[start:stop]]

        workers = default_jobs(len(chosen)) if jobs is None else jobs
        parts = map_ranges(prepare_range, len(chosen), workers)
        prepared = [item for part in parts for item in part]
    digests: dict[Path, tuple[str, int]] = {}
    done: list[PreparedSkill] = []
    for skill, item in zip(chosen, prepared, strict=True):
        if item is None:  # raises the error the worker saw (or builds it, if it passed)
            item = _prepared(skill, digests, None, read_file, hook)
        done.append(item)
    manifest = Manifest(tree.config.name, tree.config.version, tuple(item.entry for item in done))
    return manifest, [item.product for item in done]


def build_manifest(
    tree: SourceTree,
    skills: Iterable[SourceSkill] | None = None,
    *,
    jobs: int | None = None,
) -> Manifest:
    """Hash every published file and read every frontmatter of ``tree`` (or of
    ``skills``): :func:`prepare_manifest` without a hook."""
    return prepare_manifest(tree, skills, jobs=jobs)[0]
