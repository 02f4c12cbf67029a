"""``skillpack uninstall``: remove installed skills, and nothing else.

Only what the install lock says skillpack installed is removed, and only while it is
still what was installed: a file whose sha256 no longer matches the lock is kept and
named (``INS015``, exit 1) unless ``force``; a file or directory the lock does not list
is never removed (not even with ``force``); a link is removed only when it still leads
to the skill's copy. Directories are removed once empty, deepest first; no symbolic
link is ever followed. A skill's lock entry goes with its last directory; a directory
where something was kept stays in the lock, so ``uninstall --force`` can finish.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillpack.errors import Location, SkillpackError, UsageError
from skillpack.install.drift import digest_of
from skillpack.install.lockfile import (
    InstalledDir,
    InstalledSkill,
    InstallLock,
    render_install_lock,
)
from skillpack.install.targets import Scope, choose_agents, confined

Log = Callable[[str], None]


@dataclass
class RemoveReport:
    removed: list[str] = field(default_factory=list)  #: skill directories removed
    kept: list[str] = field(default_factory=list)  #: files kept, modified locally
    left: list[str] = field(default_factory=list)  #: files and links not skillpack's
    lock: InstallLock = field(default_factory=InstallLock)


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def _open_dirs(root_fd: int, parts: Sequence[str], fds: dict[str, int]) -> int | None:
    """A descriptor of the directory ``parts`` under ``root_fd``, reached without
    following any symbolic link (None when a part is missing, a link or not a
    directory). Descriptors are cached in ``fds`` by path."""
    fd, path = root_fd, ""
    for part in parts:
        path = f"{path}/{part}" if path else part
        known = fds.get(path)
        if known is None:
            try:
                known = os.open(part, _DIR_FLAGS | os.O_CLOEXEC, dir_fd=fd)
            except OSError:
                return None
            fds[path] = known
        fd = known
    return fd


def _remove_copy(
    path: Path, skill: InstalledSkill, force: bool, report: RemoveReport, shown: str
) -> bool:
    """Remove the locked files of a copy, never following a link (every step is taken
    from a directory descriptor with ``O_NOFOLLOW``); True when nothing modified was
    kept."""
    clean = True
    try:
        root = os.open(path, _DIR_FLAGS | os.O_CLOEXEC)
    except OSError:
        report.left.append(shown)
        return True
    fds: dict[str, int] = {}
    try:
        for f in skill.files:
            *parents, name = f.path.split("/")
            parent = _open_dirs(root, parents, fds)
            if parent is None:  # a link or a file where a directory was: not ours now
                continue
            try:
                st = os.lstat(name, dir_fd=parent)
            except (FileNotFoundError, NotADirectoryError):
                continue
            if not stat.S_ISREG(st.st_mode):
                report.left.append(f"{shown}/{f.path}")
                continue
            if digest_of(name, f.size, dir_fd=parent) != f.digest and not force:
                report.kept.append(f"{shown}/{f.path}")
                clean = False
                continue
            os.unlink(name, dir_fd=parent)
        for directory in sorted(fds, key=lambda d: d.count("/"), reverse=True):
            head, _, tail = directory.rpartition("/")
            above = fds[head] if head else root
            with contextlib.suppress(OSError):  # not empty: kept
                os.rmdir(tail, dir_fd=above)
    finally:
        for fd in fds.values():
            os.close(fd)
        os.close(root)
    try:
        os.rmdir(path)
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError:
        left = sorted(
            p.relative_to(path).as_posix()
            for p in path.rglob("*")
            if not p.is_dir() or p.is_symlink()
        )
        report.left += [f"{shown}/{p}" for p in left if f"{shown}/{p}" not in report.kept]
    return clean


def uninstall(
    names: Sequence[str],
    agents: Sequence[str],
    scope: Scope,
    lock_path: Path,
    *,
    force: bool = False,
    log: Log = print,
) -> RemoveReport:
    """Remove the skills ``names`` (from the directories of ``agents``, or all of them)."""
    from skillpack._internal.flock import locked
    from skillpack._internal.fsutil import write_if_changed
    from skillpack.install.lockfile import read_install_lock

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with locked(lock_path.parent):
        lock = read_install_lock(lock_path, scope)
        installed = {s.name: s for s in lock.skills}
        unknown = [n for n in names if n not in installed]
        if unknown:
            raise UsageError(
                "INS014",
                f"not installed: {', '.join(unknown)}",
                Location(str(lock_path)),
                hint="'skillpack install --check' lists what is installed",
                details=[f"installed: {', '.join(sorted(installed)) or 'nothing'}"],
            )
        only = (
            {scope.shown(scope.agent_dir(a)) for a in choose_agents(agents, scope)}
            if agents
            else None
        )
        # every agent directory is confined before the first delete: one that leads out
        # of the project through a link (the agent directory itself a link) is INS008,
        # and nothing is removed anywhere
        for skill in lock.skills:
            if skill.name in names:
                for d in skill.directories:
                    parent = scope.path_of(d.path).parent
                    if os.path.lexists(parent):
                        confined(parent, scope)
        report = RemoveReport()
        keep: list[InstalledSkill] = []
        for skill in lock.skills:
            if skill.name not in names:
                keep.append(skill)
                continue
            remaining = _remove_skill(skill, only, scope, force, report)
            if remaining:
                keep.append(InstalledSkill(skill.name, skill.source, skill.skill_path,
                                           remaining, skill.files))  # fmt: skip
        report.lock = InstallLock(lock.sources, tuple(keep)).normalized()
        write_if_changed(lock_path, render_install_lock(report.lock))
        if report.kept:
            raise SkillpackError(
                "INS015",
                f"kept {len(report.kept)} locally modified file(s); the rest was removed",
                Location(str(lock_path)),
                details=report.kept[:20],
                hint="'skillpack uninstall --force NAME' removes them too",
            )
        return report


def _remove_skill(
    skill: InstalledSkill,
    only: set[str] | None,
    scope: Scope,
    force: bool,
    report: RemoveReport,
) -> tuple[InstalledDir, ...]:
    """Remove ``skill``'s directories (those under ``only``, or all); the ones left."""
    chosen = [d for d in skill.directories
              if only is None or d.path.rpartition("/")[0] in only]  # fmt: skip
    copy = skill.copy
    if copy in chosen and any(d.link for d in skill.directories):
        # the links would dangle without the copy: they go with it
        chosen = list(skill.directories)
    remaining = [d for d in skill.directories if d not in chosen]
    copy_real = os.path.realpath(scope.path_of(copy.path))
    for d in sorted(chosen, key=lambda d: not d.link):  # links first, the copy last
        path = scope.path_of(d.path)
        if d.link:
            if os.path.islink(path) and os.path.realpath(path) == copy_real:
                os.unlink(path)
                report.removed.append(d.path)
            elif os.path.lexists(path):
                report.left.append(d.path)
            continue
        if not os.path.lexists(path):
            continue
        if os.path.islink(path) or not os.path.isdir(path):
            report.left.append(d.path)
            continue
        if _remove_copy(path, skill, force, report, d.path):
            report.removed.append(d.path)
        else:
            remaining.append(d)
    return tuple(sorted(remaining))
