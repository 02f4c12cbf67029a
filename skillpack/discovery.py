"""Discovery: the skills under the configured roots and the files each one publishes.

A skill is a directory holding a regular file named ``SKILL.md``. Its published files
are the regular files below it, nested skills' files included, with these left out:

* dot entries (``.git``, ``.env``, ``.DS_Store``): left out, reported as ``dotfile``;
* paths matched by ``exclude`` / ``extend-exclude`` or a ``.skillpackignore``
  (gitwildmatch, like ``.gitignore``), or not matched by ``include`` when it is set;
* symlinks, FIFOs, sockets and devices: reported, never followed or opened;
* names that are not valid UTF-8: reported (they cannot be put in a URI).

The walk is sorted by the UTF-8 bytes of each name, so the result never depends on
the file system's order. Within a skill, ``SKILL.md`` comes first, then the files by
the bytes of their URI.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from .config import IGNORE_FILE, Config, Root
from .uri import SKILL_MD, encode_path, file_uri

SKIP_SYMLINK = "symlink"
SKIP_SPECIAL = "special"
SKIP_DOTFILE = "dotfile"
SKIP_NON_UTF8 = "non-utf8"
SKIP_UNREADABLE = "unreadable"
#: a ``skill.md`` in another letter case, in a directory without ``SKILL.md`` (not a skill)
SKIP_MISCASED = "miscased-skill-md"


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A regular file a skill publishes."""

    rel: str  #: path relative to the skill directory, ``/``-separated
    path: Path  #: absolute path on disk
    size: int
    mode: int  #: ``st_mode``
    nlink: int

    @property
    def executable(self) -> bool:
        return bool(self.mode & 0o111)


@dataclass(frozen=True, slots=True)
class Skipped:
    """An entry inside a skill that is not published, and why."""

    rel: str  #: relative to the skill directory (``repr`` of the raw name if not UTF-8)
    path: Path
    kind: str  #: one of the ``SKIP_*`` constants
    detail: str = ""


@dataclass
class SourceSkill:
    """A skill found on disk, with its published files in manifest order."""

    skill_path: str
    directory: Path
    root: Root
    files: list[SourceFile] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    parent: str | None = None  #: skill path of the innermost enclosing skill

    @property
    def name(self) -> str:
        return self.skill_path.rsplit("/", 1)[-1]

    @property
    def skill_md(self) -> Path:
        return self.directory / SKILL_MD

    def uri(self, rel: str) -> str:
        return file_uri(self.skill_path, rel)


@dataclass
class SourceTree:
    config: Config
    skills: list[SourceSkill]
    #: entries outside every skill worth reporting (unreadable, miscased skill.md)
    problems: list[Skipped] = field(default_factory=list)

    def skill(self, skill_path: str) -> SourceSkill | None:
        for s in self.skills:
            if s.skill_path == skill_path:
                return s
        return None


def _sort_key(name: str) -> bytes:
    return os.fsencode(name)


class _Ignores:
    """Exclude, include and ``.skillpackignore`` matching for one walk."""

    def __init__(self, config: Config) -> None:
        self.base = config.project_dir
        self.exclude = pathspec.GitIgnoreSpec.from_lines(config.exclude) if config.exclude else None
        self.include = pathspec.GitIgnoreSpec.from_lines(config.include) if config.include else None
        # (directory, spec) of every .skillpackignore seen so far, outermost first
        self.local: list[tuple[Path, pathspec.GitIgnoreSpec]] = []

    def _rel(self, path: Path, base: Path) -> str | None:
        try:
            return path.relative_to(base).as_posix()
        except ValueError:
            return None

    def load_local(self, directory: Path) -> bool:
        ignore_file = directory / IGNORE_FILE
        try:
            lines = ignore_file.read_text("utf-8").splitlines()
        except (FileNotFoundError, NotADirectoryError):
            return False
        except (OSError, UnicodeDecodeError):
            return False
        self.local.append((directory, pathspec.GitIgnoreSpec.from_lines(lines)))
        return True

    def excluded(self, path: Path, is_dir: bool) -> bool:
        suffix = "/" if is_dir else ""
        if self.exclude is not None:
            rel = self._rel(path, self.base)
            if rel is not None and self.exclude.match_file(rel + suffix):
                return True
        for directory, spec in self.local:
            rel = self._rel(path, directory)
            if rel is not None and spec.match_file(rel + suffix):
                return True
        return False

    def not_included(self, path: Path) -> bool:
        if self.include is None or path.name == SKILL_MD:
            return False
        rel = self._rel(path, self.base)
        return rel is None or not self.include.match_file(rel)


def _kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    return "special file"


def _join(*parts: str) -> str:
    return "/".join(p for p in parts if p)


class _Walker:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.ignores = _Ignores(config)
        self.skills: list[SourceSkill] = []
        self.problems: list[Skipped] = []

    def walk_root(self, root: Root) -> None:
        # .skillpackignore files between the project directory and the root apply too
        for directory in reversed([root.path, *root.path.parents]):
            if directory == self.config.project_dir or self.config.project_dir in directory.parents:
                self.ignores.load_local(directory)
        if (root.path / SKILL_MD).is_file() and not (root.path / SKILL_MD).is_symlink():
            base_rel = root.path.name
        else:
            base_rel = ""
        self._walk(root, root.path, base_rel, [])

    def _walk(self, root: Root, directory: Path, rel: str, active: list[SourceSkill]) -> None:
        pushed_ignore = self.ignores.load_local(directory) if directory != root.path else False
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: _sort_key(e.name))
        except OSError as exc:
            self._report(active, directory, rel, SKIP_UNREADABLE, str(exc.strerror or exc))
            if pushed_ignore:
                self.ignores.local.pop()
            return
        names = {e.name: e for e in entries}
        skill_md = names.get(SKILL_MD)
        if skill_md is not None and skill_md.is_file(follow_symlinks=False):
            skill = SourceSkill(
                skill_path=_join(root.prefix, rel),
                directory=directory,
                root=root,
                parent=active[-1].skill_path if active else None,
            )
            self.skills.append(skill)
            active = [*active, skill]
        else:
            for name, entry in names.items():
                if name.lower() == "skill.md" and entry.is_file(follow_symlinks=False):
                    path = Path(entry.path)
                    self.problems.append(Skipped(_join(rel, name), path, SKIP_MISCASED))
        for entry in entries:
            name = entry.name
            path = Path(entry.path)
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:
                self._report(active, path, None, SKIP_NON_UTF8, repr(os.fsencode(name)))
                continue
            child_rel = _join(rel, name)
            if name.startswith("."):
                if name != IGNORE_FILE:
                    self._report(active, path, child_rel, SKIP_DOTFILE)
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                self._report(active, path, child_rel, SKIP_UNREADABLE, str(exc.strerror or exc))
                continue
            mode = st.st_mode
            if stat.S_ISLNK(mode):
                if not self.ignores.excluded(path, is_dir=False):
                    target = os.readlink(path)
                    self._report(active, path, child_rel, SKIP_SYMLINK, target)
                continue
            if stat.S_ISDIR(mode):
                if not self.ignores.excluded(path, is_dir=True):
                    self._walk(root, path, child_rel, active)
                continue
            if not stat.S_ISREG(mode):
                if not self.ignores.excluded(path, is_dir=False):
                    self._report(active, path, child_rel, SKIP_SPECIAL, _kind_of(mode))
                continue
            if not active or self.ignores.excluded(path, is_dir=False):
                continue
            if self.ignores.not_included(path):
                continue
            for skill in active:
                skill_rel = _relative_to_skill(skill, root, child_rel)
                skill.files.append(SourceFile(skill_rel, path, st.st_size, mode, st.st_nlink))
        if pushed_ignore:
            self.ignores.local.pop()

    def _report(
        self, active: list[SourceSkill], path: Path, rel: str | None, kind: str, detail: str = ""
    ) -> None:
        if not active:
            if kind == SKIP_UNREADABLE:
                self.problems.append(Skipped(rel or str(path), path, kind, detail))
            return
        innermost = active[-1]
        skill_rel = (
            _relative_to_skill(innermost, innermost.root, rel)
            if rel is not None
            else os.fsdecode(path.relative_to(innermost.directory))
        )
        for skill in active:
            skill.skipped.append(
                Skipped(
                    _relative_to_skill(skill, skill.root, rel) if rel is not None else skill_rel,
                    path,
                    kind,
                    detail,
                )
            )


def _relative_to_skill(skill: SourceSkill, root: Root, rel_from_base: str) -> str:
    """Convert a path relative to the walk base into one relative to ``skill``."""
    skill_rel = (
        skill.skill_path[len(root.prefix) :].lstrip("/") if root.prefix else skill.skill_path
    )
    if not skill_rel:
        return rel_from_base
    return rel_from_base[len(skill_rel) + 1 :]


def _manifest_order(skill: SourceSkill) -> None:
    skill.files.sort(key=lambda f: (f.rel != SKILL_MD, encode_path(f.rel).encode("ascii")))
    skill.skipped.sort(key=lambda s: s.rel.encode("utf-8", "surrogateescape"))


def discover(config: Config) -> SourceTree:
    """Every skill under the configured roots, in skill-path byte order."""
    walker = _Walker(config)
    for root in config.roots:
        walker.walk_root(root)
    for skill in walker.skills:
        _manifest_order(skill)
    walker.skills.sort(key=lambda s: s.skill_path.encode("utf-8"))
    return SourceTree(config, walker.skills, walker.problems)


def skills_for_paths(tree: SourceTree, paths: Iterable[Path]) -> list[SourceSkill]:
    """The skills a set of paths touches: each skill containing a path, and every skill
    under a directory path. Enclosing skills count too (their manifests hold the file)."""
    wanted: dict[str, SourceSkill] = {}
    resolved = [Path(p).resolve() for p in paths]
    for skill in tree.skills:
        d = skill.directory
        for p in resolved:
            if p == d or d in p.parents or p in d.parents:
                wanted[skill.skill_path] = skill
                break
    return [s for s in tree.skills if s.skill_path in wanted]


def select(tree: SourceTree, paths: Sequence[Path]) -> list[SourceSkill]:
    """All skills when no path is given, else :func:`skills_for_paths`."""
    return list(tree.skills) if not paths else skills_for_paths(tree, paths)
