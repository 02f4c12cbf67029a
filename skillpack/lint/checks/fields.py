"""SP0xx (the frontmatter block, as the strict reader refuses it) and SP1xx (the Agent
Skills fields: name, description, license, compatibility, metadata, allowed-tools)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from skillpack._internal.canonical import JSONValue
from skillpack.lint.catalog import RULES
from skillpack.lint.checks.registry import skill_check
from skillpack.lint.context import SkillContext
from skillpack.lint.finding import Finding
from skillpack.source.frontmatter import (
    Frontmatter,
    FrontmatterError,
    KeyPath,
    describe_value,
)

#: The Agent Skills specification's fields, in the canonical order ``skillpack fmt`` writes.
KNOWN_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
RESERVED_METADATA_PREFIX = "io.modelcontextprotocol/"
NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500

FRONTMATTER_CODES = tuple(f"SP{n:03d}" for n in range(1, 18))


@skill_check(*FRONTMATTER_CODES, "SP306")
def frontmatter_block(ctx: SkillContext) -> Iterator[Finding]:
    """Report every refusal of the strict reader, or a SKILL.md that cannot be read."""
    if isinstance(ctx.raw, OSError):
        yield ctx.finding(
            "SP306",
            f"SKILL.md cannot be read: {ctx.raw.strerror or ctx.raw}",
            hint="fix the file's permissions",
        )
        return
    parsed = ctx.parsed
    if isinstance(parsed, FrontmatterError):
        # what `lint --fix` cannot repair (a syntax error) blocks its fixes of the rest
        blocker = next((r for r in parsed.refusals if not RULES[r.code].fixable), None)
        for refusal in parsed.refusals:
            finding = ctx.finding(
                refusal.code,
                refusal.message,
                line=refusal.line,
                column=refusal.column,
                hint=refusal.hint,
            )
            if blocker is not None and RULES[refusal.code].fixable:
                finding = replace(
                    finding,
                    blocked_by=blocker.code,
                    hint=f"{refusal.hint}; 'skillpack lint --fix' and 'skillpack fmt' can "
                    f"do it once the {blocker.code} at line {blocker.line} is fixed",
                )
            yield finding


def name_problem(name: JSONValue) -> str | None:
    """Why ``name`` breaks the Agent Skills naming rules, or None when it is valid."""
    if not isinstance(name, str):
        return f"'name' must be a string, not {describe_value(name)}"
    if not name:
        return "'name' is empty"
    if len(name) > MAX_NAME:
        return f"'name' is {len(name)} characters long; at most {MAX_NAME} are allowed"
    if NAME_RE.fullmatch(name):
        return None
    if name != name.lower() and NAME_RE.fullmatch(name.lower()):
        return f"'name' {name!r} must be lowercase"
    if name.startswith("-") or name.endswith("-"):
        return f"'name' {name!r} must not start or end with a hyphen"
    if "--" in name:
        return f"'name' {name!r} must not contain consecutive hyphens"
    bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c == "-"))})
    if bad:
        shown = " ".join(repr(c) for c in bad[:5])
        return f"'name' {name!r} has characters other than a-z, 0-9 and '-': {shown}"
    return f"'name' {name!r} must be lowercase"


def _string_field_problem(value: JSONValue, key: str, maximum: int | None) -> str | None:
    if not isinstance(value, str):
        return f"'{key}' must be a string, not {describe_value(value)}"
    if maximum is not None:
        if not value.strip():
            return f"'{key}' is empty"
        if len(value) > maximum:
            return f"'{key}' is {len(value)} characters long; at most {maximum} are allowed"
    return None


class _Fields:
    """Finding factory that knows where each frontmatter key sits."""

    def __init__(self, ctx: SkillContext, fm: Frontmatter) -> None:
        self.ctx = ctx
        self.fm = fm

    def at(self, code: str, message: str, path: KeyPath = (), hint: str = "") -> Finding:
        line, column = self.fm.positions.get(path, (self.fm.block_line, 1))
        return self.ctx.finding(code, message, line=line, column=column, hint=hint)


@skill_check(*(f"SP{n}" for n in range(101, 113)))
def agent_skills_fields(ctx: SkillContext) -> Iterator[Finding]:
    fm = ctx.frontmatter
    if fm is None:
        return
    data = fm.data
    f = _Fields(ctx, fm)
    directory = ctx.skill.name

    if "name" not in data:
        yield f.at("SP101", "the frontmatter has no 'name'", hint=f"add 'name: {directory}'")
    else:
        name = data["name"]
        problem = name_problem(name)
        if problem:
            yield f.at(
                "SP102", problem, ("name",), hint="use 1-64 of a-z, 0-9 and single inner hyphens"
            )
        if isinstance(name, str) and name != directory:
            yield f.at(
                "SP103",
                f"'name' is {name!r} but the skill directory is {directory!r}",
                ("name",),
                hint=f"set 'name: {directory}' or rename the directory to {name!r}",
            )

    if "description" not in data:
        yield f.at(
            "SP104",
            "the frontmatter has no 'description'",
            hint="add a description of what the skill does and when to use it",
        )
    else:
        problem = _string_field_problem(data["description"], "description", MAX_DESCRIPTION)
        if problem:
            yield f.at(
                "SP105",
                problem,
                ("description",),
                hint="write 1 to 1024 characters; move detail into the body",
            )

    for key, code, maximum, hint in (
        ("compatibility", "SP106", MAX_COMPATIBILITY, "write one string of 1 to 500 characters"),
        ("license", "SP108", None, "write one string, e.g. 'license: MIT'"),
        ("allowed-tools", "SP109", None, "write one space-separated string of tool names"),
    ):
        if key in data:
            problem = _string_field_problem(data[key], key, maximum)
            if problem:
                yield f.at(code, problem, (key,), hint=hint)

    if "allowed-tools" in data:
        yield f.at(
            "SP110",
            "'allowed-tools' is experimental: hosts ignore it or ask the user to approve it",
            ("allowed-tools",),
            hint="make sure the skill works without pre-approved tools",
        )

    if "metadata" in data:
        yield from _metadata(f, data["metadata"])

    for key in data:
        if key not in KNOWN_FIELDS:
            yield f.at(
                "SP111",
                f"unknown field '{key}': MCP passes it through, but skills-ref and other hosts "
                "refuse fields other than " + ", ".join(KNOWN_FIELDS),
                (key,),
                hint="move it under 'metadata' as a string, or ignore SP111",
            )


def _metadata(f: _Fields, metadata: JSONValue) -> Iterator[Finding]:
    if not isinstance(metadata, dict):
        yield f.at(
            "SP107",
            f"'metadata' must be a mapping, not {describe_value(metadata)}",
            ("metadata",),
            hint="write 'metadata:' followed by indented 'key: value' lines",
        )
        return
    for key, value in metadata.items():
        if key.startswith(RESERVED_METADATA_PREFIX):
            yield f.at(
                "SP112",
                f"metadata key '{key}' uses the prefix '{RESERVED_METADATA_PREFIX}' reserved for "
                "MCP extensions",
                ("metadata", key),
                hint="use a distinctive key of your own",
            )
        if not isinstance(value, str):
            yield f.at(
                "SP107",
                f"metadata value '{key}' must be a string, not {describe_value(value)}",
                ("metadata", key),
                hint='quote the value (key: "value"); write lists as one string',
            )
