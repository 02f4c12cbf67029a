"""The build pipeline: discover, one pass over the skills, lock, archive, signature.

:func:`build` is the library form of ``skillpack build``. The pass
(:func:`skillpack.build.pipeline.one_pass`) lints, hashes and prepares every skill from
one read of each file. The archive is written to a temporary file beside the output and
renamed into place, so an interrupted build leaves no half archive.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from skillpack._internal.fsutil import atomic_writer, write_if_changed
from skillpack._internal.words import plural
from skillpack.build.pipeline import Refusal, one_pass
from skillpack.bundle.writer import COMPRESSIONS, Compression, write_bundle
from skillpack.bundle.zipformat import dos_datetime
from skillpack.errors import EXIT_FINDINGS, Location, SkillpackError, UsageError, display_path
from skillpack.lockfile.lock import LockError, check_lock
from skillpack.signing.policy import SigningOptions
from skillpack.source.config import Config
from skillpack.source.discovery import SKIP_UNREADABLE, SourceTree, discover, where_searched

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class BuildResult:
    output: Path
    digest: str  #: ``sha256:<hex>`` of the archive
    size: int  #: archive bytes
    skills: int
    files: int
    lock_path: Path
    lock_written: bool
    lint: str  #: "passed" or "skipped" (--no-lint)
    signature: Path | None = None  #: the signature file, when signed


def source_date_epoch(environ: Mapping[str, str] | None = None) -> int | None:
    """``SOURCE_DATE_EPOCH`` as an int, None when unset or empty."""
    value = (os.environ if environ is None else environ).get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return None
    if not value.isdigit():
        raise UsageError(
            "BLD007",
            f"SOURCE_DATE_EPOCH={value!r} is not a number of seconds",
            hint="set it to an integer such as $(git log -1 --format=%ct), or unset it",
        )
    return int(value)


def default_output(config: Config) -> Path:
    return config.project_dir / config.build.output / f"{config.name}-{config.version}.skp"


def _unreadable(tree: SourceTree) -> list[str]:
    found = [f"{p.path}: {p.detail}" for p in tree.problems if p.kind == SKIP_UNREADABLE]
    for skill in tree.skills:
        found += [f"{s.path}: {s.detail}" for s in skill.skipped if s.kind == SKIP_UNREADABLE]
    return sorted(set(found))


def build(
    config: Config,
    *,
    output: Path | None = None,
    locked: bool = False,
    lint: bool = True,
    compression: str | None = None,
    progress: Progress | None = None,
    epoch: int | None = None,
    sign: SigningOptions | None = None,
) -> BuildResult:
    """Build the bundle of ``config``'s tree; see ``skillpack build --help``.

    With ``sign``, the signer is made first (key loaded, or trust config and identity
    token obtained: a problem stops the build before any work), and the archive is
    signed once written: ``sign.output`` or ``<archive>.sigstore.json``, atomically.
    """
    signer = None
    if sign is not None:
        from skillpack.signing.sign import signer_for

        signer = signer_for(sign)
    chosen = compression or config.build.compression
    if chosen not in COMPRESSIONS:
        raise UsageError("BLD004", f"unknown compression {chosen!r} (use deflate or stored)")
    mode: Compression = "stored" if chosen == "stored" else "deflate"
    tree = discover(config)
    if not tree.skills:
        roots = ", ".join(str(r.path) for r in config.roots)
        raise UsageError(
            "BLD011",
            f"no skills found under {roots} (a skill is a directory holding SKILL.md)",
            Location(config.source_display),
            hint="check the path given and the 'roots' of the configuration",
            details=where_searched(tree)[1],
        )
    unreadable = _unreadable(tree)
    if unreadable:
        raise SkillpackError(
            "BLD006",
            f"{plural(len(unreadable), 'path')} in the skill tree cannot be read",
            hint="fix the permissions or exclude them",
            exit_code=EXIT_FINDINGS,
            details=unreadable[:20],
        )

    refusal = Refusal(
        "BLD010",
        "the bundle was not built",
        "fix them (see 'skillpack lint') or pass --no-lint",
        unpublishable="BLD012",
    )
    epoch = source_date_epoch() if epoch is None else epoch
    done = one_pass(tree, lint=lint, refusal=refusal, compression=mode, stamp=dos_datetime(epoch))
    manifest, lock_bytes = done.manifest, done.lock
    lock_path = config.lock_path
    if locked:
        status = check_lock(lock_path, manifest, lock_bytes)
        if not status.up_to_date:
            raise LockError(
                "LCK004",
                f"--locked: {status.problem}",
                display_path(lock_path),
                "run 'skillpack lock' and commit the result",
                list(status.lines),
            )
        written = False
    else:
        written = write_if_changed(lock_path, lock_bytes)
    target = output if output is not None else default_output(config)
    with atomic_writer(target) as fh:
        result = write_bundle(
            fh,
            manifest,
            lock_bytes,
            done.source,
            compression=mode,
            epoch=epoch,
            progress=progress,
            prepared=done.entries,
            index=done.index,
        )
    signature = None
    if sign is not None and signer is not None:
        from skillpack.signing.sign import write_signature

        signature = write_signature(target, signer, sign.output)
    return BuildResult(
        target,
        result.digest,
        result.size,
        len(manifest.skills),
        result.files,
        lock_path,
        written,
        "passed" if lint else "skipped",
        signature,
    )
