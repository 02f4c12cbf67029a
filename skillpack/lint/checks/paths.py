"""SP2xx: skill paths, limits and file names as the MCP Skills extension (SEP-2640) needs them."""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterator

from skillpack._internal.uri import encode_segment, is_valid_authority, is_valid_segment
from skillpack.lint.checks.registry import skill_check, tree_check
from skillpack.lint.context import RunContext, SkillContext
from skillpack.lint.finding import Finding
from skillpack.manifest import MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL
from skillpack.source.paths import (
    CLASH,
    COLLISION,
    all_plain,
    collision_key,
    directories,
    unsafe_published_path,
)

MIB = 1024 * 1024


@skill_check("SP201")
def skill_path_segments(ctx: SkillContext) -> Iterator[Finding]:
    segments = ctx.skill.skill_path.split("/")
    for index, segment in enumerate(segments):
        valid = is_valid_authority(segment) if index == 0 else is_valid_segment(segment)
        if not valid:
            role = "first segment (the URI authority)" if index == 0 else f"segment {index + 1}"
            yield ctx.finding(
                "SP201",
                f"skill path '{ctx.skill.skill_path}': {role} '{segment}' may only use letters, "
                "digits, '-', '.', '_' and '~'",
                hint="rename the directory or the configured prefix",
            )


@skill_check("SP203", "SP204")
def skill_limits(ctx: SkillContext) -> Iterator[Finding]:
    files = ctx.skill.files
    total = sum(f.size for f in files)
    if len(files) <= MAX_FILES_PER_SKILL and total <= MAX_BYTES_PER_SKILL:
        return
    has_nested = any(s.parent == ctx.skill.skill_path for s in ctx.run.tree.skills)
    nested = " (nested skills' files included)" if has_nested else ""
    if len(files) > MAX_FILES_PER_SKILL:
        yield ctx.finding(
            "SP203",
            f"the skill publishes {len(files)} files{nested}; at most {MAX_FILES_PER_SKILL} "
            "are allowed",
            hint="exclude or archive data files, or split the skill",
        )
    if total > MAX_BYTES_PER_SKILL:
        yield ctx.finding(
            "SP204",
            f"the skill's files total {total:,} bytes ({total / MIB:.1f} MiB){nested}; at most "
            f"{MAX_BYTES_PER_SKILL:,} (16 MiB) are allowed",
            hint="remove or exclude large files",
        )


def _difference(a: str, b: str) -> str:
    if a.casefold() == b.casefold():
        return "letter case"
    if unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b):
        return "Unicode normalization"
    return "letter case and Unicode normalization"


def _plain_apart(rels: list[str]) -> bool:
    """Whether :func:`file_names` finds nothing in a skill's ``rels`` because all are
    plain (nothing to percent-encode, ASCII: folded by lowercasing) and no two of them
    or of their directories fold to one path: a skill's usual case, told at once."""
    if all_plain(rels) is None:
        return not rels
    paths = directories(rels).union(rels)
    return len({path.lower() for path in paths}) == len(paths)


@skill_check("SP206", "SP207")
def file_names(ctx: SkillContext) -> Iterator[Finding]:
    if _plain_apart([f.rel for f in ctx.skill.files]):
        return
    # every published path and each of its parent directories, by folded form
    seen: dict[str, str] = {}
    reported: set[str] = set()
    for f in ctx.skill.files:
        segments = f.rel.split("/")
        # a path the bundle format refuses is SP210's (an error): no warning besides it
        unpublishable = unsafe_published_path(f.rel) is not None
        for segment in () if unpublishable else segments:
            encoded = encode_segment(segment)
            if encoded != segment:
                yield ctx.finding(
                    "SP206",
                    f"'{segment}' must be percent-encoded in the file's skill:// URI ('{encoded}')",
                    f.path,
                    hint="rename it using letters, digits, '-', '.' and '_'",
                )
                break
        for depth in range(1, len(segments) + 1):
            prefix = "/".join(segments[:depth])
            folded = collision_key(prefix)
            other = seen.setdefault(folded, prefix)
            if other != prefix and folded not in reported:
                reported.add(folded)
                yield ctx.finding(
                    "SP207",
                    f"'{prefix}' and '{other}' differ only in {_difference(prefix, other)}; "
                    "they are the same path on macOS and Windows",
                    f.path,
                    hint="rename or merge one of them",
                )


@tree_check("SP205", "SP207")
def skill_names(run: RunContext) -> Iterator[Finding]:
    by_name: dict[str, list[str]] = defaultdict(list)
    by_folded: dict[str, list[str]] = defaultdict(list)
    for skill in run.tree.skills:
        by_name[skill.name].append(skill.skill_path)
        by_folded[collision_key(skill.skill_path)].append(skill.skill_path)
    for skill in run.selected:
        others = [p for p in by_name[skill.name] if p != skill.skill_path]
        if others:
            yield Finding(
                "SP205",
                f"the name '{skill.name}' is also used by " + ", ".join(f"'{p}'" for p in others),
                skill.skill_md,
                skill=skill.skill_path,
            )
        clashes = [p for p in by_folded[collision_key(skill.skill_path)] if p != skill.skill_path]
        if clashes:
            yield Finding(
                "SP207",
                f"skill path '{skill.skill_path}' and "
                + ", ".join(f"'{p}'" for p in clashes)
                + " differ only in letter case or Unicode normalization; they are the same "
                "directory on macOS and Windows",
                skill.skill_md,
                hint="rename one of the skill directories",
                skill=skill.skill_path,
            )


@tree_check("SP207", "SP210")
def published_paths(run: RunContext) -> Iterator[Finding]:
    """The archive entry names of the whole tree, judged as the bundle writer judges them
    (:attr:`RunContext.entry_problems`, which a build hands to its writer): a path the
    format refuses (SP210, the writer's BLD002), and paths of different skills that
    collide or clash (SP207, its BLD003; those of one skill, and skill paths that
    collide, are reported by the checks above)."""
    problems = run.entry_problems
    if not problems:
        return
    owner = run.entry_names  # entry name -> (skill path, file)
    publishers: dict[str, set[str]] = {}  # entry name -> the skills publishing it
    for skill in run.tree.skills:
        for f in skill.files:
            publishers.setdefault(f"{skill.skill_path}/{f.rel}", set()).add(skill.skill_path)
    selected = {skill.skill_path for skill in run.selected}
    for problem in problems:
        skill_path, published = owner[problem.path]
        path = published.path
        if skill_path not in selected:
            continue
        if problem.kind not in (COLLISION, CLASH):
            yield Finding(
                "SP210",
                f"'{problem.path}' cannot be put in a bundle: the path {problem.reason}",
                path,
                hint="rename it using letters, digits, '-', '.' and '_'",
                skill=skill_path,
            )
            continue
        other = problem.other or problem.path
        if publishers[problem.path] & publishers[other]:
            continue  # file_names reports it, in the skill publishing both
        if collision_key(skill_path) == collision_key(owner[other][0]):
            continue  # skill_names reports the skill paths
        why = (
            "they are the same file on macOS and Windows"
            if problem.kind == COLLISION
            else "a path cannot be both a file and a directory (on macOS and Windows, "
            "whatever its letter case)"
        )
        yield Finding(
            "SP207",
            f"'{problem.path}' {problem.reason}: {why}",
            path,
            hint="rename one of them",
            skill=skill_path,
        )
