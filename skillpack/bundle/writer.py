"""The deterministic bundle writer.

The same manifest, lock and file bytes give the same archive bytes, whatever the
checkout time, mtimes, umask, walk order, locale, user or Python version.

Why not :mod:`zipfile`: a build compresses its entries in parallel and ahead of the
write. Forked workers deflate the files they hashed (:func:`prepare_entry`), and in one
process this writer's threads deflate the kept bytes a batch at a time (zlib releases
the GIL) while the writing thread appends finished records; ``zipfile`` compresses each
entry itself, in the thread that writes it, one after another. So the zip structures
are framed here field by field (:mod:`skillpack.bundle.zipformat`). They are the bytes
``zipfile`` writes for the same entries: ``ZipFile.writestr`` given each entry's name,
bytes, mode, method and timestamp (``compresslevel=6``) was measured to reproduce the
1,000-skill benchmark bundle exactly on the Pythons skillpack supports (3.11 to 3.13),
and ``tests/test_bundle_writer.py`` keeps the two identical on the single-process path.
Only zlib's deflate output is taken from the platform (``--compression stored`` avoids
even that).

Rules: metadata entries first (``.skillpack/skillpack.lock``, ``.skillpack/index.json``),
then every file once under its decoded URI path, sorted by name bytes; one fixed
timestamp (SOURCE_DATE_EPOCH clamped to the DOS range, else 1980-01-01 00:00:00);
"made by" Unix, mode 0644 or 0755 (the lock's executable bit) on a regular file; no
extra fields; the UTF-8 flag on non-ASCII names only; deflate at level 6, and an entry
is stored instead when deflate would not make it smaller or would look like a zip bomb
to a reader (see :data:`~skillpack.bundle.zipformat.MAX_RATIO`); the zip comment names
the format version.
"""

from __future__ import annotations

import hashlib
import stat
import struct
import threading
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import partial
from operator import itemgetter
from typing import TYPE_CHECKING, BinaryIO

from skillpack._internal.pickling import ByFields
from skillpack.bundle import INDEX_ENTRY, LOCK_ENTRY, ZIP_COMMENT
from skillpack.bundle.zipformat import (
    CENTRAL,
    CENTRAL_SIG,
    COMPRESSIONS,
    DEFLATED,
    END,
    END_SIG,
    FLAG_UTF8,
    LOCAL,
    LOCAL_SIG,
    MAX_ENTRIES,
    MAX_OFFSET,
    MAX_RATIO,
    RATIO_FLOOR,
    STORED,
    SYSTEM_UNIX,
    VERSION,
    Compression,
    dos_datetime,
)
from skillpack.content import ContentSource, IntegrityError, check_bytes
from skillpack.errors import SkillpackError
from skillpack.lockfile.index import index_bytes
from skillpack.manifest import FileEntry, Manifest
from skillpack.source.paths import CLASH, COLLISION, tree_problems

# a thread pool only for a write that reads and compresses files itself: a build's
# workers prepare every entry ahead, and its start-up does without the import (and
# the logging it imports)
if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

COMPRESS_LEVEL = 6
_WINDOW = 8  # batches compressed ahead of the one being written
_BATCH_BYTES = 256 * 1024
_BATCH_FILES = 256


class BuildError(SkillpackError):
    """The archive cannot be written (the registry gives each code's exit status)."""

    def __init__(self, code: str, message: str, hint: str | None = None) -> None:
        super().__init__(code, message, None, hint)


@dataclass(frozen=True)
class WriteResult:
    digest: str  #: ``sha256:<hex>`` of the archive bytes
    size: int  #: archive size in bytes
    files: int  #: file entries (metadata entries not counted)


#: the bytes of a central directory record before its last field, the offset of the
#: entry's local record (which only the writer knows)
_CENTRAL_HEAD = CENTRAL.size - 4
_OFFSET = struct.Struct("<L")
#: where the DOS time and date lie in a central directory record
_STAMP = struct.Struct("<2H")
_STAMP_AT = 12


@dataclass(frozen=True, slots=True)
class PreparedEntry(ByFields):
    """An entry ready to be written: its local record (header, name, payload), its
    central directory record but for the offset of the local record (and the name that
    follows it), and the digest of the bytes it holds (so a writer can tell it belongs to
    the manifest's file). A build's workers make them; the writer only places them."""

    name: bytes
    central: bytes  #: the central directory record's first :data:`_CENTRAL_HEAD` bytes
    record: bytes
    digest: str | None = None

    @property
    def stamp(self) -> tuple[int, int]:
        """The entry's DOS (time, date)."""
        time, date = _STAMP.unpack_from(self.central, _STAMP_AT)
        return time, date


@dataclass(frozen=True, slots=True)
class _Block:
    """Consecutive entries and their local records, joined: written and hashed at once."""

    entries: list[PreparedEntry]
    data: bytes


def archive_name(skill_path: str, file: FileEntry) -> str:
    """The entry name of a skill file: its decoded URI path."""
    return f"{skill_path}/{file.path}"


def archive_files(
    manifest: Manifest, judged: AbstractSet[str] | None = None
) -> list[tuple[str, FileEntry]]:
    """Every file once, as (entry name, entry), sorted by name bytes; refuses names a
    reader would refuse. ``judged``: entry names in which
    :func:`~skillpack.source.paths.tree_problems` found nothing already (a build's lint
    run judged its tree's); names all among them need no judging again, since no part of
    a tree without a problem has one."""
    by_name: dict[str, FileEntry] = {}
    for skill, f in manifest.files():
        by_name.setdefault(archive_name(skill.skill_path, f), f)
    if judged is not None and by_name.keys() <= judged:
        return sorted(by_name.items(), key=itemgetter(0))
    for problem in tree_problems(by_name):
        if problem.kind == COLLISION:
            raise BuildError(
                "BLD003",
                f"{problem.path} and {problem.other} differ only in case or Unicode normalization",
                "rename one: they would overwrite each other on macOS and Windows",
            )
        if problem.kind == CLASH:
            raise BuildError(
                "BLD003",
                f"{problem.path} {problem.reason} (on macOS and Windows too)",
                "rename one: a path cannot be a file and a directory",
            )
        uri = by_name[problem.path].uri
        raise BuildError("BLD002", f"{uri}: cannot be put in a bundle: the path {problem.reason}")
    # by code point: the order of the names' UTF-8 bytes, without encoding them
    return sorted(by_name.items(), key=itemgetter(0))


def prepare_entry(
    name: str,
    data: bytes,
    executable: bool,
    compression: Compression,
    stamp: tuple[int, int],
    digest: str | None = None,
) -> PreparedEntry:
    """The entry ``name`` holding ``data``, at DOS ``stamp`` (time, date:
    :func:`~skillpack.bundle.zipformat.dos_datetime`); ``digest`` is ``data``'s, when
    the entry is made ahead of :func:`write_bundle` (the build's workers do)."""
    raw_name = name.encode("utf-8")
    flags = 0 if raw_name.isascii() else FLAG_UTF8
    method, payload = STORED, data
    if compression == "deflate":
        packed = zlib.compress(data, COMPRESS_LEVEL, wbits=-15)
        bomb_like = len(data) > RATIO_FLOOR and len(data) > MAX_RATIO * len(packed)
        if len(packed) < len(data) and not bomb_like:
            method, payload = DEFLATED, packed
    mode = stat.S_IFREG | (0o755 if executable else 0o644)
    common = (flags, method, *stamp, zlib.crc32(data), len(payload), len(data))
    record = b"".join(
        (LOCAL.pack(LOCAL_SIG, VERSION, 0, *common, len(raw_name), 0), raw_name, payload)
    )
    central = CENTRAL.pack(CENTRAL_SIG, VERSION, SYSTEM_UNIX, VERSION, 0, *common,
                           len(raw_name), 0, 0, 0, 0, mode << 16, 0)  # fmt: skip
    return PreparedEntry(raw_name, central[:_CENTRAL_HEAD], record, digest)


class _Started:
    """``make()`` running on a thread of its own (a daemon: one left running never holds
    the process up); :meth:`result` waits for it and gives its entry, or raises what
    it raised."""

    def __init__(self, make: Callable[[], PreparedEntry]) -> None:
        self._make = make
        self._entry: PreparedEntry | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="skillpack-metadata", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._entry = self._make()
        except BaseException as exc:  # handed to whoever waits for the result
            self._error = exc

    def result(self) -> PreparedEntry:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._entry is not None  # set by _run when it raised nothing
        return self._entry


class MetadataEntries:
    """The metadata entries of a bundle (its lock, its index), compressed on threads of
    their own from the moment they exist, for :func:`write_bundle` to place first.

    A build makes them as soon as the lock is rendered: compressing the index (about
    20 ms for 1,000 skills, the longest single step after the pass) then overlaps what
    comes before the write instead of holding the write up."""

    def __init__(
        self, lock: bytes, index: bytes, compression: Compression, stamp: tuple[int, int]
    ) -> None:
        self.made_of = (lock, index, compression, stamp)
        self._jobs = [
            _Started(partial(prepare_entry, name, data, False, compression, stamp))
            for name, data in ((INDEX_ENTRY, index), (LOCK_ENTRY, lock))
        ]

    def entries(self) -> list[PreparedEntry]:
        """The lock's entry and the index's, once made (raises what making them raised),
        their threads ended (a process ends at once only when no other thread runs)."""
        index, lock = (job.result() for job in self._jobs)
        return [lock, index]


def _block(entries: Iterable[PreparedEntry]) -> _Block:
    done = list(entries)
    return _Block(done, b"".join(p.record for p in done))


class _HashingWriter:
    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.hash = hashlib.sha256()
        self.offset = 0

    def write(self, data: bytes) -> None:
        self.fh.write(data)
        self.hash.update(data)
        self.offset += len(data)


def _read_checked(source: ContentSource, entry: FileEntry) -> bytes:
    try:
        return check_bytes(entry, source.read_raw(entry))
    except IntegrityError as exc:
        raise BuildError(
            "BLD001",
            f"{entry.uri} changed while the bundle was being built "
            f"({exc.message.split(': ', 1)[-1]})",
            "run the build again once the files stop changing",
        ) from None
    except OSError as exc:
        raise BuildError("BLD001", f"{entry.uri}: cannot read: {exc.strerror or exc}") from None


def _batches(files: list[tuple[str, FileEntry]]) -> Iterator[list[tuple[str, FileEntry]]]:
    """Consecutive files in groups of about _BATCH_BYTES (one big file is a group)."""
    batch: list[tuple[str, FileEntry]] = []
    size = 0
    for item in files:
        batch.append(item)
        size += item[1].size
        if size >= _BATCH_BYTES or len(batch) >= _BATCH_FILES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _made_ahead(
    files: list[tuple[str, FileEntry]], ready: Mapping[str, PreparedEntry], stamp: tuple[int, int]
) -> list[PreparedEntry] | None:
    """The entries of ``files`` in order when ``ready`` holds each one, made of the
    manifest's bytes (its digest) at ``stamp``; else None."""
    made: list[PreparedEntry] = []
    for name, entry in files:
        item = ready.get(name)
        if item is None or not _made_of(item, entry, stamp):
            return None
        made.append(item)
    return made


def _made_of(item: PreparedEntry, entry: FileEntry, stamp: tuple[int, int]) -> bool:
    """Whether the entry made ahead ``item`` holds the manifest's bytes of ``entry`` (its
    digest) at ``stamp``: the writer places it as it is."""
    return item.digest == entry.digest and item.stamp == stamp


def _prepared_blocks(
    pool: ThreadPoolExecutor,
    files: list[tuple[str, FileEntry]],
    source: ContentSource,
    compression: Compression,
    stamp: tuple[int, int],
    ready: Mapping[str, PreparedEntry],
) -> Iterator[_Block]:
    """The entries of ``files`` in order: those in ``ready`` as they are, the others
    read, re-checked, compressed and framed on the pool's threads (zlib, hashlib and
    file reads release the GIL), in batches so small files do not pay a hand-off each
    (and the writing thread takes the GIL once per batch), with a bounded look-ahead."""

    def entry_of(name: str, entry: FileEntry) -> PreparedEntry:
        made = ready.get(name)
        if made is not None and _made_of(made, entry, stamp):
            return made
        data = _read_checked(source, entry)
        return prepare_entry(name, data, entry.executable, compression, stamp)

    def job(batch: list[tuple[str, FileEntry]]) -> _Block:
        return _block(entry_of(name, entry) for name, entry in batch)

    pending: deque[Future[_Block]] = deque()
    todo = _batches(files)
    for batch in todo:
        pending.append(pool.submit(job, batch))
        if len(pending) >= _WINDOW:
            break
    while pending:
        done = pending.popleft().result()
        nxt = next(todo, None)
        if nxt is not None:
            pending.append(pool.submit(job, nxt))
        yield done


def write_bundle(
    fh: BinaryIO,
    manifest: Manifest,
    lock_bytes: bytes,
    source: ContentSource,
    *,
    compression: Compression = "deflate",
    epoch: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    prepared: Mapping[str, PreparedEntry] | None = None,
    index: bytes | None = None,
    metadata: MetadataEntries | None = None,
    judged: AbstractSet[str] | None = None,
) -> WriteResult:
    """Write the bundle of ``manifest`` to ``fh``. ``prepared``: entries already made (by
    :func:`prepare_entry`, with ``compression`` and ``epoch``'s stamp) by entry name,
    used when their digest is the manifest's. Every other file is read from ``source``
    and checked against the manifest again while it is written (BuildError BLD001 if it
    changed). ``index``: the index bytes of ``manifest`` and ``lock_bytes``, when made
    already (:func:`skillpack.lockfile.lock.render_lock_and_index`). ``metadata``: the
    metadata entries being made already, used when made of this lock and index with
    ``compression`` and ``epoch``'s stamp. ``judged``: entry names found safe together
    already (see :func:`archive_files`). ``progress(done, total)`` is called after each
    file."""
    if compression not in COMPRESSIONS:
        raise BuildError("BLD004", f"unknown compression {compression!r} (use deflate or stored)")
    from skillpack.lockfile.prologue import lock_body_digest, split_lock

    parts = split_lock(lock_bytes)
    if parts is None:
        raise ValueError("lock_bytes must be a lock skillpack rendered")
    if index is None:
        index = index_bytes(manifest, lock_body_digest(parts[1]))
    stamp = dos_datetime(epoch)
    out = _HashingWriter(fh)
    central: list[bytes] = []

    offset = _OFFSET.pack
    extend = central.extend  # three parts a record: its head, its offset, its name

    def add(block: _Block) -> None:
        start = out.offset
        for p in block.entries:
            if start > MAX_OFFSET:
                raise BuildError("BLD005", "bundle format 1 archives must stay under 4 GiB")
            extend((p.central, offset(start), p.name))
            start += len(p.record)
        out.write(block.data)

    if metadata is None or metadata.made_of != (lock_bytes, index, compression, stamp):
        # compressed on threads of their own while the file list is made
        metadata = MetadataEntries(lock_bytes, index, compression, stamp)
    files = archive_files(manifest, judged)
    if len(files) + 2 > MAX_ENTRIES:
        raise BuildError(
            "BLD005", f"{len(files)} files: bundle format 1 holds at most {MAX_ENTRIES - 2}"
        )
    ready = prepared or {}
    made = _made_ahead(files, ready, stamp)
    add(_block(metadata.entries()))
    if made is not None:  # a build's workers made every entry: they are only placed
        for start in range(0, len(made), _BATCH_FILES):
            add(_block(made[start : start + _BATCH_FILES]))
            if progress is not None:
                for done in range(start + 1, min(start + _BATCH_FILES, len(made)) + 1):
                    progress(done, len(files))
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="skillpack-build") as pool:
            done = 0
            for block in _prepared_blocks(pool, files, source, compression, stamp, ready):
                add(block)
                if progress is not None:
                    for _ in block.entries:
                        done += 1
                        progress(done, len(files))
    cd_offset = out.offset
    if cd_offset > MAX_OFFSET:
        raise BuildError("BLD005", "bundle format 1 archives must stay under 4 GiB")
    entries = len(central) // 3
    out.write(b"".join(central))
    out.write(
        END.pack(
            END_SIG,
            0,
            0,
            entries,
            entries,
            out.offset - cd_offset,
            cd_offset,
            len(ZIP_COMMENT),
        )
        + ZIP_COMMENT
    )
    return WriteResult("sha256:" + out.hash.hexdigest(), out.offset, len(files))
