"""The frontmatter a listing sends, judged by the content scan at ``serve``'s start.

``skills/list`` carries every skill's whole frontmatter (keys included) to every host
before any file is read; ``instructions``, the prompts and the ``load_skill`` tool's
description carry its name and description. So serve judges every frontmatter string
with the whole scan, as text of the skill's ``SKILL.md``, before it answers anything.

This module imports the scan and nothing of admission's: a clean listing (the usual
case) costs the scan's import and about one scan call, and :mod:`.admission` is
imported only when something is found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from skillpack.scan import ScanFinding, scan_file

if TYPE_CHECKING:
    from skillpack.manifest import SkillEntry

#: what keeps a frontmatter string from being scanned beside others: a character that
#: opens a Markdown context lasting beyond its own paragraph (a fence, an HTML block or
#: comment, a link reference, an escape), a line that starts indented (a code block) or
#: with ``---`` (a frontmatter block), a carriage return, a tab or a NUL (searched for
#: with a line feed before the string)
_ALONE = re.compile(r"[`~<\[\\\r\t\x00]|\n(?:---| )")
#: between two plain strings scanned together: a blank line (a paragraph each)
_BETWEEN = "\n\n"


def _strings(value: object, out: list[str]) -> None:
    """Every string of a JSON value, keys included, appended to ``out`` (as
    :func:`~skillpack._internal.canonical.strings_in` yields them, without its
    generators: a listing of thousands of skills is walked at every start)."""
    if isinstance(value, dict):
        for key, item in value.items():
            out.append(key)
            if isinstance(item, str):
                out.append(item)
            else:
                _strings(item, out)
    elif isinstance(value, str):
        out.append(value)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def frontmatter_findings(skills: Iterable[SkillEntry]) -> list[tuple[SkillEntry, ScanFinding]]:
    """The scan's findings in every frontmatter string of ``skills``, each judged as
    text of its skill's ``SKILL.md`` (line 0, the message led by ``frontmatter:``),
    with the skill holding it.

    Each distinct string is judged once, however many skills hold it. The plain ones
    (ASCII, none of :data:`_ALONE`) are first scanned together, a paragraph each, in
    one call: a finding of one string alone is a finding of it among other paragraphs
    that open no context, so when that call finds nothing (a listing's usual case: a
    few milliseconds for 1,000 skills) none of them has one. Otherwise, and for every
    other string (hidden characters, a fence, a comment), each is scanned alone: a
    string cannot hide another's finding, nor be blamed for it."""
    chosen = list(skills)
    every: list[str] = []
    for skill in chosen:
        _strings(skill.frontmatter, every)
    texts = list(dict.fromkeys(every))
    joined = _BETWEEN.join(texts)
    plain: list[str] = texts
    alone: list[str] = []
    if not joined.isascii() or _ALONE.search("\n" + joined) is not None:
        plain = []
        for text in texts:
            simple = text.isascii() and _ALONE.search("\n" + text) is None
            (plain if simple else alone).append(text)
        joined = _BETWEEN.join(plain)
    if plain and scan_file("SKILL.md", joined.encode("ascii")):
        alone += plain
    found: dict[str, list[ScanFinding]] = {}
    for text in alone:
        # a NUL would make the string a "binary file", a lone surrogate (a JSON escape)
        # an undecodable one: the scan reads the rest as a host would
        findings = scan_file("SKILL.md", text.replace("\x00", "").encode("utf-8", "replace"))
        if findings:
            found[text] = findings
    out: list[tuple[SkillEntry, ScanFinding]] = []
    for skill in chosen if found else ():
        held: list[str] = []
        _strings(skill.frontmatter, held)
        for text in dict.fromkeys(held):
            for hit in found.get(text, ()):
                message = f"frontmatter: {hit.message}"
                out.append((skill, replace(hit, line=0, column=0, message=message)))
    return out
