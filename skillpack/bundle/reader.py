"""The safe bundle reader shared by verify, inspect, unpack, sign and serve.

:func:`open_bundle` opens a ``.skp`` archive in one of two modes:

``fast`` (the server): standard library only, no TOML parse. It reads the lock's first
three lines (written in a fixed form, see :data:`skillpack.lockfile.prologue.PROLOGUE_RE`) for
``index-digest``, checks that the sha256 of ``.skillpack/index.json`` equals it and that
the index's ``lock-body`` equals the sha256 of the rest of the lock, and then trusts the
index for the manifest. Every manifest file must be present in the central directory
with the locked size and a sane compression ratio (:meth:`Bundle.check_directory`). Entry names are
not otherwise inspected: a fast bundle never writes to the file system and only serves
files the index lists, each checked against its digest when read.

``full`` (verify, inspect, unpack): parses the lock with tomllib, validates it against
``schemas/lock.schema.json``, rebuilds the index bytes from it and compares them with
the stored index, checks every entry of the archive, and hashes every file against
the lock. A bundle opened in full mode has been completely verified.

Refusals (each a :class:`~skillpack.bundle.BundleError` naming the entry; a file that
does not exist is ``USE001`` and one that cannot be opened ``BND018``, exit 2; every
code is in :mod:`skillpack.errors`):

======  ==============================================================
BND001  not a zip archive
BND002  absolute entry name
BND003  ``..`` segment in an entry name
BND004  backslash in an entry name
BND005  drive letter in an entry name
BND006  symlink, directory or other non-regular entry
BND007  duplicate entry name
BND008  names that collide after NFC normalization or case folding
BND009  entry size differs from the lock
BND010  compression-ratio bomb, or actual size differs from the declared size
BND011  entry the lock does not list
BND012  a file the lock lists is missing from the archive
BND013  lock missing, not TOML, failing its schema, or without the fixed prologue
BND014  index disagreeing with the lock, or malformed
BND015  not a skillpack bundle (zip comment, format version, metadata entries)
BND016  malformed entry name (empty or ``.`` segment, control character, bad UTF-8,
        reserved ``.skillpack/`` name)
BND017  corrupt or unsupported entry (header mismatch, CRC, encryption, method, ZIP64)
BND019  a file where another entry needs a directory (``s/docs`` and ``s/docs/a.md``)
INT001  file bytes differing from the lock's size or digest (from ``read_verified``)
======  ==============================================================

Files are read lazily, one at a time (never the whole bundle in memory).
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillpack._internal.closing import Closing
from skillpack.bundle import (
    FORMAT_VERSION,
    INDEX_ENTRY,
    LOCK_ENTRY,
    METADATA_DIR,
    METADATA_ENTRIES,
    ZIP_COMMENT,
    BundleError,
)
from skillpack.bundle.index import manifest_from_index
from skillpack.bundle.zipformat import (
    CENTRAL,
    CENTRAL_SIG,
    DEFLATED,
    END,
    END_SIG,
    FLAG_ENCRYPTED,
    FLAG_STRONG_ENCRYPTION,
    FLAG_UTF8,
    LOCAL,
    LOCAL_SIG,
    MAX_RATIO,
    RATIO_FLOOR,
    STORED,
    SYSTEM_UNIX,
    ZIP64_LOCATOR_SIG,
)
from skillpack.content import IntegrityError, check_bytes
from skillpack.errors import Location, SkillpackError, missing_path
from skillpack.lockfile.index import index_bytes
from skillpack.manifest import FileEntry, Manifest, sha256_digest
from skillpack.source.paths import (
    ABSOLUTE,
    BACKSLASH,
    DRIVE,
    PARENT,
    collision_key,
    unsafe_path,
)

Mode = Literal["fast", "full"]

#: Metadata entries larger than this are refused (a 1,000-skill lock is ~1 MB).
MAX_METADATA = 256 << 20
DIGEST_CHUNK = 1 << 20

_PATH_CODES = {ABSOLUTE: "BND002", PARENT: "BND003", BACKSLASH: "BND004", DRIVE: "BND005"}


@dataclass(frozen=True, slots=True)
class ZipEntry:
    """One central-directory record."""

    name: str
    raw_name: bytes
    flags: int
    method: int
    crc: int
    compressed_size: int
    size: int
    offset: int  #: of the local header
    create_system: int
    mode: int  #: Unix mode from the external attributes (0 when not made on Unix)

    @property
    def executable(self) -> bool:
        return bool(self.mode & 0o111)


#: an entry up to this many bytes compressed is read with its local header in one read
ONE_READ = 1 << 20


class _File:
    """Positional reads on one open file (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self.fh = open(path, "rb")  # noqa: SIM115 - closed by Bundle.close
        self.size = os.fstat(self.fh.fileno()).st_size
        self._lock = threading.Lock()

    def read(self, offset: int, length: int) -> bytes:
        if hasattr(os, "pread"):
            return os.pread(self.fh.fileno(), length, offset)
        with self._lock:  # pragma: no cover - Windows
            self.fh.seek(offset)
            return self.fh.read(length)

    def close(self) -> None:
        self.fh.close()


@dataclass(frozen=True, slots=True)
class _End:
    count: int
    cd_offset: int
    cd_size: int
    comment: bytes


def _end_record(f: _File) -> _End:
    tail_len = min(f.size, END.size + 0xFFFF)
    tail = f.read(f.size - tail_len, tail_len)
    at = tail.rfind(END_SIG)
    while at >= 0 and at + END.size + int.from_bytes(tail[at + 20 : at + 22], "little") != tail_len:
        at = tail.rfind(END_SIG, 0, at)
    if at < 0:
        raise BundleError("BND001", "not a zip archive (no end of central directory record)")
    _, disk, cd_disk, n_disk, count, cd_size, cd_offset, n_comment = END.unpack_from(tail, at)
    if (
        count == 0xFFFF
        or cd_size == 0xFFFFFFFF
        or cd_offset == 0xFFFFFFFF
        or (at >= 20 and tail[at - 20 : at - 16] == ZIP64_LOCATOR_SIG)
    ):
        raise BundleError("BND017", "ZIP64 archives are not bundle format 1")
    if disk or cd_disk or n_disk != count:
        raise BundleError("BND017", "multi-disk archives are not supported")
    if cd_offset + cd_size != f.size - tail_len + at:
        raise BundleError("BND017", "the central directory is not where the archive says")
    return _End(count, cd_offset, cd_size, tail[at + END.size : at + END.size + n_comment])


_LENGTHS = struct.Struct("<28x3H").unpack_from
#: method, compressed size and size of a central directory record
_SIZES = struct.Struct("<10xH8xLL").unpack_from


def _scan_central_directory(buf: bytes, count: int) -> dict[bytes, int]:
    """Raw name -> record position, for ``count`` records (raises on duplicates)."""
    positions: dict[bytes, int] = {}
    pos = 0
    try:
        for _ in range(count):
            n, m, k = _LENGTHS(buf, pos)
            raw = buf[pos + 46 : pos + 46 + n]
            if raw in positions:
                raise BundleError("BND007", "duplicate entry name", entry=_show(raw))
            positions[raw] = pos
            pos += 46 + n + m + k
    except struct.error:
        raise BundleError("BND017", "corrupt central directory (truncated)") from None
    return positions


def _show(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return repr(raw)


def _record(buf: bytes, pos: int) -> ZipEntry:
    (
        sig,
        _cv,
        system,
        _ev,
        _r,
        flags,
        method,
        _t,
        _d,
        crc,
        csize,
        size,
        n,
        _m,
        _k,
        _dk,
        _ia,
        ext,
        offset,
    ) = CENTRAL.unpack_from(buf, pos)
    raw = buf[pos + 46 : pos + 46 + n]
    if sig != CENTRAL_SIG or len(raw) != n:
        raise BundleError("BND017", "corrupt central directory")
    return ZipEntry(
        _decode_name(raw, flags), raw, flags, method, crc, csize, size, offset, system, ext >> 16
    )


def _decode_name(raw: bytes, flags: int) -> str:
    if raw.isascii():
        return raw.decode("ascii")
    if not flags & FLAG_UTF8:
        raise BundleError("BND016", "non-ASCII name without the UTF-8 flag", entry=repr(raw))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BundleError("BND016", "name is not valid UTF-8", entry=repr(raw)) from None


def _check_entry_kind(e: ZipEntry) -> None:
    if e.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION):
        raise BundleError("BND017", "encrypted entries are not allowed", entry=e.name)
    if e.method not in (STORED, DEFLATED):
        raise BundleError("BND017", f"unsupported compression method {e.method}", entry=e.name)
    if e.name.endswith("/") or e.create_system != SYSTEM_UNIX or not stat.S_ISREG(e.mode):
        kind = _kind(e)
        raise BundleError("BND006", f"{kind}: only regular files are allowed", entry=e.name)


def _kind(e: ZipEntry) -> str:
    if e.create_system != SYSTEM_UNIX:
        return f"entry made on system {e.create_system}, without a Unix file type"
    if stat.S_ISLNK(e.mode):
        return "symbolic link"
    if stat.S_ISDIR(e.mode) or e.name.endswith("/"):
        return "directory"
    return f"non-regular entry (mode {e.mode:o})"


def _check_name(e: ZipEntry) -> None:
    problem = unsafe_path(e.name)
    if problem is not None:
        kind, reason = problem
        raise BundleError(_PATH_CODES.get(kind, "BND016"), f"unsafe name: {reason}", entry=e.name)
    if e.name.startswith(METADATA_DIR) and e.name not in METADATA_ENTRIES:
        raise BundleError(
            "BND016", "unknown entry in the reserved .skillpack/ directory", entry=e.name
        )


def _check_ratio(e: ZipEntry) -> None:
    if (
        e.method == DEFLATED
        and e.size > RATIO_FLOOR
        and e.size > MAX_RATIO * max(e.compressed_size, 1)
    ):
        raise BundleError(
            "BND010",
            f"compression ratio {e.size // max(e.compressed_size, 1)}:1 "
            f"({e.compressed_size} bytes claim {e.size}): refused as a zip bomb",
            entry=e.name,
        )


def _canonical_lock_manifest(lock: bytes, index: bytes) -> Manifest | None:
    """The manifest of a lock and index that are exactly what skillpack writes for it,
    known without parsing the TOML; None when they are not.

    The index is compact JSON (cheap to read); the manifest it describes is checked as a
    lock's manifest is (:func:`~skillpack.lockfile.lock.check_manifest`: everything the
    lock schema and the lock reader require), then rendered: when the lock's bytes are
    that manifest's canonical lock and the index's bytes its canonical index, the lock
    describes exactly this manifest, every byte of both accounted for. Parsing the lock
    with tomllib and its schema takes most of a full open of a large bundle otherwise."""
    from skillpack.lockfile.lock import LockError, check_manifest, render_lock_and_index

    try:
        manifest, _ = manifest_from_index(index)
        check_manifest(manifest, LOCK_ENTRY)
    except (BundleError, LockError):
        return None
    try:
        rendered = render_lock_and_index(manifest)
    except ValueError:  # a value JSON reads and TOML or canonical JSON cannot hold (NaN)
        return None
    if rendered != (lock, index):
        return None
    return manifest


def _parsed_lock_manifest(lock: bytes, index: bytes) -> Manifest:
    """The lock's manifest, parsed and validated in full, and checked against the index
    (``BND013``, ``BND014``)."""
    from skillpack.lockfile.lock import LockError, parse_lock
    from skillpack.lockfile.prologue import lock_body_digest, split_lock

    try:
        parsed = parse_lock(lock, LOCK_ENTRY)
    except LockError as exc:
        raise BundleError("BND013", exc.message, entry=LOCK_ENTRY, hint=exc.hint) from None
    parts = split_lock(lock)
    assert parts is not None  # parse_lock checked the prologue
    if index != index_bytes(parsed.manifest, lock_body_digest(parts[1])):
        raise BundleError(
            "BND014", "the index does not describe the same manifest as the lock", entry=INDEX_ENTRY
        )
    return parsed.manifest


class Bundle(Closing):
    """An open bundle: a :class:`~skillpack.content.ContentSource` over a ``.skp`` file."""

    def __init__(self, path: Path, mode: Mode, keep: int = 0) -> None:
        self.path = Path(path)
        self.mode: Mode = mode
        #: verified bytes kept from the full mode's check, by URI (up to ``keep`` bytes)
        self._kept: dict[str, bytes] = {}
        self._keep = keep
        self.format_version = FORMAT_VERSION
        try:
            self._file = _File(self.path)
        except FileNotFoundError:
            raise missing_path(path) from None
        except OSError as exc:
            raise SkillpackError(
                "BND018", f"cannot open the bundle: {exc.strerror}", Location(str(path))
            ) from None
        self._lock_bytes: bytes | None = None
        try:
            self._open(mode)
        except BundleError as exc:
            self._file.close()
            if exc.location is None:
                exc.location = Location(str(path))
            raise
        except BaseException:
            self._file.close()
            raise

    # --- opening ---------------------------------------------------------------
    def _open(self, mode: Mode) -> None:
        self._end = _end_record(self._file)
        if self._end.comment != ZIP_COMMENT:
            raise BundleError(
                "BND015",
                f"not a skillpack bundle format {FORMAT_VERSION} "
                f"(zip comment {self._end.comment[:40]!r})",
                hint="build bundles with 'skillpack build'",
            )
        self._positions: dict[bytes, int] | None = None
        self._decoded: dict[bytes, ZipEntry] = {}
        self._names: dict[str, str] = {}
        self._files: dict[str, FileEntry] = {}
        if mode == "fast":
            self.manifest = self._open_fast()
        elif mode == "full":
            from skillpack._internal.parallel import collector_paused

            with collector_paused():  # a pass over every file (see collector_paused)
                self.manifest = self._open_full()
        else:
            raise ValueError(f"mode must be 'fast' or 'full', not {mode!r}")

    def _central(self) -> dict[bytes, int]:
        """The central directory, scanned on first use (fast mode opens without it)."""
        if self._positions is None:
            self._cd = self._file.read(self._end.cd_offset, self._end.cd_size)
            self._positions = _scan_central_directory(self._cd, self._end.count)
            for name in METADATA_ENTRIES:
                if name.encode() not in self._positions:
                    raise BundleError(
                        "BND015", "metadata entry missing: not a skillpack bundle", entry=name
                    )
        return self._positions

    def _entry(self, name: str) -> ZipEntry | None:
        raw = name.encode("utf-8")
        e = self._decoded.get(raw)
        if e is None:
            pos = self._central().get(raw)
            if pos is None:
                return None
            e = self._decoded[raw] = _record(self._cd, pos)
        return e

    def _local_entry(self, offset: int, expected: str) -> ZipEntry:
        """A metadata entry found by its local header (fast mode: no central directory)."""
        header = self._file.read(offset, LOCAL.size)
        if len(header) == LOCAL.size:
            sig, _v, _r, flags, method, _t, _d, crc, csize, size, n, _m = LOCAL.unpack(header)
            raw = self._file.read(offset + LOCAL.size, n)
            if sig == LOCAL_SIG and raw == expected.encode():
                mode = stat.S_IFREG | 0o644
                return ZipEntry(
                    expected, raw, flags, method, crc, csize, size, offset, SYSTEM_UNIX, mode
                )
        raise BundleError(
            "BND015", "metadata entries must come first: not a skillpack bundle", entry=expected
        )

    def _read_metadata(self, e: ZipEntry, limit: int | None = None) -> bytes:
        _check_entry_kind(e)
        if e.size > MAX_METADATA:
            raise BundleError(
                "BND010", f"metadata entry of {e.size} bytes is too large", entry=e.name
            )
        _check_ratio(e)
        return self._read_entry(e, limit)

    def _open_fast(self) -> Manifest:
        from skillpack.lockfile.prologue import lock_body_digest, split_lock

        lock_entry = self._local_entry(0, LOCK_ENTRY)
        self._lock_bytes = self._read_metadata(lock_entry)
        parts = split_lock(self._lock_bytes)
        if parts is None:
            raise BundleError(
                "BND013",
                "the lock does not start with the lock-version, created-by and index-digest lines",
                entry=LOCK_ENTRY,
            )
        digest, body = parts
        index_offset = LOCAL.size + len(lock_entry.raw_name) + lock_entry.compressed_size
        self._metadata = (lock_entry, self._local_entry(index_offset, INDEX_ENTRY))
        index = self._read_metadata(self._metadata[1])
        if sha256_digest(index) != digest:
            raise BundleError(
                "BND014",
                f"index digest {sha256_digest(index)} differs from the "
                f"lock's index-digest {digest}",
                entry=INDEX_ENTRY,
            )
        manifest, lock_body = manifest_from_index(index)
        if lock_body_digest(body) != lock_body:
            raise BundleError(
                "BND013",
                "the lock's content differs from the lock the index was built from "
                "(the lock was changed)",
                entry=LOCK_ENTRY,
            )
        for skill in manifest.skills:
            prefix = skill.skill_path + "/"
            for f in skill.files:
                self._names[f.uri] = prefix + f.path
                self._files[f.uri] = f
        return manifest

    def _open_full(self) -> Manifest:
        positions = self._central()
        entries = [_record(self._cd, pos) for pos in positions.values()]
        self._decoded = {e.raw_name: e for e in entries}
        keys: dict[str, str] = {}
        for e in entries:
            _check_entry_kind(e)
            _check_name(e)
            key = collision_key(e.name)
            if key in keys:
                raise BundleError(
                    "BND008",
                    f"collides with {keys[key]!r} after NFC normalization or case folding",
                    entry=e.name,
                )
            keys[key] = e.name
        for key, name in keys.items():  # a file where another entry needs a directory
            parent = key.rpartition("/")[0]
            while parent:
                if parent in keys:
                    raise BundleError(
                        "BND019",
                        f"needs a directory where {keys[parent]!r} is a file",
                        entry=name,
                    )
                parent = parent.rpartition("/")[0]
        lock_entry, index_entry = (self._decoded[n.encode()] for n in METADATA_ENTRIES)
        self._metadata = (lock_entry, index_entry)
        self._lock_bytes = self._read_metadata(lock_entry)
        index = self._read_metadata(index_entry)
        manifest = _canonical_lock_manifest(self._lock_bytes, index)
        if manifest is None:  # not the canonical pair: parse the lock to say what is wrong
            manifest = _parsed_lock_manifest(self._lock_bytes, index)
        for skill in manifest.skills:
            prefix = skill.skill_path + "/"
            for f in skill.files:
                if f.uri in self._names:
                    continue
                self._names[f.uri] = prefix + f.path
                self._files[f.uri] = f
                self._located(f)
        listed = set(self._names.values())
        for e in entries:
            if e.name not in listed and e.name not in METADATA_ENTRIES:
                raise BundleError("BND011", "file not listed in the lock", entry=e.name)
        budget = self._keep
        for entry in self._files.values():
            data = self.read_verified(entry)
            if len(data) <= budget:  # a reader about to write every file reads it once
                self._kept[entry.uri] = data
                budget -= len(data)
        return manifest

    def _located(self, f: FileEntry) -> ZipEntry:
        """The entry of manifest file ``f``: present, locked size, sane ratio."""
        name = self._names[f.uri]
        e = self._entry(name)
        if e is None:
            raise BundleError(
                "BND012", f"listed in the lock as {f.uri} but missing from the archive", entry=name
            )
        if e.size != f.size:
            raise BundleError(
                "BND009", f"size {e.size} differs from the locked {f.size}", entry=name
            )
        _check_ratio(e)
        return e

    def check_directory(self) -> None:
        """Every file the manifest lists is in the archive's directory with its locked size
        and a sane compression ratio (``BND012``, ``BND009``, ``BND008``). The full mode does
        this while opening; the fast mode leaves it to this call (the server makes it at
        start) or to the first read of each file."""
        positions = self._central()
        cd = self._cd
        for uri, f in self._files.items():
            # the common case without decoding a record: present, locked size, sane ratio
            pos = positions.get(self._names[uri].encode("utf-8"))
            if pos is not None:
                method, csize, size = _SIZES(cd, pos)
                if size == f.size and not (
                    method == DEFLATED and size > RATIO_FLOOR and size > MAX_RATIO * max(csize, 1)
                ):
                    continue
            self._located(f)  # raises the precise refusal

    # --- reading ---------------------------------------------------------------
    def _read_entry(self, e: ZipEntry, limit: int | None = None) -> bytes:
        """The bytes of ``e`` (its first ``limit`` bytes when given), checked against the
        central directory: header, declared size, CRC-32."""
        # one read for the header, the name and the data of an entry whose local header
        # has the central directory's name and no extra field (as skillpack writes it);
        # the name and the data read again on their own otherwise
        whole = LOCAL.size + len(e.raw_name) + e.compressed_size
        one = limit is None and e.compressed_size <= ONE_READ
        block = self._file.read(e.offset, whole if one else LOCAL.size)
        if len(block) < LOCAL.size:
            raise BundleError("BND017", "local header lies outside the archive", entry=e.name)
        sig, _v, _r, flags, method, _t, _d, _crc, _cs, _s, n, m = LOCAL.unpack_from(block)
        in_block = one and m == 0 and n == len(e.raw_name) and len(block) == whole
        name = block[LOCAL.size : LOCAL.size + n] if in_block else self._file.read(
            e.offset + LOCAL.size, n
        )  # fmt: skip
        start = e.offset + LOCAL.size + n + m
        if (
            sig != LOCAL_SIG
            or name != e.raw_name
            or method != e.method
            or (flags ^ e.flags) & ~0x0008
            or start + e.compressed_size > self._end.cd_offset
        ):
            raise BundleError(
                "BND017", "local header disagrees with the central directory", entry=e.name
            )
        if e.method == STORED:
            if e.compressed_size != e.size:
                raise BundleError(
                    "BND010",
                    f"stored entry of {e.compressed_size} bytes declares {e.size}",
                    entry=e.name,
                )
            if limit is not None:
                return self._file.read(start, min(limit, e.size))
            data = block[start - e.offset :] if in_block else self._file.read(start, e.size)
        else:
            inflater = zlib.decompressobj(-15)
            want = e.size if limit is None else min(limit, e.size)
            raw = (
                block[start - e.offset :] if in_block else self._file.read(start, e.compressed_size)
            )
            try:
                data = inflater.decompress(raw, want + 1)
            except zlib.error as exc:
                raise BundleError("BND017", f"corrupt deflate data ({exc})", entry=e.name) from None
            if len(data) > e.size:
                raise BundleError(
                    "BND010", f"inflates beyond its declared {e.size} bytes", entry=e.name
                )
            if limit is not None:
                return data[:limit]
            if len(data) != e.size or not inflater.eof:
                raise BundleError(
                    "BND010",
                    f"inflates to {len(data)} bytes, not the declared {e.size}",
                    entry=e.name,
                )
        if zlib.crc32(data) != e.crc:
            raise BundleError(
                "BND017",
                "content does not match its CRC-32 (the archive is corrupt or was modified)",
                entry=e.name,
            )
        return data

    def read_raw(self, entry: FileEntry) -> bytes:
        """The bytes of ``entry`` as stored (CRC and size checked, digest not)."""
        if entry.uri not in self._files:
            raise IntegrityError(entry.uri, "not in this bundle")
        return self._read_entry(self._located(self._files[entry.uri]))

    def read_verified(self, entry: FileEntry, *, again: bool = False) -> bytes:
        """The bytes of ``entry``, checked against its locked size and sha256 (handed
        over once without reading them again when the full mode kept them; ``again``:
        still kept after this read, for a reader that needs them once more)."""
        kept = self._kept.get(entry.uri) if again else self._kept.pop(entry.uri, None)
        if kept is not None:
            return kept
        locked = self._files.get(entry.uri)
        if locked is None:
            raise IntegrityError(entry.uri, "not in this bundle")
        return check_bytes(locked, self.read_raw(entry))

    def entry(self, file: FileEntry) -> ZipEntry:
        """The archive entry holding ``file``."""
        return self._located(self._files[file.uri])

    @property
    def entries(self) -> list[ZipEntry]:
        """Every entry, in archive order."""
        positions = self._central()
        return [self._decoded.get(raw) or _record(self._cd, pos) for raw, pos in positions.items()]

    @property
    def lock_bytes(self) -> bytes:
        """The lock, byte for byte."""
        if self._lock_bytes is None:
            self._lock_bytes = self._read_metadata(self._metadata[0])
        return self._lock_bytes

    @property
    def lock_digest(self) -> str:
        return sha256_digest(self.lock_bytes)

    def archive_digest(self) -> str:
        """``sha256:<hex>`` of the whole ``.skp`` file, streamed through this bundle's own
        handle: the digest covers exactly the bytes the reader reads, even if the path
        was replaced after opening (what a signature check relies on)."""
        h = hashlib.sha256()
        for offset in range(0, self._file.size, DIGEST_CHUNK):
            h.update(self._file.read(offset, min(DIGEST_CHUNK, self._file.size - offset)))
        return "sha256:" + h.hexdigest()

    @property
    def size(self) -> int:
        return self._file.size

    def close(self) -> None:
        self._file.close()


def open_bundle(path: str | os.PathLike[str], *, mode: Mode = "full", keep: int = 0) -> Bundle:
    """Open the bundle at ``path``; see the module docstring for the two modes.

    ``keep``: in full mode, keep up to this many bytes of the files it verified, each
    handed over by the first :meth:`Bundle.read_verified` of it (a caller that writes
    every file then inflates and hashes each once, not twice)."""
    return Bundle(Path(path), mode, keep)
