"""What a check sees: the run (the whole tree and the skills being linted) and one skill,
with its ``SKILL.md`` read and parsed once, lazily."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from skillpack._internal.uri import SKILL_MD
from skillpack.lint.finding import Finding
from skillpack.lint.selection import LintOptions
from skillpack.source.discovery import SourceFile, SourceSkill, SourceTree, is_within
from skillpack.source.entries import WHOLE_READ_MAX, read_file
from skillpack.source.frontmatter import (
    AMBIGUOUS_SCALAR,
    BOM,
    Frontmatter,
    FrontmatterError,
    decode_skill_md,
    parse_skill_md,
    split_frontmatter,
)
from skillpack.source.paths import PathProblem, tree_problems


@dataclass
class RunContext:
    """One lint run: the tree, the skills linted, and state shared between skills."""

    tree: SourceTree
    selected: list[SourceSkill]
    options: LintOptions
    #: the paths the run was asked about (None: the whole tree)
    paths: tuple[Path, ...] | None = None
    #: files already scanned for content (nested skills share their files with parents),
    #: by path (:attr:`~skillpack.source.discovery.SourceFile.where`)
    scanned: set[str] = field(default_factory=set)
    #: files already checked to be readable (the same)
    opened: set[str] = field(default_factory=set)
    #: the bytes of the nested skills' SKILL.md read as their parents' files, for the
    #: nested skills' own checks (no file is read twice)
    nested_skill_mds: dict[str, bytes] = field(default_factory=dict)
    _published: dict[str, list[tuple[SourceSkill, str]]] | None = field(default=None, repr=False)

    @cached_property
    def entry_names(self) -> dict[str, tuple[str, SourceFile]]:
        """The archive entry name of every file of the tree (``<skill path>/<path in the
        skill>``), each with the first skill publishing it and the file."""
        owner: dict[str, tuple[str, SourceFile]] = {}
        for skill in self.tree.skills:
            for f in skill.files:
                owner.setdefault(f"{skill.skill_path}/{f.rel}", (skill.skill_path, f))
        return owner

    @cached_property
    def entry_problems(self) -> list[PathProblem]:
        """What the bundle writer refuses in :attr:`entry_names`, judged once for the
        run's check of them (SP207, SP210) and for the build that writes them
        (:func:`~skillpack.source.paths.tree_problems`)."""
        return list(tree_problems(self.entry_names))

    def published_as(self, path: Path | str) -> list[tuple[SourceSkill, str]]:
        """The skills of the tree that publish the file at ``path`` (absolute, normalized),
        each with the file's path in it (nested skills share files with their parents);
        for a directory, the skills publishing files below it, with its path in them
        (``""``: the skill's own directory).

        A skill found but not collected (``discover(within=...)``, a pre-commit run) is
        judged from the disk: a regular file below it, not under a dot entry, counts as
        published (exclude patterns aside), so that a run on some files reports what a
        run on the whole tree reports.
        """
        if os.path.isdir(path) and not os.path.islink(path):
            return self._published_dir(str(path))
        if self._published is None:
            published: dict[str, list[tuple[SourceSkill, str]]] = {}
            for skill in self.tree.skills:
                for f in skill.files:
                    published.setdefault(f.where, []).append((skill, f.rel))
            self._published = published
        found = list(self._published.get(str(path), []))
        for skill in self.tree.skills:
            if skill.complete or not is_within(path, skill.directory):
                continue
            rel = Path(path).relative_to(skill.directory).as_posix()
            if any(part.startswith(".") for part in rel.split("/")):
                continue
            if os.path.isfile(path) and not os.path.islink(path):
                found.append((skill, rel))
        return found

    def _published_dir(self, path: str) -> list[tuple[SourceSkill, str]]:
        found = []
        below = path.rstrip(os.sep) + os.sep
        for skill in self.tree.skills:
            if not is_within(path, skill.directory):
                continue
            rel = (
                ""
                if path == str(skill.directory)
                else Path(path).relative_to(skill.directory).as_posix()
            )
            if any(part.startswith(".") for part in rel.split("/") if part):
                continue
            if not skill.complete or any(f.where.startswith(below) for f in skill.files):
                found.append((skill, rel))
        return found

    def requested(self, path: Path) -> bool:
        """Whether ``path`` lies under (or is) one of the requested paths."""
        if self.paths is None:
            return True
        return any(path == p or p in path.parents for p in self.paths)


class SkillContext:
    """One skill being linted."""

    def __init__(self, run: RunContext, skill: SourceSkill) -> None:
        self.run = run
        self.skill = skill
        self._kept: dict[str, bytes] = {}  #: by the file's path in the skill

    def read(self, f: SourceFile) -> bytes:
        """The bytes of one of the skill's files, read once for the checks and the
        manifest entry built after them (``SKILL.md``: :attr:`raw`; files larger than
        :data:`~skillpack.source.entries.WHOLE_READ_MAX` are not kept). Raises OSError."""
        if f.rel == SKILL_MD:
            raw = self.raw
            if isinstance(raw, OSError):
                raise raw
            return raw
        data = self._kept.get(f.rel)
        if data is None:
            data = read_file(f)
            if len(data) <= WHOLE_READ_MAX:
                self._kept[f.rel] = data
                if f.rel.endswith("/" + SKILL_MD):  # a nested skill's, read by its parent
                    self.run.nested_skill_mds[f.where] = data
        return data

    def finding(
        self,
        code: str,
        message: str,
        path: Path | None = None,
        line: int = 0,
        column: int = 0,
        hint: str = "",
    ) -> Finding:
        """A finding for this skill; ``path`` defaults to its ``SKILL.md``."""
        return Finding(
            code, message, path or self.skill.skill_md, line, column, hint, self.skill.skill_path
        )

    @cached_property
    def raw(self) -> bytes | OSError:
        """The bytes of ``SKILL.md``, or the error reading it (read as the skill's other
        files are, :func:`~skillpack.source.entries.read_file`: half the cost of
        ``Path.read_bytes``, which builds the path and a buffered file object)."""
        try:
            for f in self.skill.files:
                if f.rel == SKILL_MD:
                    kept = self.run.nested_skill_mds.pop(f.where, None)
                    return read_file(f) if kept is None else kept
            return self.skill.skill_md.read_bytes()
        except OSError as exc:
            return exc

    @cached_property
    def text(self) -> str | None:
        """``SKILL.md`` decoded (BOM kept), or None when unreadable or not UTF-8."""
        raw = self.raw
        if isinstance(raw, OSError):
            return None
        try:
            return decode_skill_md(raw)
        except FrontmatterError:
            return None

    @cached_property
    def parsed(self) -> Frontmatter | FrontmatterError | None:
        """The strict reading of ``SKILL.md``: the frontmatter, the refusal, or None when
        the file cannot be read."""
        raw = self.raw
        if isinstance(raw, OSError):
            return None
        try:
            return parse_skill_md(raw if self.text is None else self.text)
        except FrontmatterError as exc:
            return exc

    @property
    def frontmatter(self) -> Frontmatter | None:
        """What the field rules check: the strict reading, or :attr:`as_quoted`."""
        parsed = self.parsed
        return parsed if isinstance(parsed, Frontmatter) else self.as_quoted

    @cached_property
    def as_quoted(self) -> Frontmatter | None:
        """When every refusal is an ambiguous plain value (SP013), the frontmatter read as
        ``lint --fix`` would write it, those values quoted (quoting moves no line): the
        field rules then report in this run what they would report after the fix, not
        in a second round. None otherwise."""
        parsed = self.parsed
        if not isinstance(parsed, FrontmatterError) or self.text is None:
            return None
        if any(refusal.code != AMBIGUOUS_SCALAR for refusal in parsed.refusals):
            return None
        from skillpack.lint.fmt import FormatOptions, format_text

        quoted, error = format_text(self.text, FormatOptions.for_rules({AMBIGUOUS_SCALAR}))
        if error is not None:  # pragma: no cover - quoting leaves only SP013 to refuse
            return None
        try:
            return parse_skill_md(quoted)
        except FrontmatterError:  # pragma: no cover
            return None

    @cached_property
    def body(self) -> tuple[str, int] | None:
        """(body text, file line of its first line): the text after the closing fence, or the
        whole file when the fences cannot be found. None when SKILL.md is not text."""
        fm = self.frontmatter
        if fm is not None:
            return fm.body, fm.close_line + 1
        text = self.text
        if text is None:
            return None
        try:
            _, _, close_line, body, _ = split_frontmatter(text)
        except FrontmatterError:
            return text.removeprefix(BOM), 1
        return body, close_line + 1
