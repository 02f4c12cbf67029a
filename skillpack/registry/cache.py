"""A content-addressed cache of registry content in the user's cache directory.

Location: ``$SKILLPACK_CACHE_DIR/oci`` when set, else ``$XDG_CACHE_HOME/skillpack/oci``,
else ``~/.cache/skillpack/oci``. Layout (like an OCI image layout's blob store)::

    blobs/sha256/<hex>             every blob and manifest, by digest
    referrers/sha256/<hex>.json    the signature referrers seen for a manifest (an index)
    tags/<registry>/<repository>/<tag>   the digest a tag last resolved to (offline only)

Every write goes to a temporary file in the destination's directory, is flushed and
fsynced, checked against its digest, and only then renamed into place; a failed check
leaves nothing behind. Reads check sizes and digests again: a corrupt entry is removed
and reported missing. Tags are mutable, so a tag is resolved from the cache only when
the caller is offline; a digest needs no network once its content is here.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO
from urllib.parse import quote

from skillpack.registry.errors import registry_error
from skillpack.registry.reference import is_digest, validate_digest


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The cache root by the precedence of the module docstring."""
    env = os.environ if environ is None else environ
    if env.get("SKILLPACK_CACHE_DIR"):
        return Path(env["SKILLPACK_CACHE_DIR"]) / "oci"
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]) / "skillpack" / "oci"
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".cache" / "skillpack" / "oci"


class StagedBlob:
    """A blob being written: a temporary file in the cache, renamed on :meth:`commit`."""

    def __init__(self, cache: Cache, digest: str, file: IO[bytes], temp: Path) -> None:
        self.cache = cache
        self.digest = digest
        self.file = file
        self.temp = temp
        self.path = cache.blob_path(digest)
        self.committed = False

    def commit(self) -> Path:
        """Check the digest of what was written, fsync, and rename it into place."""
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            if file_sha256(self.temp) != self.digest:
                raise registry_error(
                    "REG042", f"the bytes written to the cache for {self.digest} do not match it"
                )
            os.replace(self.temp, self.path)
            self.committed = True
            _fsync_dir(self.path.parent)
        except OSError as exc:
            self.discard()
            raise self.cache.failure(exc) from None
        except BaseException:
            self.discard()
            raise
        return self.path

    def discard(self) -> None:
        """Close and remove the temporary file, unless it was committed."""
        with contextlib.suppress(OSError):
            self.file.close()
        if not self.committed:
            with contextlib.suppress(OSError):
                self.temp.unlink()


class Cache:
    """The cache at ``root`` (default :func:`default_cache_dir`)."""

    def __init__(self, root: Path | None = None, environ: Mapping[str, str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir(environ)

    def __repr__(self) -> str:
        return f"Cache({str(self.root)!r})"

    # -- paths -----------------------------------------------------------------------------

    def blob_path(self, digest: str) -> Path:
        validate_digest(digest)
        return self.root / "blobs" / "sha256" / digest.partition(":")[2]

    def _referrers_path(self, digest: str) -> Path:
        validate_digest(digest)
        return self.root / "referrers" / "sha256" / (digest.partition(":")[2] + ".json")

    def _tag_path(self, registry: str, repository: str, tag: str) -> Path:
        return self.root / "tags" / quote(registry, safe="") / repository / tag

    # -- blobs -----------------------------------------------------------------------------

    def has_blob(self, digest: str, size: int | None = None) -> bool:
        """Whether a blob is present with the right size and digest; a corrupt copy is
        removed."""
        path = self.blob_path(digest)
        try:
            actual_size = path.stat().st_size
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise self.failure(exc) from None
        if (size is None or actual_size == size) and file_sha256(path) == digest:
            return True
        with contextlib.suppress(OSError):
            path.unlink()
        return False

    @contextlib.contextmanager
    def stage(self, digest: str) -> Iterator[StagedBlob]:
        """A :class:`StagedBlob` to write ``digest`` into; discarded at the end of the
        ``with`` block unless committed inside it."""
        import tempfile  # here: reading the cache (serve from a digest) does not need it

        path = self.blob_path(digest)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
        except OSError as exc:
            raise self.failure(exc) from None
        staged = StagedBlob(self, digest, os.fdopen(fd, "wb"), Path(temp))
        try:
            yield staged
        finally:
            staged.discard()

    def put_bytes(self, digest: str, data: bytes) -> Path:
        """Store ``data`` (a manifest, a signature) under its digest."""
        if "sha256:" + hashlib.sha256(data).hexdigest() != digest:
            raise registry_error("REG042", f"the bytes given for {digest} do not match it")
        if self.get_bytes(digest, limit=len(data)) is not None:
            return self.blob_path(digest)
        with self.stage(digest) as staged:
            staged.file.write(data)
            return staged.commit()

    def get_bytes(self, digest: str, limit: int = 16 * 1024 * 1024) -> bytes | None:
        """The stored bytes of ``digest`` if present and intact, else ``None``."""
        path = self.blob_path(digest)
        try:
            if path.stat().st_size > limit:
                return None
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self.failure(exc) from None
        if "sha256:" + hashlib.sha256(data).hexdigest() != digest:
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        return data

    # -- referrers and tags ----------------------------------------------------------------

    def put_referrers(self, subject: str, index: bytes) -> None:
        """Record the index of ``subject``'s signature referrers (as fetched)."""
        self._write_small(self._referrers_path(subject), index)

    def get_referrers(self, subject: str) -> bytes | None:
        """The recorded referrers index of ``subject``, or ``None``."""
        return self._read_small(self._referrers_path(subject))

    def put_tag(self, registry: str, repository: str, tag: str, digest: str) -> None:
        """Record that ``tag`` resolved to ``digest``."""
        validate_digest(digest)
        self._write_small(self._tag_path(registry, repository, tag), digest.encode("ascii"))

    def get_tag(self, registry: str, repository: str, tag: str) -> str | None:
        """The digest ``tag`` last resolved to, or ``None``."""
        data = self._read_small(self._tag_path(registry, repository, tag))
        text = data.decode("ascii", "replace").strip() if data is not None else ""
        return text if is_digest(text) else None

    def _write_small(self, path: Path, data: bytes) -> None:
        import tempfile

        temp: Path | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
            temp = Path(name)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, path)
            temp = None
            _fsync_dir(path.parent)
        except OSError as exc:
            raise self.failure(exc) from None
        finally:
            if temp is not None:
                with contextlib.suppress(OSError):
                    temp.unlink()

    def _read_small(self, path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self.failure(exc) from None

    def failure(self, exc: OSError) -> Exception:
        return registry_error(
            "REG061",
            f"the cache {self.root} cannot be used: {exc.strerror or exc}",
            hint="set SKILLPACK_CACHE_DIR to a writable directory",
        )


def file_sha256(path: Path) -> str:
    with path.open("rb") as f:
        return "sha256:" + hashlib.file_digest(f, "sha256").hexdigest()


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
