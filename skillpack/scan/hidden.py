"""Hidden characters: text a reader does not see but a model reads.

Errors: Unicode tag characters (U+E0000-E007F) outside a well-formed emoji tag sequence
(U+1F3F4, tags, U+E007F: the flags of England, Scotland and Wales), bidi embedding,
override and isolate controls (U+202A-202E, U+2066-2069: Trojan Source), and the
variation selectors supplement (U+E0100-E01EF) outside an ideographic variation
sequence (one selector after a CJK ideograph).

Warnings: zero-width and other invisible format characters (U+200B-200D, U+2060-2064,
U+206A-206F, U+FEFF after the start, U+00AD, U+180E, U+FFF9-FFFB), variation selectors
U+FE00-FE0F not after a character they apply to, and the directional marks U+200E,
U+200F and U+061C on a line without right-to-left letters. A ZWJ inside an emoji
sequence, a ZWJ or ZWNJ between letters of scripts that need them (Persian, the Indic
scripts) and U+FE0F after an emoji are no findings, nor a no-break space or a BOM at
the start of a file.

The message of a finding decodes what is hidden: the text a tag run spells, the bytes
variation selectors carry, the bit string a zero-width run holds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from skillpack.scan.model import ERROR, WARNING

TAGS = "SP501"
BIDI = "SP502"
VARIATION = "SP503"
INVISIBLE = "SP504"

SEVERITY = {TAGS: ERROR, BIDI: ERROR, VARIATION: ERROR, INVISIBLE: WARNING}

#: every character any rule here may flag, in runs
CANDIDATES = re.compile(
    "[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\U000e0100-\U000e01ef"
    "\u200b-\u200f\u2060-\u2064\u206a-\u206f\ufeff\u00ad\u180e\ufff9-\ufffb\u061c"
    "\ufe00-\ufe0f]+"
)

_BLACK_FLAG = "\U0001f3f4"
_CANCEL_TAG = "\U000e007f"
_ZWJ = "\u200d"
_ZWNJ = "\u200c"
_MARKS = frozenset("\u200e\u200f\u061c")
_ZERO_WIDTH_BITS = frozenset("\u200b\u200c\u200d\u2060\ufeff")


@dataclass(frozen=True, slots=True)
class Hidden:
    """A run of flagged characters ``text[start:end]`` of one rule."""

    code: str
    start: int
    end: int
    message: str


def _is_emoji(ch: str) -> bool:
    cp = ord(ch)
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
    cp = ord(ch)
    return (
        0x3400 <= cp <= 0x4DBF
        or 0x4E00 <= cp <= 0x9FFF
        or 0xF900 <= cp <= 0xFAFF
        or 0x20000 <= cp <= 0x3FFFF
    )


def _joins_letters(before: str, after: str) -> bool:
    """A ZWJ or ZWNJ between two letters (or marks) of a non-Latin script: Persian,
    Arabic, the Indic scripts and others use them in ordinary spelling."""
    return all(
        ch and ord(ch) >= 0x0370 and unicodedata.category(ch)[0] in "LM" for ch in (before, after)
    )


def _is_rtl_letter(ch: str) -> bool:
    return unicodedata.bidirectional(ch) in ("R", "AL")


def _char_name(ch: str) -> str:
    code = f"U+{ord(ch):04X}"
    return f"{unicodedata.name(ch, code)} ({code})"


def _names(run: str) -> str:
    seen: list[str] = []
    for ch in run:
        if ch not in seen:
            seen.append(ch)
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
            decoded = bytes(
                int(candidate[i : i + 8], 2) for i in range(0, len(candidate), 8)
            ).decode("ascii", "replace")
            if decoded.isprintable():
                return f"{text}, which reads {_quote(decoded)}"
    return text


def _flags(text: str, start: int, end: int, line_has_rtl: bool) -> list[str | None]:
    """The code each character of the run ``text[start:end]`` is flagged by, or None."""
    codes: list[str | None] = [None] * (end - start)
    i = start
    while i < end:
        ch = text[i]
        cp = ord(ch)
        k = i - start
        if 0xE0000 <= cp <= 0xE007F:
            j = i
            while j < end and 0xE0000 <= ord(text[j]) <= 0xE007F:
                j += 1
            base = text[i - 1] if i > 0 else ""
            body = text[i : j - 1]
            well_formed = (
                (base == _BLACK_FLAG or (base and _is_emoji(base)))
                and j - i >= 2
                and text[j - 1] == _CANCEL_TAG
                and all(0xE0020 <= ord(c) <= 0xE007E for c in body)
            )
            if not well_formed:
                for m in range(i, j):
                    codes[m - start] = TAGS
            i = j
            continue
        if 0x202A <= cp <= 0x202E or 0x2066 <= cp <= 0x2069:
            codes[k] = BIDI
        elif 0xE0100 <= cp <= 0xE01EF:
            prev = text[i - 1] if i > 0 else ""
            nxt = text[i + 1] if i + 1 < end else ""
            single_ivs = _is_cjk_ideograph(prev) and not (nxt and 0xE0100 <= ord(nxt) <= 0xE01EF)
            if not single_ivs:
                codes[k] = VARIATION
        elif 0xFE00 <= cp <= 0xFE0F:
            prev = text[i - 1] if i > 0 else ""
            if not _selector_applies(prev, ch):
                codes[k] = INVISIBLE
        elif ch in _MARKS:
            if not line_has_rtl:
                codes[k] = INVISIBLE
        elif ch == "\ufeff" and i == 0:
            pass  # a byte order mark at the start of the file
        elif ch in (_ZWJ, _ZWNJ):
            prev = _visible_before(text, i)
            nxt = text[i + 1] if i + 1 < len(text) else ""
            emoji_join = ch == _ZWJ and prev and nxt and _is_emoji(prev) and _is_emoji(nxt)
            if not emoji_join and not _joins_letters(prev, nxt):
                codes[k] = INVISIBLE
        else:
            codes[k] = INVISIBLE
        i += 1
    # variation selectors among supplement ones carry bytes together (emoji smuggling)
    if VARIATION in codes:
        for k in range(len(codes)):
            if codes[k] == INVISIBLE and 0xFE00 <= ord(text[start + k]) <= 0xFE0F:
                codes[k] = VARIATION
    return codes


def _selector_applies(prev: str, selector: str) -> bool:
    """Whether a variation selector U+FE00-FE0F follows a character it may modify: an
    emoji or a keycap base (U+FE0E, U+FE0F), a symbol, or a letter of a script with
    standardized variation sequences (CJK, Mongolian, Myanmar, ...)."""
    if not prev:
        return False
    if selector in "\ufe0e\ufe0f" and (_is_emoji(prev) or prev in "0123456789#*"):
        return True
    return ord(prev) > 0x7F and unicodedata.category(prev)[0] in "LSMN"


def _visible_before(text: str, i: int) -> str:
    """The character before ``i``, skipping variation selectors and emoji modifiers."""
    j = i - 1
    stop = max(-1, i - 16)  # a modifier or a few selectors, never a whole run
    while j > stop and (
        0xFE00 <= ord(text[j]) <= 0xFE0F
        or 0x1F3FB <= ord(text[j]) <= 0x1F3FF
        or 0xE0020 <= ord(text[j]) <= 0xE007F
    ):
        j -= 1
    return text[j] if j >= 0 else ""


def _line_has_rtl(text: str, offset: int) -> bool:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    line = text[start : end if end >= 0 else len(text)]
    return any(_is_rtl_letter(ch) for ch in line if ord(ch) >= 0x0590)


def _message(code: str, run: str) -> str:
    count = len(run)
    chars = "character" if count == 1 else "characters"
    if code == TAGS:
        decoded = _decode_tags(run)
        spelled = f" that spell {_quote(decoded)}" if decoded else ""
        return (
            f"{count} hidden Unicode tag {chars}{spelled} (invisible to a reader, read by a model)"
        )
    if code == BIDI:
        return (
            f"bidirectional control {chars} {_names(run)}: the text shown is not the "
            "order it is read in"
        )
    if code == VARIATION:
        data = bytes(_selector_byte(ch) for ch in run)
        decoded = data.decode("utf-8", "replace")
        return (
            f"{count} variation selector {chars} carrying hidden bytes {_quote(decoded)}"
            f" ({data[:24].hex(' ')}{' ...' if len(data) > 24 else ''})"
        )
    return f"invisible {chars} {_names(run)}{_decode_bits(run) if count >= 8 else ''}"


def find_hidden(text: str) -> Iterator[Hidden]:
    """The runs of flagged characters in ``text``, in order."""
    rtl_lines: dict[int, bool] = {}
    for match in CANDIDATES.finditer(text):
        start, end = match.span()
        rtl = False
        if any(ch in _MARKS for ch in match.group()):
            line = text.rfind("\n", 0, start) + 1
            if line not in rtl_lines:
                rtl_lines[line] = _line_has_rtl(text, start)
            rtl = rtl_lines[line]
        codes = _flags(text, start, end, rtl)
        k = 0
        while k < len(codes):
            code = codes[k]
            if code is None:
                k += 1
                continue
            m = k
            while m < len(codes) and codes[m] == code:
                m += 1
            run = text[start + k : start + m]
            yield Hidden(code, start + k, start + m, _message(code, run))
            k = m


def strip_hidden(text: str, codes: Collection[str] | None = None) -> str:
    """``text`` without the invisible characters :func:`find_hidden` flags (only those of
    the rule ``codes`` given, default all); visible text, the benign invisible characters
    (emoji joiners, RTL marks beside RTL text, a BOM at the start) and everything else
    are kept."""
    if text.isascii():
        return text
    parts: list[str] = []
    last = 0
    for hidden in find_hidden(text):
        if codes is not None and hidden.code not in codes:
            continue
        parts.append(text[last : hidden.start])
        last = hidden.end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)
