"""``skillpack plugins``: the host manifests planned from ``skillpack.toml`` and the
discovered skills, checked against the lock, and written.

This module sits a floor above the rest of the package (it reads ``skillpack.lock``
to catch skills changed under an unchanged version); nothing of the package imports
it, so lint's manifest rules never load the lock.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skillpack._internal.fsutil import atomic_write
from skillpack.changes import diff_manifests
from skillpack.errors import Location, SkillpackError, display_path
from skillpack.lockfile.lock import LockError, read_lock
from skillpack.plugins import errors as _errors  # noqa: F401  (registers the PLG codes)
from skillpack.plugins.hosts import HOSTS
from skillpack.plugins.project import ManifestFile, find_manifests
from skillpack.plugins.render import Planned, PluginFacts, plan, skill_paths
from skillpack.source.config import Config
from skillpack.source.discovery import SourceTree
from skillpack.source.entries import build_manifest


@dataclass(frozen=True)
class PluginsPlan:
    """One run of ``skillpack plugins``: the manifests, and the version finding."""

    config: Config
    hosts: tuple[str, ...]
    planned: tuple[Planned, ...]
    #: ``PLG007`` when the skills changed since the lock under the same version
    unbumped: SkillpackError | None

    @property
    def changed(self) -> list[Planned]:
        return [p for p in self.planned if p.changed]


def choose_hosts(
    config: Config, asked: Sequence[str], manifests: Sequence[ManifestFile]
) -> tuple[str, ...]:
    """``--host`` names (checked), else ``[plugins] hosts``, else the hosts whose
    manifests exist, else every host."""
    unknown = [h for h in asked if h not in HOSTS]
    if unknown:
        raise SkillpackError(
            "PLG005",
            f"--host {unknown[0]!r} is not a host skillpack writes manifests for",
            hint="use one of: " + ", ".join(HOSTS),
        )
    chosen = list(asked) or list(config.meta.hosts) or [m.host for m in manifests] or list(HOSTS)
    return tuple(h for h in HOSTS if h in chosen)


def facts_of(config: Config, tree: SourceTree) -> PluginFacts:
    root = config.project_dir
    dirs = []
    for skill in tree.skills:
        if not skill.directory.is_relative_to(root):
            raise SkillpackError(
                "PLG008",
                f"the skill {skill.skill_path} lies outside the project "
                f"({skill.directory}): no plugin manifest can reach it",
                Location(config.source_display),
                hint="name roots inside the project",
            )
        dirs.append(skill.directory)
    meta = config.meta
    return PluginFacts(
        name=config.name,
        version=config.version,
        skill_paths=skill_paths(root, dirs),
        description=meta.description,
        author=meta.author,
        homepage=meta.homepage,
        repository=meta.repository,
        license=meta.license,
        keywords=meta.keywords,
        extras=meta.extras,
    )


def unbumped_version(config: Config, tree: SourceTree) -> SkillpackError | None:
    """``PLG007`` when the skills differ from ``skillpack.lock`` while the configured
    version is the one the lock records; None without a (readable) lock."""
    try:
        lock = read_lock(config.lock_path)
    except LockError:
        return None  # no lock yet, or one `lock --check` reports: nothing to compare
    changes = diff_manifests(lock.manifest, build_manifest(tree))
    if not changes.skills or lock.manifest.version != config.version:
        return None
    return SkillpackError(
        "PLG007",
        f"the skills changed since {display_path(config.lock_path)} but the version is still "
        f"{config.version}: {changes.summary()}",
        Location(config.source_display),
        hint="bump 'version' in skillpack.toml, then run 'skillpack lock' and 'skillpack plugins'",
        details=changes.lines()[:20],
    )


def plan_plugins(config: Config, tree: SourceTree, asked: Sequence[str] = ()) -> PluginsPlan:
    if not tree.skills:
        raise SkillpackError(
            "PLG009",
            "no skill found: a plugin without skills installs nothing",
            Location(str(config.project_dir)),
            hint="`skillpack lint` says where it searched",
        )
    root = config.project_dir
    manifests = find_manifests(root)
    hosts = choose_hosts(config, asked, manifests)
    planned = plan(root, facts_of(config, tree), hosts, manifests)
    return PluginsPlan(config, hosts, tuple(planned), unbumped_version(config, tree))


def _confined(root: Path, path: Path) -> None:
    """``PLG008`` unless every directory from ``root`` to ``path`` is a real directory
    inside the project (a link on the way could send the write elsewhere)."""
    rel = path.relative_to(root)
    current = root
    for part in rel.parts[:-1]:
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            raise SkillpackError(
                "PLG008",
                f"{display_path(current)} is not a directory of the project "
                "(a symbolic link or a file): skillpack does not write through it",
                Location(str(path)),
            )
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise SkillpackError(
            "PLG008",
            "the manifest's place holds a symbolic link or a special file",
            Location(str(path)),
        )
    if not Path(os.path.realpath(path.parent if path.parent.exists() else root)).is_relative_to(
        os.path.realpath(root)
    ):
        raise SkillpackError(
            "PLG008", "the manifest would land outside the project", Location(str(path))
        )


def write_plugins(run: PluginsPlan) -> list[Planned]:
    """Write every manifest that changes (atomically; each checked confined first)."""
    root = run.config.project_dir
    changed = run.changed
    for p in changed:
        _confined(root, p.path)
    for p in changed:
        atomic_write(p.path, p.data, what=f"the {HOSTS[p.host].label} manifest")
    return changed


def unified_diff(p: Planned) -> str:
    before = p.path.read_text("utf-8") if p.exists else ""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        p.data.decode("utf-8").splitlines(keepends=True),
        f"a/{p.rel}" if p.exists else "/dev/null",
        f"b/{p.rel}",
    )
    # as diff(1) marks a last line without its newline
    return "".join(
        line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n" for line in lines
    )
