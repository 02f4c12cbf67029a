"""SP4xx: the ``SKILL.md`` body: its size, the files it references, its bytes on disk."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator

from skillpack.lint.checks.registry import skill_check
from skillpack.lint.context import SkillContext
from skillpack.lint.finding import Finding
from skillpack.lint.references import CODE, Reference, normalize, scan
from skillpack.source.frontmatter import BOM

MAX_LINES = 500
MAX_TOKENS = 5000
CHARS_PER_TOKEN = 4  #: the usual estimate for English text and Markdown


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


@skill_check("SP401", "SP402")
def body_size(ctx: SkillContext) -> Iterator[Finding]:
    text = ctx.text
    if text is None:
        return
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if lines > MAX_LINES:
        yield ctx.finding(
            "SP401",
            f"SKILL.md has {lines} lines; keep it under {MAX_LINES}",
            line=MAX_LINES + 1,
            column=1,
            hint="move detail into files under references/ and link to them",
        )
    tokens = estimate_tokens(text)
    if tokens > MAX_TOKENS:
        yield ctx.finding(
            "SP402",
            f"SKILL.md is about {tokens:,} tokens ({len(text):,} characters); keep it under "
            f"about {MAX_TOKENS:,}",
            hint="move detail into files under references/ and link to them",
        )


@skill_check("SP405", "SP406", "SP407")
def line_endings(ctx: SkillContext) -> Iterator[Finding]:
    raw = ctx.raw
    if isinstance(raw, OSError) or not raw:
        return
    crlf = raw.find(b"\r\n")
    if crlf >= 0:
        line = raw.count(b"\n", 0, crlf) + 1
        yield ctx.finding(
            "SP405",
            "SKILL.md uses CRLF line endings",
            line=line,
            column=crlf - raw.rfind(b"\n", 0, crlf),
            hint="run 'skillpack fmt' to convert them to LF",
        )
    if raw.startswith(BOM.encode()):
        yield ctx.finding(
            "SP406",
            "SKILL.md starts with a UTF-8 byte order mark",
            line=1,
            column=1,
            hint="run 'skillpack fmt' to remove it",
        )
    if not raw.endswith(b"\n"):
        line = raw.count(b"\n") + 1
        yield ctx.finding(
            "SP407",
            "SKILL.md does not end with a newline",
            line=line,
            column=len(raw) - raw.rfind(b"\n"),
            hint="run 'skillpack fmt' to add it",
        )


@skill_check("SP403", "SP404", "SP408")
def references(ctx: SkillContext) -> Iterator[Finding]:
    body = ctx.body
    if body is None:
        return
    text, first_line = body
    files: set[str] | None = None
    dirs: set[str] = set()
    for ref in scan(text):
        line, column = first_line + ref.line, ref.column + 1
        target = normalize(ref.target)
        if target is None:
            finding = _outside(ctx, ref, line, column)
            if finding is not None:
                yield finding
            continue
        if files is None:
            files = {f.rel for f in ctx.skill.files}
            for rel in files:
                parts = rel.split("/")
                dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
        if not target or target in files or target in dirs:
            continue
        # a backticked path counts only when it starts with './' or with a directory the
        # skill has: `references/x.md` is a reference, `src/app.py` is the user's code
        if (
            ref.kind == CODE
            and not ref.target.startswith("./")
            and (target.split("/", 1)[0] not in dirs)
        ):
            continue
        on_disk = ctx.skill.directory / target
        why = (
            "exists but is not published (a dotfile, a link, or excluded)"
            if on_disk.exists() or on_disk.is_symlink()
            else "does not exist in the skill"
        )
        yield ctx.finding(
            "SP403",
            f"'{ref.written}' {why}",
            line=line,
            column=column,
            hint="fix the path or add the file to the skill",
        )


def _outside(ctx: SkillContext, ref: Reference, line: int, column: int) -> Finding | None:
    """A reference that leaves the skill directory: a portability warning (SP408) when it
    names a file another skill of the tree publishes under the very URI the reference
    resolves to (the file is in the bundle; the skill is not self-contained), else an
    error (SP404): absolute, out of the tree, or a file no host finds where it looks."""
    skill = ctx.skill
    if not ref.target.startswith("/"):
        # where a host looks: the reference resolved against the skill root URI
        resolved = posixpath.normpath(posixpath.join(skill.skill_path, ref.target))
        on_disk = os.path.normpath(skill.directory / ref.target)
        owners = ctx.run.published_as(on_disk)
        inside = not resolved.startswith("../") and resolved != ".."
        matching = [
            (o, rel)
            for o, rel in owners
            if inside and posixpath.normpath(posixpath.join(o.skill_path, rel)) == resolved
        ]
        if any(o is skill for o, _ in matching):
            return None  # its own file, by a roundabout path
        for owner, rel in matching:
            if owner is not skill:
                what = (
                    "the skill"
                    if not rel
                    else "a folder of the skill"
                    if os.path.isdir(on_disk)
                    else "a file of the skill"
                )
                return ctx.finding(
                    "SP408",
                    f"'{ref.written}' is {what} '{owner.skill_path}' "
                    f"(skill://{resolved}): this skill is not self-contained",
                    line=line,
                    column=column,
                    hint="copy the file into this skill if it must work on its own; "
                    "hosts that install it alone cannot follow the reference",
                )
        if owners:
            shown = ", ".join(
                f"skill://{posixpath.join(o.skill_path, rel).rstrip('/')}" for o, rel in owners
            )
            where = f"to skill://{resolved}" if inside else "outside the bundle"
            return ctx.finding(
                "SP404",
                f"'{ref.written}' is published as {shown}, but from this skill it resolves {where}",
                line=line,
                column=column,
                hint="fix the path so that it resolves against this skill's URI, or copy "
                "the file into the skill",
            )
    return ctx.finding(
        "SP404",
        f"'{ref.written}' points outside the skill directory"
        + ("" if ref.target.startswith("/") else ", to no file of the bundle"),
        line=line,
        column=column,
        hint="copy the file into the skill and reference it by a relative path",
    )
