"""Skills on disk -> manifest entries: every file read once, hashed, and the
``SKILL.md`` frontmatter read strictly (the one producer of digests, see
:mod:`skillpack.manifest` for the model).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillpack._internal.canonical import JSONValue
from skillpack._internal.uri import SKILL_MD, file_uri, skill_md_uri
from skillpack.errors import EXIT_FINDINGS, Location, SkillpackError
from skillpack.manifest import (
    FileEntry,
    Manifest,
    ManifestError,
    SkillEntry,
    file_digest,
    sha256_digest,
)
from skillpack.source.frontmatter import FrontmatterError, parse_skill_md

if TYPE_CHECKING:  # discovery (and pathspec) stay off the serve path
    from skillpack.source.discovery import SourceFile, SourceSkill, SourceTree


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
    ``jobs`` forked workers (default: :func:`~skillpack._internal.parallel.default_jobs`), each
    file read once for its digest and ``hook``."""
    chosen = tree.skills if skills is None else list(skills)
    if prepared is None:
        from skillpack._internal.parallel import default_jobs, map_ranges

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
