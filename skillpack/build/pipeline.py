"""The one pass over the skills that lint, lock, build and ``serve DIR`` share.

:func:`process_skill` is the one function per skill. Its :class:`Plan` says what to
make; it reads each file once and hands the bytes from stage to stage in the same
process: the lint checks see them, the manifest entry hashes them (and reuses the
frontmatter the checks parsed), the skill's lock table is rendered from the entry, and
the build keeps them for the archive, as finished archive entries in forked workers (so
compression is shared by the CPUs) or as read in a single process (the writer's threads
then compress them; zlib releases the GIL). Files over
:data:`~skillpack.source.entries.WHOLE_READ_MAX`, and files past :data:`KEPT_BUDGET`,
are left for the writer to read again and check. The archive thus holds exactly the
bytes the lock describes.

The result is one frozen :class:`SkillResult`, the error met included, as a value: a
forked worker's results come back pickled (:mod:`skillpack._internal.parallel`) and the
first error, in skill order, is raised from them; nothing is done again.

Built on it, each a pass over many skills (:func:`run_pass`): :func:`lint_tree`
(``skillpack lint``), :func:`lock_tree` (``skillpack lock``), :func:`gated_source`
(``skillpack serve DIR``) and :func:`one_pass` (``skillpack build``, see
:mod:`skillpack.build.builder`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack._internal.canonical import JSONValue
from skillpack._internal.parallel import (
    can_fork,
    collector_paused,
    default_jobs,
    map_ranges,
)
from skillpack._internal.pickling import ByFields
from skillpack._internal.words import plural
from skillpack.errors import EXIT_FINDINGS, Location, SkillpackError
from skillpack.lint.catalog import ERROR, STRUCTURAL
from skillpack.lint.context import SkillContext
from skillpack.lint.engine import LintResult, LintRun
from skillpack.lint.finding import Finding
from skillpack.lint.selection import LintOptions
from skillpack.manifest import Manifest, SkillEntry
from skillpack.source.discovery import SourceSkill, SourceTree, file_paths
from skillpack.source.entries import Reader, build_skill_entry, manifest_error, read_file
from skillpack.source.frontmatter import FrontmatterError

# The lock renderer, the archive writer and the content sources are imported by the
# passes that use them: ``skillpack lint`` imports none of them (start-up).
if TYPE_CHECKING:
    from skillpack.bundle.writer import MetadataEntries, PreparedEntry
    from skillpack.bundle.zipformat import Compression
    from skillpack.content import ContentSource

#: file bytes one process keeps in memory (as archive entries, or as read) between
#: hashing a file and writing the archive; a file past it is read again by the writer
KEPT_BUDGET = 16 * 1024 * 1024


@dataclass(frozen=True)
class Archive:
    """How the pass prepares a skill's files for the archive writer."""

    compression: Compression
    stamp: tuple[int, int]  #: DOS (time, date) of every entry
    compress: bool  #: make the entries here (forked workers) or keep the bytes (one process)


@dataclass(frozen=True)
class Plan:
    """What :func:`process_skill` makes of a skill."""

    lint: LintRun | None = None  #: the lint run whose checks see the skill first
    entry: bool = True  #: hash the files and read the frontmatter: the manifest entry
    lock: bool = False  #: render the skill's lock table (needs ``entry``)
    archive: Archive | None = None  #: prepare its files for the archive (needs ``entry``)


@dataclass(frozen=True, slots=True)
class SkillResult(ByFields):
    """What the pass made of one skill. ``error`` is why there is no ``entry`` when the
    plan asked for one (the frontmatter was refused, a file could not be read)."""

    findings: tuple[Finding, ...] = ()  #: the per-skill checks' findings, not yet selected
    entry: SkillEntry | None = None
    table: str | None = None  #: the skill's lock table
    indexed: str | None = None  #: the skill's part of the bundle index (with ``table``)
    entries: dict[str, PreparedEntry] = field(default_factory=dict)  #: archive entries by name
    kept: dict[str, bytes] = field(default_factory=dict)  #: file bytes by URI, for the writer
    error: SkillpackError | OSError | None = None

    def checked_entry(self) -> SkillEntry:
        """The manifest entry; the error met making it is raised here."""
        if self.error is not None:
            raise self.error
        if self.entry is None:
            raise ValueError("the plan made no manifest entry")
        return self.entry

    def checked_table(self) -> str:
        """The lock table (after :meth:`checked_entry`)."""
        if self.table is None:
            raise ValueError("the plan made no lock table")
        return self.table

    def checked_index(self) -> str:
        """The skill's part of the bundle index (after :meth:`checked_entry`)."""
        if self.indexed is None:
            raise ValueError("the plan made no lock table")
        return self.indexed


@dataclass
class PassState:
    """What one process's share of a pass carries from skill to skill: what is left of
    its budget for kept bytes (:data:`KEPT_BUDGET`), and the digests of the files hashed
    (nested skills share their parents' files)."""

    budget: int
    digests: dict[str, tuple[str, int]] = field(default_factory=dict)


def process_skill(plan: Plan, skill: SourceSkill, state: PassState) -> SkillResult:
    """Everything ``plan`` asks of ``skill``, from one read of each of its files."""
    findings: tuple[Finding, ...] = ()
    read: Reader = read_file
    ctx: SkillContext | None = None
    if plan.lint is not None:
        found, ctx = plan.lint.check_skill(skill)
        findings, read = tuple(found), ctx.read
    if not plan.entry:
        return SkillResult(findings)
    contents: dict[str, bytes] | None = {} if plan.archive is not None else None
    try:
        skill_md = None if ctx is None else _skill_md(ctx)
        entry = build_skill_entry(skill, state.digests, skill_md, read=read, contents=contents)
    except (OSError, SkillpackError) as exc:
        return SkillResult(findings, error=exc)
    table = indexed = None
    if plan.lock:
        from skillpack.lockfile.index import index_skill_text
        from skillpack.lockfile.lock import render_skill

        table, indexed = render_skill(entry), index_skill_text(entry)
    if plan.archive is None or contents is None:
        return SkillResult(findings, entry, table, indexed)
    entries, kept = _prepare_archive(plan.archive, entry, contents, state)
    return SkillResult(findings, entry, table, indexed, entries, kept)


def _skill_md(ctx: SkillContext) -> tuple[bytes, dict[str, JSONValue]]:
    """``SKILL.md`` as the lint checks read and parsed it; raises what stops its entry."""
    raw, parsed = ctx.raw, ctx.parsed
    if isinstance(raw, OSError):
        raise raw
    if isinstance(parsed, FrontmatterError):
        raise manifest_error(ctx.skill, parsed)
    assert parsed is not None  # None only when SKILL.md cannot be read
    return raw, parsed.data


def _prepare_archive(
    archive: Archive, entry: SkillEntry, contents: dict[str, bytes], state: PassState
) -> tuple[dict[str, PreparedEntry], dict[str, bytes]]:
    """The skill's archive entries (``archive.compress``) or kept bytes, within the
    process's budget."""
    from skillpack.bundle.writer import archive_name, prepare_entry

    entries: dict[str, PreparedEntry] = {}
    kept: dict[str, bytes] = {}
    for f in entry.files:
        data = contents.get(f.path)
        if data is None or len(data) > state.budget:
            continue
        if not archive.compress:
            kept[f.uri] = data
            state.budget -= len(data)
            continue
        name = archive_name(entry.skill_path, f)
        item = prepare_entry(name, data, f.executable, archive.compression, archive.stamp,
                             f.digest)  # fmt: skip
        entries[name] = item
        state.budget -= len(item.record)
    return entries, kept


def run_pass(
    skills: Sequence[SourceSkill], plan: Plan, jobs: int | None = None
) -> tuple[list[SkillResult], list[Finding] | None]:
    """:func:`process_skill` of every skill, in order: in ``jobs`` processes (default:
    :func:`~skillpack._internal.parallel.default_jobs`) claiming short ranges of skills
    as each is free, forked workers inheriting ``plan`` and sending their results back
    pickled (what each would make for itself at its start, such as the content scan's
    expressions, made before: :meth:`LintRun.prepare`);
    and, when the pass forks and lints, the lint run's tree-wide findings, made by this
    process while the forked ones start on the skills (else None:
    :meth:`LintRun.result` makes them)."""

    states: dict[int, PassState] = {}  # one per process: its budget spans its ranges

    def work(start: int, stop: int) -> list[SkillResult]:
        state = states.get(os.getpid())
        if state is None:
            state = states[os.getpid()] = PassState(KEPT_BUDGET)
        return [process_skill(plan, skill, state) for skill in skills[start:stop]]

    jobs = default_jobs(len(skills)) if jobs is None else jobs
    lint = plan.lint
    tree: list[Finding] | None = None

    def tree_checks() -> None:
        nonlocal tree
        assert lint is not None
        tree = lint.tree_findings()

    with collector_paused():
        forks = jobs > 1 and can_fork() and len(skills) > 1
        if lint is not None and forks:
            lint.prepare()  # once here, not in every worker
        # this process runs the tree-wide checks once the workers are forked, before
        # it claims ranges: the others claim more meanwhile
        first = tree_checks if lint is not None and lint.tree_checks and forks else None
        results = [r for part in map_ranges(work, len(skills), jobs, first) for r in part]
    return results, tree


def prepare_pass(lint: bool) -> None:
    """What a large pass needs in this process before it forks its workers, made ahead
    (a build runs it while discovery's forked processes walk the tree): the lint checks
    imported and, for a pass that lints, the content scan's expressions
    (:func:`skillpack.scan.prepare`; the pass would make them itself otherwise)."""
    from skillpack.lint.checks import load

    load()
    if lint:
        from skillpack.scan import prepare

        prepare()


def _manifest(tree: SourceTree, results: Iterable[SkillResult]) -> Manifest:
    """The manifest of the skills' entries; the first skill's error is raised."""
    entries = tuple(result.checked_entry() for result in results)
    return Manifest(tree.config.name, tree.config.version, entries)


# --- lint ---------------------------------------------------------------------------
def lint_tree(
    tree: SourceTree,
    skills: Iterable[SourceSkill] | None = None,
    options: LintOptions | None = None,
    paths: Sequence[Path] | None = None,
    jobs: int | None = None,
) -> LintResult:
    """Lint ``skills`` (default: every skill of ``tree``; see
    :meth:`~skillpack.lint.engine.LintRun.start`) in ``jobs`` processes; the result is
    the same for any number."""
    run = LintRun.start(tree, skills, options, paths)
    results, found = run_pass(run.skills, Plan(lint=run, entry=False), jobs)
    return run.result((f for result in results for f in result.findings), found)


@dataclass(frozen=True)
class Refusal:
    """The error a lint gate raises when findings at error severity remain: ``code``
    after lint, ``unpublishable`` when only the structural rules ran (``--no-lint``,
    and ``lock``, which never lints).

    The hint offers only what helps with the findings at hand: ``lint --fix`` where a
    finding is fixable, ``escape`` (going on without lint) only where some finding is
    not structural, since ``--no-lint`` never skips what no bundle can hold."""

    code: str
    outcome: str  #: what does not happen, e.g. "the bundle was not built"
    escape: str = ""  #: how to go on without lint, e.g. "or pass --no-lint"
    location: Location | None = None
    shown: int = 50  #: findings listed in the error's details
    unpublishable: str = ""  #: the code when only the structural rules ran
    #: the end of the hint then
    unpublishable_tail: str = "; --no-lint skips the other rules, never these"

    def error(self, findings: Sequence[Finding], *, linted: bool = True) -> SkillpackError:
        from skillpack.lint.reporters import location

        if linted:
            code, message = self.code, f"lint found {plural(len(findings), 'error')}"
        else:
            code = self.unpublishable or self.code
            message = f"{plural(len(findings), 'structural error')} (what no bundle can hold)"
        return SkillpackError(
            code,
            f"{message}; {self.outcome}",
            self.location,
            self.hint(findings, linted=linted),
            EXIT_FINDINGS,
            [f"{location(f, Path.cwd())}: {f.code} {f.message}" for f in findings[: self.shown]],
        )

    def hint(self, findings: Sequence[Finding], *, linted: bool) -> str:
        """What to do about ``findings``: clauses joined by semicolons."""
        codes = {f.code for f in findings}
        structural = ", ".join(sorted(codes & STRUCTURAL))
        parts = [("fix it" if len(findings) == 1 else "fix them") + " (see 'skillpack lint')"]
        fixable = ", ".join(sorted({f.code for f in findings if f.fixable}))
        if fixable:
            parts.append(f"'skillpack lint --fix' or 'skillpack fmt' repairs {fixable}")
        if not linted:
            return "; ".join(parts) + self.unpublishable_tail
        if self.escape and not codes <= STRUCTURAL:
            never = f" (it never skips {structural}: no bundle holds them)" if structural else ""
            parts.append(f"{self.escape}{never}")
        elif self.escape:
            parts.append(f"--no-lint cannot help: no bundle holds {structural}")
        return "; ".join(parts)


def _gate(
    run: LintRun,
    passed: tuple[Sequence[SkillResult], list[Finding] | None],
    refusal: Refusal,
) -> None:
    """Raise ``refusal`` when ``run`` (the gate) found errors in what the pass made."""
    results, tree = passed
    result = run.result((f for r in results for f in r.findings), tree)
    errors = [f for f in result.findings if f.severity == ERROR]
    if errors:
        raise refusal.error(errors, linted=run.context.options is not STRUCTURAL_ONLY)


#: the options of a gate without lint: only the structural rules, what no bundle holds
STRUCTURAL_ONLY = LintOptions(enabled=STRUCTURAL)


def _gate_run(tree: SourceTree, skills: Sequence[SourceSkill], lint: bool) -> LintRun:
    """The gate over ``skills``: lint with the rules of the tree's configuration, or
    (``lint`` False) the structural rules only: what build refuses whatever the
    selection, so that ``--no-lint`` never drops a file in silence."""
    options = LintOptions.from_config(tree.config) if lint else STRUCTURAL_ONLY
    return LintRun.start(tree, skills, options)


# --- lock ---------------------------------------------------------------------------
#: ``lock`` refuses what no bundle can hold, as ``build`` does
LOCK_REFUSAL = Refusal(
    "LCK006",
    "no lock can describe the tree",
    unpublishable="LCK006",
    unpublishable_tail="; or exclude what the skill does not need",
)


def lock_tree(tree: SourceTree, jobs: int | None = None) -> tuple[Manifest, bytes]:
    """The manifest of ``tree`` and its lock bytes, each skill's table rendered by the
    process that hashed the skill's files. What no bundle can hold (the structural
    rules) is refused (``LCK006``): a lock describes only a tree ``build`` accepts."""
    from skillpack.lockfile.lock import render_lock

    run = _gate_run(tree, tree.skills, lint=False)
    passed = run_pass(tree.skills, Plan(lint=run, lock=True), jobs)
    _gate(run, passed, LOCK_REFUSAL)
    results = passed[0]
    manifest = _manifest(tree, results)
    return manifest, render_lock(manifest, [result.checked_table() for result in results])


# --- serve DIR ----------------------------------------------------------------------
def gated_source(
    tree: SourceTree,
    skills: Sequence[SourceSkill],
    *,
    lint: bool,
    refusal: Refusal,
    jobs: int | None = None,
) -> ContentSource:
    """``skills`` of ``tree`` as served from the disk: linted (unless ``lint`` is False:
    then only the structural rules; ``refusal`` is raised on errors), hashed, each file
    read again and checked when served."""
    from skillpack.content import TreeSource

    run = _gate_run(tree, skills, lint)
    passed = run_pass(skills, Plan(lint=run), jobs)
    _gate(run, passed, refusal)
    return TreeSource(_manifest(tree, passed[0]), file_paths(skills))


# --- build --------------------------------------------------------------------------
@dataclass(frozen=True)
class Pass:
    """The result of the build's pass: what the lock writer and the archive writer need."""

    manifest: Manifest
    lock: bytes  #: the lock's bytes
    index: bytes  #: the bundle index made with them
    entries: dict[str, PreparedEntry]  #: archive entries made already, by name
    metadata: MetadataEntries  #: the archive's lock and index entries, being made
    source: ContentSource  #: every file's bytes: kept ones from memory, others from disk
    #: the tree's archive entry names, when the gate found them safe together
    judged: AbstractSet[str] | None = None


def one_pass(
    tree: SourceTree,
    *,
    lint: bool,
    refusal: Refusal,
    compression: Compression,
    stamp: tuple[int, int],
    jobs: int | None = None,
) -> Pass:
    """Lint (unless ``lint`` is False: then only the structural rules; ``refusal`` is
    raised on errors), hash, and prepare the lock and the archive entries of every skill
    of ``tree``, entries at DOS ``stamp`` with ``compression``; ``jobs`` processes (default:
    :func:`~skillpack._internal.parallel.default_jobs`)."""
    from skillpack.bundle.writer import MetadataEntries
    from skillpack.content import KeptSource, TreeSource
    from skillpack.lockfile.lock import render_lock_and_index

    skills = tree.skills
    jobs = default_jobs(len(skills)) if jobs is None else jobs
    run = _gate_run(tree, skills, lint)
    archive = Archive(compression, stamp, compress=jobs > 1)
    passed = run_pass(skills, Plan(lint=run, lock=True, archive=archive), jobs)
    _gate(run, passed, refusal)
    results = passed[0]
    manifest = _manifest(tree, results)
    tables = [r.checked_table() for r in results]
    lock, index = render_lock_and_index(manifest, tables, [r.checked_index() for r in results])
    metadata = MetadataEntries(lock, index, compression, stamp)  # compressed from now on
    entries: dict[str, PreparedEntry] = {}
    kept: dict[str, bytes] = {}
    for result in reversed(results):  # a nested skill's files: its parent's, the same bytes
        entries.update(result.entries)
        kept.update(result.kept)
    rest = TreeSource(manifest, lambda: file_paths(skills))
    # the gate's check of the entry names (SP207, SP210) is the writer's judgement too
    judged = None if run.context.entry_problems else run.context.entry_names.keys()
    return Pass(manifest, lock, index, entries, metadata, KeptSource(kept, rest), judged)
