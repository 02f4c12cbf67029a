"""SP3xx: the entries inside a skill, published or left out, and what published files hold."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from skillpack._internal.uri import SKILL_MD
from skillpack.lint.checks.registry import skill_check, tree_check
from skillpack.lint.checks.scan import SCAN_CODES, scan_findings
from skillpack.lint.context import RunContext, SkillContext
from skillpack.lint.finding import Finding
from skillpack.lint.secrets import find_secrets, is_env_file, line_and_column, secret_file
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
from skillpack.source.entries import WHOLE_READ_MAX

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
        "SP307",
        "symlink to '{detail}' is not followed: the skills behind it are not published",
        "move or copy the skills into the project, or name their directory in 'roots'",
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


#: a linked SKILL.md outside every skill
_LINKED_SKILL_MD = (
    "SP307",
    "SKILL.md is a symlink to '{detail}': links are never followed, so this directory is "
    "not published as a skill",
    "make SKILL.md a regular file (a copy), or name the real skill directory in 'roots'",
)


def _entry_finding(
    table: dict[str, tuple[str, str, str]], entry: Skipped, skill: str
) -> Finding | None:
    if entry.kind not in table:
        return None
    code, message, hint = table[entry.kind]
    if table is _OUTSIDE and entry.kind == SKIP_SYMLINK and entry.path.name == SKILL_MD:
        code, message, hint = _LINKED_SKILL_MD
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


@skill_check("SP306")
def unreadable_files(ctx: SkillContext) -> Iterator[Finding]:
    """A published file that cannot be read (SP306, structural: no digest without it).
    A file read whole is kept for the other checks and the manifest entry; a larger one
    is only opened."""
    opened = ctx.run.opened
    for f in ctx.skill.files:
        where = f.where
        if f.rel == SKILL_MD or where in opened:
            continue  # frontmatter_block reports SKILL.md; a parent checked a nested file
        opened.add(where)
        try:
            if f.size <= WHOLE_READ_MAX:
                ctx.read(f)
            else:
                os.close(os.open(where, os.O_RDONLY | getattr(os, "O_BINARY", 0)))
        except OSError as exc:
            yield ctx.finding(
                "SP306",
                f"cannot be read: {exc.strerror or exc}",
                f.path,
                hint="fix its permissions or remove it",
            )


@skill_check("SP305", *SCAN_CODES)
def contents(ctx: SkillContext) -> Iterator[Finding]:
    """What published files hold: secrets (SP305) and the content scan (SP5xx), on the
    one reading of each file's bytes."""
    scanned = ctx.run.scanned
    enabled = ctx.run.options.enabled
    want_secrets = "SP305" in enabled
    want_scan = not enabled.isdisjoint(SCAN_CODES)
    for f in ctx.skill.files:
        where = f.where
        if where in scanned:
            continue
        scanned.add(where)
        name = f.rel.rpartition("/")[2]  # the file's name, without parsing its path
        label = None
        if want_secrets:
            if is_env_file(name):
                yield ctx.finding(
                    "SP305",
                    f"'{name}' is an environment file, which usually holds secrets",
                    f.path,
                    hint="remove it from the skill or exclude it",
                )
                continue
            label = secret_file(name)
            if label is not None:
                yield _secret_file_finding(ctx, f.path, name, label)
                continue
        try:
            data = ctx.read(f)
        except OSError:
            continue  # SP306 (unreadable_files)
        if want_scan:
            yield from scan_findings(ctx, f, data)
        if not want_secrets:
            continue
        hits = find_secrets(data)
        for hit in hits:
            line, column = line_and_column(data, hit.offset)
            yield ctx.finding(
                "SP305",
                f"looks like {hit.label}",
                f.path,
                line,
                column,
                hint="remove and rotate the secret; read it from the environment at run time",
            )
        if not hits:
            label = secret_file(name, data)  # a .pem or .key holding a private key
            if label is not None:
                yield _secret_file_finding(ctx, f.path, name, label)


def _secret_file_finding(ctx: SkillContext, path: Path, name: str, label: str) -> Finding:
    return ctx.finding(
        "SP305",
        f"'{name}' is {label} (by its name): it must never be published",
        path,
        hint="remove it from the skill (and rotate what it holds if it was ever shared), "
        "or exclude it",
    )
