"""``skillpack uninstall``: remove installed skills, all of a skill or nothing.

Only what the install lock says skillpack installed is removed, and everything is
decided before the first delete. Every directory of every skill named is looked at
first, without following a link: a file whose sha256 no longer matches the lock, a file
or link the lock does not list, a directory where a file was (``install --check``'s
``modified`` and ``extra``) is local work. When any skill named holds local work, the
command removes nothing at all and names every such file (``INS015``, exit 1): agents
are never left a half skill. ``force`` removes what skillpack installed, modified files
included, and keeps (and names) every file, link and directory it did not install. A
link is removed only when it still leads to the skill's copy. Directories are removed
once empty, deepest first; no symbolic link is ever followed. A skill's lock entry goes
with its last directory.

What the system refuses (a name too long, a permission, a loop of links) is found while
planning, before the first delete: ``INS022``, nothing removed. Should a delete still
fail, the command stops there with ``INS022``: the lock keeps every skill not removed in
full (``install --check`` shows what is missing, ``install`` restores it). A directory
that still holds files skillpack did not install after ``--force`` is reported as left,
never as removed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillpack.errors import Location, SkillpackError, UsageError
from skillpack.install.drift import compare_tree, digest_of
from skillpack.install.lockfile import (
    InstalledDir,
    InstalledSkill,
    InstallLock,
    render_install_lock,
)
from skillpack.install.targets import Scope, can_hold_directories, choose_agents

Log = Callable[[str], None]


@dataclass
class RemoveReport:
    removed: list[str] = field(default_factory=list)  #: skill directories removed
    #: files modified locally: removed with ``force`` (named), else nothing was removed
    modified: list[str] = field(default_factory=list)
    #: files, links and directories skillpack did not install: kept (never removed)
    kept: list[str] = field(default_factory=list)
    #: skill directories emptied of what skillpack installed but left in place: they
    #: hold files it did not install (``--force``)
    left: list[str] = field(default_factory=list)
    lock: InstallLock = field(default_factory=InstallLock)


@dataclass
class _Plan:
    """What uninstall will do in one directory of a skill, decided before any delete."""

    directory: InstalledDir
    #: ``copy`` (remove its files), ``link`` (unlink it), ``shared`` (the copy itself,
    #: its agent directory a link to the copy's: it goes with the copy), ``gone`` or
    #: ``foreign``
    kind: str
    modified: list[str] = field(default_factory=list)  #: shown paths
    extra: list[str] = field(default_factory=list)  #: shown paths


def _plan_copy(d: InstalledDir, skill: InstalledSkill, scope: Scope) -> _Plan:
    """Look at a copy without touching it: its modified files and what skillpack did not
    put there (a real modification: another sha256, not only another executable bit);
    what the system refuses to show or to change is ``INS022`` now, before any delete."""
    path = scope.text_of(d.path)
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return _Plan(d, "gone")
    except OSError as exc:
        raise _cannot(d.path, exc, "look at") from None
    if not stat.S_ISDIR(st.st_mode):  # a link or a file: not skillpack's now
        return _Plan(d, "foreign", extra=[d.path])
    plan = _Plan(d, "copy")
    sizes = {f.path: f for f in skill.files}
    try:
        problems = compare_tree(path, skill.files, strict=True)
    except OSError as exc:
        raise _cannot(d.path, exc, "look at") from None
    for kind, rel in problems:
        shown = f"{d.path}/{rel}"
        if kind == "extra":
            plan.extra.append(shown)
        elif kind == "modified":
            f = sizes[rel]
            if digest_of(os.path.join(path, rel), f.size) != f.digest:
                plan.modified.append(shown)
    _can_change(path, skill, d.path)
    return plan


#: what os.access needs to remove an entry of a directory
_CHANGE = os.W_OK | os.X_OK


def _can_change(path: str, skill: InstalledSkill, shown: str) -> None:
    """``INS022`` unless the system lets every directory of the copy (and the agent
    directory above it) have entries removed: found before the first delete."""
    directories = {"", *(f.path.rpartition("/")[0] for f in skill.files)}
    effective = os.access in os.supports_effective_ids
    for rel in sorted(directories):
        here = os.path.join(path, rel) if rel else path
        real_dir = os.path.isdir(here) and not os.path.islink(here)
        if real_dir and not os.access(here, _CHANGE, effective_ids=effective):
            denied = PermissionError(errno.EACCES, os.strerror(errno.EACCES), here)
            raise _cannot(f"{shown}/{rel}" if rel else shown, denied, "remove files of")
    parent = os.path.dirname(path)
    if not os.access(parent, _CHANGE, effective_ids=effective):
        denied = PermissionError(errno.EACCES, os.strerror(errno.EACCES), parent)
        raise _cannot(shown.rpartition("/")[0], denied, "remove directories of")


def _cannot(shown: str, exc: OSError, action: str) -> SkillpackError:
    """``INS022``: the system refused to let uninstall look at or remove ``shown``."""
    name = exc.filename if isinstance(exc.filename, str) else None
    return SkillpackError(
        "INS022",
        f"cannot {action} {shown}: {exc.strerror or exc}",
        Location(name) if name else None,
        hint="fix the permissions (or the name the system refuses), then run uninstall "
        "again; 'skillpack install --check' shows the skill's state",
    )


def _plan_skill(
    skill: InstalledSkill, only: set[str] | None, scope: Scope
) -> tuple[list[_Plan], tuple[InstalledDir, ...]]:
    """The plans of ``skill``'s directories under ``only`` (or all), links first and
    the copy last; and the directories it keeps."""
    chosen = [d for d in skill.directories
              if only is None or d.path.rpartition("/")[0] in only]  # fmt: skip
    copy = skill.copy
    if copy in chosen and any(d.link for d in skill.directories):
        # the links would dangle without the copy: they go with it
        chosen = list(skill.directories)
    remaining = tuple(d for d in skill.directories if d not in chosen)
    copy_real = os.path.realpath(scope.path_of(copy.path))
    plans = []
    for d in sorted(chosen, key=lambda d: not d.link):
        if not d.link:
            plans.append(_plan_copy(d, skill, scope))
            continue
        path = scope.path_of(d.path)
        if os.path.realpath(path) == copy_real and os.path.islink(path):
            plans.append(_Plan(d, "link"))
        elif os.path.realpath(path) == copy_real and os.path.isdir(path):
            plans.append(_Plan(d, "shared"))  # the copy, through a linked agent directory
        elif os.path.lexists(path):
            plans.append(_Plan(d, "foreign", extra=[d.path]))
        else:
            plans.append(_Plan(d, "gone"))
    # links first, the copies, then the directories that are the copy
    plans.sort(key=lambda p: {"link": 0, "shared": 2}.get(p.kind, 1))
    return plans, remaining


def _refused(lock_path: Path, local: dict[str, list[str]]) -> SkillpackError:
    names = sorted(local)
    details = [line for name in names for line in local[name]]
    return SkillpackError(
        "INS015",
        f"removed nothing: {', '.join(names)} {'holds' if len(names) == 1 else 'hold'} "
        f"{len(details)} file(s) modified or added locally",
        Location(str(lock_path)),
        details=details,
        hint=f"move or restore the files named and run it again; 'skillpack uninstall "
        f"--force {' '.join(names)}' removes what skillpack installed, modified files "
        "included, and keeps the files it did not install",
    )


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
            except (FileNotFoundError, NotADirectoryError):
                return None
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # a link: not followed
                    return None
                raise
            fds[path] = known
        fd = known
    return fd


def _remove_copy(path: Path, skill: InstalledSkill, force: bool, shown: str) -> list[str]:
    """Remove the locked files of a copy, never following a link (every step is taken
    from a directory descriptor with ``O_NOFOLLOW``); the files it kept: what is not a
    regular file now, and (without ``force``) a file modified since it was planned.
    What the system refuses raises its ``OSError`` (the caller stops there)."""
    kept: list[str] = []
    try:
        root = os.open(path, _DIR_FLAGS | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return kept
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return kept
        raise
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
            if not stat.S_ISREG(st.st_mode) or (
                not force and digest_of(name, f.size, dir_fd=parent) != f.digest
            ):
                kept.append(f"{shown}/{f.path}")
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
    with contextlib.suppress(OSError):  # not empty: what skillpack did not install
        os.rmdir(path)
    return kept


def uninstall(
    names: Sequence[str],
    agents: Sequence[str],
    scope: Scope,
    lock_path: Path,
    *,
    force: bool = False,
    log: Log = print,
) -> RemoveReport:
    """Remove the skills ``names`` (from the directories of ``agents``, or all of them):
    every directory of every skill named is planned before the first delete; local work
    in any of them is ``INS015`` with nothing removed, unless ``force``."""
    from skillpack._internal.flock import locked
    from skillpack.install.lockfile import read_install_lock

    lock_dir = lock_path.parent
    can_hold_directories(lock_dir, scope.shown(lock_dir), "the install lock's directory")
    if not os.path.isdir(lock_dir):  # nothing was ever installed here: nothing is made
        _not_installed(names, InstallLock(), lock_path)
    with locked(lock_dir):
        lock = read_install_lock(lock_path, scope)
        _not_installed(names, lock, lock_path)
        return _uninstall_locked(names, agents, scope, lock_path, lock, force)


def _not_installed(names: Sequence[str], lock: InstallLock, lock_path: Path) -> None:
    installed = {s.name for s in lock.skills}
    unknown = [n for n in names if n not in installed]
    if unknown:
        raise UsageError(
            "INS014",
            f"not installed: {', '.join(unknown)}",
            Location(str(lock_path)),
            hint="'skillpack install --check' lists what is installed",
            details=[f"installed: {', '.join(sorted(installed)) or 'nothing'}"],
        )


def _uninstall_locked(
    names: Sequence[str],
    agents: Sequence[str],
    scope: Scope,
    lock_path: Path,
    lock: InstallLock,
    force: bool,
) -> RemoveReport:
    from skillpack._internal.fsutil import write_if_changed

    # every agent directory the lock names was confined when it was read: one that
    # leads anywhere but to an agent directory through a link is INS008 (a loop INS018),
    # and nothing is removed anywhere
    only = (
        {scope.shown(scope.agent_dir(a)) for a in choose_agents(agents, scope)} if agents else None
    )
    plans: dict[str, tuple[list[_Plan], tuple[InstalledDir, ...]]] = {}
    local: dict[str, list[str]] = {}
    for skill in lock.skills:
        if skill.name in names:
            plans[skill.name] = _plan_skill(skill, only, scope)
            found = [f"modified: {m}" for p in plans[skill.name][0] for m in p.modified]
            found += [f"not installed by skillpack: {e}" for p in plans[skill.name][0]
                      if p.kind == "copy" for e in p.extra]  # fmt: skip
            if found:
                local[skill.name] = found
    if local and not force:
        raise _refused(lock_path, local)
    report = RemoveReport()
    keep: list[InstalledSkill] = []
    for i, skill in enumerate(lock.skills):
        if skill.name not in plans:
            keep.append(skill)
            continue
        try:
            remaining = _remove_skill(skill, *plans[skill.name], scope, force, report)
        except OSError as exc:
            # this skill and those after it keep their entries (install restores them)
            report.lock = InstallLock(lock.sources, (*keep, *lock.skills[i:])).normalized()
            write_if_changed(lock_path, render_install_lock(report.lock))
            error = _cannot(skill.name, exc, "remove the files of")
            error.details = [f"removed before it: {d}" for d in report.removed] + [
                f"{skill.name} and the skills after it keep their lock entries: "
                "'skillpack install' restores what is missing"
            ]
            raise error from None
        if remaining:
            keep.append(InstalledSkill(skill.name, skill.source, skill.skill_path,
                                       remaining, skill.files))  # fmt: skip
    report.lock = InstallLock(lock.sources, tuple(keep)).normalized()
    write_if_changed(lock_path, render_install_lock(report.lock))
    return report


def _remove_skill(
    skill: InstalledSkill,
    plans: list[_Plan],
    remaining: tuple[InstalledDir, ...],
    scope: Scope,
    force: bool,
    report: RemoveReport,
) -> tuple[InstalledDir, ...]:
    """Carry out ``plans`` (links first, the copy, then the directories that are the
    copy); the directories left in the lock: those not chosen, and a copy where a file
    changed since it was planned. A copy that still holds files skillpack did not
    install is reported as left, not removed."""
    left = list(remaining)
    for plan in plans:
        d = plan.directory
        report.kept += plan.extra
        path = scope.text_of(d.path)
        if plan.kind == "link":
            os.unlink(path)
            report.removed.append(d.path)
        elif plan.kind == "copy":
            kept = _remove_copy(Path(path), skill, force, d.path)
            report.modified += [m for m in plan.modified if m not in kept]
            report.kept += kept
            if not force and kept:  # changed between the plan and the delete
                left.append(d)
            elif os.path.lexists(path):
                report.left.append(d.path)
            else:
                report.removed.append(d.path)
        elif plan.kind == "shared":
            (report.left if os.path.lexists(path) else report.removed).append(d.path)
    return tuple(sorted(left))
