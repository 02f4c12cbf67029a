"""``skillpack install --check``: the installed skills against the install lock.

Every directory the lock records is looked at without following a symbolic link:

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
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
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


def digest_of(path: str, size: int, dir_fd: int | None = None) -> str | None:
    """sha256 of the regular file at ``path`` (never following a link; relative to
    ``dir_fd`` when given) when it has ``size`` bytes, else None."""
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        chunks = []
        left = size + 1  # one byte more than locked tells a longer file
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) != size:
        return None
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _walk(directory: str, prefix: str = "") -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry under ``directory`` (not following links), as (relative path, entry)."""
    with os.scandir(directory) as entries:
        for entry in entries:
            rel = prefix + entry.name
            yield rel, entry
            if entry.is_dir(follow_symlinks=False):
                yield from _walk(entry.path, rel + "/")


def compare_tree(directory: Path, files: Sequence[LockedFile]) -> list[tuple[str, str]]:
    """(kind, path) of every difference between ``directory`` (a real directory) and
    ``files``; empty when it holds exactly them."""
    base = str(directory)
    wanted = {f.path: f for f in files}
    found: dict[str, os.DirEntry[str]] = {}
    dirs: set[str] = set()
    problems: list[tuple[str, str]] = []
    try:
        for rel, entry in _walk(base):
            if entry.is_dir(follow_symlinks=False):
                dirs.add(rel)
            else:
                found[rel] = entry
    except OSError:
        return [("missing directory", "")]
    parents = {p.rpartition("/")[0] for p in wanted}
    needed = set()
    for parent in parents:
        while parent:
            needed.add(parent)
            parent = parent.rpartition("/")[0]
    problems += [("extra", d) for d in sorted(dirs - needed) if not _has_wanted(d, wanted)]
    for rel in sorted(found.keys() - wanted.keys()):
        problems.append(("extra", rel))
    for rel, f in wanted.items():
        there = found.get(rel)
        if there is None:
            problems.append(("missing", rel))
            continue
        entry = there
        st = entry.stat(follow_symlinks=False)
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_size != f.size
            or bool(st.st_mode & 0o100) != f.executable
            or digest_of(entry.path, f.size) != f.digest
        ):
            problems.append(("modified", rel))
    return problems


def _has_wanted(directory: str, wanted: dict[str, LockedFile]) -> bool:
    prefix = directory + "/"
    return any(p.startswith(prefix) for p in wanted)


def _check_skill(lock_skill: InstalledSkill, scope: Scope) -> tuple[list[Drift], int]:
    drift: list[Drift] = []
    copy = lock_skill.copy
    copy_path = scope.path_of(copy.path)
    for d in lock_skill.directories:
        path = scope.path_of(d.path)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            drift.append(Drift(d.path, "missing directory", skill=lock_skill.name))
            continue
        if d.link:
            if not stat.S_ISLNK(st.st_mode) or os.path.realpath(path) != os.path.realpath(
                copy_path
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
    report = CheckReport(skills=len(lock.skills))
    jobs = jobs or min(4, os.cpu_count() or 1)
    with ThreadPoolExecutor(jobs) as pool:  # reading and hashing release the GIL
        for drift, files in pool.map(lambda s: _check_skill(s, scope), lock.skills):
            report.drift += drift
            report.files += files
    report.directories = sum(len(s.directories) for s in lock.skills)
    report.drift.sort()
    recorded = {d.path for s in lock.skills for d in s.directories}
    agent_dirs = {scope.agent_dir(a) for a in AGENTS}
    agent_dirs |= {scope.path_of(p).parent for p in recorded}
    for directory in sorted(agent_dirs):
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            shown = scope.shown(Path(entry.path))
            if entry.name.startswith(STAGING_PREFIX):
                report.leftovers.append(shown)
            elif shown not in recorded and os.path.isfile(os.path.join(entry.path, "SKILL.md")):
                report.unmanaged.append(shown)
    return report
