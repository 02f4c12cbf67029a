"""An install's sources: a ``.skp`` file or an ``oci://`` reference, opened verified.

:func:`open_source` fetches (``oci://``: into the content-addressed cache, digests
checked by :mod:`skillpack.registry`), opens the bundle in full mode (every file checked
against the lock) and, with a signature policy, checks its signature against that same
open bundle, before the installer reads a byte of it. What it resolved to is a
:class:`~skillpack.install.lockfile.SourcePin`.

A source pinned by the install lock is opened at its pin: an ``oci://`` source by its
manifest digest (from the cache when it is there), a file only if it still has the
pinned digest. ``resolve=True`` (a source named on the command line, ``--upgrade``)
asks where the source points now; ``frozen`` does too, and refuses a source that no
longer serves its pin (``INS007``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from skillpack.errors import Location, SkillpackError, missing_path
from skillpack.install.lockfile import Signer, SourcePin

if TYPE_CHECKING:
    from skillpack.bundle.reader import Bundle
    from skillpack.gitsource.tree import TreeBundle
    from skillpack.manifest import Manifest
    from skillpack.registry.options import ClientOptions
    from skillpack.signing.policy import SignaturePolicy
    from skillpack.signing.verify import VerifiedBundle

SCHEME = "oci://"
#: verified file bytes kept in memory between the check and the write
KEEP = 64 << 20


def is_reference(source: str) -> bool:
    return source.startswith(SCHEME)


def is_remote(source: str) -> bool:
    """An ``oci://`` reference or a git source: not a path."""
    from skillpack.gitsource.spec import is_git_source

    return is_reference(source) or is_git_source(source)


def source_key(text: str, project: Path) -> str:
    """How the lock records a source: an ``oci://`` reference as normalised, a file by
    its path relative to the project (``/``-separated; ``../vendor/x.skp`` outside it,
    so that a committed lock names the same file in every clone; absolute only where no
    relative path exists)."""
    if is_reference(text):
        from skillpack.registry.reference import parse_reference

        return str(parse_reference(text))
    from skillpack.gitsource.spec import is_git_source, parse_git_source

    if is_git_source(text):
        return parse_git_source(text).key
    path = Path(os.path.abspath(text))
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        pass
    try:  # outside the project: still relative, so the committed lock works in a clone
        return Path(os.path.relpath(path, project)).as_posix()
    except ValueError:  # another drive (Windows): only an absolute path names it
        return path.as_posix()


@dataclass
class Opened:
    """A source opened for installing: what it resolved to, and its verified bundle.

    A source at an unchanged pin is verified only when a byte of it is needed
    (:attr:`bundle`): its digest is the pinned one, so its contents are those verified
    when it was pinned, and a run that finds every skill directory already right never
    opens it. Whenever the bundle is read, it is opened in full (every file checked
    against its lock) and its digest checked against the pin first."""

    source: str  #: the lock's name for it (:func:`source_key`)
    path: Path  #: the .skp file (in the cache for an ``oci://`` source)
    pin: SourcePin
    verified: VerifiedBundle | None
    label: str  #: how messages name it
    _bundle: Bundle | None = None
    _manifest: Manifest | None = None

    @property
    def loaded(self) -> bool:
        return self._bundle is not None

    @property
    def manifest(self) -> Manifest:
        """The bundle's manifest: from the full open when there was one, else read from
        its index (the fast reader checks index and lock against each other, and the
        file's digest is the pinned one)."""
        if self._bundle is not None:
            return self._bundle.manifest
        if self._manifest is None:
            from skillpack.bundle.reader import open_bundle

            with open_bundle(self.path, mode="fast") as fast:
                self._manifest = fast.manifest
        return self._manifest

    @property
    def bundle(self) -> Bundle:
        """The bundle, opened in full on first use (checked against the pin)."""
        if self._bundle is None:
            from skillpack.bundle.reader import open_bundle

            bundle = open_bundle(self.path, mode="full", keep=KEEP)
            digest = bundle.archive_digest()
            if digest != self.pin.bundle_digest:
                bundle.close()
                raise _moved(self.source, self.pin.bundle_digest, digest, frozen=False)
            self._bundle = bundle
        return self._bundle

    def close(self) -> None:
        if self._bundle is not None:
            self._bundle.close()

    def __enter__(self) -> Opened:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _moved(source: str, pinned: str, now: str, frozen: bool) -> SkillpackError:
    what = "--frozen installs exactly what the lock pins" if frozen else "the lock pins it"
    return SkillpackError(
        "INS007",
        f"{source} no longer serves the pinned bundle ({what})",
        Location(source),
        details=[f"pinned: {pinned}", f"now:    {now}"],
        hint=f"'skillpack install --upgrade {source}' moves the pin (and shows what "
        "changes); or restore the pinned bundle",
    )


def open_source(
    source: str,
    project: Path,
    *,
    policy: SignaturePolicy | None = None,
    pinned: SourcePin | None = None,
    resolve: bool = False,
    frozen: bool = False,
    options: ClientOptions | None = None,
    offline: bool = False,
    follow: bool = False,
    log: Callable[[str], None] | None = None,
) -> Opened:
    """Open ``source`` (a lock name, see :func:`source_key`) verified. ``pinned``: its
    pin in the install lock, used unless ``resolve``; ``frozen``: check that the source
    still serves it (``INS007``). ``policy``: check the signature (``SIG…``). A git
    source or a directory is built into a bundle in the cache first
    (:mod:`skillpack.gitsource.tree`); ``follow`` (``--upgrade``): a git ref that moved
    is followed (and reported to ``log``), never otherwise."""
    checked = policy is not None and policy.requested
    if policy is not None and checked:
        policy.validate()  # bad options stop the command before any network
    commit = None
    signatures: tuple[Path, ...]
    tree = _tree(source, project, pinned, resolve=resolve, follow=follow, offline=offline)
    if tree is not None:
        path, manifest_digest, label, refetch = tree.path, None, tree.label, None
        signatures = (policy.signature,) if policy is not None and policy.signature else ()
        commit = tree.commit
        for note in tree.notes:
            if log is not None:
                log(note)
    elif is_reference(source):
        path, manifest_digest, signatures, label, refetch = _fetch(
            source,
            pinned,
            resolve=resolve,
            frozen=frozen,
            options=options,
            offline=offline,
            signatures=checked,
        )
    else:
        path = Path(source) if Path(source).is_absolute() else project / source
        manifest_digest, label, refetch = None, source, None
        signatures = (policy.signature,) if policy is not None and policy.signature else ()
        if not signatures:
            from skillpack.signing.policy import default_signature_path

            signatures = (default_signature_path(path),)
        if not path.is_file():
            if path.exists():
                raise SkillpackError(
                    "INS020",
                    "not a bundle file",
                    Location(str(path)),
                    hint="give a .skp file or an oci:// reference",
                )
            raise missing_path(path, hint="give a .skp file or an oci:// reference")
    if pinned is not None and not resolve and not checked:
        if manifest_digest is None:  # a file: its digest, without opening it yet
            from skillpack.manifest import file_digest

            digest, _ = file_digest(path)
            if digest != pinned.bundle_digest:
                raise _moved(source, pinned.bundle_digest, digest, frozen)
        return Opened(source, path, pinned, None, label)
    from skillpack.bundle.reader import open_bundle

    bundle = open_bundle(path, mode="full", keep=KEEP)
    try:
        digest = bundle.archive_digest()
        moved = pinned is not None and manifest_digest is None and digest != pinned.bundle_digest
        if moved and (frozen or not resolve):
            assert pinned is not None
            raise _moved(source, pinned.bundle_digest, digest, frozen)
        verified = None
        if policy is not None and checked:
            from skillpack.signing.verify import verify_any_signature

            # signatures pushed after the first fetch are not in the cache's record
            verified = verify_any_signature(
                path, signatures, policy, label=label, bundle=bundle, refresh=refetch
            )
        manifest = bundle.manifest
        signer = (
            Signer(verified.mode, verified.signer, verified.issuer)
            if verified is not None
            else None
        )
        pin = SourcePin(
            source, manifest.name, manifest.version, digest, manifest_digest, signer, commit
        )
        return Opened(source, path, pin, verified, label, bundle)
    except BaseException:
        bundle.close()
        raise


def _tree(
    source: str,
    project: Path,
    pinned: SourcePin | None,
    *,
    resolve: bool,
    follow: bool,
    offline: bool,
) -> TreeBundle | None:
    """A git source or a directory as the bundle built from it; None for others."""
    from skillpack.gitsource.spec import is_git_source

    if is_git_source(source):
        from skillpack.gitsource.tree import open_git

        commit = pinned.commit if pinned is not None else None
        return open_git(source, pinned=commit, resolve_ref=resolve, follow=follow,
                        offline=offline)  # fmt: skip
    path = Path(source) if Path(source).is_absolute() else project / source
    if is_reference(source) or not path.is_dir():
        return None
    from skillpack.gitsource.tree import open_directory

    return open_directory(path)


def _fetch(
    source: str,
    pinned: SourcePin | None,
    *,
    resolve: bool,
    frozen: bool,
    options: ClientOptions | None,
    offline: bool,
    signatures: bool,
) -> tuple[Path, str, tuple[Path, ...], str, Callable[[], tuple[Path, ...]]]:
    """Fetch an ``oci://`` source into the cache: (bundle file, manifest digest,
    signature files, label, a function fetching the signatures again or None). The
    signature referrers are fetched only when they will be checked (``signatures``):
    an install without a signer policy never depends on them."""
    from skillpack.registry import fetch_bundle
    from skillpack.registry.reference import parse_reference

    reference = parse_reference(source)
    at_pin = pinned is not None and pinned.manifest_digest is not None and not resolve
    if pinned is not None and pinned.manifest_digest is not None and frozen:
        if reference.digest is None:  # a tag: it must still point at the pin
            now = fetch_bundle(reference, options=options, offline=offline, signatures=False)
            if now.manifest_digest != pinned.manifest_digest:
                raise _moved(source, pinned.manifest_digest, now.manifest_digest, True)
        at_pin = True
    if at_pin:
        assert pinned is not None and pinned.manifest_digest is not None
        reference = reference.by_digest(pinned.manifest_digest)
    fetched = fetch_bundle(reference, options=options, offline=offline, signatures=signatures)
    label = str(fetched.reference)

    def refetch() -> tuple[Path, ...]:
        if offline or not fetched.from_cache:
            return ()
        again = fetch_bundle(fetched.reference, options=options, refresh_signatures=True)
        return again.signature_paths

    if (
        pinned is not None
        and pinned.manifest_digest is not None
        and fetched.manifest_digest != pinned.manifest_digest
        and (frozen or not resolve)
    ):
        raise _moved(source, pinned.manifest_digest, fetched.manifest_digest, frozen)
    return fetched.bundle_path, fetched.manifest_digest, fetched.signature_paths, label, refetch
