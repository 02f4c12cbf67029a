"""Writing a pulled bundle: ``FILE`` and ``FILE.sigstore.json`` from a verified fetch.

Two files cannot be renamed into place as one. What a crash (or a failure) between the
two renames must never leave is a new bundle beside a signature of another archive:
``verify FILE --key`` would fail on it, or worse, a reader would take the old signer
for the new bundle's. So an ``OUTPUT.sigstore.json`` already there that is not this
archive's is set aside (renamed to a hidden name beside it) before the bundle is put in
place, the new signature follows the bundle, and the set-aside file is removed last.
A crash after the bundle's rename leaves the new bundle without a signature (verify
says "none"), never beside the old one; a failure before it puts the old one back.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from skillpack.errors import SkillpackError, display_path
from skillpack.fetch.verified import Fetched


def default_output(pulled: Fetched) -> Path:
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


def write_pulled(pulled: Fetched, output: Path) -> PullWritten:
    """Write the verified bundle to ``output`` and its signature (if it has one) to
    ``OUTPUT.sigstore.json`` with the one writer (:class:`skillpack._internal.fsutil.Output`),
    in the order the module's docstring gives. With ``-o -`` the bundle goes to stdout
    and no signature is written. A signature already beside it that names this very
    archive is kept when the pull brings none."""
    from skillpack._internal.fsutil import Output, copy_into, output_error
    from skillpack.signing.policy import default_signature_path

    bundle = Output(output, what="the pulled bundle")
    signature = pulled.signature
    signature_path = default_signature_path(output)
    staged_signature = None
    if signature is not None and not bundle.to_stdout:
        staged_signature = Output(signature_path, what="the pulled signature")
    # the file in the way: any one when the pull brings a signature (replaced), one
    # about another archive when it brings none (removed)
    stale = None
    if (
        bundle.is_file
        and os.path.lexists(signature_path)
        and (staged_signature is not None or not _names_archive(signature_path, pulled))
    ):
        stale = signature_path
    aside: Path | None = None
    placed = False
    try:
        with bundle.stage() as out:
            copy_into(out, pulled.path)
        if staged_signature is not None and signature is not None:
            staged_signature.stage_bytes(signature)
        if stale is not None:
            # last before the bundle is put in place: never a new bundle beside it
            try:
                aside = _set_aside(stale)
            except OSError as exc:
                raise output_error(
                    exc, display_path(stale), "the signature of another archive", "remove"
                ) from None
        bundle.commit()
        placed = True
        if staged_signature is not None:
            staged_signature.commit()
    except BaseException:
        if not placed:
            _put_back(aside, stale)
        raise
    finally:
        bundle.discard()
        if staged_signature is not None:
            staged_signature.discard()
    if aside is not None:
        aside.unlink(missing_ok=True)
    written = [Path(bundle.given)]
    if staged_signature is not None:
        written.append(Path(staged_signature.given))
    removed = stale if stale is not None and staged_signature is None else None
    return PullWritten(written, removed)


def _names_archive(path: Path, pulled: Fetched) -> bool:
    """Whether ``path`` claims to sign the pulled archive (read without verifying
    anything: a file that cannot be read as a signature is about no archive)."""
    from skillpack.signing.verify import claimed_subject

    try:
        return claimed_subject(path) == pulled.archive_digest
    except SkillpackError:
        return False


def _set_aside(path: Path) -> Path:
    """Rename ``path`` to a hidden name beside it (put back by :func:`_put_back`)."""
    from skillpack._internal.fsutil import new_file

    fd, name = new_file(str(path.parent), f".{path.name}.", ".stale")
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
