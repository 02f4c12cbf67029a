"""A git commit's tree, or a local directory, as a verified bundle in the cache.

An install from a tree goes through exactly what ``skillpack build`` does (discovery,
the configuration the tree carries, the path policy and the structural rules) and
then installs the bundle that made, like any bundle: nothing is written into the tree
(the build's lock stays inside the bundle).

- A git source's commit is exported (:func:`~.git.export_tree`: nothing of the
  repository runs) into a directory of the cache, built once into
  ``git/bundles/KEY.skp``, KEY the digest of the URL (without user information), the
  commit and the subdirectory, and the export removed. A pinned re-install finds the
  bundle there and needs no network; the installer checks its digest against the pin.
- A directory is built into ``dirs/KEY.skp`` (KEY: its absolute path) on every open.

The bundle's digest is reproducible (a fixed time stamp, the tree's name): the same
commit always gives the same bundle, which is what ``--frozen`` compares.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from skillpack.errors import Location, SkillpackError
from skillpack.gitsource.git import (
    Bounds,
    Resolved,
    export_tree,
    fetch_commit,
    git_cache_dir,
    resolve,
)
from skillpack.gitsource.spec import GitSpec, parse_git_source

#: every bundle built from a tree is stamped 1980-01-01 (the DOS epoch): reproducible
EPOCH = 315532800


@dataclass(frozen=True)
class TreeBundle:
    """A tree built into a bundle file in the cache."""

    path: Path  #: the .skp file
    label: str  #: how messages name the source (no user information)
    commit: str | None = None  #: the commit it was built from (git sources)
    notes: tuple[str, ...] = ()


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:40]


def build_tree(root: Path, output: Path, label: str = "") -> None:
    """Build the skills tree at ``root`` (its own ``skillpack.toml`` or ``[tool.skillpack]``
    applies, else the defaults) into ``output``; only the structural rules gate it, as for
    ``skillpack build --no-lint``; nothing is written into ``root``."""
    from skillpack.build.builder import build
    from skillpack.source.config import config_at

    config = config_at(root)
    inside = root.resolve()
    for item in config.roots:
        if item.path != inside and inside not in item.path.parents:
            where = config.source.name if config.source is not None else "roots"
            shown = f"{label}: {where}" if label else str(root / where)
            raise SkillpackError(
                "GIT011",
                f"{shown}: the root {item.path} is outside the tree it configures",
                Location(shown),
                hint="a tree installed from git or a directory is built from its own files "
                "only: its 'roots' must be inside it",
            )
    output.parent.mkdir(parents=True, exist_ok=True)
    # stored: the bundle is a cache entry, read back at once (deflate would cost the CPU)
    build(config, output=output, lint=False, epoch=EPOCH, write_lock=False, compression="stored")


def open_directory(path: Path) -> TreeBundle:
    """The directory ``path`` built into the cache (every time: a directory has no pin
    of its own; the installer compares the bundle's digest with the lock's), once it is
    found within the bounds of a git fetch (:func:`check_bounds`)."""
    root = path.resolve()
    check_bounds(root, str(path))
    output = git_cache_dir().parent / "dirs" / f"{_key(str(root))}.skp"
    build_tree(root, output)
    return TreeBundle(output, str(path))


def check_bounds(root: Path, label: str, bounds: Bounds | None = None) -> None:
    """``GIT008`` when the directory ``root`` holds more than a git source may (the
    :class:`~.git.Bounds`, ``SKILLPACK_GIT_MAX_FILES`` and ``SKILLPACK_GIT_MAX_BYTES``):
    counted as discovery walks it (dot entries and symbolic links are never entered or
    followed), every entry and every regular file's size, the walk stopping at the
    first entry over; nothing is read. A directory source named by a lock (``..``) is
    never walked without bound."""
    bounds = bounds or Bounds.from_environ()
    entries = size = 0
    stack = [str(root)]
    while stack:
        try:
            listing = os.scandir(stack.pop())
        except OSError:
            continue  # discovery reports what it cannot read
        with listing:
            for entry in listing:
                if entry.name.startswith("."):
                    continue
                entries += 1
                if entries > bounds.files:
                    raise _too_big(label, f"more than {bounds.files} entries (files and "
                                   "directories)")  # fmt: skip
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        size += entry.stat(follow_symlinks=False).st_size
                except OSError:
                    continue
                if size > bounds.bytes:
                    raise _too_big(label, f"more than {bounds.bytes} bytes of files")


def _too_big(label: str, why: str) -> SkillpackError:
    return SkillpackError(
        "GIT008",
        f"{label}: the directory holds {why}, more than a source is built from",
        Location(label),
        hint="install a subdirectory that holds only the skills, or raise "
        "SKILLPACK_GIT_MAX_FILES / SKILLPACK_GIT_MAX_BYTES",
    )


def moved_ref(spec: GitSpec, now: Resolved, pinned: str) -> SkillpackError:
    what = "tag" if now.kind == "tag" else now.kind
    return SkillpackError(
        "GIT010",
        f"{spec.key}: the {what} {spec.ref or 'HEAD'} moved: the lock pins {pinned}, the "
        f"repository names {now.commit} now",
        Location(spec.key),
        details=[f"pinned: {pinned}", f"now:    {now.commit}"],
        hint=f"'skillpack install --upgrade {spec.key}' moves the pin and shows what "
        "changes; 'skillpack install' without the SOURCE installs the pinned commit",
    )


def open_git(
    source: str,
    *,
    pinned: str | None,
    resolve_ref: bool,
    follow: bool,
    offline: bool = False,
) -> TreeBundle:
    """The bundle of git ``source`` at its pinned commit (``pinned``, unless
    ``resolve_ref``: then at the commit its ref names now). A ref that moved away from
    the pin is ``GIT010`` unless ``follow`` (``--upgrade``), which reports it in a note."""
    spec = parse_git_source(source)
    cache = git_cache_dir()
    notes: list[str] = []
    ref_name: str | None = None
    if pinned is not None and (not resolve_ref or offline):
        commit = pinned
    else:
        now = resolve(spec)
        commit, ref_name = now.commit, now.ref
        if pinned is not None and commit != pinned:
            if not follow:
                raise moved_ref(spec, now, pinned)
            notes.append(
                f"{spec.key}: the {now.kind} {spec.ref or 'HEAD'} moved from {pinned[:12]} "
                f"to {commit[:12]}"
            )
    output = cache / "bundles" / f"{_key(spec.shown_url, commit, spec.path or '')}.skp"
    if not output.is_file():
        repo = fetch_commit(spec, commit, cache, ref=ref_name, offline=offline)
        # the tree's directory takes the repository's name: the bundle's default name
        base = spec.path.rpartition("/")[2] if spec.path else _repo_name(spec)
        staging: list[Path] = []

        def place(size: int) -> Path:
            staging.append(Path(tempfile.mkdtemp(prefix="export-", dir=_scratch(cache, size))))
            root = staging[0] / base
            root.mkdir()
            return root

        try:
            exported = export_tree(repo, commit, spec.path, place, label=spec.key)
            notes += exported.notes
            build_tree(staging[0] / base, output, spec.key)
        finally:
            for directory in staging:
                shutil.rmtree(directory, ignore_errors=True)
    return TreeBundle(output, spec.key, commit, tuple(notes))


#: where a tree is exported for its build when there is room: memory, not the disk
SCRATCH = Path("/dev/shm")


def _scratch(cache: Path, size: int) -> Path:
    """The directory a tree of ``size`` bytes is exported into for its build: under
    :data:`SCRATCH` when it is a writable directory with room for twice the tree (the
    export lives only until the bundle is built), else the cache's ``work``."""
    try:
        stat = os.statvfs(SCRATCH)
        if os.access(SCRATCH, os.W_OK) and stat.f_bavail * stat.f_frsize > 2 * size + (64 << 20):
            return SCRATCH
    except OSError:
        pass
    work = cache / "work"
    work.mkdir(parents=True, exist_ok=True)
    return work


def _repo_name(spec: GitSpec) -> str:
    name = spec.shown_url.rstrip("/").rpartition("/")[2].removesuffix(".git")
    safe = "".join(c if c.isalnum() or c in "._-" else "-" for c in name).strip(".")
    return safe or "skills"
