"""``skillpack install --check``: the installed skills against the install lock.

Every directory the lock records is looked at without following a symbolic link, and
only a regular file is ever opened (a FIFO, a socket or a device where an installed file
should be is ``modified``, never read: a read would block):

* a copy must hold exactly the locked files (``missing``, ``modified``: another size,
  sha256 or executable bit; ``extra``: anything else, a symlink included);
* a link must lead to the skill's copy (``replaced link``: a directory or a link to
  elsewhere; ``dangling link``: the copy is gone);
* a skill directory that is gone is ``missing directory``.

Skill directories in the agent directories that the lock does not record are listed as
``unmanaged`` and left alone: they are not drift. Staging directories of an interrupted
install are listed too (``skillpack install`` removes them).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillpack.install.lockfile import InstalledSkill, InstallLock, LockedFile
from skillpack.install.targets import STAGING_PREFIX, Scope
from skillpack.source.agents import AGENTS

#: how each kind of drift is named (text and JSON)
KINDS = ("missing directory", "missing", "modified", "extra", "replaced link", "dangling link")


@dataclass(frozen=True, order=True)
class Drift:
    directory: str  #: the skill directory, as the lock records it
    kind: str  #: one of :data:`KINDS`
    path: str = ""  #: the file, relative to the skill directory ("" for the directory)
    skill: str = ""

    def render(self) -> str:
        where = f"{self.directory}/{self.path}" if self.path else self.directory
        return f"{self.kind}: {where}"

    def to_json(self) -> dict[str, Any]:
        return {"skill": self.skill, "directory": self.directory, "kind": self.kind,
                "path": self.path}  # fmt: skip


@dataclass
class CheckReport:
    drift: list[Drift] = field(default_factory=list)
    unmanaged: list[str] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)
    skills: int = 0
    directories: int = 0
    files: int = 0

    @property
    def clean(self) -> bool:
        return not self.drift

    def to_json(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "skills": self.skills,
            "directories": self.directories,
            "files": self.files,
            "drift": [d.to_json() for d in self.drift],
            "unmanaged": self.unmanaged,
            "leftovers": self.leftovers,
        }


#: never a link, and never blocking (a FIFO opened to read waits for a writer unless
#: O_NONBLOCK; the file's type is checked with fstat before a byte is read)
_READ = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NONBLOCK", 0)
)


def _read_exactly(fd: int, size: int) -> bytes | None:
    """The file's bytes when it holds exactly ``size`` of them, else None."""
    chunks = []
    left = size + 1  # one byte more than locked tells a longer file
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    data = b"".join(chunks)
    return data if len(data) == size else None


def read_regular(path: str, size: int, dir_fd: int | None = None) -> bytes | None:
    """The bytes of the regular file at ``path`` (never following a link, never
    blocking on a FIFO or a device; relative to ``dir_fd`` when given) when it has
    exactly ``size`` of them, else None."""
    try:
        fd = os.open(path, _READ, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return _read_exactly(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def digest_of(path: str, size: int, dir_fd: int | None = None) -> str | None:
    """sha256 of the regular file at ``path`` (see :func:`read_regular`) when it has
    ``size`` bytes, else None."""
    data = read_regular(path, size, dir_fd)
    return None if data is None else "sha256:" + hashlib.sha256(data).hexdigest()


def _same_file(path: str, f: LockedFile) -> bool:
    """Whether ``path`` is a regular file (not a link) with ``f``'s size, executable bit
    and sha256: one open, one fstat, one read."""
    try:
        fd = os.open(path, _READ)
    except OSError:  # a symlink (ELOOP), or gone
        return False
    try:
        st = os.fstat(fd)
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_size != f.size
            or bool(st.st_mode & 0o100) != f.executable
        ):
            return False
        data = os.read(fd, f.size + 1) if f.size < _ONE_READ else _read_exactly(fd, f.size)
    except OSError:
        return False
    finally:
        os.close(fd)
    return (
        data is not None
        and len(data) == f.size
        and "sha256:" + hashlib.sha256(data).hexdigest() == f.digest
    )


#: files up to this size are read with one read(2) (asking one byte more tells a file
#: that grew since its fstat)
_ONE_READ = 1 << 20


def compare_tree(
    directory: Path | str, files: Sequence[LockedFile], strict: bool = False
) -> list[tuple[str, str]]:
    """(kind, path) of every difference between ``directory`` (a real directory) and
    ``files``; empty when it holds exactly them. A directory that should not be there
    lists each entry in it as ``extra`` (``scripts/evil.sh``, not ``scripts``; an empty
    one is itself); nothing is followed through a link, and only a regular file is
    opened (a FIFO, socket, device or link where a file should be is ``modified``).
    ``strict`` (uninstall): a directory of the skill that cannot be listed raises the
    ``OSError`` (its files would be taken for missing ones), instead of being taken for
    missing."""
    wanted = {f.path: f for f in files}
    parents: set[str] = set()
    for path in wanted:
        cut = path.rfind("/")
        while cut > 0:
            head = path[:cut]
            if head in parents:
                break
            parents.add(head)
            cut = head.rfind("/")
    problems: list[tuple[str, str]] = []
    present: set[str] = set()
    stack = [("", os.fspath(directory))]
    same = _same_file
    while stack:
        prefix, path = stack.pop()
        try:
            entries = os.scandir(path)
        except OSError as exc:
            if strict and not isinstance(exc, (FileNotFoundError, NotADirectoryError)):
                raise
            if not prefix:
                return [("missing directory", "")]
            continue
        with entries:
            for entry in entries:
                rel = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    if rel in parents:
                        stack.append((rel + "/", entry.path))
                    else:
                        problems += [("extra", p) for p in _files_under(rel, entry.path)]
                    continue
                f = wanted.get(rel)
                if f is None:
                    problems.append(("extra", rel))
                    continue
                present.add(rel)
                # the entry's type from the listing (no system call): a link, a FIFO, a
                # socket or a device is not the installed file, and is never opened
                if not entry.is_file(follow_symlinks=False) or not same(entry.path, f):
                    problems.append(("modified", rel))
    if len(present) != len(wanted):
        problems += [("missing", p) for p in wanted if p not in present]
    if len(problems) > 1:
        problems.sort(key=lambda item: (item[1], item[0]))
    return problems


#: entries listed inside one directory that should not be there, before the rest is
#: counted in one line
MAX_LISTED = 200


def _files_under(rel: str, path: str) -> list[str]:
    """Every entry under an extra directory, by its path in the skill (sorted; links and
    special files as entries, never followed); the directory itself when empty."""
    found: list[str] = []
    stack = [(rel + "/", path)]
    while stack and len(found) <= MAX_LISTED:
        prefix, current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            found.append(prefix.rstrip("/"))
            continue
        if not entries:
            found.append(prefix.rstrip("/"))
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append((prefix + entry.name + "/", entry.path))
            else:
                found.append(prefix + entry.name)
    found.sort()
    if len(found) > MAX_LISTED:
        found = [*found[:MAX_LISTED], f"{rel}/... (more)"]
    return found


def _check_skill(lock_skill: InstalledSkill, scope: Scope) -> tuple[list[Drift], int]:
    drift: list[Drift] = []
    copy = lock_skill.copy
    copy_path = scope.text_of(copy.path)
    for d in lock_skill.directories:
        path = scope.text_of(d.path)
        try:
            st = os.lstat(path)
        except OSError:  # gone (or not to be looked at: a name the system refuses)
            drift.append(Drift(d.path, "missing directory", skill=lock_skill.name))
            continue
        if d.link:
            # a link to the copy; or the copy itself, when this agent directory is a link
            # to the one holding it (.claude/skills -> ../.agents/skills)
            if os.path.realpath(path) != os.path.realpath(copy_path) or not (
                stat.S_ISLNK(st.st_mode) or stat.S_ISDIR(st.st_mode)
            ):
                drift.append(Drift(d.path, "replaced link", skill=lock_skill.name))
            elif not os.path.isdir(path):
                drift.append(Drift(d.path, "dangling link", skill=lock_skill.name))
            continue
        if not stat.S_ISDIR(st.st_mode):
            kind = "replaced link" if stat.S_ISLNK(st.st_mode) else "modified"
            drift.append(Drift(d.path, kind, skill=lock_skill.name))
            continue
        for kind, rel in compare_tree(path, lock_skill.files):
            drift.append(Drift(d.path, kind, rel, lock_skill.name))
    return drift, len(lock_skill.files)


def check_installed(lock: InstallLock, scope: Scope, jobs: int | None = None) -> CheckReport:
    """Compare every installed skill with ``lock``."""
    from skillpack._internal.parallel import default_jobs, map_ranges

    report = CheckReport(skills=len(lock.skills))
    skills = lock.skills

    def work(start: int, stop: int) -> list[tuple[list[Drift], int]]:
        return [_check_skill(s, scope) for s in skills[start:stop]]

    # reading and hashing thousands of small files: shared between forked processes
    for part in map_ranges(work, len(skills), jobs or default_jobs(len(skills))):
        for drift, files in part:
            report.drift += drift
            report.files += files
    report.directories = sum(len(s.directories) for s in lock.skills)
    report.drift.sort()
    recorded = {d.path for s in lock.skills for d in s.directories}
    agent_dirs = {scope.agent_dir(a) for a in AGENTS}
    agent_dirs |= {scope.path_of(parent) for parent in {p.rpartition("/")[0] for p in recorded}}
    from skillpack.errors import SkillpackError
    from skillpack.install.targets import confined

    for directory in sorted(agent_dirs):
        try:
            confined(directory, scope, reading=True)  # a link elsewhere is not listed
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except (OSError, SkillpackError):
            continue
        base = scope.shown(directory) if directory != scope.project else ""
        for entry in entries:
            shown = f"{base}/{entry.name}" if base else entry.name
            if entry.name.startswith(STAGING_PREFIX):
                report.leftovers.append(shown)
            elif shown not in recorded and os.path.isfile(os.path.join(entry.path, "SKILL.md")):
                report.unmanaged.append(shown)
    return report
