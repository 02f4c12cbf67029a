"""SP3xx: the entries inside a skill, published or left out, and what published files hold."""

from __future__ import annotations

from collections.abc import Iterator

from skillpack.lint.checks.registry import skill_check, tree_check
from skillpack.lint.context import RunContext, SkillContext
from skillpack.lint.finding import Finding
from skillpack.lint.secrets import ENV_FILE_RE, find_secrets, line_and_column
from skillpack.source.discovery import (
    SKIP_CONFLICTING_COPY,
    SKIP_DOTFILE,
    SKIP_MISCASED,
    SKIP_NON_UTF8,
    SKIP_SPECIAL,
    SKIP_SYMLINK,
    SKIP_UNREADABLE,
    Skipped,
    is_within,
)

# kind of entry -> (code, message, hint); {name} and {detail} are the entry's
_SKIPPED: dict[str, tuple[str, str, str]] = {
    SKIP_SYMLINK: (
        "SP301",
        "symlink to '{detail}' is not published (links are never followed)",
        "replace the link with a copy of the file, or exclude it",
    ),
    SKIP_SPECIAL: (
        "SP303",
        "{detail} inside the skill cannot be published",
        "remove it from the skill directory",
    ),
    SKIP_DOTFILE: (
        "SP304",
        "'{name}' is left out: dot entries are never published",
        "rename it if the skill needs it",
    ),
    SKIP_UNREADABLE: (
        "SP306",
        "cannot be read: {detail}",
        "fix its permissions or remove it",
    ),
    SKIP_NON_UTF8: (
        "SP208",
        "name {detail} is not valid UTF-8; the entry is not published",
        "rename it using UTF-8 (preferably ASCII) characters",
    ),
}
# entries outside every skill (SourceTree.problems)
_OUTSIDE: dict[str, tuple[str, str, str]] = {
    SKIP_SYMLINK: (
        "SP301",
        "symlink to '{detail}' is not followed: skills behind it are not checked",
        "move the skills into the directory, or set 'roots' to where they are",
    ),
    SKIP_UNREADABLE: (
        "SP306",
        "directory cannot be read: {detail}; skills in it are not checked",
        "fix its permissions",
    ),
    SKIP_CONFLICTING_COPY: (
        "SP212",
        "is the skill '{skill}' too, with other files than {detail}: only that one is published",
        "make the copies the same (the same skill installed for several agents), or rename one",
    ),
    SKIP_MISCASED: (
        "SP209",
        "'{name}' is not recognized as a skill: the file must be named 'SKILL.md'",
        "rename it: git mv {name} SKILL.md",
    ),
}


def _entry_finding(
    table: dict[str, tuple[str, str, str]], entry: Skipped, skill: str
) -> Finding | None:
    if entry.kind not in table:
        return None
    code, message, hint = table[entry.kind]
    values = {"name": entry.path.name, "detail": entry.detail, "skill": entry.rel}
    return Finding(
        code, message.format(**values), entry.path, hint=hint.format(**values), skill=skill
    )


@skill_check(*(code for code, _, _ in _SKIPPED.values()))
def skipped_entries(ctx: SkillContext) -> Iterator[Finding]:
    for entry in ctx.skill.skipped:
        finding = _entry_finding(_SKIPPED, entry, ctx.skill.skill_path)
        if finding is not None:
            yield finding


@tree_check(*(code for code, _, _ in _OUTSIDE.values()))
def entries_outside_skills(run: RunContext) -> Iterator[Finding]:
    """Unreadable directories (skills inside may be missing) and miscased skill.md files."""
    for entry in run.tree.problems:
        # a conflicting copy concerns any file of it a commit touches
        touched = entry.kind == SKIP_CONFLICTING_COPY and any(
            is_within(p, entry.path) for p in run.paths or ()
        )
        if run.requested(entry.path) or touched:
            finding = _entry_finding(_OUTSIDE, entry, "")
            if finding is not None:
                yield finding


@skill_check("SP302")
def hard_links(ctx: SkillContext) -> Iterator[Finding]:
    for f in ctx.skill.files:
        if f.nlink > 1:
            yield ctx.finding(
                "SP302",
                f"file has {f.nlink} hard links: editing any of them changes the published skill",
                f.path,
                hint="replace the hard link with a copy",
            )


@skill_check("SP305", "SP306")
def secrets(ctx: SkillContext) -> Iterator[Finding]:
    scanned = ctx.run.scanned
    for f in ctx.skill.files:
        if f.path in scanned:
            continue
        scanned.add(f.path)
        name = f.path.name
        if ENV_FILE_RE.fullmatch(name):
            yield ctx.finding(
                "SP305",
                f"'{name}' is an environment file, which usually holds secrets",
                f.path,
                hint="remove it from the skill or exclude it",
            )
            continue
        try:
            data = ctx.read(f)
        except OSError as exc:
            yield ctx.finding(
                "SP306",
                f"cannot be read: {exc.strerror or exc}",
                f.path,
                hint="fix its permissions or remove it",
            )
            continue
        for hit in find_secrets(data):
            line, column = line_and_column(data, hit.offset)
            yield ctx.finding(
                "SP305",
                f"looks like {hit.label}",
                f.path,
                line,
                column,
                hint="remove and rotate the secret; read it from the environment at run time",
            )
