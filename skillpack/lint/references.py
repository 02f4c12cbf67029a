"""File references in a ``SKILL.md`` body: what a reader takes for a reference to a file.

Two constructs are references: Markdown links and images (``[text](path)``,
``![alt](path)``, ``[label]: path``) with a local destination, and inline code that is
a plain relative path and nothing else (```references/FORMS.md```). Inline code holding a
command or a pattern is not: ```go test ./...```, ```python scripts/fill.py in.pdf```,
```scripts/*.py```, ```$HOME/.config```, ```path/to/...``` (spaces, shell syntax, globs and
ellipses make it something else than a path).

This is a line scanner for those constructs, not a Markdown parser: fenced code blocks are
skipped, inline code spans are read as candidate paths and blanked before links are
looked for, so a link inside code is not a link.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

LINK = "link"
CODE = "code"

_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})")
_CODE_SPAN_RE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_LINK_RE = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^<>\n]*>|[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
#: a link reference definition; ``[^label]:`` is a footnote's text (GFM), not a link
_DEFINITION_RE = re.compile(r" {0,3}\[(?!\^)[^\]]+\]:\s*(<[^<>]*>|\S+)")
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# inline code that is a plain relative path: '/'-separated segments of letters, digits and
# '_', '+', '.', '-' (no space, no shell syntax: $ ~ * ? [ ] { } | & ; < > ( ) = ' " \ : #),
# with at least one '/' and not starting with '-' (an option) or '/' (absolute)
_CODE_PATH_RE = re.compile(r"(?!-)[\w+.-]+(?:/[\w+.-]+)+/?|(?!-)[\w+.-]+/")
_ELLIPSIS_RE = re.compile(r"\.\.\.|…")


@dataclass(frozen=True)
class Reference:
    """A file a body names: the target as written and decoded, and where it is."""

    target: str  #: the path, fragment and query removed, percent-decoded
    written: str  #: the text as written in the file
    line: int  #: 0-based line within the body
    column: int  #: 0-based column
    kind: str  #: LINK or CODE


def _link_target(raw: str) -> str | None:
    """The local path a link destination names, or None (URLs, anchors, e-mail...)."""
    if raw.startswith("<") and raw.endswith(">"):
        raw = raw[1:-1].strip()
    if not raw or raw.startswith(("#", "//")) or _SCHEME_RE.match(raw):
        return None
    path = raw.split("#", 1)[0].split("?", 1)[0]
    if not path:
        return None
    try:
        return unquote(path, errors="strict")
    except UnicodeDecodeError:
        return path


def scan(body: str) -> Iterator[Reference]:
    """Every link and backticked path in ``body`` outside fenced code blocks."""
    fence: str | None = None
    for index, line in enumerate(body.split("\n")):
        if fence is not None and fence[0] not in line:
            continue  # cannot close the block
        if fence is None and "`" not in line and "~" not in line and "]" not in line:
            continue  # no fence, code span or link
        m = _FENCE_RE.match(line)
        if fence is not None:
            if (
                m
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= len(fence)
                and (not line[m.end() :].strip())
            ):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        if "`" in line:
            masked = list(line)
            for span in _CODE_SPAN_RE.finditer(line):
                text = span.group(2)
                if text.startswith(" ") and text.endswith(" ") and text.strip():
                    text = text[1:-1]  # CommonMark strips one space from each end
                if is_plain_path(text):
                    column = span.start(2) + span.group(2).index(text)
                    yield Reference(text, text, index, column, CODE)
                masked[span.start() : span.end()] = " " * (span.end() - span.start())
            line = "".join(masked)
        if "](" in line:
            for link in _LINK_RE.finditer(line):
                target = _link_target(link.group(1))
                if target is not None:
                    yield Reference(target, link.group(1), index, link.start(1), LINK)
        if "]:" in line:
            definition = _DEFINITION_RE.match(line)
            if definition:
                target = _link_target(definition.group(1))
                if target is not None:
                    yield Reference(target, definition.group(1), index, definition.start(1), LINK)


def is_plain_path(text: str) -> bool:
    """Whether inline code ``text`` is a plain relative path a reader takes for a file or
    directory reference: ``references/x.md``, ``./scripts/run.sh``, ``../other/SKILL.md``,
    ``assets/`` (not ``go test ./...``, ``scripts/*.py``, ``~/x/y``, ``a/.../b``)."""
    return _CODE_PATH_RE.fullmatch(text) is not None and _ELLIPSIS_RE.search(text) is None


def normalize(target: str) -> str | None:
    """``target`` relative to the skill root (``./`` and ``x/..`` folded, no trailing slash),
    or None when it is absolute or leaves the skill root."""
    if target.startswith("/"):
        return None
    folded = posixpath.normpath(target)
    if folded == ".." or folded.startswith("../"):
        return None
    return "" if folded == "." else folded
