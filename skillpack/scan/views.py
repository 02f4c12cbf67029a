"""Views of a file: the text as a model or a reader takes it in, so that a rule cannot be
evaded by how the text is written.

A view is the file's text with some of these undone, each a *kind*:

* ``hidden``: the invisible characters the hidden-character rules flag (zero-width,
  tags, bidi controls, selectors: :func:`~skillpack.scan.hidden.find_hidden`) removed:
  ``Ign\\u200bore`` reads ``Ignore``, ``cu\\u200brl`` ``curl``;
* ``refs``: HTML character references decoded outside code (``Ign&#111;re``,
  ``&amp;``, named ones), as a Markdown renderer does;
* ``look-alike``: letters that imitate Latin ones (Cyrillic ``і``, ``о``, ``р``, Greek
  ``ο``, fullwidth and mathematical letters, ...) read as the Latin letters, in words
  that hold a Latin letter or only such letters (Russian and Greek prose stays as it
  is: its words hold letters of their own);
* ``markup``: Markdown emphasis and code-span delimiters removed outside code
  (``Ignore **previous** instructions``), and ``markup-in-word`` those inside a word
  (``Ign*o*re``);
* ``join``: a paragraph's lines read as one line (``Ignore\\nprevious instructions.``),
  as it renders; blank lines, headings, list items, tables and fences end it;
* ``quotes``: quote characters inside a word removed, as a shell removes them
  (``"cu"rl``, ``c''url``, ``c\\url``, PowerShell's ``i`e`x``: ``curl``, ``iex``), on
  the lines where the words so read hold a command marker the line does not.

The directive rules read a Markdown file's view with every kind but ``quotes``; the
command rules read a view with the invisible characters and the quotes inside words
removed (and, in Markdown, the references decoded): a shell does not read look-alike
letters, emphasis or paragraphs as a model does. A view is built only when the text
holds something it would change, and the rules run on it only for the markers it holds
on the lines it changed. A finding that appears only in a view is reported at its place
in the file, its message saying what the view undid; an evasion (a kind of
:data:`HIDING` was needed: invisible characters, references, look-alike letters, markup
or quotes inside a word) is an error, whatever the rule's
severity, while a finding that needed only a paragraph's line breaks or emphasis around
words keeps its rule's severity (that is how honest text is written).

Offsets map back exactly: a view is the text with spans replaced (:class:`Shift`),
then look-alike letters replaced one for one.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from skillpack.scan import commands, directives
from skillpack.scan.markdown import PARAGRAPH, RAW, Blocks, CodeText, blocks, merge
from skillpack.scan.model import ERROR
from skillpack.scan.text import (
    QUOTE_CHARS,
    QUOTE_IN_WORD,
    Lazy,
    Markers,
    ascii_lower,
    has_quote_in_word,
    marked_lines,
    marker_places,
)

Raw = tuple[int, str, str, str]  # (offset, code, severity, message)

HIDDEN = "hidden"
REFS = "refs"
LOOKALIKE = "look-alike"
MARKUP = "markup"
INWORD = "markup-in-word"
JOIN = "join"
QUOTES = "quotes"

#: what a view undid, in the order a message lists it
UNDID = {
    HIDDEN: "the invisible characters removed",
    REFS: "the HTML character references decoded",
    LOOKALIKE: "the look-alike letters read as the Latin ones they imitate",
    MARKUP: "the emphasis and code markup removed",
    INWORD: "the markup inside words removed",
    JOIN: "the paragraph's lines read as one line",
    QUOTES: "the quotes inside words removed, as a shell reads them",
}
#: the kinds that only hide a text (no honest writer breaks a word with them): a finding
#: they were needed for is an error; emphasis around words and a paragraph's line
#: breaks are how honest text is written, and leave a finding its rule's severity
HIDING = frozenset({HIDDEN, REFS, LOOKALIKE, INWORD, QUOTES})
#: the invisible characters by kind, for the message (the rest: "invisible characters")
_INVISIBLE_NAMES = (
    ("zero-width characters", frozenset("\u200b\u200c\u200d\u2060\ufeff")),
    ("bidirectional controls", frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")),
)


# --- look-alike letters ------------------------------------------------------------

#: letters a reader takes for Latin ones (after Unicode's confusables for Latin letters):
#: Cyrillic, Greek, Armenian, Latin variants and Roman numerals, one for one
_LOOKALIKES = (
    "аaеeоoрpсcуyхxѕsіiјjһhԁdԛqԝwӏlүyѡw"
    "АAВBЕEКKМMНHОOРPСCТTХXУYЅSІIЈJҺHԚQԜWҮYӀl"
    "ΑAΒBΕEΖZΗHΙIΚKΜMΝNΟOΡPΤTΥYΧXοoιiκkνvρpυuγyχxϲcϳjϹCͿJ"
    "օoսuհhոnցgՕOՍUՏSԼL"
    "ɑaɡgɩiȷjʋv"
    "ⅠIⅤVⅩXⅬLⅭCⅮDⅯMⅰiⅴvⅹxⅼlⅽcⅾdⅿm"
)
_TABLE: dict[int, str] = {
    ord(_LOOKALIKES[i]): _LOOKALIKES[i + 1] for i in range(0, len(_LOOKALIKES), 2)
}
_TABLE.update({cp: chr(cp - 0xFF21 + ord("A")) for cp in range(0xFF21, 0xFF3B)})
_TABLE.update({cp: chr(cp - 0xFF41 + ord("a")) for cp in range(0xFF41, 0xFF5B)})
#: the characters of the table, and the mathematical alphanumerics (their letters are
#: read as Latin ones: NFKC gives each one ASCII letter)
_LOOKALIKE_CLASS = (
    "[" + "".join(re.escape(chr(c)) for c in sorted(_TABLE) if c < 0xFF00)
    + "\uff21-\uff3a\uff41-\uff5a\U0001d400-\U0001d6a3]"
)  # fmt: skip
_LOOKALIKE_CHAR = Lazy(_LOOKALIKE_CLASS)
_LOOKALIKE_WORD = Lazy(r"\w*" + _LOOKALIKE_CLASS + r"\w*")
_MATH_DONE: list[bool] = []


def _math_letters() -> None:
    """Add the mathematical alphanumeric letters to the table (on the first need)."""
    if _MATH_DONE:
        return
    for cp in range(0x1D400, 0x1D6A4):
        folded = unicodedata.normalize("NFKC", chr(cp))
        if len(folded) == 1 and folded.isascii() and folded.isalpha():
            _TABLE[cp] = folded
    _MATH_DONE.append(True)


def _fold_word(match: re.Match[str]) -> str:
    word = match.group()
    folded = word.translate(_TABLE)
    if folded.isascii() or any(ch.isascii() and ch.isalpha() for ch in word):
        return folded
    return word


def fold_lookalikes(text: str) -> str:
    """``text`` with the look-alike letters read as the Latin ones, in the words that
    hold a Latin letter or only look-alike letters; offsets kept (one for one)."""
    _math_letters()
    return _LOOKALIKE_WORD.compiled.sub(_fold_word, text)


# --- character references ----------------------------------------------------------

_REF = Lazy(r"&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));")


def _decode_ref(match: re.Match[str]) -> str | None:
    number = match.group(1) or match.group(2)
    if number is not None:
        cp = int(number, 10 if match.group(1) else 16)
        if cp == 0 or cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            return "\ufffd"
        return chr(cp)
    from html.entities import html5  # standard library, a large table: on first need

    return html5.get(match.group(3) + ";")


# --- offsets -------------------------------------------------------------------------

Edit = tuple[int, int, str, str]  # (start, end, replacement, kind) in the text


class Shift:
    """Offsets between a text and a view made from it by replacing disjoint spans."""

    __slots__ = ("_edits", "_starts", "_view_starts")

    def __init__(self, edits: list[Edit]) -> None:
        self._edits = edits
        self._starts = [e[0] for e in edits]
        # the view's offset of each edit: its start, shifted by the edits before it
        shifts = accumulate((len(r) - (end - start) for start, end, r, _ in edits), initial=0)
        self._view_starts = [e[0] + d for e, d in zip(edits, shifts, strict=False)]

    def source(self, offset: int) -> int:
        """The text's offset of the view's character at ``offset`` (a replacement's
        characters: the start of the span it replaced)."""
        index = bisect_right(self._view_starts, offset) - 1
        if index < 0:
            return offset
        start, end, replacement, _ = self._edits[index]
        inside = offset - self._view_starts[index]
        return start if inside < len(replacement) else end + inside - len(replacement)

    def view(self, offset: int) -> int:
        """The view's offset of the text's ``offset`` (inside a replaced span: where its
        replacement starts)."""
        index = bisect_right(self._starts, offset) - 1
        if index < 0:
            return offset
        _, end, replacement, _ = self._edits[index]
        if offset < end:
            return self._view_starts[index]
        return self._view_starts[index] + len(replacement) + offset - end

    def kinds(self, start: int, end: int) -> set[str]:
        """The kinds of the edits inside the text's ``[start, end)``."""
        first = bisect_left(self._starts, start)
        last = bisect_left(self._starts, end)
        return {self._edits[i][3] for i in range(first, last)}


def apply(text: str, edits: list[Edit]) -> str:
    """``text`` with the sorted, disjoint ``edits`` made."""
    if not edits:
        return text
    ends = [0, *(e[1] for e in edits)]
    pieces = [piece for (start, _, replacement, _), last in zip(edits, ends, strict=False)
              for piece in (text[last:start], replacement)]  # fmt: skip
    pieces.append(text[ends[-1] :])
    return "".join(pieces)


# --- the edits of each kind ----------------------------------------------------------

_INTRAWORD = Lazy(r"(?=[*`])(?<=\w)[*`]+(?=\w)")
#: the runs of ``*`` and backticks looked at one by one before :data:`_INTRAWORD` reads
#: the rest of a text (a regular expression over a character class costs more than a
#: few finds in a text that holds a few runs)
_FIND_RUNS = 256


def _intraword(text: str) -> list[int]:
    """Where a ``*`` or a backtick run stands inside a word (``Ign*o*re``,
    ``Ign`o`re``): markup that may break a marker's word."""
    size = len(text)
    places = []
    looked = 0
    for mark in ("*", "`"):
        pos = text.find(mark)
        while pos >= 0:
            looked += 1
            if looked > _FIND_RUNS:
                return [m.start() for m in _INTRAWORD.finditer(text)]
            end = pos + 1
            while end < size and text[end] in "*`":
                end += 1
            if pos and end < size:
                before, after = text[pos - 1], text[end]
                if (before.isalnum() or before == "_") and (after.isalnum() or after == "_"):
                    places.append(pos)
            pos = text.find(mark, end)
    return places


#: a run of ``*`` or ``_`` that opens or closes emphasis (CommonMark's flanking rules,
#: punctuation read as what is neither a word character nor white space): a ``*`` run
#: unless white space is on both sides; a ``_`` run after white space and before a
#: character, after punctuation, or after a letter and not before one (``snake_case``
#: is no emphasis); never after a backslash
_EMPHASIS = Lazy(
    r"(?=[*_])(?:(?<=[^\s*\\])\*+(?!\*)|(?<![*\\])\*+(?=[^\s*])"
    r"|(?<!\S)_+(?=[^\s_])|(?<=[^\w\s\\])_+(?!_)|(?<=[^\W_])_+(?!\w))"
)  # the look-ahead first: the expression engine skips to a "*" or "_" at once
#: where emphasis is no emphasis: comments, URLs, link destinations, HTML tags
_NO_MARKUP = Lazy(r"<!--.*?(?:-->|\Z)|https?://[^\s<>()]+|\]\([^)\n]*\)?|<[^>\n]*>", re.DOTALL)


_NO_QUOTES = str.maketrans("", "", QUOTE_CHARS)
#: the part of a word before a quote inside it, and the part after (a word longer than
#: :data:`_MAX_WORD` is read from that far back), and the characters around a changed
#: word that a probe for markers reads with it
_WORD_BEFORE = Lazy(r"\S+\Z")
_WORD_AFTER = Lazy(r"\S+")
_MAX_WORD = 256
_NEAR = 40


def _quote_edits(text: str, markers: Markers) -> list[Edit]:
    """:attr:`Source.quotes` of ``text`` for the command rules' ``markers``: each line
    holding a quote inside a word once, its words with one read without their quotes."""
    found: list[Edit] = []
    if not has_quote_in_word(text):
        return found
    find = text.find
    pos = 0
    while True:
        match = QUOTE_IN_WORD.search(text, pos)
        if match is None:
            return found
        start = text.rfind("\n", 0, match.start()) + 1
        end = find("\n", match.end())
        end = len(text) if end < 0 else end
        pos = end
        line = text[start:end]
        edits: list[Edit] = []
        pieces: list[str] = []
        last = 0
        probes: list[str] = []  # each changed word read with what stands around it
        for split in QUOTE_IN_WORD.finditer(line):
            if split.start() < last:
                continue  # in the word just read
            before = _WORD_BEFORE.search(line, max(0, split.start() - _MAX_WORD), split.start())
            left = split.start() if before is None else before.start()
            after = _WORD_AFTER.match(line, split.end())
            right = split.end() if after is None else after.end()
            edits += [
                (start + i, start + i + 1, "", QUOTES)
                for i in range(left, right)
                if line[i] in QUOTE_CHARS
            ]
            pieces += [line[last:left], line[left:right].translate(_NO_QUOTES)]
            last = right
            near = line[max(0, left - _NEAR) : right + _NEAR]
            probes.append(near.translate(_NO_QUOTES))
        # the whole line compared only when a changed word and what stands around it
        # (a marker is at most two words) read as a marker: most such lines (JSON's
        # "\n", a regular expression's "\d") do not
        if not markers.present(ascii_lower("\n".join(probes))):
            continue
        read = "".join(pieces) + line[last:]
        if markers.present(ascii_lower(read)) - markers.present(ascii_lower(line)):
            found += edits


#: a span of the text left out of a view (outside the parts the rules read again)
_SKIP = "skip"

Span = tuple[int, int]


class Source:
    """A file's text and what its views are made of, each found on the first need."""

    def __init__(self, text: str, markdown: bool, hidden: list[Span]) -> None:
        self.text = text
        self.markdown = markdown
        self.hidden = hidden
        self._blocks: Blocks | None = None
        self._code: tuple[list[int], list[int]] | None = None
        self._refs: list[Edit] | None = None
        self._lookalikes: list[int] | None = None
        self._quotes: list[Edit] | None = None

    @property
    def blocks(self) -> Blocks:
        if self._blocks is None:
            self._blocks = blocks(self.text)
        return self._blocks

    @property
    def code(self) -> tuple[list[int], list[int]]:
        """The code of a Markdown text, as disjoint (starts, ends)."""
        if self._code is None:
            if not self.markdown:
                self._code = ([], [])
            else:
                found = self.blocks
                self._code = merge(found.code + [(s, e) for s, e, _ in found.inline])
        return self._code

    def in_code(self, offset: int) -> bool:
        starts, ends = self.code
        index = bisect_right(starts, offset) - 1
        return index >= 0 and offset < ends[index]

    @property
    def refs(self) -> list[Edit]:
        """The character references a reader reads decoded (in Markdown, outside code)."""
        if self._refs is None:
            text = self.text
            found: list[Edit] = []
            if self.markdown and "&" in text:
                for match in _REF.finditer(text):
                    decoded = _decode_ref(match)
                    if decoded is not None and not self.in_code(match.start()):
                        found.append((match.start(), match.end(), decoded, REFS))
            self._refs = found
        return self._refs

    @property
    def lookalikes(self) -> list[int]:
        """The starts of the words whose look-alike letters a reader takes for Latin ones."""
        if self._lookalikes is None:
            found: list[int] = []
            text = self.text
            if not text.isascii() and _LOOKALIKE_CHAR.search(text) is not None:
                _math_letters()
                for match in _LOOKALIKE_WORD.finditer(text):
                    if _fold_word(match) != match.group():
                        found.append(match.start())
            self._lookalikes = found
        return self._lookalikes

    @property
    def quotes(self) -> list[Edit]:
        """The quote characters a shell removes from the words that hold one inside
        (:data:`~skillpack.scan.text.QUOTE_IN_WORD`: ``"cu"rl``, ``ba''sh``, ``c\\url``,
        ``i`e`x``), on the lines where the words read without them hold a marker of the
        command rules that the line does not: elsewhere (``O'Brien``, a regular
        expression's ``r'\\d'``) nothing a rule reads changes."""
        if self._quotes is None:
            self._quotes = _quote_edits(
                self.text, (COMMANDS_MARKDOWN if self.markdown else COMMANDS_SCRIPT).markers
            )
        return self._quotes

    def edits(self, kind: str, units: list[tuple[int, int, int]] | None) -> list[Edit]:
        """The edits of ``kind`` (of ``units`` only, when given: markup and joins)."""
        if kind == QUOTES:
            return self.quotes
        if kind == HIDDEN:
            return [(start, end, "", HIDDEN) for start, end in self.hidden]
        if kind == REFS:
            return self.refs
        if kind == LOOKALIKE:
            return []  # one for one: :func:`fold_lookalikes` after the edits
        if units is None:
            units = self.blocks.units
        if kind == JOIN:
            return self._joins(units)
        return [e for e in self._markup(units) if e[3] == kind]

    def _joins(self, units: list[tuple[int, int, int]]) -> list[Edit]:
        find = self.text.find
        found = []
        for start, end, kind in units:
            if kind != PARAGRAPH:
                continue
            newline = find("\n", start, end)
            while newline >= 0:
                found.append((newline, newline + 1, " ", JOIN))
                newline = find("\n", newline + 1, end)
        return found

    def _markup(self, units: list[tuple[int, int, int]]) -> list[Edit]:
        """The markup edits of ``units``, those inside a word as :data:`INWORD`."""
        text = self.text
        size = len(text)
        return [
            (start, end, "", INWORD)
            if start
            and end < size
            and (text[start - 1].isalnum() or text[start - 1] == "_")
            and (text[end].isalnum() or text[end] == "_")
            else edit
            for edit in self._markup_all(units)
            for start, end, _, _ in (edit,)
        ]

    def _markup_all(self, units: list[tuple[int, int, int]]) -> list[Edit]:
        text = self.text
        found: list[Edit] = []
        inline = self.blocks.inline
        starts = [s for s, _, _ in inline]
        emphasis = "*" in text or "_" in text
        find = text.find
        finditer = _EMPHASIS.compiled.finditer
        for start, end, kind in units:
            if kind == RAW:
                continue
            # code spans: their delimiters are markup, their text is code
            first = bisect_left(starts, start)
            last = first
            while last < len(inline) and inline[last][0] < end:
                span_start, span_end, ticks = inline[last]
                if ticks:
                    found.append((span_start, span_start + ticks, "", MARKUP))
                    found.append((span_end - ticks, span_end, "", MARKUP))
                last += 1
            if not emphasis or (find("*", start, end) < 0 and find("_", start, end) < 0):
                continue
            skips = [(s, e) for s, e, _ in inline[first:last]]
            if any(find(token, start, end) >= 0 for token in ("<", "](", "://")):
                skips.extend(m.span() for m in _NO_MARKUP.finditer(text, start, end))
            if not skips:
                found.extend((m.start(), m.end(), "", MARKUP) for m in finditer(text, start, end))
                continue
            # between the skipped spans (each seen one character on, for a run's flank)
            skip_starts, skip_ends = merge(skips)
            for left, right in zip([start, *skip_ends], [*skip_starts, end], strict=True):
                if left < right:
                    found.extend(
                        (m.start(), m.end(), "", MARKUP)
                        for m in finditer(text, left, min(right + 1, end))
                    )
        return found


# --- views ---------------------------------------------------------------------------


@dataclass(slots=True)
class View:
    """The text with ``kinds`` undone: ``text`` (a :class:`CodeText` for Markdown),
    ``lowered`` (:func:`ascii_lower` of it), ``unfolded`` (before the look-alike
    letters were read as Latin ones) and the :class:`Shift` back to the file."""

    text: str
    lowered: str
    unfolded: str
    shift: Shift


@dataclass(frozen=True, slots=True)
class Plan:
    """What a view undoes (``kinds``) and where: the units of the text the rules read
    again (``units``; None: all of it)."""

    kinds: tuple[str, ...]
    units: list[tuple[int, int, int]] | None
    #: the edits of a kind already made for ``units``
    edits: dict[str, list[Edit]] = field(default_factory=dict)


def build(source: Source, plan: Plan, leave_out: str = "") -> View:
    """The view ``plan`` makes of ``source`` (without the kind ``leave_out``)."""
    kinds = [k for k in plan.kinds if k != leave_out]
    units = plan.units
    edits: list[Edit] = []
    ranges = _ranges(units) if units is not None else []
    for kind in kinds:
        made = plan.edits.get(kind)
        if made is None:
            made = source.edits(kind, units)
            if units is not None and kind in (HIDDEN, REFS):  # the others: made in units
                made = [e for e in made if _inside(ranges, e[0], e[1])]
        edits.extend(made)
    text = source.text
    if units is not None:
        # only the units read again, each on its own lines, and the edits inside them
        previous = 0
        for start, end in ranges:
            if start > previous:
                edits.append((previous, start, "\n" if previous else "", _SKIP))
            previous = end
        if previous < len(text):
            edits.append((previous, len(text), "", _SKIP))
    edits.sort()
    kept: list[Edit] = []
    last = -1
    for edit in edits:
        if edit[0] >= last:
            kept.append(edit)
            last = edit[1]
    shift = Shift(kept)
    unfolded = apply(text, kept)
    read = fold_lookalikes(unfolded) if LOOKALIKE in kinds else unfolded
    if source.markdown:
        starts, ends = source.code
        mapped = CodeText(read)
        mapped.code_spans = merge(
            [(shift.view(s), shift.view(e)) for s, e in zip(starts, ends, strict=True)]
        )
        read = mapped
    return View(read, ascii_lower(read), unfolded, shift)


def _ranges(units: list[tuple[int, int, int]]) -> list[Span]:
    """The units as disjoint (start, end) ranges, adjacent ones merged."""
    ranges: list[Span] = []
    for start, end, _ in units:
        if ranges and start <= ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], max(end, ranges[-1][1]))
        else:
            ranges.append((start, end))
    return ranges


def _inside(ranges: list[Span], start: int, end: int) -> bool:
    """Whether ``[start, end)`` lies inside one of the sorted, disjoint ``ranges``."""
    index = bisect_right(ranges, (start, sys.maxsize)) - 1
    return index >= 0 and ranges[index][0] <= start and end <= ranges[index][1]


def _changed(view: View, source: str, start: int, end: int) -> bool:
    """Whether the view's ``[start, end)`` reads otherwise than the text it comes from."""
    shift = view.shift
    first = shift.source(start)
    last = shift.source(end) if end < len(view.text) else len(source)
    return view.text[start:end] != source[first:last]


# --- families of rules ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Family:
    """Rules that read the same view: their codes, the markers they need and how to
    run them on a text."""

    codes: frozenset[str]
    markers: Markers
    run: Callable[[str, str, Collection[str]], Iterable[Raw]]


DIRECTIVES = Family(
    frozenset(directives.SEVERITY),
    Markers(directives.OVERRIDE_MARKERS),
    directives.find_directives,
)
COMMANDS_MARKDOWN = Family(
    frozenset(commands.SEVERITY),
    Markers(commands.MARKERS),
    lambda text, lowered, present: commands.find_commands(text, lowered, True, present, True),
)
COMMANDS_SCRIPT = Family(
    frozenset(commands.SEVERITY),
    Markers(commands.SCRIPT_MARKERS),
    lambda text, lowered, present: commands.find_commands(text, lowered, False, present),
)
#: a shell script's: its variables carry values from line to line, as in the text
COMMANDS_SHELL = Family(
    COMMANDS_SCRIPT.codes,
    COMMANDS_SCRIPT.markers,
    lambda text, lowered, present: commands.find_commands(text, lowered, False, present, True),
)
#: a finding of the first code in a view replaces one of the second at the same place
_SUPERSEDES = {
    directives.COMMENT_DIRECTIVE: directives.COMMENT_INSTRUCTION,
    commands.DOWNLOAD_EXEC: commands.INSTALLER_PIPE,
}


def _rare(source: Source) -> list[str]:
    """The kinds that change words, each only when the text holds what it changes."""
    kinds = []
    if source.hidden:
        kinds.append(HIDDEN)
    if source.refs:
        kinds.append(REFS)
    return kinds


def plan_directives(source: Source, lowered: str, present: Collection[str]) -> Plan | None:
    """The view the directive rules read again, or None when it cannot change what they
    find: the units (paragraphs, lines, comments) that hold an override marker (found
    loosely, across line breaks and emphasis), markup inside a word, or a change of
    the kinds that change words; in them, every kind that changes something."""
    text = source.text
    rare = _rare(source)
    if source.lookalikes:
        rare.append(LOOKALIKE)
    markers = _OVERRIDES.intersection(present)
    places = list(marker_places(lowered, markers, loose=True)) if markers else []
    intraword = _intraword(text) if ("*" in text or "`" in text) else []
    if not rare and not places and not intraword:
        return None
    places += intraword
    for kind in rare:
        if kind == LOOKALIKE:
            places += source.lookalikes
        else:
            places += [e[0] for e in source.edits(kind, None)]
    chosen, made = _hot_units(source, places)
    if not chosen:
        return None
    kinds = list(rare)
    kinds += [k for k in (MARKUP, INWORD) if k in made]
    if any(k == PARAGRAPH and text.find("\n", s, e) >= 0 for s, e, k in chosen):
        kinds.append(JOIN)
    if not kinds:
        return None
    return Plan(tuple(kinds), chosen, made)


def _hot_units(
    source: Source, places: list[int]
) -> tuple[list[tuple[int, int, int]], dict[str, list[Edit]]]:
    """The units (paragraphs, lines, comments) of ``source`` that hold one of
    ``places`` (offsets), with the units up to the end of a comment one of them opens,
    and their markup edits by kind."""
    places = sorted(places)
    units = source.blocks.units
    hot: list[tuple[int, int, int]] = []
    index = 0
    for unit in units:  # the units holding a place (both in order)
        while index < len(places) and places[index] < unit[0]:
            index += 1
        if index == len(places):
            break
        if places[index] <= unit[1]:
            hot.append(unit)
    if not hot:
        return [], {}
    chosen = _with_comments(source.text, hot, units)
    made: dict[str, list[Edit]] = {}
    for edit in source._markup(chosen):
        made.setdefault(edit[3], []).append(edit)
    return chosen, made


def _with_comments(
    text: str, chosen: list[tuple[int, int, int]], units: list[tuple[int, int, int]]
) -> list[tuple[int, int, int]]:
    """``chosen`` and the units up to the end of a comment one of them opens (a view
    must hold whole comments, as the text does)."""
    if "<!--" not in text:
        return chosen
    out: list[tuple[int, int, int]] = []
    starts = [u[0] for u in units]
    reach = -1
    for unit in chosen:
        start, end, _ = unit
        if end <= reach:
            continue
        out.append(unit)
        opened = text.rfind("<!--", start, end)
        if opened >= 0 and text.find("-->", opened + 4, end) < 0:
            close = text.find("-->", end)
            reach = len(text) if close < 0 else close
            index = bisect_right(starts, start)
            while index < len(units) and units[index][0] <= reach:
                out.append(units[index])
                index += 1
            reach = max(reach, out[-1][1])
    out.sort()
    return list(dict.fromkeys(out))


def plan_commands(source: Source, lowered: str, breaks: Sequence[int] = ()) -> Plan | None:
    """The view the command rules read again, or None when the text holds nothing it
    undoes: the invisible characters and the quotes inside words removed, in Markdown
    the references decoded, all of the text (a command may run on over its lines); and
    in Markdown the emphasis markup removed where it breaks a command's word
    (``breaks``: ``__curl ... | sh__``; ``c*ur*l``), alone: in the units (paragraphs,
    lines) that hold such a break, every markup edit of them. ``lowered``:
    :func:`ascii_lower` of the text."""
    kinds = _rare(source)
    if source.quotes:
        kinds.append(QUOTES)
    places = [*breaks, *commands.star_breaks(source.text, lowered)] if source.markdown else []
    if places:
        if kinds:  # read all of the text for the other kinds: its markup too
            return Plan((*kinds, MARKUP, INWORD), None)
        chosen, made = _hot_units(source, places)
        markup = tuple(k for k in (MARKUP, INWORD) if k in made)
        return Plan(markup, chosen, made) if markup else None
    return Plan(tuple(kinds), None) if kinds else None


def _relevant(view: View, source: str, family: Family) -> set[str]:
    """The markers ``family`` needs that the view holds on the lines it changed."""
    found = family.markers.present(view.lowered)
    if not found:
        return set()
    lowered = view.lowered
    changed = [
        lowered[a:b] for a, b in marked_lines(lowered, found) if _changed(view, source, a, b)
    ]
    if not changed:
        return set()
    return family.markers.present("\n".join(changed)) & found


_LINKS = ("](", "]:", "<img", "http")


def _touches_comment_or_link(source: Source, kinds: Collection[str]) -> bool:
    """Whether a change of the kinds that change words falls in a comment or on a line
    with a link: the directive rules read those whatever markers they hold."""
    text = source.text
    has_comment = "<!--" in text
    if not has_comment and not any(token in text for token in _LINKS):
        return False
    changes = [e[0] for kind in (HIDDEN, REFS) if kind in kinds for e in source.edits(kind, None)]
    if LOOKALIKE in kinds:
        changes += source.lookalikes
    comments: list[int] = []  # start, end, start, end, ...
    if has_comment:
        pos = text.find("<!--")
        while pos >= 0:
            close = text.find("-->", pos + 4)
            comments += [pos, len(text) if close < 0 else close + 3]
            if close < 0:
                break
            pos = text.find("<!--", close + 3)
    seen: set[int] = set()
    for offset in changes:
        if bisect_right(comments, offset) % 2:
            return True
        start = text.rfind("\n", 0, offset) + 1
        if start in seen:
            continue
        seen.add(start)
        end = text.find("\n", offset)
        line = text[start : len(text) if end < 0 else end]
        if any(token in line for token in _LINKS):
            return True
    return False


_OVERRIDES = frozenset(directives.OVERRIDE_MARKERS)


def needed(text: str, markdown: bool, present: Collection[str], hidden: list[Span]) -> bool:
    """Whether a view of ``text`` may show anything (the cheap tests, before any view
    is planned): invisible characters, a quote inside a word; and in Markdown a
    character reference, a non-ASCII letter, an override marker (found loosely) or
    markup inside a word. (``_`` emphasis against a command's word is the caller's
    test: :func:`~skillpack.scan.commands.underscore_breaks`.)"""
    if hidden:
        return True
    if markdown and (
        "&" in text
        or not text.isascii()
        or not _OVERRIDES.isdisjoint(present)
        or (("*" in text or "`" in text) and bool(_intraword(text)))
    ):
        return True
    return has_quote_in_word(text)


def evasions(
    text: str,
    markdown: bool,
    lowered: str,
    present: Collection[str],
    hidden: list[Span],
    plain: list[Raw],
    shown: int = 50,
    shell: bool = False,
    breaks: Sequence[int] = (),
) -> tuple[list[Raw], set[tuple[int, str]]]:
    """The findings that appear only in a view of ``text`` (at error severity, placed
    in the text, saying what the view undid), and the plain findings they supersede
    ((offset, code): an SP511 instruction that the view shows to be an SP510
    directive). ``lowered``: :func:`ascii_lower` of the text; ``present``: the markers
    the engine found in it (the override markers loosely: across line breaks and
    emphasis); ``hidden``: the spans of the invisible characters the hidden-character
    rules flag; ``plain``: the findings of the text itself; ``shown``: the findings
    per code a file lists (past them, what a view undid is not worked out); ``shell``:
    a shell script, whose variables the command rules follow from line to line;
    ``breaks``: where Markdown's ``_`` emphasis breaks a command's word
    (:func:`~skillpack.scan.commands.underscore_breaks`)."""
    source = Source(text, markdown, hidden)
    found: list[Raw] = []
    dropped: set[tuple[int, str]] = set()
    plans: list[tuple[Family, Plan | None]] = []
    if markdown:
        plans.append((DIRECTIVES, plan_directives(source, lowered, present)))
    family = COMMANDS_MARKDOWN if markdown else COMMANDS_SHELL if shell else COMMANDS_SCRIPT
    plans.append((family, plan_commands(source, lowered, breaks)))
    for family, plan in plans:
        if plan is None:
            continue
        view = build(source, plan)
        markers = _relevant(view, text, family)
        if not markers and not (
            family is DIRECTIVES
            and {HIDDEN, REFS, LOOKALIKE} & set(plan.kinds)
            and _touches_comment_or_link(source, plan.kinds)
        ):
            continue
        ran = _run(family, view, markers)
        mine = [r for r in plain if r[1] in family.codes]
        only = _only_in_view(view, mine, ran, per_line=family is not DIRECTIVES)
        if not only:
            continue
        undone = _undone(source, family, plan, view, markers, only, shown)
        at = {(offset, code) for offset, code, _, _ in mine}
        for (offset, code, severity, message), kinds in zip(only, undone, strict=True):
            what = " and ".join(_what(source, k, offset) for k in kinds)
            if HIDING.intersection(kinds):
                severity = ERROR
            found.append((offset, code, severity, f"{message} (read with {what})"))
            replaced = _SUPERSEDES.get(code)
            if replaced is not None and (offset, replaced) in at:
                dropped.add((offset, replaced))
    return found, dropped


def _run(family: Family, view: View, markers: Collection[str]) -> list[Raw]:
    """``family``'s findings in ``view``, at the text's offsets."""
    source = view.shift.source
    return [(source(o), c, s, m) for o, c, s, m in family.run(view.text, view.lowered, markers)]


_NEWLINE = Lazy("\n")


def _only_in_view(
    view: View, plain: list[Raw], ran: list[Raw], per_line: bool = False
) -> list[Raw]:
    """The view's findings that no plain finding accounts for. In each line of the view
    (a paragraph when its lines are joined) and code, each plain finding accounts for
    the nearest view finding at or before it (the view may find the same phrase from an
    earlier word: ``you are`` + a line break + ``now in developer mode``); ``per_line``
    (the command rules, one finding per code and line): for all of them."""
    if not ran:
        return []
    shift = view.shift
    lines = [0, *(m.end() for m in _NEWLINE.finditer(view.text))]

    def unit(offset: int) -> int:
        at = shift.view(offset)
        if shift.source(at) != offset:
            return -1 - offset  # not in the view (left out, or removed): its own unit
        return lines[bisect_right(lines, at) - 1]

    events: dict[tuple[int, str], list[tuple[int, int, int]]] = {}
    for index, (offset, code, _, _) in enumerate(ran):
        events.setdefault((unit(offset), code), []).append((offset, 0, index))
    for offset, code, _, _ in plain:
        key = (unit(offset), code)
        if key in events:
            events[key].append((offset, 1, -1))
    only: list[Raw] = []
    for group in events.values():
        if per_line and any(is_plain for _, is_plain, _ in group):
            continue
        group.sort()
        open_: list[int] = []
        for _, is_plain, index in group:
            if is_plain:
                if open_:
                    open_.pop()
            else:
                open_.append(index)
        only.extend(ran[i] for i in open_)
    only.sort()
    return only


#: how far past its start a finding's match may reach (the rules bound their gaps):
#: the changes a view made beyond it did not make the finding
_REACH = 1200


def _undone(
    source: Source,
    family: Family,
    plan: Plan,
    view: View,
    markers: Collection[str],
    only: list[Raw],
    shown: int,
) -> list[list[str]]:
    """What the view undid for each finding only it has: the kinds that changed the
    text from the finding to the end of its line (of the view); when several did, those
    without which the finding is not found (each left out in turn, for the first
    ``shown`` findings of a code: the ones a file lists)."""
    text = view.text
    shift = view.shift
    candidates: list[list[str]] = []
    for offset, _, _, _ in only:
        start = shift.view(offset)
        end = text.find("\n", start, start + _REACH)
        end = min(len(text), start + _REACH) if end < 0 else end
        last = shift.source(end) if end < len(text) else len(source.text)
        changed = shift.kinds(offset, last)
        if LOOKALIKE in plan.kinds and view.unfolded[start:end] != text[start:end]:
            changed.add(LOOKALIKE)
        candidates.append(
            [k for k in UNDID if k in changed] or [k for k in UNDID if k in plan.kinds]
        )
    per_code: dict[str, int] = {}
    explained = []
    for _, code, _, _ in only:
        per_code[code] = per_code.get(code, 0) + 1
        explained.append(per_code[code] <= shown)
    found_without: dict[str, set[tuple[int, str]]] = {}
    for kind in {k for c, e in zip(candidates, explained, strict=True) if e and len(c) > 1
                 for k in c}:  # fmt: skip
        without = build(source, plan, leave_out=kind)
        found_without[kind] = {(o, c) for o, c, _, _ in _run(family, without, markers)}
    kinds = []
    for (offset, code, _, _), here, explain in zip(only, candidates, explained, strict=True):
        if explain and len(here) > 1:
            here = [k for k in here if (offset, code) not in found_without[k]] or here
        kinds.append(here)
    return kinds


def _what(source: Source, kind: str, offset: int) -> str:
    if kind != HIDDEN:
        return UNDID[kind]
    text = source.text
    line_end = text.find("\n", offset, offset + _REACH)
    line_end = min(len(text), offset + _REACH) if line_end < 0 else line_end
    first = bisect_left(source.hidden, (offset, 0))
    last = bisect_left(source.hidden, (line_end, 0))
    removed = {ch for start, end in source.hidden[first:last] for ch in text[start:end]}
    for name, chars in _INVISIBLE_NAMES:
        if removed and removed <= chars:
            return f"the {name} removed"
    return UNDID[HIDDEN]
