"""Skills on disk -> manifest entries: every file read once, hashed, and the
``SKILL.md`` frontmatter read strictly (the one producer of digests, see
:mod:`skillpack.manifest` for the model).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from skillpack._internal.canonical import JSONValue
from skillpack._internal.uri import SKILL_MD, file_uri, skill_md_uri
from skillpack.errors import EXIT_FINDINGS, Location
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


def manifest_error(skill: SourceSkill, exc: FrontmatterError) -> ManifestError:
    """Why ``skill`` has no manifest entry: its ``SKILL.md`` frontmatter was refused."""
    return ManifestError(
        exc.code,
        exc.message,
        Location(str(skill.skill_md), exc.line, exc.column),
        hint=exc.hint or "run 'skillpack lint' for details",
        exit_code=EXIT_FINDINGS,
    )


def _frontmatter_of(skill: SourceSkill, data: bytes) -> dict[str, JSONValue]:
    try:
        return parse_skill_md(data).data
    except FrontmatterError as exc:
        raise manifest_error(skill, exc) from None


#: files up to this size are read whole, once, and their bytes handed on (to the lint
#: checks, the archive writer); larger files are hashed as a stream
WHOLE_READ_MAX = 1024 * 1024

#: reads a file whole: the default reads it from disk; the build's pass passes one that
#: shares what the lint checks already read
Reader = Callable[["SourceFile"], bytes]


def read_file(f: SourceFile) -> bytes:
    """The whole of ``f``: one ``read`` call when it still has the size discovery saw,
    more until the end of the file when it does not."""
    fd = os.open(f.where, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
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
    digests: dict[str, tuple[str, int]],
    skill_md: tuple[bytes, dict[str, JSONValue]] | None = None,
    *,
    read: Reader = read_file,
    contents: dict[str, bytes] | None = None,
) -> SkillEntry:
    """The entry of ``skill``: every file hashed (``digests`` caches them by path:
    :attr:`~skillpack.source.discovery.SourceFile.where`), the
    ``SKILL.md`` frontmatter read strictly. ``skill_md``: its bytes and frontmatter when
    the caller has read and parsed them already (the lint checks have). ``contents``, when
    given, receives the bytes of every file hashed here that was read whole (by path
    relative to the skill): exactly the bytes the digests describe."""
    files: list[FileEntry] = []
    frontmatter: dict[str, JSONValue] | None = None
    for sf in skill.files:
        data: bytes | None = None
        where = sf.where
        if sf.rel == SKILL_MD:
            data, frontmatter = skill_md or _read_skill_md(skill, sf, read)
            digest, size = sha256_digest(data), len(data)
            digests[where] = (digest, size)
        elif where in digests:
            digest, size = digests[where]
        else:
            if sf.size <= WHOLE_READ_MAX:
                data = read(sf)
                digest, size = sha256_digest(data), len(data)
            else:
                digest, size = file_digest(sf.path)
            digests[where] = (digest, size)
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


def build_manifest(tree: SourceTree, skills: Iterable[SourceSkill] | None = None) -> Manifest:
    """Hash every published file and read every frontmatter of ``tree`` (or of
    ``skills``), in this process; the first error met is raised. (lint, lock, build and
    ``serve DIR`` make their entries in the pass of :mod:`skillpack.build.pipeline`,
    shared by forked workers on large trees, each file read once for all they need.)"""
    digests: dict[str, tuple[str, int]] = {}
    chosen = tree.skills if skills is None else skills
    entries = tuple(build_skill_entry(skill, digests) for skill in chosen)
    return Manifest(tree.config.name, tree.config.version, entries)
