"""Cheap literal prefilters: which markers a text holds, found in one pass, and the
lines holding them, before the rules' own regular expressions run on those lines only."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: the characters that the rules' case-insensitive expressions (``re.IGNORECASE``) read
#: as ASCII letters, each one code point for one: dotted and dotless I, the long s, the
#: Kelvin sign (``diſregard`` matches ``disregard``, so its marker must be found too)
_FOLDS = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}
_ASCII_LOWER = str.maketrans({**{c: chr(c + 32) for c in range(ord("A"), ord("Z") + 1)},
                              **_FOLDS})  # fmt: skip
_FOLD = str.maketrans(_FOLDS)


def ascii_lower(text: str) -> str:
    """``text`` lowercased with offsets kept: an offset in it is the same offset in
    ``text`` (``str.lower`` alone may lengthen non-ASCII text). The letters that the
    rules' case-insensitive expressions fold to ASCII (:data:`_FOLDS`) are folded too,
    so that a marker is found wherever an expression would match."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return text.translate(_ASCII_LOWER)
    # after str.lower only the dotless i and the long s are left to fold (the Kelvin
    # sign is a k, the dotted capital I lengthens); two finds cost far less than a
    # translation of a non-ASCII text
    if lowered.isascii() or ("\u0131" not in lowered and "\u017f" not in lowered):
        return lowered
    return lowered.translate(_FOLD)


#: what a space in a marker stands for: any run of white space inside a line (the
#: rules' expressions allow ``\s+`` there, and run on one line at a time)
_SPACE = r"[^\S\n]+"
#: a marker's boundary: ``\b`` at its start or end, a word boundary as in the rules
_BOUNDARY = "\\b"


def _split(marker: str) -> tuple[bool, list[str], bool]:
    """A marker's leading word boundary, its words, and its trailing word boundary."""
    head = marker.startswith(_BOUNDARY)
    body = marker[2:] if head else marker
    tail = body.endswith(_BOUNDARY)
    words = (body[:-2] if tail else body).split(" ")
    if not all(words):
        raise ValueError(f"marker {marker!r}: a word is empty (one space between words)")
    return head, words, tail


#: what a space in a loose marker stands for (:class:`Markers`): white space that may
#: hold line breaks and Markdown's emphasis and code markup (``the **user**``, ``the
#: user`` across a line break), as a paragraph reads once rendered
LOOSE_SPACE = r"[*_`]*\s[\s*_`]*"


def _expression(marker: str, space: str = _SPACE) -> str:
    head, words, tail = _split(marker)
    return ((r"\b" if head else "") + space.join(map(re.escape, words))
            + (r"\b" if tail else ""))  # fmt: skip


_COMPILED: dict[str, tuple[str, re.Pattern[str]]] = {}
_LOOSE: dict[str, tuple[str, re.Pattern[str]]] = {}


def is_literal(marker: str) -> bool:
    """Whether ``marker`` is a plain string (no boundary, no space), found by ``in``."""
    return " " not in marker and _BOUNDARY not in marker


def _parts(marker: str, loose: bool = False) -> tuple[str, re.Pattern[str]]:
    """A marker that is not a plain string: its first word and its expression (with
    :data:`LOOSE_SPACE` for its spaces if ``loose``)."""
    cache = _LOOSE if loose else _COMPILED
    found = cache.get(marker)
    if found is None:
        expression = _expression(marker, LOOSE_SPACE if loose else _SPACE)
        found = cache[marker] = (_split(marker)[1][0], re.compile(expression))
    return found


def find_marker(lowered: str, marker: str, pos: int = 0, loose: bool = False) -> int:
    """The offset of the first place at or after ``pos`` where ``lowered`` holds
    ``marker``, -1 if none: a plain string found with ``str.find``; any other marker's
    first word found so, then the marker's expression matched there (``loose``: its
    spaces as :data:`LOOSE_SPACE`)."""
    if is_literal(marker):
        return lowered.find(marker, pos)
    first, expression = _parts(marker, loose)
    pos = lowered.find(first, pos)
    while pos >= 0 and expression.match(lowered, pos) is None:
        pos = lowered.find(first, pos + 1)
    return pos


def marker_at(lowered: str, marker: str, pos: int, loose: bool = False) -> bool:
    """Whether ``lowered`` holds ``marker`` at ``pos``."""
    if is_literal(marker):
        return lowered.startswith(marker, pos)
    return _parts(marker, loose)[1].match(lowered, pos) is not None


def marked_lines(lowered: str, markers: Iterable[str]) -> list[tuple[int, int]]:
    """The (start, end) offsets of the lines of ``lowered`` that hold any of ``markers``
    (see :class:`Markers` for what a marker is), in order; ``end`` excludes the newline.
    Each marker is looked for from the end of the last line it was found on, so a file
    is read once per marker present in it however often the marker occurs."""
    lines: dict[int, int] = {}
    find = lowered.find
    rfind = lowered.rfind
    size = len(lowered)
    for marker in markers:
        pos = find_marker(lowered, marker)
        while pos >= 0:
            start = rfind("\n", 0, pos) + 1
            end = find("\n", pos)
            if end < 0:
                lines[start] = size
                break
            lines[start] = end
            pos = find_marker(lowered, marker, end)
    return sorted(lines.items())


_PLACES: dict[tuple[tuple[str, ...], bool], re.Pattern[str]] = {}


def marker_places(lowered: str, markers: Iterable[str], loose: bool = False) -> list[int]:
    """The offsets where ``lowered`` holds one of ``markers`` (``loose``: their spaces
    as :data:`LOOSE_SPACE`, so a marker may run on past a line), found by one regular
    expression, in order."""
    key = (tuple(sorted(markers)), loose)
    if not key[0]:
        return []
    expression = _PLACES.get(key)
    if expression is None:
        space = LOOSE_SPACE if loose else _SPACE
        alternatives = "|".join(_expression(m, space) for m in key[0])
        expression = _PLACES[key] = re.compile(f"(?=(?:{alternatives}))")
    return [match.start() for match in expression.finditer(lowered)]


#: printable lowercase ASCII and the tab, from the rarest to the most common in skill
#: texts (counted over public skill repositories, Markdown and scripts together)
RARITY = "\t^~!@%&?\\9+$738z<65j[]>q412';{}#0|x=/_*()k:wv,by\"`.gf-muhpdclrinaoste "


class Markers:
    r"""Which of a fixed set of markers a lowered text holds, found by one regular
    expression for all the markers (or, once a process has read enough text, a few:
    one per common anchor character and one for the rest; see below), not by one
    search per marker (the scan's costliest step otherwise: 170 markers, 170 passes
    over every file).

    A marker is a lowercase string a rule's expression needs; a space in it stands for
    any run of white space inside a line, and ``\b`` at its start or end for a word
    boundary (``\bnc\b``, ``export -p``), as the expressions allow them.

    Each marker is anchored at the rarest character of its first word (:data:`RARITY`).
    An expression starts with an anchor, then matches the rest of the first word,
    checks the part before the anchor with a look-behind, and matches the rest of the
    marker. The one expression starts with a character set of the anchors, skipped
    along at about 6 ns a character, and tries a place against every alternative in
    turn (from the most common anchor on). Past :data:`SPLIT_AFTER` characters read, a
    text of :data:`SHORT` characters or more is read with the expressions of their own:
    a common anchor (:data:`_OWN_SEARCH`) has one, which the engine skips along to that
    one character; the other anchors share one; the non-ASCII anchors share another,
    run only on a text that is not ASCII. The results are the same either way.
    Wherever an expression matches, every marker anchored on that character
    is compared in place, so markers that overlap, contain one another or share an
    anchor are all found, and the search goes on from the next character. Past
    :data:`MAX_HITS` places (all expressions together) and one more per
    :data:`HIT_SPACING` characters of the text (a marker repeated all over a file), the
    markers not yet found are looked for
    one by one, so a file costs linear time whatever it holds; a long document that
    says ``the user`` a hundred times is still read in one pass (looking for 170
    markers one by one costs more than a place each 32 characters).

    The markers also in ``loose`` are found with :data:`LOOSE_SPACE` for their spaces
    (across a line break, around emphasis): a superset, for the rules that read a
    Markdown paragraph as it renders (:mod:`skillpack.scan.views`); a rule's own lines
    (:func:`marked_lines`) still hold its markers strictly."""

    __slots__ = ("_anchored", "_branches", "_loose", "_one", "_read", "_split", "markers")

    #: places examined before the markers left are looked for one by one, and one more
    #: per this many characters of the text
    MAX_HITS = 64
    HIT_SPACING = 32
    #: the characters of text read with the one expression for all the anchors before
    #: the expressions of their own are compiled (about 5 ms for 170 markers, which
    #: about 9 ns a character saves back over some 500,000 characters), and the length
    #: of a text below which that one expression serves anyway (one search instead of
    #: a dozen)
    SPLIT_AFTER = 512 * 1024
    SHORT = 512

    def __init__(self, markers: Iterable[str], loose: Iterable[str] = ()) -> None:
        self.markers: tuple[str, ...] = tuple(dict.fromkeys(markers))
        for marker in self.markers:
            _split(marker)  # a malformed marker is refused here, not at its first use
        self._loose = frozenset(m for m in loose if not is_literal(m)) & set(self.markers)
        #: anchor character -> (marker, the anchor's offset in it, a literal marker?),
        #: each anchor's branch of the expressions, and the one expression for all the
        #: anchors: made on the first :meth:`present` (importing the scan builds several
        #: sets; a process may use none of them: serve's start)
        self._anchored: dict[str, tuple[tuple[str, int, bool], ...]] | None = None
        self._branches: dict[str, str] = {}
        self._one: _Searches = ()
        #: the expressions of their own, once :data:`SPLIT_AFTER` characters were read
        self._split: _Searches | None = None
        self._read = 0

    def _build(self) -> dict[str, tuple[tuple[str, int, bool], ...]]:
        anchored: dict[str, list[tuple[str, int, bool]]] = {}
        rests: dict[str, list[str]] = {}
        for marker in self.markers:
            head, words, tail = _split(marker)
            first = words[0]
            at = min(range(len(first)), key=lambda i: (RARITY.find(first[i]), i))
            anchored.setdefault(first[at], []).append((marker, at, is_literal(marker)))
            behind = ""
            if at or head:
                behind = "(?<=" + (r"\b" if head else "") + re.escape(first) + ")"
            space = LOOSE_SPACE if marker in self._loose else _SPACE
            rest = "".join(space + re.escape(w) for w in words[1:]) + (r"\b" if tail else "")
            rests.setdefault(first[at], []).append(re.escape(first[at + 1 :]) + behind + rest)
        # the most common anchor first: a place is tried against each alternative in turn
        for anchor in sorted(rests, key=lambda c: -RARITY.find(c)):
            found = rests[anchor]
            # an empty rest (the marker is its anchor) matches at once
            self._branches[anchor] = re.escape(anchor) + (
                f"(?:{'|'.join(sorted(found))})" if all(found) else ""
            )
        self._one = ((re.compile("|".join(self._branches.values())).search, False),)
        self._anchored = {c: tuple(found) for c, found in anchored.items()}
        return self._anchored

    def _split_searches(self) -> _Searches:
        """One expression per common anchor, one for the other ASCII anchors, one for
        the non-ASCII anchors (run only on a text that is not ASCII)."""
        order = list(self._branches)
        own = [c for c in order if c in _OWN_SEARCH]
        rare = [c for c in order if c not in _OWN_SEARCH and c.isascii()]
        foreign = [c for c in order if not c.isascii()]
        branch = self._branches.__getitem__
        searches = [(re.compile(branch(c)).search, False) for c in own]
        searches += [(re.compile("|".join(map(branch, group))).search, not group[0].isascii())
                     for group in (rare, foreign) if group]  # fmt: skip
        self._split = tuple(searches)
        return self._split

    def prepare(self) -> None:
        """Compile the expressions now, those of a large run's too (:data:`SPLIT_AFTER`):
        a process about to fork workers that each read much text (a build's pass) makes
        them once for all, instead of each worker making its own."""
        if self._anchored is None:
            self._build()
        if self._split is None:
            self._split_searches()

    def present(self, lowered: str) -> set[str]:
        """The markers that ``lowered`` holds (for plain strings, exactly ``{m for m in
        self.markers if m in lowered}``)."""
        found: set[str] = set()
        anchored = self._build() if self._anchored is None else self._anchored
        searches = self._one
        if len(lowered) >= self.SHORT:
            if self._split is not None:
                searches = self._split
            else:
                self._read += len(lowered)
                if self._read > self.SPLIT_AFTER:
                    searches = self._split_searches()
        loose = self._loose
        ascii_text = lowered.isascii()
        budget = self.MAX_HITS + len(lowered) // self.HIT_SPACING
        for search, foreign in searches:
            if foreign and ascii_text:
                continue  # no anchor of these is in the text
            pos = 0
            while budget:
                match = search(lowered, pos)
                if match is None:
                    break
                budget -= 1
                at = match.start()
                for marker, offset, literal in anchored[lowered[at]]:
                    start = at - offset
                    if start < 0:
                        continue
                    if (
                        lowered.startswith(marker, start)
                        if literal
                        else marker_at(lowered, marker, start, marker in loose)
                    ):
                        found.add(marker)
                pos = at + 1
            else:
                break  # past the budget: the markers left are looked for one by one
        else:
            return found
        found.update(
            m
            for m in self.markers
            if m not in found and find_marker(lowered, m, 0, m in loose) >= 0
        )
        return found


#: anchors common enough in skill texts (:data:`RARITY`, from ``v`` on: common letters,
#: the dot, the comma, quotes) to get an expression of their own. The engine skips to
#: the first character of a one-anchor expression as ``memchr`` does (under a
#: nanosecond a character), and a place there is tried against its few markers only;
#: along a character set it skips at about 6 ns a character, and tries each place
#: against every alternative in turn: one expression for all the anchors cost about
#: 30 ns a character of English, twice what one per common anchor costs
_OWN_SEARCH = frozenset(RARITY[RARITY.index("v") :])
#: the expressions :meth:`Markers.present` runs (their ``search``), each with whether
#: its anchors are non-ASCII (skipped in an ASCII text, which holds none of them)
_Searches = tuple[tuple[Callable[[str, int], "re.Match[str] | None"], bool], ...]


#: a run of ``_`` that opens emphasis before a letter or digit (``__curl``) or closes it
#: after one (``sh__``), as CommonMark reads it (never inside a word: ``snake_case``):
#: the rendered text reads the word without it, but a rule's word boundary (``\bcurl``)
#: does not see the word, ``_`` being a word character. (A ``*`` run is no word
#: character and breaks no boundary, except inside a word: ``c*ur*l``.) The run's first
#: ``_`` comes first, so that the expression engine skips to a ``_`` at once.
UNDERSCORE_EMPHASIS = r"_(?:(?<![\w\\]_)_*(?=[^\W_])|(?<=[^\W_]_)_*(?!\w))"


class Lazy:
    """A regular expression compiled on its first use: importing the scan compiles
    none of its patterns (about 30 ms at every start otherwise), and a file reaches
    only the few its markers call for."""

    __slots__ = ("_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
        return compiled

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(text, pos, endpos)

    def finditer(
        self, text: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text, pos, endpos)

    def findall(self, text: str) -> list[Any]:
        return self.compiled.findall(text)


#: a quote character (or a run of them) inside a word, as a shell reads it: ``"cu"rl``,
#: ``c''url``, ``c\\url``, PowerShell's ``i`e`x`` (a shell removes the quotes and reads
#: ``curl``, ``iex``); not an English contraction's apostrophe (``don't``, ``it's``,
#: ``we'll``), nor a string literal's prefix (Python's ``f"``, ``rb'``: one or two of
#: b, f, r, u starting a word), nor a backslash before an underscore (Markdown's
#: ``\\_``). The quote character first, then what is around it: the engine skips to a
#: quote character at once (about 5 ns a character; a look-around first, 9).
QUOTE_IN_WORD = Lazy(
    r"""["'`\\](?<=\w.)(?<!\b[bfruBFRU].)(?<!\b[bfruBFRU]{2}.)(?!(?<=\\)_)"""
    r"""(?!(?<=')(?:s|t|d|m|re|ve|ll)\b)(?:["`]|\\(?!_)|'(?!(?:s|t|d|m|re|ve|ll)\b))*(?=\w)"""
)
#: the quote characters a shell removes from a word (and PowerShell's escape)
QUOTE_CHARS = "\"'`\\"
#: the quote characters looked at one by one before :data:`QUOTE_IN_WORD` reads the
#: rest of a text (a few finds cost far less than an expression over every character)
_FIND_QUOTES = 64


def has_quote_in_word(text: str) -> bool:
    """Whether :data:`QUOTE_IN_WORD` finds a place in ``text``: each quote character
    after a word character tried there, the expression over the whole text only past
    :data:`_FIND_QUOTES` of them."""
    looked = 0
    match = QUOTE_IN_WORD.compiled.match
    for mark in QUOTE_CHARS:
        pos = text.find(mark, 1)
        while pos >= 0:
            looked += 1
            if looked > _FIND_QUOTES:
                return QUOTE_IN_WORD.search(text) is not None
            before = text[pos - 1]
            if (before.isalnum() or before == "_") and match(text, pos) is not None:
                return True
            pos = text.find(mark, pos + 1)
    return False
