"""Admission: the content scan over a verified bundle's files, on the consumer side.

``install``, ``pull`` and ``serve`` call :func:`admit` (or, for a served file on its
first read, :func:`judge_file`) on content whose digests are already verified and before
any of it is written or sent. The consumer's skillpack judges the bytes it received:
a bundle built without the scan, or by hand, gets no pass. An error-level finding
refuses unless the user accepted that rule for that skill (``--accept SKILL:CODE``);
warnings are reported and let in.

This module imports only the standard library, :mod:`skillpack.scan` and the model:
the stdio server imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from skillpack.errors import EXIT_USAGE, Location, SkillpackError, UsageError
from skillpack.manifest import FileEntry, Manifest, SkillEntry
from skillpack.policy import errors as _errors  # noqa: F401  (registers the ADM codes)
from skillpack.policy.prescan import Prescanned, first_listing
from skillpack.scan import ERROR, ScanFinding, scan_file

#: findings listed in a refusal's details before the rest are counted
SHOWN = 30


@dataclass(frozen=True)
class Accept:
    """A rule accepted for a skill: ``--accept SKILL:CODE`` (SKILL: a name or a skill
    path), or a policy's ``[[accept]]``, which may name one ``file`` bound to its
    ``digest`` (a changed file re-opens the question)."""

    skill: str
    code: str
    file: str | None = None
    digest: str | None = None
    origin: str = "--accept"  #: the policy file it comes from, or the option

    @classmethod
    def parse(cls, text: str, option: str = "--accept") -> Accept:
        skill, sep, code = text.rpartition(":")
        code = code.strip().upper()
        if not sep or not skill.strip() or not (code.startswith("SP5") and len(code) == 5):
            raise UsageError(
                "ADM002",
                f"{option} {text!r}: expected SKILL:CODE with a content-scan rule code",
                hint=f"{option} pdf-tools:SP520 (the skill's name or path, then the rule)",
                exit_code=EXIT_USAGE,
            )
        return cls(skill.strip().strip("/"), code)

    def covers(self, skill: SkillEntry, file: FileEntry, code: str) -> bool:
        if code != self.code or self.skill not in (skill.name, skill.skill_path):
            return False
        return self.file is None or (self.file == file.path and self.digest == file.digest)

    def outdated(self, skill: SkillEntry, file: FileEntry, code: str) -> str:
        """Why this accept, made for ``file`` at another digest, does not cover the
        finding ``code`` there now ("" when that is not so): the refusal says it."""
        if code != self.code or self.skill not in (skill.name, skill.skill_path):
            return ""
        if self.file != file.path or self.digest == file.digest:
            return ""
        return (
            f"an [[accept]] in {self.origin} covers {self.skill}:{code} for {file.path} at "
            f"{self.digest}; the file now has {file.digest}: review it, then update the digest"
        )


def parse_accepts(values: Iterable[str] | None) -> tuple[Accept, ...]:
    """The ``--accept`` values, parsed (``ADM002`` for a bad one)."""
    return tuple(Accept.parse(value) for value in values or ())


@dataclass(frozen=True)
class Flagged:
    """A finding of the scan in one file of one skill."""

    skill: SkillEntry
    file: FileEntry
    finding: ScanFinding
    accepted: bool = False
    #: the policy rule that made this warning refuse (``[scan] block = [...] in FILE``)
    rule: str = ""
    #: an ``[[accept]]`` for this skill, code and file made for other bytes (why not)
    outdated: str = ""

    @property
    def blocks(self) -> bool:
        return self.finding.severity == ERROR and not self.accepted

    def line(self) -> str:
        """``URI:LINE:COL: CODE message`` (and ``(accepted)``, the policy rule that
        made it refuse, an accept made for the file's earlier bytes)."""
        where = self.file.uri
        if self.finding.line:
            where += f":{self.finding.line}:{self.finding.column}"
        tail = " (accepted)" if self.accepted else ""
        if self.rule:
            tail += f" (refused by {self.rule})" if self.blocks else f" (blocked by {self.rule})"
        if self.outdated and not self.accepted:
            tail += f"; {self.outdated}"
        level = "" if self.finding.severity == ERROR else f"{self.finding.severity}: "
        return f"{where}: {level}{self.finding.code} {self.finding.message}{tail}"


@dataclass
class Admission:
    """What the scan found in the files admitted or refused."""

    flagged: list[Flagged] = field(default_factory=list)

    @property
    def refused(self) -> list[Flagged]:
        return [f for f in self.flagged if f.blocks]

    @property
    def warnings(self) -> list[Flagged]:
        return [f for f in self.flagged if f.finding.severity != ERROR]

    @property
    def accepted(self) -> list[Flagged]:
        return [f for f in self.flagged if f.accepted]

    def check(self, source: str, what: str) -> None:
        """Raise ``ADM001`` (naming ``source``; ``what`` is what does not happen) when
        a finding blocks."""
        refused = self.refused
        if not refused:
            return
        skills = sorted({f.skill.skill_path for f in refused})
        details = [f.line() for f in refused[:SHOWN]]
        if len(refused) > SHOWN:
            details.append(f"... and {len(refused) - SHOWN} more")
        example = f"{refused[0].skill.name}:{refused[0].finding.code}"
        hint = (
            f"read each with 'skillpack rule CODE'; after review, let one in with "
            f"--accept {example}"
        )
        outdated = next((f.outdated for f in refused if f.outdated), "")
        if outdated:
            hint = outdated
        raise SkillpackError(
            "ADM001",
            f"the content scan refused {len(refused)} finding"
            f"{'' if len(refused) == 1 else 's'} ({_why(refused)}) in "
            f"{', '.join(skills)}; {what}",
            Location(source),
            hint=hint,
            details=details,
        )


def _why(refused: Sequence[Flagged]) -> str:
    """The codes of ``refused``, each made blocking by a policy named with its rule:
    ``SP501, SP521 by [scan] block = ["SP521"] in FILE:LINE``."""
    rules: dict[str, str] = {}
    for found in refused:
        rules.setdefault(found.finding.code, found.rule)
    return ", ".join(f"{code} by {rule}" if rule else code for code, rule in sorted(rules.items()))


#: a policy's ``[scan] block``: the warning codes that refuse too, as a set or as a
#: mapping to the rule that made each so (:attr:`skillpack.policy.file.Policy.block`)
Block = Collection[str]


def _flagged(
    skill: SkillEntry,
    file: FileEntry,
    found: ScanFinding,
    accepts: Sequence[Accept],
    block: Block,
) -> Flagged:
    """One finding judged: a warning whose code is in ``block`` (a policy's ``[scan]
    block``) refuses as an error does, naming that rule; accepted when an accept covers
    it; else an accept made for the file's earlier bytes is named."""
    rule = ""
    if found.code in block and found.severity != ERROR:
        found = replace(found, severity=ERROR)
        rule = block[found.code] if isinstance(block, Mapping) else "the policy's [scan] block"
    code = found.code
    accepted = any(a.covers(skill, file, code) for a in accepts)
    outdated = "" if accepted else next(
        (text for a in accepts if (text := a.outdated(skill, file, code))), ""
    )  # fmt: skip
    return Flagged(skill, file, found, accepted, rule, outdated)


def judge_file(
    skill: SkillEntry,
    file: FileEntry,
    data: bytes,
    accepts: Sequence[Accept] = (),
    block: Block = frozenset(),
) -> list[Flagged]:
    """The scan's findings in one verified file of ``skill``."""
    return [_flagged(skill, file, found, accepts, block) for found in scan_file(file.path, data)]


def admit(
    manifest: Manifest,
    read: Callable[[FileEntry], bytes],
    accepts: Sequence[Accept] = (),
    skills: Iterable[SkillEntry] | None = None,
    block: Block = frozenset(),
    prescanned: Prescanned | None = None,
) -> Admission:
    """Scan every file of ``skills`` (default: all of ``manifest``'s), read verified by
    ``read``; each file once, judged as a file of the innermost skill holding it. The
    bytes are read here; a large run is scanned in forked workers (the scan holds the
    GIL), which inherit them. ``prescanned``: findings made earlier for a path and the
    sha256 of its bytes (:mod:`skillpack.policy.prescan`); a file whose path and
    verified digest are there is not read or scanned again."""
    chosen = list(manifest.skills if skills is None else skills)
    owner: dict[str, SkillEntry] = {}
    for skill in sorted(chosen, key=lambda s: s.skill_path.count("/")):
        for entry in skill.files:
            owner[entry.uri] = skill  # a deeper skill comes later and wins
    files = first_listing(chosen)
    done = prescanned or {}
    todo = [entry for entry in files if (entry.path, entry.digest) not in done]
    datas = [read(entry) for entry in todo]

    def work(start: int, stop: int) -> list[list[ScanFinding]]:
        return [scan_file(todo[i].path, datas[i]) for i in range(start, stop)]

    from skillpack._internal.parallel import default_jobs, map_ranges

    jobs = default_jobs(len({owner[entry.uri].skill_path for entry in todo}))
    scanned = map_ranges(work, len(todo), jobs) if todo else []
    found = dict(zip((id(e) for e in todo), (f for part in scanned for f in part), strict=True))
    admission = Admission()
    for entry in files:
        findings = found.get(id(entry))
        if findings is None:
            findings = done[entry.path, entry.digest]
        skill = owner[entry.uri]
        admission.flagged += [_flagged(skill, entry, f, accepts, block) for f in findings]
    return admission


def judge_frontmatter(
    skills: Iterable[SkillEntry], accepts: Sequence[Accept] = (), block: Block = frozenset()
) -> list[Flagged]:
    """The scan's findings in the frontmatter strings a listing sends
    (:func:`skillpack.policy.listing.frontmatter_findings`), judged under the policy."""
    from skillpack.policy.listing import frontmatter_findings

    return flag_frontmatter(frontmatter_findings(skills), accepts, block)


def flag_frontmatter(
    found: Iterable[tuple[SkillEntry, ScanFinding]],
    accepts: Sequence[Accept] = (),
    block: Block = frozenset(),
) -> list[Flagged]:
    """Frontmatter findings judged under the policy, each as a finding in its skill's
    ``SKILL.md``."""
    return [_flagged(skill, skill.files[0], hit, accepts, block) for skill, hit in found]
