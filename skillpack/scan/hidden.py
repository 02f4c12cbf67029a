"""Hidden characters: text a reader does not see but a model reads.

Errors (SP501-SP503): Unicode tag characters (U+E0000-E007F) outside the emoji tag
sequence of a subdivision flag, bidi embedding, override and isolate controls
(U+202A-202E, U+2066-2069: Trojan Source), variation selectors of the supplement
(U+E0100-E01EF) outside an ideographic variation sequence (one selector after a CJK
ideograph), and a run of four or more variation selectors of any kind (two bytes or
more carried).

A subdivision flag is U+1F3F4, tags spelling a subdivision code in lowercase letters
and digits (a region of two letters or three digits, then one to four letters or
digits: ``gbsct``), and U+E007F. The three flags recommended for general interchange
(England ``gbeng``, Scotland ``gbsct``, Wales ``gbwls``) are no finding; any other
well-formed one shows as a plain black flag almost everywhere, its tags unseen, and is
a warning (SP504); two or more of them in a row, nothing but white space between, spell
hidden text and are an error (SP501).

An error too (SP505): a run of eight or more of the invisible characters below, zero-width
characters and marks alike, which carries a byte or more (a bit string: nothing honest
writes eight invisible characters in a row).

Warnings (SP504): zero-width and other invisible format characters (U+200B-200D,
U+2060-2064, U+206A-206F, U+FEFF after the start, U+00AD, U+180E, U+FFF9-FFFB), a NUL
(U+0000: GitHub and grep show such a file as binary, not its text, while a model reads
past it), a variation selector U+FE00-FE0F with nothing to apply to or in a run of two
or three, a directional mark (U+200E, U+200F, U+061C) on a line without right-to-left
letters, and two or more directional marks in a row.

Not findings: a ZWJ inside an emoji sequence, a ZWJ or ZWNJ between letters of scripts
that need them (Persian, the Indic scripts), one variation selector right after a
character it applies to (U+FE0E or U+FE0F after an emoji or a keycap base 0-9 # *;
U+FE00-FE0F after another non-ASCII letter, digit or symbol), one directional mark on a
line with right-to-left letters (Hebrew, Arabic, Syriac, Thaana, NKo, ...), a no-break
space, a BOM at the start of a file.

Each character is judged as it stands once the flagged characters before it are
removed (what ``lint --fix`` leaves): a selector or a joiner that a zero-width space
separates from its emoji still applies, so the fix removes exactly what is reported and
its result has nothing left to report.

The message of a finding decodes what is hidden: the text a tag run spells, the bytes
variation selectors carry, the bit string a run of two kinds of zero-width characters
or marks holds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from skillpack.scan.model import ERROR, WARNING
from skillpack.scan.text import Lazy

TAGS = "SP501"
BIDI = "SP502"
VARIATION = "SP503"
INVISIBLE = "SP504"
DATA = "SP505"

SEVERITY = {TAGS: ERROR, BIDI: ERROR, VARIATION: ERROR, INVISIBLE: WARNING, DATA: ERROR}
#: a run of this many SP504 characters (zero-width characters, marks) or more carries a
#: byte or more: hidden data, an error (SP505), not stray invisible characters
DATA_RUN = 8

#: every character any rule here may flag, in runs (compiled on first use)
CANDIDATES = Lazy(
    "[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\U000e0100-\U000e01ef"
    "\u200b-\u200f\u2060-\u2064\u206a-\u206f\ufeff\u00ad\u180e\ufff9-\ufffb\u061c"
    "\ufe00-\ufe0f\x00]+"
)

#: the subdivision flags recommended for general interchange (RGI): England,
#: Scotland, Wales
RGI_FLAGS = frozenset({"gbeng", "gbsct", "gbwls"})
#: a subdivision code as a flag's tags spell it (Unicode TR 51, ED-14a)
_SUBDIVISION = re.compile(r"(?:[a-z]{2}|[0-9]{3})[a-z0-9]{1,4}")
#: a run of selectors carrying this many or more is an error (SP503): two bytes
_SELECTOR_ERROR_RUN = 4

_BLACK_FLAG = "\U0001f3f4"
_CANCEL_TAG = "\U000e007f"
_ZWJ = "\u200d"
_ZWNJ = "\u200c"
_BOM = "\ufeff"
_MARKS = frozenset("\u200e\u200f\u061c")
_KEYCAP_BASES = frozenset("0123456789#*")
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: the characters flagged wherever they stand (a BOM only after the start): the
#: characters around them are judged as if they were not there
_ALWAYS = _BIDI_CONTROLS | frozenset(
    "\u200b\u2060\u2061\u2062\u2063\u2064\u206a\u206b\u206c\u206d\u206e\u206f"
    "\ufeff\u00ad\u180e\ufff9\ufffa\ufffb\x00"
)

# kinds of flagged characters beyond the codes: reported as SP504, described apart
_FLAG = "flag"  # the tags of a well-formed subdivision flag not recommended (not RGI)
_NUL = "nul"
_CODE_OF = {_FLAG: INVISIBLE, _NUL: INVISIBLE}


@dataclass(frozen=True, slots=True)
class Hidden:
    """A run of flagged characters ``text[start:end]`` of one rule."""

    code: str
    start: int
    end: int
    message: str
    #: whether :func:`strip_hidden` removes it: all but a NUL, which may be a byte of
    #: what the scan reads as UTF-8 but is not (UTF-16 without its byte order mark)
    fixable: bool = True


def _is_emoji(ch: str) -> bool:
    cp = ord(ch) if ch else 0
    return (
        0x1F000 <= cp <= 0x1FAFF
        or 0x2600 <= cp <= 0x27BF
        or 0x2300 <= cp <= 0x23FF
        or 0x2B00 <= cp <= 0x2BFF
        or 0x2190 <= cp <= 0x21FF
        or 0x25A0 <= cp <= 0x25FF
        or 0x2100 <= cp <= 0x214F
        or 0x2934 <= cp <= 0x2935
        or cp in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x3030, 0x303D, 0x3297, 0x3299, 0x24C2)
    )


def _is_cjk_ideograph(ch: str) -> bool:
    cp = ord(ch) if ch else 0
    return (
        0x3400 <= cp <= 0x4DBF
        or 0x4E00 <= cp <= 0x9FFF
        or 0xF900 <= cp <= 0xFAFF
        or 0x20000 <= cp <= 0x3FFFF
    )


def _is_selector(ch: str) -> bool:
    cp = ord(ch)
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def _is_modifier(ch: str) -> bool:
    return 0x1F3FB <= ord(ch) <= 0x1F3FF


def _joins_letters(before: str, after: str) -> bool:
    """A ZWJ or ZWNJ between two letters (or marks) of a non-Latin script: Persian,
    Arabic, the Indic scripts and others use them in ordinary spelling."""
    return all(
        ch and ord(ch) >= 0x0370 and unicodedata.category(ch)[0] in "LM" and not _is_selector(ch)
        for ch in (before, after)
    )


def _is_rtl_letter(ch: str) -> bool:
    """A letter of a right-to-left script (bidi class R or AL): not the marks, which
    have those classes too."""
    return unicodedata.bidirectional(ch) in ("R", "AL") and unicodedata.category(ch)[0] == "L"


def _selector_applies(prev: str, selector: str) -> bool:
    """Whether one variation selector may modify ``prev``, the character it follows
    (once flagged characters are removed): U+FE0E or U+FE0F after an emoji or a keycap
    base (0-9, #, *); U+FE00-FE0F after a non-ASCII letter, digit or symbol (CJK,
    mathematical symbols, Myanmar, ...); U+E0100-E01EF after a CJK ideograph. Never
    after another selector, a mark, white space or other ASCII, or U+FFFD."""
    if not prev:
        return False
    if ord(selector) >= 0xE0100:
        return _is_cjk_ideograph(prev)
    if selector in "\ufe0e\ufe0f" and (_is_emoji(prev) or prev in _KEYCAP_BASES):
        return True
    return ord(prev) > 0x7F and prev != "\ufffd" and unicodedata.category(prev)[0] in "LNS"


def _char_name(ch: str) -> str:
    code = f"U+{ord(ch):04X}"
    name = "NUL" if ch == "\x00" else unicodedata.name(ch, code)
    return f"{name} ({code})"


def _names(run: str) -> str:
    seen: list[str] = []
    for ch in run:
        if ch not in seen:
            seen.append(ch)
            if len(seen) > 4:
                break
    shown = ", ".join(_char_name(ch) for ch in seen[:4])
    return shown + (", ..." if len(seen) > 4 else "")


def _quote(text: str, limit: int = 160) -> str:
    shown = text if len(text) <= limit else text[:limit] + "..."
    return repr(shown)


def _decode_tags(run: str) -> str:
    return "".join(chr(ord(ch) - 0xE0000) if 0xE0020 <= ord(ch) <= 0xE007E else "" for ch in run)


def _selector_byte(ch: str) -> int:
    cp = ord(ch)
    return cp - 0xFE00 if cp <= 0xFE0F else cp - 0xE0100 + 16


def _selector_data(run: str) -> bytes:
    """The bytes a run of variation selectors carries: one per selector (U+FE00-FE0F
    0-15, U+E0100-E01EF 16-255) when the supplement is among them, else two selectors
    of U+FE00-FE0F to a byte, high half first."""
    selectors = [ch for ch in run if _is_selector(ch)]
    if any(ord(ch) >= 0xE0100 for ch in selectors):
        return bytes(_selector_byte(ch) for ch in selectors)
    nibbles = [ord(ch) - 0xFE00 for ch in selectors]
    return bytes(nibbles[i] << 4 | nibbles[i + 1] for i in range(0, len(nibbles) - 1, 2))


def _decode_bits(run: str) -> str:
    """The bit strings a run of two kinds of zero-width characters may hold."""
    kinds = sorted(set(run))
    if len(run) < 8 or len(kinds) != 2:
        return ""
    bits = "".join("0" if ch == kinds[0] else "1" for ch in run)
    shown = bits if len(bits) <= 64 else bits[:64] + "..."
    text = f"; as bits (U+{ord(kinds[0]):04X}=0, U+{ord(kinds[1]):04X}=1): {shown}"
    for candidate in (bits, "".join("1" if b == "0" else "0" for b in bits)):
        if len(candidate) % 8 == 0:
            data = bytes(int(candidate[i : i + 8], 2) for i in range(0, len(candidate), 8))
            if all(32 <= b < 127 or b in (9, 10, 13) for b in data):
                return f"{text}, which reads {_quote(data.decode('ascii'))}"
    return text


def _flag_end(text: str, i: int, end: int) -> int:
    """The offset after the cancel tag of the subdivision flag whose tags start at
    ``i`` (right after U+1F3F4), or -1 if the tags there are not one."""
    j = i
    while j < end and j - i < 8 and text[j] != _CANCEL_TAG:
        j += 1
    if j >= end or text[j] != _CANCEL_TAG:
        return -1
    spec = text[i:j]
    if not all(0xE0030 <= ord(c) <= 0xE0039 or 0xE0061 <= ord(c) <= 0xE007A for c in spec):
        return -1
    return j + 1 if _SUBDIVISION.fullmatch(_decode_tags(spec)) else -1


def _runs(text: str, start: int, end: int, member: Callable[[str], bool]) -> list[list[int]]:
    """For each offset of ``text[start:end]``, the run of ``member`` characters it is in
    (their offsets in the run of candidates; empty for other characters): the
    characters flagged wherever they stand (:data:`_ALWAYS`) do not break a run."""
    runs: list[list[int]] = [[] for _ in range(end - start)]
    run: list[int] = []
    for i in range(start, end + 1):
        ch = text[i] if i < end else ""
        if ch and member(ch):
            run.append(i - start)
        elif ch and ch in _ALWAYS:
            continue
        elif run:
            for k in run:
                runs[k] = run
            run = []
    return runs


def _next_kept(text: str, i: int) -> str:
    """The first character at or after ``i`` that is not flagged wherever it stands."""
    size = len(text)
    while i < size and text[i] in _ALWAYS:
        i += 1
    return text[i] if i < size else ""


@dataclass(slots=True)
class _Judged:
    """What :func:`_judge` found in one run of candidates."""

    kinds: list[str | None]  #: per character: the kind it is flagged as, or None
    base: str  #: the last character kept that a joiner may join (not a selector or tag)
    flags: list[tuple[int, int, str]]  #: well-formed flags not RGI: (start, end, code)


def _judge(text: str, start: int, end: int, base: str, rtl: Callable[[], bool]) -> _Judged:
    """How each character of the candidate run ``text[start:end]`` is flagged, left to
    right, each judged by the characters kept before it (``base``: the last kept one a
    joiner may join, before the run)."""
    kinds: list[str | None] = [None] * (end - start)
    flags: list[tuple[int, int, str]] = []
    single = [[0]] if end - start == 1 else None  # most runs: one character
    selector_runs = mark_runs = single  # computed at the first selector or mark
    run_kinds: dict[int, str] = {}  # a run of selectors (by its first member): its kind
    prev = text[start - 1] if start else ""  # the last character kept
    i = start
    while i < end:
        ch = text[i]
        cp = ord(ch)
        k = i - start
        if 0xE0000 <= cp <= 0xE007F:
            j = i
            while j < end and 0xE0000 <= ord(text[j]) <= 0xE007F:
                j += 1
            stop = _flag_end(text, i, j) if i and text[i - 1] == _BLACK_FLAG else -1
            if stop > 0:
                spec = _decode_tags(text[i : stop - 1])
                if spec in RGI_FLAGS:
                    prev = _CANCEL_TAG
                else:
                    kinds[k : stop - start] = [_FLAG] * (stop - i)
                    flags.append((i, stop, spec))
                i = stop
                continue
            kinds[k : j - start] = [TAGS] * (j - i)
            i = j
            continue
        if ch in _ALWAYS and not (i == 0 and ch == _BOM):
            kinds[k] = BIDI if ch in _BIDI_CONTROLS else _NUL if ch == "\x00" else INVISIBLE
        elif _is_selector(ch):
            if selector_runs is None:
                selector_runs = _runs(text, start, end, _is_selector)
            run = selector_runs[k]
            if len(run) > 1 or not _selector_applies(prev, ch):
                kind = run_kinds.get(run[0])
                if kind is None:  # once per run
                    supplement = any(ord(text[start + m]) >= 0xE0100 for m in run)
                    many = len(run) >= _SELECTOR_ERROR_RUN
                    kind = run_kinds[run[0]] = VARIATION if supplement or many else INVISIBLE
                kinds[k] = kind
            else:
                prev = ch
        elif ch in _MARKS:
            if mark_runs is None:
                mark_runs = _runs(text, start, end, _MARKS.__contains__)
            if len(mark_runs[k]) > 1 or prev in _MARKS or not rtl():
                kinds[k] = INVISIBLE
            else:
                prev = base = ch
        elif ch in (_ZWJ, _ZWNJ):
            nxt = _next_kept(text, i + 1)
            emoji_join = ch == _ZWJ and _is_emoji(base) and _is_emoji(nxt)
            if emoji_join or _joins_letters(prev, nxt):
                prev = base = ch
            else:
                kinds[k] = INVISIBLE
        else:  # a byte order mark at the start of the file
            prev = base = ch
        i += 1
    # what is flagged wherever it stands, inside a run of selectors, goes with the run
    # (the bytes the run carries are decoded together)
    for k, run in enumerate(selector_runs or ()):
        if len(run) > 1 and run[0] == k:  # once per run, at its first member
            for m in range(run[0] + 1, run[-1]):
                if kinds[m] == INVISIBLE:
                    kinds[m] = kinds[k]
    return _Judged(kinds, base, flags)


def _message(kind: str, run: str, before: str) -> str:
    count = len(run)
    chars = "character" if count == 1 else "characters"
    if kind == TAGS:
        decoded = _decode_tags(run)
        spelled = f" that spell{'s' if count == 1 else ''} {_quote(decoded)}" if decoded else ""
        message = (
            f"{count} hidden Unicode tag {chars}{spelled} (invisible to a reader, read by a model)"
        )
        if before == _BLACK_FLAG:
            message += (
                "; not a subdivision flag after U+1F3F4, whose tags spell a region and "
                "subdivision code in lowercase letters and digits ('gbsct'), then U+E007F"
            )
        return message
    if kind == _FLAG:
        spec = _decode_tags(run)
        return (
            f"the tags of a subdivision flag spell {spec!r}: not one of the flags "
            "recommended for general interchange (England 'gbeng', Scotland 'gbsct', Wales "
            "'gbwls'), so most systems show a plain black flag and the tags stay unseen"
        )
    if kind == _NUL:
        return (
            f"{count} NUL {chars} (U+0000): GitHub and grep show the file as binary, not "
            "its text, while a model reading it reads past them"
        )
    if kind == BIDI:
        return (
            f"bidirectional control {chars} {_names(run)}: the text shown is not the "
            "order it is read in"
        )
    selectors = sum(1 for ch in run if _is_selector(ch))
    if kind == VARIATION:
        data = _selector_data(run)
        decoded = data.decode("utf-8", "replace")
        return (
            f"{selectors} variation selector{'' if selectors == 1 else 's'} carrying "
            f"hidden bytes {_quote(decoded)}"
            f" ({data[:24].hex(' ')}{' ...' if len(data) > 24 else ''})"
        )
    message = f"invisible {chars} {_names(run)}"
    if selectors:
        values = " ".join(f"{ord(ch) - 0xFE00:x}" for ch in run if _is_selector(ch))
        where = "in a run" if selectors > 1 else "with nothing to apply to"
        message += f"; variation selectors {where} carry 4 bits each: {values}"
    if count >= 8:
        message += _decode_bits(run)
    return message


def _flag_runs(text: str, found: list[Hidden], flags: list[tuple[int, int, str]]) -> None:
    """Two or more well-formed flags not RGI in a row (only white space between them)
    spell hidden text: an error (SP501) in place of each flag's warning."""
    groups: list[list[tuple[int, int, str]]] = []
    for flag in flags:
        if groups and not text[groups[-1][-1][1] : flag[0] - 1].strip(" \t"):
            groups[-1].append(flag)
        else:
            groups.append([flag])
    at = {hidden.start: n for n, hidden in enumerate(found)}
    for group in groups:
        if len(group) < 2:
            continue
        spelled = " ".join(spec for _, _, spec in group)
        for n, (start, end, spec) in enumerate(group):
            message = (
                f"{len(group)} subdivision flags in a row spell {_quote(spelled)} in their "
                "tags (hidden text: flags other than England, Scotland and Wales show as "
                "plain black flags)"
                if n == 0
                else f"the tags of a subdivision flag spell {spec!r}, continuing the run of "
                "flags before it"
            )
            found[at[start]] = Hidden(TAGS, start, end, message)


def find_hidden(text: str) -> Iterator[Hidden]:
    """The runs of flagged characters in ``text``, in order."""
    rtl_lines: dict[int, bool] = {}
    found: list[Hidden] = []
    flags: list[tuple[int, int, str]] = []
    base = ""  # the last kept character a joiner may join
    last_end = 0
    line = 0  # the offset where the line of the current run starts
    for match in CANDIDATES.finditer(text):
        start, end = match.span()
        j = start - 1
        while j >= last_end and _is_modifier(text[j]):
            j -= 1
        if j >= last_end:
            base = text[j]
        newline = text.rfind("\n", last_end, start)  # a run holds no newline
        if newline >= 0:
            line = newline + 1

        def rtl(line: int = line, start: int = start) -> bool:
            """Whether the line holds a right-to-left letter (once per line)."""
            if line not in rtl_lines:
                end_of_line = text.find("\n", start)
                rest = text[line : end_of_line if end_of_line >= 0 else len(text)]
                rtl_lines[line] = any(_is_rtl_letter(ch) for ch in rest if ord(ch) >= 0x0590)
            return rtl_lines[line]

        judged = _judge(text, start, end, base, rtl)
        base = judged.base
        last_end = end
        flags += judged.flags
        kinds = judged.kinds
        k = 0
        while k < len(kinds):
            kind = kinds[k]
            if kind is None:
                k += 1
                continue
            m = k + 1
            while m < len(kinds) and kinds[m] == kind:
                m += 1
            run = text[start + k : start + m]
            before = text[start + k - 1] if start + k else ""
            code = _CODE_OF.get(kind, kind)
            message = _message(kind, run, before)
            if kind == INVISIBLE and m - k >= DATA_RUN:
                code, message = DATA, f"a run of {m - k} {message}: hidden data"
            found.append(Hidden(code, start + k, start + m, message, kind != _NUL))
            k = m
    if len(flags) > 1:
        _flag_runs(text, found, flags)
    return iter(found)


def flagged_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the characters :func:`find_hidden` flags, adjacent
    runs merged, in order: what a view of ``text`` as a reader sees it drops (a
    zero-width space inside a word of a phrase does not hide the phrase)."""
    if text.isascii() and "\x00" not in text:
        return []
    spans: list[tuple[int, int]] = []
    for hidden in find_hidden(text):
        if spans and spans[-1][1] == hidden.start:
            spans[-1] = (spans[-1][0], hidden.end)
        else:
            spans.append((hidden.start, hidden.end))
    return spans


def strip_hidden(text: str, codes: Collection[str] | None = None) -> str:
    """``text`` without the invisible characters :func:`find_hidden` flags (only those of
    the rule ``codes`` given, default all); visible text, the benign invisible characters
    (emoji joiners, RTL marks beside RTL text, a BOM at the start), a NUL (reported,
    left to a person) and everything else are kept. ``text`` itself when nothing is
    removed."""
    if text.isascii() and "\x00" not in text:
        return text
    parts: list[str] = []
    last = 0
    for hidden in find_hidden(text):
        if not hidden.fixable or (codes is not None and hidden.code not in codes):
            continue
        parts.append(text[last : hidden.start])
        last = hidden.end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)
