"""What the server serves: bundles and source directories, each mounted at a prefix.

``load_bundle_source`` is the one seam to the bundle reader
(``skillpack.bundle.reader.open_bundle(path, mode="fast")``, stdlib-only). Directory
mode (``skillpack serve DIR``, for authors) builds the manifest in memory from the
tree, behind the lint gate (``skillpack.build.pipeline.gated_source``, imported on that
path only), and may import anything.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillpack._internal.uri import is_valid_authority, is_valid_segment
from skillpack.content import ContentSource
from skillpack.errors import (
    EXIT_USAGE,
    Location,
    UsageError,
    missing_path,
)

Log = Callable[[str], None]


def stderr_log(message: str) -> None:
    print(f"skillpack serve: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Mount:
    """One content source served under a skill-path prefix (``""`` for none)."""

    source: ContentSource
    prefix: str
    origin: str  #: the path given on the command line (or the oci:// reference)
    kind: str  #: ``"bundle"`` or ``"directory"``

    @property
    def label(self) -> str:
        """How the instructions and logs name this source: ``NAME VERSION``."""
        manifest = self.source.manifest
        return f"{manifest.name} {manifest.version}".strip()


def check_prefix(prefix: str) -> str:
    """Validate a ``--prefix`` value (``team`` or ``acme/billing``); return it normalised."""
    if prefix == "":
        return prefix
    segments = prefix.split("/")
    bad = [s for s in segments if not is_valid_segment(s)]
    if bad or not is_valid_authority(segments[0]):
        raise UsageError(
            "SRV005",
            f"invalid --prefix {prefix!r}",
            hint="use '/'-separated segments of letters, digits and - . _ ~ "
            "(no leading, trailing or doubled '/')",
        )
    return prefix


def load_bundle_source(path: Path) -> ContentSource:
    """Open a ``.skp`` bundle read-only with the fast, stdlib-only reader.

    The reader checks the index against the lock's ``index-digest``; then the lock's files
    are checked against the archive's directory (every entry present, sizes equal) before
    anything is served.
    """
    from skillpack.bundle.reader import open_bundle

    bundle = open_bundle(path, mode="fast")
    try:
        bundle.check_directory()
    except BaseException:
        bundle.close()
        raise
    source: ContentSource = bundle
    return source


def load_dir_source(path: Path, *, lint: bool, log: Log) -> ContentSource:
    """Discover, lint and hash the skills under ``path`` (its configuration applies)."""
    from skillpack.source.config import resolve_config
    from skillpack.source.discovery import discover as discover_tree
    from skillpack.source.discovery import select

    config = resolve_config([path])
    tree = discover_tree(config)
    skills = select(tree, [path])
    if not skills:
        raise UsageError(
            "SRV004",
            "no skills found (a skill is a directory holding SKILL.md)",
            Location(str(path)),
            hint="check the path and the 'roots' of the configuration",
            exit_code=EXIT_USAGE,
        )
    from skillpack.build.pipeline import Refusal, gated_source  # the one seam to the build

    refusal = Refusal(
        "SRV003",
        "not serving",
        "or pass --no-lint to serve anyway",
        Location(str(path)),
        shown=20,
        unpublishable="SRV011",
    )
    return gated_source(tree, skills, lint=lint, refusal=refusal)


def load_mounts(
    paths: Sequence[Path | ContentSource],
    prefixes: Sequence[str],
    *,
    lint: bool,
    log: Log = stderr_log,
    origins: Sequence[str] | None = None,
) -> list[Mount]:
    """Open every source: a directory is served from its tree, a file as a bundle, a
    source already open (a bundle pulled through the verified fetch) as it is.
    ``origins`` name the sources in messages (default: their paths)."""
    mounts: list[Mount] = []
    names = [str(p) for p in paths] if origins is None else list(origins)
    try:
        for path, prefix, origin in zip(paths, prefixes, names, strict=True):
            if not isinstance(path, Path):
                source, kind = path, "bundle"
            elif path.is_dir():
                source, kind = load_dir_source(path, lint=lint, log=log), "directory"
            elif path.is_file():
                source, kind = load_bundle_source(path), "bundle"
            else:
                raise missing_path(
                    path, hint="give the path of a .skp bundle or of a skills directory"
                )
            mounts.append(Mount(source, prefix, origin, kind))
    except BaseException:
        for mount in mounts:
            mount.source.close()
        raise
    return mounts
