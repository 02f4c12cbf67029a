"""``oci://`` references in the commands: push, pull, and verify or inspect a pulled
bundle. No typer here: the command modules declare the options and call these.

The registry package moves bytes and checks digests (the manifest against the digest
asked for, the blob against the manifest). What a pulled bundle is worth is decided
here, by the bundle reader in full mode (every file against the lock) and, with
signature options, by :func:`skillpack.signing.verify.verify_any_signature` over its
signature referrers, before anything is written; :func:`write_pulled` then writes it
with the one writer.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from skillpack._internal.registry_flags import DEFAULT_TIMEOUT
from skillpack._internal.words import plural
from skillpack.errors import SkillpackError, display_path

if TYPE_CHECKING:
    from skillpack.policy.file import Policy
    from skillpack.registry import FetchResult, PushResult
    from skillpack.registry.options import ClientOptions
    from skillpack.registry.reference import Reference
    from skillpack.signing.policy import SignaturePolicy, SigningOptions
    from skillpack.signing.verify import VerifiedBundle

SCHEME = "oci://"


def is_reference(text: str | os.PathLike[str]) -> bool:
    """Whether a command-line source names a registry (``oci://...``), not a path."""
    return isinstance(text, str) and text.startswith(SCHEME)


# -- connecting -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RegistryFlags:
    """The registry options of push, pull, verify and inspect (serve has the same, less
    the credentials on stdin)."""

    username: str | None = None
    password_stdin: bool = False
    insecure_registry: bool = False
    timeout: float = DEFAULT_TIMEOUT

    def client_options(self, stdin: IO[str] | None = None) -> ClientOptions:
        """The client's options; with ``--password-stdin`` the password is read here."""
        from skillpack.registry.errors import registry_error
        from skillpack.registry.options import ClientOptions

        credentials = None
        if self.username is not None or self.password_stdin:
            if self.username is None or not self.password_stdin:
                raise registry_error(
                    "REG025",
                    "--username and --password-stdin go together",
                    hint='pipe the password or token: printf %s "$TOKEN" | skillpack ... '
                    "--username NAME --password-stdin",
                )
            if not self.username:
                raise registry_error("REG025", "--username is empty")
            from skillpack.registry.credentials import Credentials  # only when given

            password = read_password(sys.stdin if stdin is None else stdin)
            credentials = Credentials(self.username, password)
        return ClientOptions(
            timeout=self.timeout, insecure=self.insecure_registry, credentials=credentials
        )


def read_password(stream: IO[str]) -> str:
    """The password on ``stream``: all of it, without the final line break (as
    ``docker login --password-stdin`` reads it). Empty is ``REG025``."""
    from skillpack.registry.errors import registry_error

    text = stream.read()
    if text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    if not text:
        raise registry_error(
            "REG025",
            "--password-stdin: nothing was read from stdin",
            hint="pipe the password or token into the command",
        )
    return text


# -- pulling -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pulled:
    """A bundle fetched into the cache and verified: its contents (always) and, with
    signature options, one of its signature referrers under the policy."""

    fetched: FetchResult
    name: str
    version: str
    skills: int
    files: int
    archive_digest: str
    lock_digest: str
    verified: VerifiedBundle | None  #: the signature check, with signature options
    signature: bytes | None  #: written beside the bundle: the verified one, or the first
    #: the content scan's warnings and accepted findings (``URI:LINE:COL: CODE ...``)
    scanned: tuple[str, ...] = ()

    @property
    def reference(self) -> str:
        """The bundle by digest: what was verified."""
        return str(self.fetched.reference)

    @property
    def notes(self) -> tuple[str, ...]:
        """What the fetch left out, and why (for standard error)."""
        return self.fetched.notes

    def summary(self) -> str:
        if self.verified is not None:
            return self.verified.summary()
        return (
            f"OK {self.reference}: {self.name} {self.version}, "
            f"{plural(self.skills, 'skill')}, {plural(self.files, 'file')} verified"
        )


def fetch_verified(
    reference: str,
    policy: SignaturePolicy,
    options: ClientOptions,
    *,
    offline: bool = False,
    signatures: bool = True,
    admission: Policy | None = None,
) -> Pulled:
    """Fetch ``reference`` into the cache, then verify it: in full, and with signature
    options (``policy.requested``) against its signature referrers. ``signatures``:
    fetch the referrers even without signature options (to write one beside a pull).
    ``admission`` (the consumer's policy; None: no scan): the content scan over every
    verified file, while the bundle is open; an error it does not accept is ``ADM001``.

    The bundle is opened once, in full mode, and the digest of the bytes it verified
    must be the manifest's (``REG042`` otherwise): so a blob already in the cache is
    not hashed on its own first. When a cached copy fails, it is hashed: one that
    changed since it was written is removed and fetched again (offline: ``REG060``)."""
    from skillpack.registry import check_cached_bundle, fetch_bundle

    check = policy.requested or policy.signature is not None
    if check:
        policy.validate()  # bad options stop the command before any network

    def fetch(target: str | Reference, check_blob: bool) -> FetchResult:
        # without signature options the referrers are only written beside a pull:
        # fetching them is best effort (a failure is a note), never a refusal
        return fetch_bundle(
            target,
            offline=offline,
            signatures=signatures or check,
            options=options,
            best_effort_signatures=not check,
            verify_cached_blob=check_blob,
        )

    fetched = fetch(reference, False)
    try:
        return _verify_fetched(fetched, policy, check, options, offline, admission)
    except SkillpackError as exc:
        if exc.code.startswith("ADM") or fetched.bundle_checked or check_cached_bundle(fetched):
            raise  # the bundle itself, not a changed copy in the cache
    # the cached copy had changed since it was written (removed now): fetch it again
    again = fetch(fetched.reference, True)
    return _verify_fetched(again, policy, check, options, offline, admission)


def _verify_fetched(
    fetched: FetchResult,
    policy: SignaturePolicy,
    check: bool,
    options: ClientOptions,
    offline: bool,
    admission: Policy | None = None,
) -> Pulled:
    """Open the fetched bundle once, in full mode: its contents, its signature with
    ``check``, its archive digest against the manifest's, and (``admission``) the
    content scan of its verified files."""
    from skillpack.bundle.reader import open_bundle

    with naming_failures(fetched), open_bundle(fetched.bundle_path, mode="full") as bundle:
        manifest = bundle.manifest
        warnings: tuple[str, ...] = ()
        if admission is not None:
            from skillpack.policy.admission import admit

            admitted = admit(manifest, bundle.read_verified, admission.accepts, None,
                             admission.block)  # fmt: skip
            admitted.check(str(fetched.reference), "nothing was written")
            warnings = tuple(f.line() for f in admitted.warnings + admitted.accepted)
        if not check:
            archive_digest = bundle.archive_digest()
            _check_archive(fetched, archive_digest)
            return Pulled(
                fetched,
                manifest.name,
                manifest.version,
                len(manifest.skills),
                manifest.file_count,
                archive_digest,
                bundle.lock_digest,
                None,
                fetched.signature,
                warnings,
            )
        from skillpack.registry import fetch_bundle

        def refresh() -> tuple[Path, ...]:
            """The cache holds the signatures seen at the first fetch: the registry's
            current ones, asked for before refusing."""
            nonlocal fetched
            if not fetched.from_cache or offline:
                return ()
            fetched = fetch_bundle(
                fetched.reference,
                options=options,
                refresh_signatures=True,
                verify_cached_blob=False,
            )
            return fetched.signature_paths

        from skillpack.signing.errors import SignatureError
        from skillpack.signing.verify import verify_any_signature

        try:
            verified = verify_any_signature(
                fetched.bundle_path,
                fetched.signature_paths,
                policy,
                label=str(fetched.reference),
                bundle=bundle,
                refresh=refresh,
            )
        except SignatureError as exc:  # with the notes of the last fetch (a referrer gone)
            exc.details.extend(note for note in fetched.notes if note not in exc.details)
            raise
        statement = verified.statement
        # the signature bound this digest to the bytes verified (the open bundle's)
        _check_archive(fetched, statement.archive_digest)
        return Pulled(
            fetched,
            statement.bundle_name,
            statement.bundle_version,
            len(manifest.skills),
            len(statement.files),
            statement.archive_digest,
            statement.lock_digest,
            verified,
            verified.signature.read_bytes(),
            warnings,
        )


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
    """Name the reference in a verification failure about the cached file."""
    try:
        yield
    except SkillpackError as exc:
        where = f"bundle {fetched.reference}"
        if fetched.from_cache:
            where += f" (cached as {display_path(fetched.bundle_path)})"
        if where not in exc.details:
            exc.details.append(where)
        raise


def default_output(pulled: Pulled) -> Path:
    """``NAME-VERSION.skp`` in the current directory (from the verified lock)."""
    name = f"{pulled.name}-{pulled.version}.skp"
    if os.sep in name or (os.altsep and os.altsep in name) or name.startswith("."):
        raise SkillpackError(
            "PUL002",
            f"{pulled.reference}: the bundle's name and version ({name!r}) do not make a file name",
            hint="name the output with -o FILE",
        )
    return Path(name)


@dataclass(frozen=True)
class PullWritten:
    """What :func:`write_pulled` did: the files written, and a stale signature removed."""

    written: list[Path]
    removed: Path | None = None


def write_pulled(pulled: Pulled, output: Path) -> PullWritten:
    """Write the verified bundle to ``output`` and its signature (if it has one) to
    ``OUTPUT.sigstore.json`` with the one writer (:class:`skillpack._internal.fsutil.Output`):
    both are staged, then put in place; on any failure neither file is replaced. With
    ``-o -`` the bundle goes to stdout and its signature is not written.

    A bundle pulled without a signature never lands beside an ``OUTPUT.sigstore.json``
    about another archive (one left by an earlier pull, say: ``verify OUTPUT --key``
    would then fail on it): that file is set aside just before the bundle is put in
    place and removed after, or put back if the bundle cannot be put in place. A
    signature that names this very archive is kept."""
    from skillpack._internal.fsutil import Output, copy_into, output_error
    from skillpack.signing.policy import default_signature_path

    bundle = Output(output, what="the pulled bundle")
    staged = [bundle]
    signature_path = default_signature_path(output)
    if pulled.signature is not None and not bundle.to_stdout:
        staged.append(Output(signature_path, what="the pulled signature"))
    stale = None
    if pulled.signature is None and bundle.is_file:
        stale = _stale_signature(signature_path, pulled)
    aside: Path | None = None
    try:
        with bundle.stage() as out:
            copy_into(out, pulled.fetched.bundle_path)
        if len(staged) > 1 and pulled.signature is not None:
            staged[1].stage_bytes(pulled.signature)
        if stale is not None:
            # last before the bundle is put in place: never a new bundle beside it
            try:
                aside = _set_aside(stale)
            except OSError as exc:
                raise output_error(
                    exc, display_path(stale), "the signature of another archive", "remove"
                ) from None
        for item in staged:
            item.commit()
    except BaseException:
        _put_back(aside, stale)
        raise
    finally:
        for item in staged:
            item.discard()
    if aside is not None:
        aside.unlink(missing_ok=True)
    return PullWritten([Path(item.given) for item in staged], stale)


def _stale_signature(path: Path, pulled: Pulled) -> Path | None:
    """``path`` when it exists and is not a signature of the pulled archive (by the
    digest it claims, read without verifying anything: a file that cannot be read as a
    signature is not about this archive either)."""
    if not os.path.lexists(path):
        return None
    from skillpack.signing.verify import claimed_subject

    try:
        if claimed_subject(path) == pulled.archive_digest:
            return None
    except SkillpackError:
        pass
    return path


def _set_aside(path: Path) -> Path:
    """Rename ``path`` to a hidden name beside it (put back by :func:`_put_back`)."""
    import tempfile

    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".stale", dir=path.parent)
    os.close(fd)
    aside = Path(name)
    try:
        os.replace(path, aside)
    except OSError:
        aside.unlink(missing_ok=True)
        raise
    return aside


def _put_back(aside: Path | None, path: Path | None) -> None:
    if aside is not None and path is not None:
        with contextlib.suppress(OSError):
            os.replace(aside, path)


# -- pushing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pushed:
    result: PushResult
    name: str
    version: str
    signature: Path | None


def push_file(
    bundle: Path,
    reference: str,
    options: ClientOptions,
    *,
    signing: SigningOptions | None = None,
) -> Pushed:
    """Push ``bundle`` (verified in full first) to ``reference``, with
    ``BUNDLE.sigstore.json`` as its signature referrer when that file exists; with
    ``signing``, sign it first, writing that file (or ``signing.output``) as
    ``skillpack sign`` does, and push that signature."""
    from skillpack.registry import push_bundle
    from skillpack.registry.errors import registry_error
    from skillpack.registry.reference import parse_reference
    from skillpack.signing.policy import default_signature_path

    target = parse_reference(reference)
    if target.digest is not None:  # before signing anything
        raise registry_error(
            "REG007",
            f"{target}: a push goes to a tag or to the repository, not to a digest",
            hint="drop the @sha256:... part; the pushed digest is printed",
        )
    signature_path = default_signature_path(bundle)
    if signing is not None:
        signature_path = signing.output or signature_path
        from skillpack._internal.fsutil import Output
        from skillpack.signing.errors import unusable
        from skillpack.signing.sign import signer_for, statement_for

        written = Output(signature_path, what="the signature")
        if not written.is_file:  # the signature is pushed from the file written
            raise unusable(
                "SIG020",
                f"push --sign -o {signature_path}: the signature is pushed from the file it "
                "is written to, a regular file",
                hint="name a file with -o FILE (or leave -o out: BUNDLE.sigstore.json)",
            )
        signer = signer_for(signing)  # a missing token or key stops before any work
        statement = statement_for(bundle)  # the bundle in full mode
        written.write(signer(statement))
        name, version = statement.bundle_name, statement.bundle_version
        archive_digest = statement.archive_digest
    else:
        from skillpack.bundle.verify import verify_bundle

        report = verify_bundle(bundle)
        name, version, archive_digest = report.name, report.version, report.archive_digest
    signature: Path | None = signature_path if signature_path.is_file() else None
    if signature is not None:
        from skillpack.signing.errors import failed
        from skillpack.signing.verify import claimed_subject

        claimed = claimed_subject(signature)
        if claimed != archive_digest:
            raise failed(
                "SIG010",
                "the signature beside the bundle is about another archive; not pushing",
                display_path(signature),
                details=[f"signed:  {claimed}", f"archive: {archive_digest}"],
                hint="sign the bundle again (skillpack sign, or push --sign)",
            )
    result = push_bundle(
        bundle, target, name=name, version=version, signature_path=signature, options=options
    )
    return Pushed(result, name, version, signature)
