"""``skillpack fmt``: normalize ``SKILL.md`` so every frontmatter reader reads it the same.

What changes:

* plain values that YAML 1.1 and YAML 1.2 read differently (rule SP013: ``yes``,
  ``010``, ``1_000``, dates...) are double-quoted, keeping their text: the result is the
  string a YAML 1.2 reader would see if the value had been quoted to begin with;
* the known keys come first in the canonical order ``name, description, license,
  compatibility, metadata, allowed-tools``, then the other keys as written (block-style
  frontmatter only; a ``{...}`` flow mapping keeps its order);
* line endings become LF, a leading BOM is removed, the file ends with a newline.

Everything else is kept byte for byte: comments, quoting styles, indentation, the fence
lines and the body (apart from its line endings and final newline).

This is a rewrite of source spans, not a YAML emitter: ruamel.yaml's event parser (the
one the strict reader uses) gives each scalar's start and end offset, and each top-level
entry is moved as the lines it occupies, with the comment lines just above it. The result
is checked with the strict reader before it is accepted.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from skillpack._internal.fsutil import atomic_write
from skillpack.source.frontmatter import (
    AMBIGUOUS_SCALAR,
    BOM,
    FrontmatterError,
    check_block,
    decode_skill_md,
    parse_yaml_subset,
    resolve_plain,
    split_frontmatter,
    yaml_events,
)

CANONICAL_ORDER = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")


@dataclass(frozen=True)
class FormatOptions:
    """Which normalizations to apply (``lint --fix`` applies those of the enabled rules)."""

    quote_ambiguous: bool = True  #: SP013
    order_keys: bool = True
    lf: bool = True  #: SP405
    strip_bom: bool = True  #: SP406
    final_newline: bool = True  #: SP407

    @classmethod
    def for_rules(cls, codes: frozenset[str] | set[str]) -> FormatOptions:
        """Only the fixes of the rule codes given (no key reordering: it is not a rule)."""
        return cls("SP013" in codes, False, "SP405" in codes, "SP406" in codes, "SP407" in codes)


@dataclass(frozen=True)
class FormatResult:
    """The normalized bytes, and why the frontmatter could not be normalized (if so).

    When ``error`` is set, only the line-ending, BOM and final-newline changes were made
    (``lint --fix`` writes those; ``fmt`` leaves a file it cannot format as it is).
    ``error.refusals`` holds every reason.
    """

    data: bytes
    error: FrontmatterError | None = None


def quote_ambiguous(block: str) -> str:
    """``block`` with every plain scalar that SP013 refuses double-quoted."""
    from ruamel.yaml import events as ev

    replacements: list[tuple[int, int, str]] = []
    for event in yaml_events(block):
        if isinstance(event, ev.ScalarEvent) and event.style is None and event.implicit[0]:
            try:
                resolve_plain(event.value, 0, 0)
            except FrontmatterError as exc:
                if exc.code == AMBIGUOUS_SCALAR:
                    replacements.append(
                        (event.start_mark.index, event.end_mark.index, json.dumps(event.value))
                    )
    for start, end, text in reversed(replacements):
        block = block[:start] + text + block[end:]
    return block


@dataclass
class _Entry:
    key: str
    key_line: int  #: 0-based line of the key in the block
    last_line: int  #: last line holding part of the entry's value


def _top_level_entries(block: str) -> list[_Entry] | None:
    """The entries of the root block mapping, or None when the root is anything else."""
    from ruamel.yaml import events as ev

    entries: list[_Entry] = []
    flow: list[bool] = []  # flow_style of each open collection
    expecting_key = False
    for event in yaml_events(block):
        if isinstance(event, ev.CollectionStartEvent):
            if not flow and (not isinstance(event, ev.MappingStartEvent) or event.flow_style):
                return None  # the root is not a block mapping
            if len(flow) == 1 and expecting_key:
                return None  # a collection used as a key
            flow.append(bool(event.flow_style))
            expecting_key = len(flow) == 1
            continue
        if isinstance(event, ev.CollectionEndEvent):
            if flow.pop() and entries:  # ']' or '}' closes a flow collection on this line
                line = block.count("\n", 0, event.start_mark.index)
                entries[-1].last_line = max(entries[-1].last_line, line)
            expecting_key = len(flow) == 1
            continue
        if not isinstance(event, (ev.ScalarEvent, ev.AliasEvent)) or not flow:
            continue
        if len(flow) == 1 and expecting_key:
            if not isinstance(event, ev.ScalarEvent):
                return None  # an alias as a key (the strict reader refuses it anyway)
            entries.append(_Entry(event.value, event.start_mark.line, event.start_mark.line))
            expecting_key = False
            continue
        start, end = event.start_mark.index, event.end_mark.index
        if end > start:  # an empty value's mark lies on the next line: it adds nothing
            line = block.count("\n", 0, end - 1)
            entries[-1].last_line = max(entries[-1].last_line, line)
        expecting_key = len(flow) == 1
    return entries


def _is_comment_or_blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def order_keys(block: str) -> str:
    """``block`` with the top-level entries of a block mapping in canonical order.

    Each entry moves with the lines it occupies and the comment and blank lines just
    above it; lines above the first key and comments after the last entry stay in place.
    """
    entries = _top_level_entries(block)
    if not entries or len(entries) < 2:
        return block
    rank = {key: i for i, key in enumerate(CANONICAL_ORDER)}
    order = sorted(range(len(entries)), key=lambda i: (rank.get(entries[i].key, len(rank)), i))
    if order == list(range(len(entries))):
        return block
    lines = block.removesuffix("\n").split("\n")
    # boundaries[i]: first line of entry i's chunk; the last boundary starts the footer
    boundaries = [entries[0].key_line]
    for i, entry in enumerate(entries):
        end = entries[i + 1].key_line if i + 1 < len(entries) else len(lines)
        while end - 1 > entry.last_line and _is_comment_or_blank(lines[end - 1]):
            end -= 1
        boundaries.append(end)
    chunks = [lines[boundaries[i] : boundaries[i + 1]] for i in range(len(entries))]
    out = lines[: boundaries[0]] + [line for i in order for line in chunks[i]]
    out += lines[boundaries[-1] :]
    return "\n".join(out) + "\n"


def format_text(
    text: str, options: FormatOptions = FormatOptions()
) -> tuple[str, FrontmatterError | None]:
    """Normalize decoded ``SKILL.md`` text; see the module docstring."""
    if options.strip_bom:
        text = text.removeprefix(BOM)
    if options.lf:
        text = text.replace("\r\n", "\n")
    if options.final_newline and not text.endswith("\n"):
        text += "\n"
    if not (options.quote_ambiguous or options.order_keys):
        return text, None
    from ruamel.yaml.error import YAMLError

    try:
        block, block_line, _, _, _ = split_frontmatter(text)
        # the refusals made on the raw text (size first) come before any YAML is read
        check_block(block, block_line - 1)
    except FrontmatterError as exc:
        return text, exc
    start = text.index("\n") + 1
    end = start + len(block)
    try:
        new_block = quote_ambiguous(block) if options.quote_ambiguous else block
        # refusals other than SP013 (quoting moves no line, so positions stay right)
        data = parse_yaml_subset(new_block, block_line - 1)
        if options.order_keys:
            new_block = order_keys(new_block)
            if parse_yaml_subset(new_block, block_line - 1) != data:  # pragma: no cover
                raise AssertionError("reordering the frontmatter keys changed its content")
    except FrontmatterError as exc:
        return text, exc
    except YAMLError:
        # ruamel.yaml refused the block: the strict reader names the position
        try:
            parse_yaml_subset(block, block_line - 1)
        except FrontmatterError as exc:
            return text, exc
        raise
    return text[:start] + new_block + text[end:], None


def format_skill_md(data: bytes, options: FormatOptions = FormatOptions()) -> FormatResult:
    """Normalize ``SKILL.md`` bytes. Not UTF-8: returned unchanged with the SP017 error."""
    try:
        text = decode_skill_md(data)
    except FrontmatterError as exc:
        return FormatResult(data, exc)
    new_text, error = format_text(text, options)
    return FormatResult(new_text.encode("utf-8"), error)


@dataclass(frozen=True)
class Change:
    """A file whose normalized bytes differ from what is on disk."""

    path: Path
    before: bytes
    after: bytes

    def diff(self, shown: str) -> str:
        """A unified diff of the change, ``shown`` naming the file."""
        import difflib

        before = self.before.decode("utf-8", "replace").splitlines(keepends=True)
        after = self.after.decode("utf-8", "replace").splitlines(keepends=True)
        lines = difflib.unified_diff(before, after, f"a/{shown}", f"b/{shown}")
        text = ""
        for line in lines:
            text += line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        return text


@dataclass
class FormatOutcome:
    changed: list[Change] = field(default_factory=list)
    unchanged: int = 0
    failed: list[tuple[Path, FrontmatterError]] = field(default_factory=list)


def format_files(
    paths: Iterable[Path], write: bool = True, options: FormatOptions = FormatOptions()
) -> FormatOutcome:
    """Normalize each file; when ``write``, rewrite the changed ones atomically (keeping
    their permissions). A file that cannot be formatted is listed in ``failed`` only and
    left as it is; each file (the same path given twice counts once) is in exactly one of
    ``changed``, ``unchanged`` and ``failed``."""
    outcome = FormatOutcome()
    for path in dict.fromkeys(paths):
        try:
            data = path.read_bytes()
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError as exc:
            outcome.failed.append(
                (path, FrontmatterError("SP306", f"cannot read: {exc.strerror or exc}", 0, 0))
            )
            continue
        result = format_skill_md(data, options)
        if result.error is not None:
            outcome.failed.append((path, result.error))
            continue
        if result.data == data:
            outcome.unchanged += 1
            continue
        outcome.changed.append(Change(path, data, result.data))
        if write:
            atomic_write(path, result.data, mode, what="the formatted SKILL.md")
    return outcome
