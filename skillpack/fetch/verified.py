"""The one verified fetch: an ``oci://`` reference to an open, verified bundle.

``pull``, ``verify`` and ``inspect`` of an ``oci://`` bundle, ``install`` of one and
``serve oci://`` all get it here, so a fix lands once:

1. the registry package fetches by reference into the content-addressed cache
   (the manifest against the digest asked for, the blob against the manifest);
2. the bundle is opened once, :func:`open_verified`: in full mode every file against
   the lock (``fast``, for serve: the lock and index now, each file on its read);
3. with a signature policy, one of its signature referrers must verify against that
   open bundle (the registry asked again for its current referrers before a refusal);
4. in full mode, the digest of the bytes verified must be the manifest's (``REG042``);
5. with the consumer's policy, the content scan judges every verified file
   (``ADM001``) while the bundle is open.

A blob taken from the cache is not hashed on its own first (the full open hashes it);
when the open fails, it is hashed: a copy that changed since it was written is removed
and fetched again by digest (offline: ``REG060``), a bundle that is itself bad stands.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack._internal.closing import Closing
from skillpack._internal.words import plural
from skillpack.errors import Location, SkillpackError, display_path

if TYPE_CHECKING:
    from skillpack.bundle.reader import Bundle, Mode
    from skillpack.policy.file import Policy
    from skillpack.policy.prescan import Prescan
    from skillpack.registry import FetchResult
    from skillpack.registry.options import ClientOptions
    from skillpack.registry.reference import Reference
    from skillpack.signing.policy import SignaturePolicy
    from skillpack.signing.verify import VerifiedBundle


def is_reference(text: str | os.PathLike[str]) -> bool:
    """Whether a source names a registry (``oci://...``), not a path."""
    from skillpack.registry.reference import SCHEME

    return isinstance(text, str) and text.startswith(SCHEME)


@dataclass
class Opened(Closing):
    """A bundle opened verified (:func:`open_verified`): what a caller reads from."""

    bundle: Bundle
    label: str  #: how messages name it: a path, or the reference by digest
    verified: VerifiedBundle | None  #: the signature check, under a policy
    archive_digest: str | None  #: the sha256 of the bytes verified (full mode)
    lock_digest: str  #: the sha256 of the bundle's lock
    #: the content scan's warnings and accepted findings (``URI:LINE:COL: CODE ...``)
    scanned: tuple[str, ...] = ()
    #: the content scan of the bundle's files, started before its open
    #: (``open_verified(prescan=True)``) for the caller's admission; stopped on close
    prescan: Prescan | None = field(default=None, kw_only=True)

    @property
    def name(self) -> str:
        return self.bundle.manifest.name

    @property
    def version(self) -> str:
        return self.bundle.manifest.version

    @property
    def skills(self) -> int:
        return len(self.bundle.manifest.skills)

    @property
    def files(self) -> int:
        return self.bundle.manifest.file_count

    def summary(self) -> str:
        """One line: what was verified, and by whom it was signed when it was checked."""
        what = (
            f"OK {self.label}: {self.name} {self.version}, "
            f"{plural(self.skills, 'skill')}, {plural(self.files, 'file')} verified"
        )
        if self.verified is None:
            return what
        return f"{what}; {signer_line(self.verified)}"

    def close(self) -> None:
        if self.prescan is not None:
            self.prescan.stop()
        self.bundle.close()


def signer_line(verified: VerifiedBundle) -> str:
    """``signed by WHO [at WHEN]``: a verified signature, as every command prints it."""
    who = (
        f"{verified.signer} (issuer {verified.issuer})"
        if verified.mode == "keyless"
        else f"key {verified.signer[:16]}…"
    )
    when = f" at {verified.signed_at:%Y-%m-%d %H:%M:%S} UTC" if verified.signed_at else ""
    return f"signed by {who}{when}"


@dataclass
class Fetched(Opened):
    """A bundle fetched by reference and opened verified (:func:`fetch_verified`)."""

    fetch: FetchResult = field(kw_only=True)  #: what the registry package fetched
    #: the cached copy had changed since it was written: removed, and fetched again
    stale: bool = field(default=False, kw_only=True)

    @property
    def reference(self) -> str:
        """The bundle by digest: what was verified."""
        return str(self.fetch.reference)

    @property
    def path(self) -> Path:
        return self.fetch.bundle_path

    @property
    def notes(self) -> tuple[str, ...]:
        """What the fetch left out, and why (for standard error)."""
        return self.fetch.notes

    @property
    def signature(self) -> bytes | None:
        """The signature to write beside a pulled bundle: the verified one, or (none
        checked) the first referrer fetched."""
        if self.verified is not None:
            return self.verified.signature.read_bytes()
        return self.fetch.signature


def open_verified(
    path: Path,
    *,
    label: str,
    mode: Mode = "full",
    keep: int = 0,
    policy: SignaturePolicy | None = None,
    signatures: tuple[Path, ...] = (),
    refresh: Callable[[], tuple[Path, ...]] | None = None,
    admission: Policy | None = None,
    prescan: bool = False,
) -> Opened:
    """Open the bundle at ``path`` once and verify it: in ``mode``; with ``policy`` (a
    check requested) one of ``signatures`` (``policy.signature`` when given) must
    verify against the open bundle (``refresh``: ask for the current candidates before
    refusing); with ``admission`` (full mode) the content scan judges every verified
    file. The bundle is closed again when anything fails.

    In full mode, with ``admission`` or ``prescan`` (a caller that admits the bundle's
    files itself, with :attr:`Opened.prescan`), the scan of a large bundle's files starts
    in a forked worker before the open, so it runs while the open checks every file
    (:mod:`skillpack.policy.prescan`)."""
    from skillpack.bundle.reader import open_bundle

    early = None
    if mode == "full" and (prescan or admission is not None):
        from skillpack.policy.prescan import start_prescan

        early = start_prescan(path)
    try:
        bundle = open_bundle(path, mode=mode, keep=keep)
    except BaseException:
        if early is not None:
            early.stop()
        raise
    try:
        if mode == "fast":  # every file the lock names is in the archive, at its size
            bundle.check_directory()
        scanned: tuple[str, ...] = ()
        if admission is not None:
            from skillpack.policy.admission import admit

            if mode != "full":  # pragma: no cover - a caller's mistake
                raise ValueError("admission judges verified bytes: open in full mode")
            prescanned = None
            if early is not None:
                prescanned = early.result(bundle.manifest.skills, bundle.read_verified)
            admitted = admit(bundle.manifest, bundle.read_verified, admission.accepts, None,
                             admission.block, prescanned)  # fmt: skip
            admitted.check(label, "nothing was written")
            scanned = tuple(f.line() for f in admitted.warnings + admitted.accepted)
        verified = None
        archive_digest = None
        if policy is not None and checks(policy):
            from skillpack.signing.verify import verify_any_signature

            verified = verify_any_signature(
                path,
                signatures,
                policy,
                label=label,
                bundle=bundle if mode == "full" else None,
                refresh=refresh,
            )
            # the signature bound this digest to the bytes verified
            archive_digest = verified.statement.archive_digest
        elif mode == "full":
            archive_digest = bundle.archive_digest()
        kept = early if admission is None else None
        return Opened(bundle, label, verified, archive_digest, bundle.lock_digest, scanned,
                      prescan=kept)  # fmt: skip
    except BaseException:
        if early is not None:
            early.stop()
        bundle.close()
        raise


def checks(policy: SignaturePolicy) -> bool:
    """Whether ``policy`` asks for a signature check (an option, or ``--signature``)."""
    return policy.requested or policy.signature is not None


def fetch_verified(
    reference: str | Reference,
    *,
    options: ClientOptions | None = None,
    policy: SignaturePolicy | None = None,
    offline: bool = False,
    signatures: bool = False,
    admission: Policy | None = None,
    mode: Mode = "full",
    keep: int = 0,
    prescan: bool = False,
) -> Fetched:
    """Fetch ``reference`` into the cache and open it verified (see the module's
    docstring); the caller closes what it gets. ``signatures``: fetch the referrers
    even without a check (to write one beside a pull, or say that there are some):
    best effort, a failure is a note. A policy's options are validated before any
    network. ``prescan``: as :func:`open_verified`'s."""
    from skillpack.registry import check_cached_bundle, fetch_bundle

    check = policy is not None and checks(policy)
    if policy is not None and check:
        policy.validate()

    def fetch(target: str | Reference, check_blob: bool, refresh: bool = False) -> FetchResult:
        return fetch_bundle(
            target,
            offline=offline,
            signatures=signatures or check,
            options=options,
            best_effort_signatures=not check,
            verify_cached_blob=check_blob,
            refresh_signatures=refresh,
        )

    def attempt(result: FetchResult) -> Fetched:
        latest = [result]

        def refresh() -> tuple[Path, ...]:
            """The cache holds the referrers seen at the first fetch: the registry's
            current ones, asked for before refusing."""
            if not latest[-1].from_cache or offline:
                return ()
            latest.append(fetch(latest[-1].reference, False, refresh=True))
            return latest[-1].signature_paths

        label = str(result.reference)
        candidates = (policy.signature,) if policy is not None and policy.signature else ()
        with naming_failures(result):
            try:
                opened = open_verified(
                    result.bundle_path,
                    label=label,
                    mode=mode,
                    keep=keep,
                    policy=policy,
                    signatures=candidates or result.signature_paths,
                    refresh=refresh,
                    admission=admission,
                    prescan=prescan,
                )
            except SkillpackError as exc:  # with the notes of the last fetch (a referrer gone)
                exc.details.extend(n for n in latest[-1].notes if n not in exc.details)
                raise
            fetched = Fetched(
                opened.bundle,
                label,
                opened.verified,
                opened.archive_digest,
                opened.lock_digest,
                opened.scanned,
                prescan=opened.prescan,
                fetch=latest[-1],
            )
            try:
                if fetched.archive_digest is not None:
                    _check_archive(result, fetched.archive_digest)
            except BaseException:
                fetched.close()
                raise
        return fetched

    result = fetch(reference, False)
    try:
        return attempt(result)
    except SkillpackError as exc:
        if exc.code.startswith("ADM") or result.bundle_checked or check_cached_bundle(result):
            raise  # the bundle itself, not a changed copy in the cache
    # the cached copy had changed since it was written (removed now): fetch it again
    again = attempt(fetch(result.reference, True))
    again.stale = True
    return again


def fetch_unopened(
    reference: str | Reference, *, options: ClientOptions | None = None, offline: bool = False
) -> FetchResult:
    """The first step alone: ``reference`` fetched into the cache, a cached blob hashed
    again, no referrers; for a caller that opens it later with :func:`open_verified`
    (an install at an unchanged pin, which reads its bundle only when a skill directory
    needs writing) or only asks where a tag points."""
    from skillpack.registry import fetch_bundle

    return fetch_bundle(reference, options=options, offline=offline, signatures=False)


def _check_archive(fetched: FetchResult, archive_digest: str) -> None:
    """The bytes verified are the manifest's layer (``REG042``, exit 1, otherwise)."""
    if archive_digest != fetched.bundle_digest:
        from skillpack.registry.errors import registry_error

        raise registry_error(
            "REG042",
            f"the bundle verified has digest {archive_digest}, not the manifest's "
            f"{fetched.bundle_digest}",
            hint="the cached copy changed after it was fetched; fetch it again",
        )


@contextmanager
def naming_failures(fetched: FetchResult) -> Iterator[None]:
    """Name the reference first in a verification failure about the cached file."""
    try:
        yield
    except SkillpackError as exc:
        cache = fetched.bundle_path.parents[2]  # blobs/sha256/<hex> under the cache
        location = exc.location
        if location is not None and Path(location.path).is_relative_to(cache):
            # a file of the cache (the blob, a signature referrer's): the reference
            # leads, the cached file follows
            exc.location = Location(str(fetched.reference))
            exc.details.insert(0, f"in the cache: {location.render()}")
        else:
            where = f"bundle {fetched.reference}"
            if fetched.from_cache:
                where += f" (cached as {display_path(fetched.bundle_path)})"
            if where not in exc.details:
                exc.details.insert(0, where)
        raise
