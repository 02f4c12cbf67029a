"""The build pipeline: discover, one pass over the skills, lock, archive, signature.

:func:`build` is the library form of ``skillpack build``. The pass
(:func:`skillpack.build.pipeline.one_pass`) lints, hashes and prepares every skill from
one read of each file. Every output is planned before any work (a path that cannot be
written, a configured path naming a file skillpack did not write, ``-o`` inside a skill:
refused first) and written through the one writer
(:class:`skillpack._internal.fsutil.Output`): the archive, the lock and the signature are
each staged completely (the archive beside the output, the lock beside the lock) and only
then put in place, the archive first. A build that fails at any point, a failed write
included, leaves the previous archive, lock and signature as they were.

What the pass runs (the lint checks, the lock and archive writers) is imported while
discovery's forked processes walk the tree (:func:`_prepare`), not before the walk.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from skillpack._internal.fsutil import Output, output_error
from skillpack._internal.memory import keep_until_exit
from skillpack._internal.parallel import collector_paused
from skillpack._internal.words import plural
from skillpack.bundle import is_bundle_file
from skillpack.bundle.zipformat import COMPRESSIONS, Compression, dos_datetime
from skillpack.errors import EXIT_FINDINGS, Location, SkillpackError, UsageError, display_path
from skillpack.lockfile.prologue import is_lock_file
from skillpack.signing.policy import SigningOptions, default_signature_path
from skillpack.source.config import Config
from skillpack.source.discovery import SKIP_UNREADABLE, SourceTree, discover, where_searched
from skillpack.source.outputs import refuse_foreign, refuse_inside_skills

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
    #: a signature of the previous archive, removed beside the new one (not signed)
    removed_signature: Path | None = None
    notes: tuple[str, ...] = ()  #: what the user may want to change (printed as notes)

    @property
    def to_stdout(self) -> bool:
        return str(self.output) == "-"


def source_date_epoch(environ: Mapping[str, str] | None = None) -> int | None:
    """``SOURCE_DATE_EPOCH`` as an int, None when unset or empty."""
    value = (os.environ if environ is None else environ).get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return None
    if not (value.isascii() and value.isdigit()):
        raise UsageError(
            "BLD007",
            f"SOURCE_DATE_EPOCH={value!r} is not a number of seconds",
            hint="set it to a Unix time such as $(git log -1 --format=%ct), or unset it",
        )
    return int(value)


def default_output(config: Config) -> Path:
    return config.project_dir / config.build.output / f"{config.name}-{config.version}.skp"


def _prepare(lint: bool) -> None:
    """Discovery's meanwhile: what the pass needs imported and made before it forks its
    workers (:func:`~skillpack.build.pipeline.prepare_pass`, the lock and archive
    writers its workers call), while the forked processes walk."""
    from skillpack.build.pipeline import prepare_pass
    from skillpack.bundle import writer  # noqa: F401
    from skillpack.lockfile import lock  # noqa: F401

    prepare_pass(lint)


def _unreadable(tree: SourceTree) -> list[str]:
    found = [f"{p.path}: {p.detail}" for p in tree.problems if p.kind == SKIP_UNREADABLE]
    for skill in tree.skills:
        found += [f"{s.path}: {s.detail}" for s in skill.skipped if s.kind == SKIP_UNREADABLE]
    return sorted(set(found))


@collector_paused()  # a build makes long-lived objects, and almost no cycles
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
    write_lock: bool = True,
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
    epoch = source_date_epoch() if epoch is None else epoch

    # every output, before any work
    target = output if output is not None else default_output(config)
    if output is None:
        refuse_foreign(config, "build.output", config.output_dir)
        refuse_foreign(config, "build.output", target, "bundle", is_bundle_file)
    if not locked and write_lock:
        refuse_foreign(config, "lock", config.lock_path, "lock", is_lock_file)
    archive = Output(target, what="the bundle")
    signature_path: Path | None = None
    if not archive.to_stdout:
        signature_path = (sign.output if sign else None) or default_signature_path(target)
    elif signer is not None:
        from skillpack.signing.errors import unusable

        raise unusable(
            "SIG020",
            "--sign writes the signature beside the bundle, and -o - has no beside",
            hint="name the bundle file with -o FILE, or sign it later with 'skillpack sign'",
        )
    signature = None
    if signer is not None and signature_path is not None:
        signature = Output(signature_path, what="the signature")

    tree = discover(config, meanwhile=partial(_prepare, lint))
    refuse_inside_skills(
        config, tree.skills, [target] + ([signature_path] if signature_path and signer else [])
    )
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

    from skillpack.build.pipeline import Refusal, one_pass
    from skillpack.bundle.writer import write_bundle
    from skillpack.lockfile.lock import LockError, check_lock

    refusal = Refusal(
        "BLD010",
        "the bundle was not built",
        "or pass --no-lint",
        unpublishable="BLD012",
    )
    done = one_pass(tree, lint=lint, refusal=refusal, compression=mode, stamp=dos_datetime(epoch))
    manifest, lock_bytes = done.manifest, done.lock
    lock_path = config.lock_path
    lock: Output | None = None
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
    elif write_lock:
        lock = Output(lock_path, what="the lock")
        if lock.holds(lock_bytes):
            lock = None
    staged = [archive, *(o for o in (lock, signature) if o is not None)]
    try:
        with archive.stage() as fh:
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
                metadata=done.metadata,
                judged=done.judged,
            )
        if lock is not None:
            lock.stage_bytes(lock_bytes)
        if signature is not None and signer is not None:
            from skillpack.signing.sign import statement_for

            signature.stage_bytes(signer(statement_for(archive.staged, name=target.name)))
        stale = None
        if signature is None and signature_path is not None and archive.is_file:
            stale = _stale_signature(signature_path, archive, result.digest)
        for out in staged:  # the archive first: a lock never describes a bundle not there
            out.commit()
    finally:
        for out in staged:
            out.discard()
    if stale is not None:
        try:
            os.unlink(stale)
        except FileNotFoundError:
            pass
        except OSError as exc:
            shown = display_path(stale)
            raise output_error(exc, shown, "the previous bundle's signature", "remove") from None
    keep_until_exit(tree, done)  # the end of the process frees them at once
    return BuildResult(
        target,
        result.digest,
        result.size,
        len(manifest.skills),
        result.files,
        lock_path,
        lock is not None,
        "passed" if lint else "skipped",
        None if signature is None else Path(signature.given),
        stale,
        tuple(filter(None, [roots_note(config, [s.skill_path for s in manifest.skills])])),
    )


def roots_note(config: Config, skill_paths: Sequence[str]) -> str | None:
    """A note when ``roots`` is not configured and every skill lies under one directory
    (``skills/``): its name then starts every URI (``skill://skills/NAME/SKILL.md``),
    which ``roots = ["DIR"]`` would leave out."""
    if not config.conventional_roots or not skill_paths:
        return None
    firsts = {path.split("/", 1)[0] for path in skill_paths}
    if len(firsts) != 1 or any("/" not in path for path in skill_paths):
        return None
    (first,) = firsts
    example = sorted(skill_paths)[0]
    return (
        f"no 'roots' is configured, so every URI starts with '{first}/' "
        f'(skill://{example}/SKILL.md); add roots = ["{first}"] to skillpack.toml to '
        f"serve skill://{example.split('/', 1)[1]}/SKILL.md (a change of every URI)"
    )


def _stale_signature(signature: Path, archive: Output, digest: str) -> Path | None:
    """``signature`` when it lies beside the archive file that ``archive`` replaces with
    other bytes (of ``digest``), or beside no archive at all: it signs none of the new
    bytes, and an unsigned build removes it."""
    if not os.path.lexists(signature):
        return None
    if not archive.existed:
        return signature
    import hashlib

    try:
        with open(archive.target, "rb") as fh:
            before = "sha256:" + hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return None
    return signature if before != digest else None
