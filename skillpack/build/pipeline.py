"""A build's one pass over the skills: lint, manifest, lock and archive entries.

Each file is read once. In the process that reads it (forked workers share the skills
of a large tree, see :mod:`skillpack._internal.parallel`), the lint checks see its bytes, the
manifest entry hashes them, and the build keeps them for the archive: as finished
archive entries in forked workers (so compression is shared by the CPUs), as read in a
single process (the writer's threads then compress them; zlib releases the GIL). Each
skill's lock table is rendered there too. The archive thus holds exactly the bytes
the lock describes. Files over :data:`~skillpack.source.entries.WHOLE_READ_MAX`, and files
past :data:`KEPT_BUDGET`, are left for the writer to read again and check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skillpack._internal.parallel import default_jobs
from skillpack.bundle.writer import Compression, PreparedEntry, archive_name, prepare_entry
from skillpack.content import ContentSource, KeptSource, TreeSource
from skillpack.errors import SkillpackError
from skillpack.lockfile.lock import render_lock_and_index, render_skill
from skillpack.manifest import Manifest, SkillEntry
from skillpack.source.discovery import SourceTree, file_paths

if TYPE_CHECKING:
    from skillpack.lint.finding import Finding

#: file bytes one process keeps in memory (as archive entries, or as read) between
#: hashing a file and writing the archive; a file past it is read again by the writer
KEPT_BUDGET = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class _Made:
    """What the pass makes of one skill besides its manifest entry."""

    entries: dict[str, PreparedEntry]  #: archive entries by name (forked workers)
    kept: dict[str, bytes]  #: file bytes by URI, for the writer to compress (one process)
    table: str  #: the skill's lock table

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Made, (self.entries, self.kept, self.table))


class _Keeper:
    """The per-skill hook (see :data:`skillpack.manifest.SkillHook`)."""

    def __init__(self, compression: Compression, stamp: tuple[int, int], compress: bool) -> None:
        self.compression = compression
        self.stamp = stamp
        self.compress = compress
        self.budget = KEPT_BUDGET  # each forked worker spends its own copy

    def __call__(self, entry: SkillEntry, contents: dict[str, bytes]) -> _Made:
        made = _Made({}, {}, render_skill(entry))
        for f in entry.files:
            data = contents.get(f.path)
            if data is None or len(data) > self.budget:
                continue
            if not self.compress:
                made.kept[f.uri] = data
                self.budget -= len(data)
                continue
            name = archive_name(entry.skill_path, f)
            item = prepare_entry(name, data, f.executable, self.compression, self.stamp, f.digest)
            made.entries[name] = item
            self.budget -= len(item.record)
        return made


@dataclass(frozen=True)
class Pass:
    """The result of the pass: what the lock writer and the archive writer need."""

    manifest: Manifest
    lock: bytes  #: the lock's bytes
    index: bytes  #: the bundle index made with them
    entries: dict[str, PreparedEntry]  #: archive entries made already, by name
    source: ContentSource  #: every file's bytes: kept ones from memory, others from disk


def one_pass(
    tree: SourceTree,
    *,
    lint: bool,
    refuse: Callable[[list[Finding]], SkillpackError],
    compression: Compression,
    stamp: tuple[int, int],
    jobs: int | None = None,
) -> Pass:
    """Lint (unless ``lint`` is False; ``refuse(errors)`` is raised on errors), hash,
    and prepare the lock and the archive entries of every skill of ``tree``, entries
    at DOS ``stamp`` with ``compression``; ``jobs`` processes (default:
    :func:`~skillpack._internal.parallel.default_jobs`)."""
    from skillpack.build.gate import gated_prepare

    jobs = default_jobs(len(tree.skills)) if jobs is None else jobs
    keeper = _Keeper(compression, stamp, compress=jobs > 1)
    manifest, products = gated_prepare(tree, lint=lint, refuse=refuse, hook=keeper, jobs=jobs)
    made: list[_Made] = products
    lock, index = render_lock_and_index(manifest, [m.table for m in made])
    entries: dict[str, PreparedEntry] = {}
    kept: dict[str, bytes] = {}
    for item in reversed(made):  # a nested skill's files: its parent's, the same bytes
        entries.update(item.entries)
        kept.update(item.kept)
    return Pass(
        manifest,
        lock,
        index,
        entries,
        KeptSource(kept, TreeSource(manifest, file_paths(tree.skills))),
    )
