"""Discovery: the skills under the configured roots and the files each one publishes.

A skill is a directory holding a regular file named ``SKILL.md``. Its published files
are the regular files below it, nested skills' files included, with these left out:

* dot entries (``.git``, ``.env``, ``.DS_Store``): left out, reported as ``dotfile``;
* paths matched by ``exclude`` / ``extend-exclude`` or a ``.skillpackignore``
  (gitwildmatch, like ``.gitignore``), or not matched by ``include`` when it is set;
* symlinks, FIFOs, sockets and devices: reported, never followed or opened;
* names that are not valid UTF-8: reported (they cannot be put in a URI);
* what skillpack writes (:func:`is_project_output`): the lock, and the bundles and
  signatures in the output directory; left out without a word, whatever the layout (a
  project directory that is itself a skill keeps them in it), so that outputs never
  become inputs.

Outside every skill, a symlinked ``SKILL.md``, and a symlink to a directory that holds
skills (a ``SKILL.md``, or subdirectories holding one) are reported too (``symlink``
entries of :attr:`SourceTree.problems`), unless the skills behind the link are found
anyway (the link leads into a root searched): links are never followed, and a skill
never goes missing in silence.

The walk is sorted by the UTF-8 bytes of each name, so the result never depends on
the file system's order. Within a skill, ``SKILL.md`` comes first, then the files by
the bytes of their URI.

Where: the configured roots; without ``roots`` in the configuration, also the agent
directories of :mod:`skillpack.source.agents` (``.claude/skills``, ``.agents/skills``...)
and the catalog groups (``skills/.curated``...) present under the project directory,
each searched as a root of its own (:func:`search_roots`). Dot directories are otherwise
never searched.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple, Protocol

from skillpack._internal.uri import SKILL_MD, encode_path, file_uri
from skillpack.source.agents import project_dirs
from skillpack.source.config import IGNORE_FILE, Config, Root

SKIP_SYMLINK = "symlink"
SKIP_SPECIAL = "special"
SKIP_DOTFILE = "dotfile"
SKIP_NON_UTF8 = "non-utf8"
SKIP_UNREADABLE = "unreadable"
#: a ``skill.md`` in another letter case, in a directory without ``SKILL.md`` (not a skill)
SKIP_MISCASED = "miscased-skill-md"
#: a skill whose skill path another root gives already, with other files (not published)
SKIP_CONFLICTING_COPY = "conflicting-copy"


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A regular file a skill publishes."""

    rel: str  #: path relative to the skill directory, ``/``-separated
    #: absolute path on disk, as a string (what opening the file and keying it by path
    #: need: a build of 1,000 skills never makes a ``Path`` of a file; :attr:`path`)
    where: str
    size: int
    mode: int  #: ``st_mode``
    nlink: int

    @property
    def path(self) -> Path:
        """The absolute path on disk (made at each call: for messages, not loops)."""
        return Path(self.where)

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
    #: False when ``discover(within=...)`` found the skill but did not collect its files
    complete: bool = True

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
    #: the roots searched (:func:`search_roots`), for saying where no skill was found
    roots: tuple[Root, ...] = ()

    def skill(self, skill_path: str) -> SourceSkill | None:
        for s in self.skills:
            if s.skill_path == skill_path:
                return s
        return None


def _sort_key(entry: os.DirEntry[str]) -> bytes:
    return os.fsencode(entry.name)


_by_name = attrgetter("name")


def _sorted_entries(entries: Iterable[os.DirEntry[str]]) -> list[os.DirEntry[str]]:
    """``entries`` in the byte order of their names. ASCII names (the usual case) are
    sorted as strings, which is that order, without encoding each; a directory holding
    any other name is sorted by the names' bytes (the surrogate escapes that stand for
    bytes that are not UTF-8 do not sort as those bytes)."""
    found = sorted(entries, key=_by_name)
    if not all(entry.name.isascii() for entry in found):
        found.sort(key=_sort_key)
    return found


if sys.version_info < (3, 12) and hasattr(Path, "_make_child_relpath"):

    def _child(directory: Path, name: str) -> Path:
        """``directory / name`` for one plain part ``name`` (a walk's entry, a part of a
        file's path sent back by a forked walker): on Python 3.11 parsing the whole path
        again costs 4 us an entry (35 ms of a discovery of 9,000 files and directories),
        and the child of a parsed path (what ``Path.iterdir`` makes) 0.5 us."""
        return directory._make_child_relpath(name)  # type: ignore[attr-defined,no-any-return]

else:

    def _child(directory: Path, name: str) -> Path:
        """``directory / name`` for one plain part ``name`` (as fast as parsing the whole
        path from 3.12 on)."""
        return directory / name


def _rel_or_none(path: Path, base: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def _under(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name


def _is_utf8(name: str) -> bool:
    """False for a name whose bytes are not UTF-8 (decoded with surrogate escapes)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Spec(Protocol):
    def match_file(self, file: str, /) -> bool: ...


#: a gitignore pattern that names an entry by its own name, at any depth: no slash but a
#: trailing one (a directory), no negation, comment, escape, space or ``**``, bracket
#: sets of letters and digits only; ``*.py[cod]``, ``__pycache__/``, ``node_modules/``
_NAME_PATTERN = re.compile(r"(?:[A-Za-z0-9_.~+=@%,-]|\*(?!\*)|\?|\[[A-Za-z0-9]+\])+/?")


class _NamePatterns:
    """Gitignore patterns that each match an entry by its own name (:data:`_NAME_PATTERN`),
    as ``pathspec.GitIgnoreSpec`` matches them (tests/test_discovery.py checks the two
    agree): a path matches when one of its names does, a pattern ending in ``/`` seeing
    only directories (every name but the last, and the last of a path ending in ``/``).
    The default excludes are such patterns, so a walk with them does not import
    pathspec (start-up of ``skillpack lint FILE``)."""

    def __init__(self, patterns: Sequence[str]) -> None:
        names = "|".join(_name_regex(p) for p in patterns if not p.endswith("/"))
        dirs = "|".join(_name_regex(p[:-1]) for p in patterns if p.endswith("/"))
        either = [f"(?:{names})(?:/|$)"] if names else []
        either += [f"(?:{dirs})/"] if dirs else []
        # anchored as pathspec anchors them (a name holding a line break aside)
        self._regex = re.compile(f"(?:.+/)?(?:{'|'.join(either)})")

    def match_file(self, file: str, /) -> bool:
        return self._regex.match(file) is not None


def _name_regex(pattern: str) -> str:
    """The regex of a name pattern: ``*`` and ``?`` match within one name."""
    parts = re.split(r"(\*|\?|\[[^]]*\])", pattern)
    return "".join(
        "[^/]*"
        if part == "*"
        else "[^/]"
        if part == "?"
        else part
        if part[:1] == "["
        else re.escape(part)
        for part in parts
    )


def gitignore_spec(lines: Sequence[str]) -> _Spec | None:
    """The gitignore patterns ``lines`` (None when there are none): matched here when
    each names an entry by its own name, else by ``pathspec``, imported then."""
    patterns = [line for line in lines if line and not line.startswith("#")]
    if not patterns:
        return None
    if all(_NAME_PATTERN.fullmatch(p) for p in patterns):
        return _NamePatterns(patterns)
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


class _Ignores:
    """Exclude, include and ``.skillpackignore`` matching for one walk.

    Paths are matched as strings relative to the walk's anchor directory (the hot loop
    builds no Path objects): ``prefix`` turns such a path into one relative to the
    project directory, and each ``.skillpackignore`` records how to turn it into one
    relative to its own directory.
    """

    def __init__(self, config: Config) -> None:
        self.base = config.project_dir
        self.exclude = gitignore_spec(config.exclude)
        self.include = gitignore_spec(config.include)
        #: the anchor relative to the project directory ("" the same, None outside it)
        self.prefix: str | None = ""
        #: (strip, prepend, spec) of every .skillpackignore in force, outermost first: a
        #: path relative to the anchor loses ``strip/`` and gains ``prepend/``
        self.local: list[tuple[str, str, _Spec]] = []

    def start(self, anchor: Path) -> None:
        self.prefix = _rel_or_none(anchor, self.base)
        if self.prefix == ".":
            self.prefix = ""
        self.local = []

    def load_local(self, directory: Path, strip: str = "", prepend: str = "") -> bool:
        try:
            lines = (directory / IGNORE_FILE).read_text("utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return False
        spec = gitignore_spec(lines)
        if spec is None:  # no pattern in it
            return False
        self.local.append((strip, prepend, spec))
        return True

    def _project_rel(self, rel: str) -> str | None:
        return None if self.prefix is None else _under(self.prefix, rel)

    def excluded(self, rel: str, is_dir: bool) -> bool:
        """Whether the entry at ``rel`` (relative to the anchor) is excluded."""
        suffix = "/" if is_dir else ""
        if self.exclude is not None:
            project_rel = self._project_rel(rel)
            if project_rel is not None and self.exclude.match_file(project_rel + suffix):
                return True
        for strip, prepend, spec in self.local:
            local = rel[len(strip) + 1 :] if strip else rel
            if spec.match_file(_under(prepend, local) + suffix):
                return True
        return False

    def not_included(self, rel: str) -> bool:
        if self.include is None or rel.rsplit("/", 1)[-1] == SKILL_MD:
            return False
        project_rel = self._project_rel(rel)
        return project_rel is None or not self.include.match_file(project_rel)


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


#: what skillpack writes in the output directory: bundles and their signatures
OUTPUT_SUFFIXES: tuple[str, ...] = (".skp", ".sigstore.json")


def is_project_output(config: Config, path: Path | str) -> bool:
    """Whether ``path`` (absolute, symlinks resolved) is an output of ``config``'s project,
    never published: the lock, or a bundle or signature in the output directory."""
    text = str(path)
    return text == str(config.lock_path) or (
        os.path.dirname(text) == str(config.output_dir) and text.endswith(OUTPUT_SUFFIXES)
    )


class _Walker:
    def __init__(
        self,
        config: Config,
        within: tuple[str, ...] | None = None,
        searched: Sequence[str] = (),
        jobs: int = 1,
        meanwhile: Callable[[], object] | None = None,
    ) -> None:
        self.config = config
        self.within = within
        self.ignores = _Ignores(config)
        self.skills: list[SourceSkill] = []
        self.problems: list[Skipped] = []
        # the project's outputs (is_project_output), as the walk's strings
        self.lock = str(config.lock_path)
        self.output_dir = str(config.output_dir)
        #: the real paths of the roots walked: a link into one of them hides nothing
        self.searched = tuple(searched)
        #: processes a root's walk may be shared by (:meth:`_walk_split`)
        self.jobs = jobs
        #: the caller's own work, done by this process while forked ones walk (once)
        self.meanwhile = meanwhile

    def split(self, entries: Sequence[os.DirEntry[str]]) -> bool:
        """Whether a root with these entries is walked by :attr:`jobs` processes: enough
        subdirectories that forking costs less than it saves."""
        if self.jobs < 2 or len(entries) < SPLIT_MIN_ENTRIES:
            return False
        dirs = sum(1 for e in entries if e.is_dir(follow_symlinks=False))
        return dirs >= SPLIT_MIN_ENTRIES

    def walk_root(self, root: Root) -> None:
        if (root.path / SKILL_MD).is_file() and not (root.path / SKILL_MD).is_symlink():
            base_rel = root.path.name  # the root is itself a skill: paths start with its name
            anchor = root.path.parent
        else:
            base_rel = ""
            anchor = root.path
        self.ignores.start(anchor)
        # .skillpackignore files between the project directory and the root apply too
        project = self.config.project_dir
        for directory in reversed([root.path, *root.path.parents]):
            if directory == project or project in directory.parents:
                below = _rel_or_none(directory, anchor)
                if below is not None:
                    self.ignores.load_local(directory, strip="" if below == "." else below)
                else:
                    self.ignores.load_local(
                        directory, prepend=anchor.relative_to(directory).as_posix()
                    )
        self._walk(root, root.path, base_rel, [])

    def _wanted(self, directory: str) -> bool:
        return self.within is None or any(
            is_within(p, directory) or is_within(directory, p) for p in self.within
        )

    def _walk(self, root: Root, here: Path, rel: str, active: list[SourceSkill]) -> None:
        directory = str(here)
        try:
            with os.scandir(directory) as it:
                entries = _sorted_entries(it)
        except OSError as exc:
            self._report(active, here, rel, SKIP_UNREADABLE, str(exc.strerror or exc))
            return
        names = {e.name: e for e in entries}
        pushed_ignore = (
            IGNORE_FILE in names
            and directory != str(root.path)
            and self.ignores.load_local(here, strip=rel)
        )
        skill_md = names.get(SKILL_MD)
        made: SourceSkill | None = None  # the skill this directory is
        if skill_md is not None and skill_md.is_file(follow_symlinks=False):
            skill = made = SourceSkill(
                skill_path=_join(root.prefix, rel),
                directory=here,
                root=root,
                parent=active[-1].skill_path if active else None,
                complete=self._wanted(directory),
            )
            self.skills.append(skill)
            active = [*active, skill]
        else:
            for name, entry in names.items():
                if name.lower() == "skill.md" and entry.is_file(follow_symlinks=False):
                    path = Path(entry.path)
                    self.problems.append(Skipped(_under(rel, name), path, SKIP_MISCASED))
            if skill_md is not None and not active and skill_md.is_symlink():
                # a linked SKILL.md: this directory is not a skill, say so
                self._linked(skill_md, _under(rel, SKILL_MD))
        ignores = self.ignores
        if not any(skill.complete for skill in active):
            # no file here is wanted (outside every skill, or discover(within=...)):
            # only look for skills in the subdirectories
            if not active and here == root.path and self.split(entries):
                self._walk_split(root, here, rel, entries)
            else:
                self._walk_children(root, here, rel, active, entries)
            if pushed_ignore:
                self.ignores.local.pop()
            return
        # where each active skill's relative paths start within ``rel``-style paths
        offsets = [_skill_offset(skill, root) for skill in active]
        in_output_dir = directory == self.output_dir
        for entry in entries:
            name = entry.name
            if entry.path == self.lock or (in_output_dir and name.endswith(OUTPUT_SUFFIXES)):
                continue  # the project's own outputs: never inputs
            child_rel = _under(rel, name)
            if not _is_utf8(name):
                if not ignores.excluded(child_rel, is_dir=entry.is_dir(follow_symlinks=False)):
                    path = Path(entry.path)
                    self._report(active, path, None, SKIP_NON_UTF8, repr(os.fsencode(name)))
                continue
            if name.startswith("."):
                if name != IGNORE_FILE:
                    self._report(active, Path(entry.path), child_rel, SKIP_DOTFILE)
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not ignores.excluded(child_rel, is_dir=True):
                        self._walk(root, _child(here, entry.name), child_rel, active)
                    continue
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                self._report(
                    active, Path(entry.path), child_rel, SKIP_UNREADABLE, str(exc.strerror or exc)
                )
                continue
            mode = st.st_mode
            if stat.S_ISLNK(mode):
                if not ignores.excluded(child_rel, is_dir=False):
                    target = os.readlink(entry.path)
                    self._report(active, Path(entry.path), child_rel, SKIP_SYMLINK, target)
                continue
            if stat.S_ISDIR(mode):  # replaced by a directory since it was listed
                continue
            if not stat.S_ISREG(mode):
                if not ignores.excluded(child_rel, is_dir=False):
                    kind = _kind_of(mode)
                    self._report(active, Path(entry.path), child_rel, SKIP_SPECIAL, kind)
                continue
            if ignores.excluded(child_rel, is_dir=False) or ignores.not_included(child_rel):
                continue
            where = entry.path  # made by the listing: the directory's path and the name
            for skill, offset in zip(active, offsets, strict=True):
                skill.files.append(
                    SourceFile(child_rel[offset:], where, st.st_size, mode, st.st_nlink)
                )
        if made is not None and made.complete:
            # its files are all found: in order here, in the process that walked them
            _manifest_order(made)
        if pushed_ignore:
            self.ignores.local.pop()

    def _walk_children(
        self,
        root: Root,
        here: Path,
        rel: str,
        active: list[SourceSkill],
        entries: Sequence[os.DirEntry[str]],
    ) -> None:
        """The subdirectories of a directory none of whose files is wanted (and the
        symlinks among its entries, outside every skill)."""
        ignores = self.ignores
        for entry in entries:
            name = entry.name
            if name.startswith(".") or not _is_utf8(name):
                continue
            if not entry.is_dir(follow_symlinks=False):
                if not active and name != SKILL_MD and entry.is_symlink():
                    child_rel = _under(rel, name)
                    if not ignores.excluded(child_rel, is_dir=True):
                        self._linked(entry, child_rel)
                continue
            child_rel = _under(rel, name)
            if not ignores.excluded(child_rel, is_dir=True):
                self._walk(root, _child(here, entry.name), child_rel, active)

    def _walk_split(
        self, root: Root, here: Path, rel: str, entries: Sequence[os.DirEntry[str]]
    ) -> None:
        """:meth:`_walk_children` of a root that is no skill, its entries shared out
        between this process and forked ones (:func:`~skillpack._internal.parallel.
        map_ranges`), each entry walked as a whole walk would walk it. An entry's work
        is unknown before its walk (a skill, or a folder of fifty), and such folders
        come together (``team-a/``, ``team-b/``): so each range of the work holds
        entries far apart in the listing (every :data:`SPLIT_STRIDE`-th one). A forked
        process's skills and problems come back as plain values (:func:`_pack`) made
        objects again here, as they come (between this process's own ranges); the
        result is one process's walk, in the same order."""
        from skillpack._internal.parallel import map_ranges

        owner = os.getpid()
        count = len(entries)
        order = [i for first in range(SPLIT_STRIDE) for i in range(first, count, SPLIT_STRIDE)]

        def part(start: int, stop: int) -> _Walked:
            done: _Walked = []
            kept = self.skills, self.problems
            try:
                for index in order[start:stop]:
                    self.skills, self.problems = [], []
                    self._walk_children(root, here, rel, [], entries[index : index + 1])
                    found = _Found(self.skills, self.problems)
                    done.append((index, found if os.getpid() == owner else _pack(found)))
            finally:
                self.skills, self.problems = kept
            return done

        def received(done: _Walked) -> _Walked:
            # a child's skills as objects, made here between this process's own ranges
            return [(i, v if isinstance(v, _Found) else _unpack(v, root)) for i, v in done]

        walked: list[_Found | _Packed | None] = [None] * count
        first, self.meanwhile = self.meanwhile, None
        for done in map_ranges(part, count, self.jobs, first, received):
            for index, value in done:
                walked[index] = value
        for each in walked:
            assert isinstance(each, _Found)  # map_ranges returns every range's result
            self.skills += each.skills
            self.problems += each.problems

    def _linked(self, entry: os.DirEntry[str], rel: str) -> None:
        """A symlink outside every skill: a problem when it is a ``SKILL.md``, or leads
        to a directory holding skills that no root searched reaches."""
        try:
            target = os.readlink(entry.path)
        except OSError:
            return
        if entry.name != SKILL_MD:
            real = os.path.realpath(entry.path)
            if not _holds_skills(real) or any(_walked_from(real, s) for s in self.searched):
                return
        self.problems.append(Skipped(rel, Path(entry.path), SKIP_SYMLINK, target))

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


def _skill_offset(skill: SourceSkill, root: Root) -> int:
    """How many characters of a walk-relative path precede a path relative to ``skill``."""
    skill_rel = (
        skill.skill_path[len(root.prefix) :].lstrip("/") if root.prefix else skill.skill_path
    )
    return len(skill_rel) + 1 if skill_rel else 0


def _relative_to_skill(skill: SourceSkill, root: Root, rel_from_base: str) -> str:
    """Convert a path relative to the walk base into one relative to ``skill``."""
    return rel_from_base[_skill_offset(skill, root) :]


def _manifest_order(skill: SourceSkill) -> None:
    """A complete skill's files in manifest order (``SKILL.md`` first, then by the bytes
    of their URIs) and its skipped entries by path, once its directory is walked."""
    skill.files.sort(key=lambda f: (f.rel != SKILL_MD, encode_path(f.rel).encode("ascii")))
    skill.skipped.sort(key=lambda s: s.rel.encode("utf-8", "surrogateescape"))


# --- a root walked by several processes ---------------------------------------------
#: a root is walked by several processes from this many subdirectories on
SPLIT_MIN_ENTRIES = 64
#: a range of a shared walk holds every this-many-th entry of the root (far apart)
SPLIT_STRIDE = 64


class _Found(NamedTuple):
    """The skills and problems a walk of some of a root's entries found."""

    skills: list[SourceSkill]
    problems: list[Skipped]


#: a skill of one root as plain values: (skill path, directory, parent, complete, files
#: as (rel, size, mode, nlink), skipped entries as (rel, path, kind, detail))
_PackedSkill = tuple[
    str, str, "str | None", bool, list[tuple[str, int, int, int]],
    list[tuple[str, str, str, str]],
]  # fmt: skip
_Packed = tuple[list[_PackedSkill], list[tuple[str, str, str, str]]]
#: what a range of a shared walk found, by the index of the root's entry walked
_Walked = list[tuple[int, "_Found | _Packed"]]


def _pack(found: _Found) -> _Packed:
    """``found`` as plain values, which pickle fast (a pickled ``Path`` costs about 5 us
    to make again): a file's path is its skill's directory and its ``rel``."""
    skills, problems = found
    return (
        [
            (s.skill_path, str(s.directory), s.parent, s.complete,
             [(f.rel, f.size, f.mode, f.nlink) for f in s.files],
             [(k.rel, str(k.path), k.kind, k.detail) for k in s.skipped])
            for s in skills
        ],
        [(k.rel, str(k.path), k.kind, k.detail) for k in problems],
    )  # fmt: skip


def _native(rel: str) -> str:
    """A ``/``-separated relative path with the system's separators."""
    return rel if os.sep == "/" else rel.replace("/", os.sep)


def _unpack(packed: _Packed, root: Root) -> _Found:
    """The objects :func:`_pack` was given (skills of ``root``), equal to them: each
    file's path is its skill's directory and its ``rel``, joined as the walk's listing
    joins a directory and a name."""
    skills: list[SourceSkill] = []
    for skill_path, directory, parent, complete, files, skipped in packed[0]:
        below = directory if directory.endswith(os.sep) else directory + os.sep
        made = [
            SourceFile(rel, below + _native(rel), size, mode, nlink)
            for rel, size, mode, nlink in files
        ]
        skills.append(
            SourceSkill(skill_path, Path(directory), root, made,
                        [Skipped(r, Path(p), k, d) for r, p, k, d in skipped], parent, complete)
        )  # fmt: skip
    return _Found(skills, [Skipped(r, Path(p), k, d) for r, p, k, d in packed[1]])


# --- where to look -----------------------------------------------------------------
#: Dot folders that group the skills of a catalog (``skills/.curated/<skill>``, as in
#: OpenAI's skills catalog); searched in the project's ``skills/`` folder and in every
#: agent directory. A group folder is left out of skill paths: ``skills/.curated/gh-fix``
#: is the skill ``skills/gh-fix``, ``.agents/skills/.system/x`` the skill ``x``.
CATALOG_GROUPS: tuple[str, ...] = (".curated", ".experimental", ".system")
#: the project's folder of skills, where catalog groups are looked for
SKILLS_FOLDER = "skills"
AGENT_DIRECTORY = "agent directory"
CATALOG_GROUP = "catalog group"


def _plain_dir(path: Path, below: Path) -> bool:
    """Whether ``path`` is a directory reached from ``below`` without a symlink."""
    current = below
    for part in path.relative_to(below).parts:
        current = current / part
        if current.is_symlink() or not current.is_dir():
            return False
    return True


def search_roots(config: Config) -> tuple[tuple[Root, ...], list[Skipped]]:
    """The roots discovery walks, and the conventional directories it leaves out.

    The configured roots always; when ``roots`` is not configured
    (:attr:`~skillpack.source.config.Config.conventional_roots`) and the project directory
    is not itself a skill, also every agent directory (:func:`.agents.project_dirs`) and
    catalog group (:data:`CATALOG_GROUPS`) present under the project directory, in that
    order. A conventional directory reached through a symlink is not followed: when the
    link leads to another directory searched (``.claude/skills -> ../.agents/skills``)
    the skills are found there; otherwise it is returned as a ``symlink`` entry.
    """
    roots = list(config.roots)
    skipped: list[Skipped] = []
    project = config.project_dir
    if not config.conventional_roots or (project / SKILL_MD).is_file():
        return tuple(roots), skipped
    candidates = [(rel, "", AGENT_DIRECTORY) for rel in project_dirs()]
    for parent, prefix in [(SKILLS_FOLDER, SKILLS_FOLDER), *((d, "") for d in project_dirs())]:
        candidates += [(f"{parent}/{group}", prefix, CATALOG_GROUP) for group in CATALOG_GROUPS]
    links: list[tuple[str, Path]] = []
    for rel, prefix, why in candidates:
        path = project / rel
        if (path.parent / SKILL_MD).is_file():
            continue  # a dot folder of a skill (skills/SKILL.md): one of its left-out entries
        if _plain_dir(path, project):
            roots.append(Root(path, prefix, why))
        elif path.is_dir():  # through a symlink
            links.append((rel, path))
    searched = [os.path.realpath(root.path) for root in roots]
    for rel, path in links:
        if not any(_walked_from(os.path.realpath(path), s) for s in searched):
            link = next(p for p in (path, *path.parents) if p.is_symlink())
            skipped.append(Skipped(rel, link, SKIP_SYMLINK, os.readlink(link)))
    return tuple(roots), skipped


def _holds_skills(directory: str) -> bool:
    """Whether ``directory`` is a skill, or a directory whose subdirectories are (one
    level: a folder of skills), without following any further link."""
    try:
        if os.path.isfile(os.path.join(directory, SKILL_MD)):
            return True
        with os.scandir(directory) as it:
            return any(
                e.is_dir(follow_symlinks=False) and os.path.isfile(os.path.join(e.path, SKILL_MD))
                for e in it
                if not e.name.startswith(".")
            )
    except OSError:
        return False


def _walked_from(path: str, root: str) -> bool:
    """Whether the walk of ``root`` reaches ``path`` (at or below it, no dot directory
    between)."""
    if not is_within(path, root):
        return False
    below = path[len(root) :].strip(os.sep)
    return not any(part.startswith(".") for part in below.split(os.sep) if part)


def _same_files(a: Path, b: Path) -> bool:
    """Whether directories ``a`` and ``b`` hold the same entries with the same bytes
    (symlinks compared by target, never followed)."""
    import filecmp

    def entries(top: Path) -> dict[str, str]:
        found: dict[str, str] = {}
        for directory, dirs, files in os.walk(top):
            dirs.sort()
            for name in sorted(files) + [d for d in dirs if os.path.islink(Path(directory, d))]:
                path = Path(directory, name)
                rel = path.relative_to(top).as_posix()
                found[rel] = "link:" + os.readlink(path) if path.is_symlink() else "file"
        return found

    left, right = entries(a), entries(b)
    if left != right:
        return False
    return all(
        kind != "file" or filecmp.cmp(a / rel, b / rel, shallow=False) for rel, kind in left.items()
    )


def _one_per_skill_path(
    skills: list[SourceSkill], problems: list[Skipped], project: Path
) -> list[SourceSkill]:
    """The skills with one skill per skill path. Two roots giving the same skill path
    (the same skill installed for two agents: ``.agents/skills/x`` and
    ``.claude/skills/x``) are merged when the two directories hold the same files: the
    copy whose files were collected is kept, else the first found. Copies that differ
    keep the first found, and the other is a ``conflicting-copy`` problem."""
    first: dict[str, int] = {}
    out: list[SourceSkill] = []
    for skill in skills:
        index = first.get(skill.skill_path)
        if index is None:
            first[skill.skill_path] = len(out)
            out.append(skill)
            continue
        kept = out[index]
        if _same_files(kept.directory, skill.directory):
            if skill.complete and not kept.complete:
                out[index] = skill
            continue
        shown = os.path.relpath(kept.directory, project)
        problems.append(Skipped(skill.skill_path, skill.directory, SKIP_CONFLICTING_COPY, shown))
    return out


def where_searched(tree: SourceTree) -> tuple[str, list[str]]:
    """Where discovery looked, for an error that found no skill: (the place, in one
    phrase; one line per root searched and what else was looked for)."""
    config = tree.config
    project = config.project_dir
    lines = []
    for root in tree.roots:
        try:
            shown = root.path.relative_to(project).as_posix()
        except ValueError:
            shown = str(root.path)
        what = f" ({root.conventional})" if root.conventional else " and its subdirectories"
        lines.append(f"searched {shown}{what}")
    if config.conventional_roots:
        agent_dirs = project_dirs()
        groups = ", ".join(f"{SKILLS_FOLDER}/{g}" for g in CATALOG_GROUPS)
        lines.append(
            f"looked for {len(agent_dirs)} agent directories ({', '.join(agent_dirs[:5])}, "
            f"...) and the catalog groups {groups}"
        )
        return str(project), lines
    lines.append("agent directories are searched only when 'roots' is not configured")
    return f"the roots of {config.source_display}", lines


def discover(
    config: Config,
    within: Sequence[Path] | None = None,
    jobs: int | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> SourceTree:
    """Every skill under the configured roots, in skill-path byte order.

    With ``within``, only the skills those paths touch (as :func:`skills_for_paths`
    selects them) get their files and skipped entries collected; the others are found
    (for checks across the tree, such as duplicate names) with ``complete`` False. This
    is what keeps a pre-commit run on one skill of a large tree fast.

    A root of many subdirectories is walked by ``jobs`` processes (default: one per
    CPU on Linux, at most 4, or ``SKILLPACK_JOBS``), with the same result; this process
    then runs ``meanwhile()`` (the caller's own preparation, such as a build's for its
    pass) while the forked ones start walking, and takes fewer of the walk's ranges.
    ``meanwhile`` runs only then, at most once. The collector is paused throughout: the
    walk makes only objects that live on.
    """
    from skillpack._internal.parallel import collector_paused, default_jobs

    with collector_paused():
        return _discover(config, within, default_jobs() if jobs is None else jobs, meanwhile)


def _discover(
    config: Config,
    within: Sequence[Path] | None,
    jobs: int,
    meanwhile: Callable[[], object] | None,
) -> SourceTree:
    roots, links = search_roots(config)
    walker = _Walker(
        config,
        None if within is None else tuple(str(Path(p).resolve()) for p in within),
        [os.path.realpath(root.path) for root in roots],
        jobs,
        meanwhile,
    )
    walker.problems += links
    for root in roots:
        walker.walk_root(root)
    walker.skills = _one_per_skill_path(walker.skills, walker.problems, config.project_dir)
    walker.skills.sort(key=lambda s: s.skill_path.encode("utf-8"))
    return SourceTree(config, walker.skills, walker.problems, roots)


def file_paths(skills: Iterable[SourceSkill]) -> dict[str, str]:
    """Where each file of ``skills`` is on disk (:attr:`SourceFile.where`), by URI (for a
    :class:`~skillpack.content.TreeSource`)."""
    return {skill.uri(f.rel): f.where for skill in skills for f in skill.files}


def is_within(path: Path | str, directory: Path | str) -> bool:
    """Whether ``path`` is ``directory`` or lies below it (absolute paths, compared as
    strings: ``Path.parents`` membership is too slow for every skill of a large tree)."""
    p, d = str(path), str(directory)
    return p == d or p.startswith(d.rstrip(os.sep) + os.sep)


def skills_for_paths(tree: SourceTree, paths: Iterable[Path]) -> list[SourceSkill]:
    """The skills a set of paths touches: each skill containing a path, and every skill
    under a directory path. Enclosing skills count too (their manifests hold the file)."""
    resolved = [str(Path(p).resolve()) for p in paths]
    return [
        skill
        for skill in tree.skills
        if any(is_within(p, skill.directory) or is_within(skill.directory, p) for p in resolved)
    ]


def select(tree: SourceTree, paths: Sequence[Path]) -> list[SourceSkill]:
    """All skills when no path is given, else :func:`skills_for_paths`."""
    return list(tree.skills) if not paths else skills_for_paths(tree, paths)
