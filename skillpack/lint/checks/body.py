"""SP4xx: the ``SKILL.md`` body: its size, the files it references, its bytes on disk."""

from __future__ import annotations

from collections.abc import Iterator

from skillpack.lint.checks.registry import skill_check
from skillpack.lint.context import SkillContext
from skillpack.lint.finding import Finding
from skillpack.lint.references import CODE, LINK, normalize, scan
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


@skill_check("SP403", "SP404")
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
            if ref.kind == LINK or ref.target.startswith("../"):
                yield ctx.finding(
                    "SP404",
                    f"'{ref.written}' points outside the skill directory",
                    line=line,
                    column=column,
                    hint="copy the file into the skill and reference it by a relative path",
                )
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
