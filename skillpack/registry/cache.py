"""A content-addressed cache of registry content in the user's cache directory.

Location: ``$SKILLPACK_CACHE_DIR/oci`` when set, else ``$XDG_CACHE_HOME/skillpack/oci``
(when absolute), else ``~/.cache/skillpack/oci`` (``HOME`` when absolute, else the
account's home directory; see :func:`cache_root`). Layout (like an OCI image layout's blob store)::

    blobs/sha256/<hex>             every blob and manifest, by digest
    stamps/sha256/<hex>            a bundle blob's file status when its digest was checked
    referrers/sha256/<hex>.json    the signature referrers seen for a manifest (an index)
    tags/<registry>/<repository>/<tag>   the digest a tag last resolved to (offline only)

Every write goes to a temporary file in the destination's directory, checked against
its digest, and only then renamed into place; a failed check leaves nothing behind. A
blob (:meth:`Cache.stage`) and the records of referrers and tags are fsynced before
their rename; manifests and signatures (:meth:`Cache.put_bytes`) are not, since every
read of one checks its digest: one torn by a crash is removed and reported missing.

Reads of manifests and signatures check the digest again. A blob's read
(:meth:`Cache.has_blob`) checks its size, and its digest; with ``check_digest=False``
(a caller that checks the content otherwise: pull and verify compare the digest of the
bundle they verify in full, serve's reader checks the lock and index digests at open and
every file's digest before it is sent) the digest is not computed again when the file's
status (size, mtime, ctime, inode, device) is the one stamped when its digest was last
checked: any write, rename or copy over the file changes its ctime, so a changed file
is hashed, and removed if it no longer has its digest. A caller whose own check fails
hashes it (``skillpack.registry.check_cached_bundle``), and a copy found changed is
fetched again. The cache is the user's own directory: it guards against torn writes and
changed bytes, not against another user who can write there (do not share a writable
SKILLPACK_CACHE_DIR between users).

Tags are mutable, so a tag is resolved from the cache only when the caller is offline;
a digest needs no network once its content is here.
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


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """skillpack's cache directory by the precedence of the module docstring: the OCI
    cache is its ``oci``, the git cache (:mod:`skillpack.gitsource`) its ``git``.

    ``SKILLPACK_CACHE_DIR`` is taken as given (relative to the working directory if it
    is relative: the user named it); ``XDG_CACHE_HOME`` only when absolute (the XDG
    specification ignores a relative one); ``HOME`` only when absolute, else the home
    directory of the user's account. With none of these, ``REG061``: never a cache in
    the working directory or under ``/`` by accident (``HOME=`` in a CI job)."""
    env = os.environ if environ is None else environ
    if env.get("SKILLPACK_CACHE_DIR"):
        return Path(env["SKILLPACK_CACHE_DIR"]).absolute()
    xdg = env.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "skillpack"
    home = env.get("HOME", "")
    if not os.path.isabs(home):
        home = _account_home()
    if not home:
        raise registry_error(
            "REG061",
            f"no cache directory: HOME ({env.get('HOME', '')!r}) is not an absolute path",
            hint="set HOME to your home directory, or SKILLPACK_CACHE_DIR to a writable "
            "directory for skillpack's cache",
        )
    return Path(home) / ".cache" / "skillpack"


def _account_home() -> str:
    """The home directory of the user's account (the password database), "" when it is
    not known or not absolute."""
    try:
        import pwd

        home = pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError):
        return ""
    return home if os.path.isabs(home) else ""


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The OCI cache root."""
    return cache_root(environ) / "oci"


class StagedBlob:
    """A blob being written: a temporary file in the cache, renamed on :meth:`commit`."""

    def __init__(self, cache: Cache, digest: str, file: IO[bytes], temp: Path) -> None:
        self.cache = cache
        self.digest = digest
        self.file = file
        self.temp = temp
        self.path = cache.blob_path(digest)
        self.committed = False

    def commit(self, *, digest_checked: bool = False) -> Path:
        """Check the digest of what was written, fsync, and rename it into place.
        ``digest_checked``: the writer hashed exactly the bytes it wrote and they had
        the digest (``RegistryClient.get_blob`` does, as they stream): not read again."""
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            if not digest_checked and file_sha256(self.temp) != self.digest:
                raise registry_error(
                    "REG042", f"the bytes written to the cache for {self.digest} do not match it"
                )
            os.replace(self.temp, self.path)
            self.committed = True
            _fsync_dir(self.path.parent)
            self.cache.stamp(self.digest)
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

    def _stamp_path(self, digest: str) -> Path:
        validate_digest(digest)
        return self.root / "stamps" / "sha256" / digest.partition(":")[2]

    def _referrers_path(self, digest: str) -> Path:
        validate_digest(digest)
        return self.root / "referrers" / "sha256" / (digest.partition(":")[2] + ".json")

    def _tag_path(self, registry: str, repository: str, tag: str) -> Path:
        return self.root / "tags" / quote(registry, safe="") / repository / tag

    # -- blobs -----------------------------------------------------------------------------

    def has_blob(self, digest: str, size: int | None = None, *, check_digest: bool = True) -> bool:
        """Whether a blob is present with the right size and digest; a corrupt copy is
        removed (with its stamp). ``check_digest=False``: not hashed when its file
        status is the one :meth:`stamp` recorded (for a caller that checks the content
        itself, and hashes it when that fails); hashed and stamped again otherwise."""
        path = self.blob_path(digest)
        try:
            status = path.stat()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise self.failure(exc) from None
        if size is not None and status.st_size != size:
            self.discard(digest)
            return False
        if not check_digest and self._read_small_quietly(self._stamp_path(digest)) == _stamp(
            status
        ):
            return True  # unchanged since its digest was checked
        if file_sha256(path) != digest:
            self.discard(digest)
            return False
        self.stamp(digest)
        return True

    def stamp(self, digest: str) -> None:
        """Record the status of the blob ``digest``, whose digest was just checked
        (best effort: a cache that cannot take it hashes the blob next time)."""
        path = self.blob_path(digest)
        with contextlib.suppress(OSError):
            self._write_small(self._stamp_path(digest), _stamp(path.stat()), durable=False)

    def discard(self, digest: str) -> None:
        """Remove the blob ``digest`` (a copy found corrupt); nothing if it is absent."""
        for path in (self._stamp_path(digest), self.blob_path(digest)):
            with contextlib.suppress(OSError):
                path.unlink()

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
        """Store ``data`` (a manifest, a signature) under its digest: renamed into
        place, not fsynced (every read checks the digest)."""
        if "sha256:" + hashlib.sha256(data).hexdigest() != digest:
            raise registry_error("REG042", f"the bytes given for {digest} do not match it")
        if self.get_bytes(digest, limit=len(data)) is not None:
            return self.blob_path(digest)
        path = self.blob_path(digest)
        self._write_small(path, data, durable=False)
        return path

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

    def _write_small(self, path: Path, data: bytes, *, durable: bool = True) -> None:
        import tempfile

        temp: Path | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
            temp = Path(name)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                if durable:
                    f.flush()
                    os.fsync(f.fileno())
            os.replace(temp, path)
            temp = None
            if durable:
                _fsync_dir(path.parent)
        except OSError as exc:
            raise self.failure(exc) from None
        finally:
            if temp is not None:
                with contextlib.suppress(OSError):
                    temp.unlink()

    def _read_small_quietly(self, path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except OSError:
            return None

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


def _stamp(status: os.stat_result) -> bytes:
    """What changes when a file is written, replaced or copied over: its size, times,
    inode and device (the ctime cannot be set back by a user)."""
    return (
        f"{status.st_size} {status.st_mtime_ns} {status.st_ctime_ns} "
        f"{status.st_ino} {status.st_dev}\n"
    ).encode("ascii")


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
