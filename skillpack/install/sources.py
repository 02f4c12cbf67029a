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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack._internal.closing import Closing
from skillpack.errors import Location, SkillpackError, missing_path
from skillpack.fetch import is_reference
from skillpack.install.lockfile import Signer, SourcePin

if TYPE_CHECKING:
    from skillpack.bundle.reader import Bundle
    from skillpack.fetch.verified import Opened as Verified
    from skillpack.gitsource.tree import TreeBundle
    from skillpack.manifest import FileEntry, Manifest, SkillEntry
    from skillpack.policy.prescan import Prescan, Prescanned
    from skillpack.registry.options import ClientOptions
    from skillpack.signing.policy import SignaturePolicy
    from skillpack.signing.verify import VerifiedBundle

#: verified file bytes kept in memory between the check and the write
KEEP = 64 << 20


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
class Opened(Closing):
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
    #: the content scan of the bundle's files, started before its full open
    _prescan: Prescan | None = None

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
            from skillpack.fetch import open_verified

            opened = open_verified(self.path, label=self.label, keep=KEEP, prescan=True)
            if opened.archive_digest != self.pin.bundle_digest:
                opened.close()
                digest = str(opened.archive_digest)
                raise _moved(self.source, self.pin.bundle_digest, digest, frozen=False)
            self._bundle, self._prescan = opened.bundle, opened.prescan
        return self._bundle

    def prescanned(
        self, skills: Sequence[SkillEntry], read: Callable[[FileEntry], bytes]
    ) -> Prescanned | None:
        """The findings of the scan started before the full open, for an admission of
        ``skills`` (their files read verified by ``read``): waited for (this process
        scanning from the last file meanwhile) when they hold most of the bundle's
        files, else stopped (scanning the few costs less than waiting for all); once."""
        prescan, self._prescan = self._prescan, None
        if prescan is None:
            return None
        wanted = {entry.uri for skill in skills for entry in skill.files}
        if len(wanted) * 2 < self.manifest.file_count:
            prescan.stop()
            return None
        return prescan.result(self.manifest.skills, read, wanted)

    def close(self) -> None:
        if self._prescan is not None:
            self._prescan.stop()
        if self._bundle is not None:
            self._bundle.close()


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
        path, label = tree.path, tree.label
        signatures = (policy.signature,) if policy is not None and policy.signature else ()
        commit = tree.commit
        for note in tree.notes:
            if log is not None:
                log(note)
    elif is_reference(source):
        return _open_reference(
            source,
            pinned,
            policy if checked else None,
            resolve=resolve,
            frozen=frozen,
            options=options,
            offline=offline,
        )
    else:
        path = Path(source) if Path(source).is_absolute() else project / source
        label = source
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
        from skillpack.manifest import file_digest  # its digest, without opening it yet

        digest, _ = file_digest(path)
        if digest != pinned.bundle_digest:
            raise _moved(source, pinned.bundle_digest, digest, frozen)
        return Opened(source, path, pinned, None, label)
    from skillpack.fetch import open_verified

    opened = open_verified(
        path,
        label=label,
        keep=KEEP,
        policy=policy if checked else None,
        signatures=signatures,
        prescan=True,
    )
    try:
        digest = str(opened.archive_digest)
        moved = pinned is not None and digest != pinned.bundle_digest
        if moved and (frozen or not resolve):
            assert pinned is not None
            raise _moved(source, pinned.bundle_digest, digest, frozen)
        return _opened(source, path, opened, digest, None, label, commit)
    except BaseException:
        opened.close()
        raise


def _opened(
    source: str,
    path: Path,
    opened: Verified,
    digest: str,
    manifest_digest: str | None,
    label: str,
    commit: str | None = None,
) -> Opened:
    """An opened source and the pin it resolved to (taking over ``opened``'s bundle and
    its scan started early)."""
    bundle, verified = opened.bundle, opened.verified
    manifest = bundle.manifest
    signer = Signer(verified.mode, verified.signer, verified.issuer) if verified else None
    pin = SourcePin(
        source, manifest.name, manifest.version, digest, manifest_digest, signer, commit
    )
    return Opened(source, path, pin, verified, label, bundle, _prescan=opened.prescan)


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


def _open_reference(
    source: str,
    pinned: SourcePin | None,
    policy: SignaturePolicy | None,
    *,
    resolve: bool,
    frozen: bool,
    options: ClientOptions | None,
    offline: bool,
) -> Opened:
    """An ``oci://`` source through the one verified fetch (:mod:`skillpack.fetch`), at
    its pin unless ``resolve``. The signature referrers are fetched only when they will
    be checked (``policy``): an install without a signer policy never depends on them.
    At an unchanged pin with nothing to check, the bundle is fetched (its blob hashed
    into the cache) and opened only when a byte of it is needed."""
    from skillpack.fetch import fetch_unopened, fetch_verified
    from skillpack.registry.reference import parse_reference

    reference = parse_reference(source)
    pinned_at = pinned.manifest_digest if pinned is not None else None
    at_pin = pinned_at is not None and not resolve
    if pinned_at is not None and frozen:
        if reference.digest is None:  # a tag: it must still point at the pin
            now = fetch_unopened(reference, options=options, offline=offline)
            if now.manifest_digest != pinned_at:
                raise _moved(source, pinned_at, now.manifest_digest, True)
        at_pin = True
    if at_pin:
        assert pinned_at is not None
        reference = reference.by_digest(pinned_at)
    if at_pin and policy is None:
        fetched = fetch_unopened(reference, options=options, offline=offline)
        assert pinned is not None
        return Opened(source, fetched.bundle_path, pinned, None, str(fetched.reference))
    got = fetch_verified(
        reference,
        options=options,
        policy=policy,
        offline=offline,
        signatures=policy is not None,
        keep=KEEP,
        prescan=True,
    )
    try:
        manifest_digest = got.fetch.manifest_digest
        if pinned_at is not None and manifest_digest != pinned_at and (frozen or not resolve):
            raise _moved(source, pinned_at, manifest_digest, frozen)
        digest = str(got.archive_digest)
        return _opened(source, got.path, got, digest, manifest_digest, got.reference)
    except BaseException:
        got.close()
        raise
