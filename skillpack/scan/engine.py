"""Which rules apply to which file, in one pass over its bytes.

A text file (by its extension, or a shebang) is always scanned; another file is binary,
and not scanned, only when it looks binary (a NUL in its first 8 KiB, a binary format's
signature): :mod:`skillpack.scan.textfile`. UTF-16 is read as such; a byte that is not
UTF-8 reads as U+FFFD, so columns stay in characters. A file that is all ASCII without a
NUL skips the hidden-character rules (it cannot hold any). A file lists at most
:data:`MAX_PER_CODE` findings per code, the last counting the rest. Markdown files
(``.md``, ``.markdown``, ``.mdx``) get the directive rules and know their code
(:mod:`.markdown`); every other text file is a script or data file for the command
rules.

The rules read the text as a reader does: line endings normalized first (a CRLF is a
line break, and in Markdown a lone CR too, as CommonMark says; a shell reads a lone CR
as part of its line), and then the views of :mod:`.views` (invisible characters
removed, character references decoded, look-alike letters, emphasis, a paragraph's
lines read as one, the quotes inside words removed as a shell removes them): a finding
only a view shows is an evasion, an error. Lines and
columns are the file's: the CR of a CRLF ends its line, and a view's findings are
mapped back to the characters they come from.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection

from skillpack.scan import commands, directives, hidden
from skillpack.scan.model import ScanFinding
from skillpack.scan.text import Lazy, Markers, ascii_lower, has_quote_in_word
from skillpack.scan.textfile import is_shell_path, read_text

#: every code the scan may report
CODES: frozenset[str] = frozenset({*hidden.SEVERITY, *directives.SEVERITY, *commands.SEVERITY})
#: the codes :func:`strip_hidden` repairs (``lint --fix``)
FIXABLE_CODES: frozenset[str] = frozenset(hidden.SEVERITY)

_MARKDOWN = (".md", ".markdown", ".mdx")

#: the literal markers the rules of a Markdown file and of a script look for, each set
#: found in one pass over a file (:class:`~skillpack.scan.text.Markers`); the override
#: markers loosely (across a line break or emphasis, as a paragraph renders: the
#: directive rules' view, :mod:`.views`, reads it so)
_MARKDOWN_MARKERS = Markers(
    (*commands.MARKERS, *directives.OVERRIDE_MARKERS), loose=directives.OVERRIDE_MARKERS
)
_SCRIPT_MARKERS = Markers(commands.SCRIPT_MARKERS)


_OVERRIDES = frozenset(directives.OVERRIDE_MARKERS)


def prepare() -> None:
    """Make what every file's scan uses before a process forks workers to scan many
    files (:meth:`.text.Markers.prepare`, and :mod:`.views` imported): each worker
    would otherwise compile its own copies, at its start, while the others work. A
    build of the 1,000-skill tree measured 16-35 ms faster (median) so."""
    from skillpack.scan import views  # noqa: F401

    _MARKDOWN_MARKERS.prepare()
    _SCRIPT_MARKERS.prepare()


def _may_need_views(
    text: str, markdown: bool, present: Collection[str], hidden: list[tuple[int, int]]
) -> bool:
    """The first of :func:`.views.needed`'s tests, without importing :mod:`.views`
    (most files pass none: plain ASCII with no override marker, no markup and no quote
    inside a word; serve's start judges a listing's plain strings so)."""
    if hidden:
        return True
    if markdown and (
        "&" in text
        or "*" in text
        or "`" in text
        or not text.isascii()
        or not _OVERRIDES.isdisjoint(present)
    ):
        return True
    return has_quote_in_word(text)


def is_markdown(path: str) -> bool:
    """Whether the skill-relative ``path`` is read as Markdown."""
    return path.lower().endswith(_MARKDOWN)


class Lines:
    """Offsets of ``text`` to 1-based (line, column), columns in characters."""

    def __init__(self, text: str) -> None:
        self._starts = [0]
        find = text.find
        pos = find("\n")
        while pos >= 0:
            self._starts.append(pos + 1)
            pos = find("\n", pos + 1)

    def at(self, offset: int) -> tuple[int, int]:
        index = bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1


def scan_file(path: str, data: bytes) -> list[ScanFinding]:
    """The findings of the content scan in one file, sorted by (line, column, code).

    ``path`` is the skill-relative POSIX path (``SKILL.md``, ``references/x.md``,
    ``scripts/run.sh``): it decides which rules apply (Markdown or script). Never raises
    on any bytes."""
    text = _decode(path, data)
    if text is None:
        return []
    markdown = is_markdown(path)
    if "\r" in text:
        text = line_endings(text, markdown)
    raw: list[tuple[int, str, str, str]] = []  # (offset, code, severity, message)
    invisible: list[tuple[int, int]] = []  # what the views remove (hidden.flagged_spans)
    if not text.isascii() or "\x00" in text:
        for found in hidden.find_hidden(text):
            raw.append((found.start, found.code, hidden.SEVERITY[found.code], found.message))
            invisible.append((found.start, found.end))
    if path.rsplit("/", 1)[-1] == "SKILL.md" and "\\" in text:
        raw.extend(_escaped(text))
    lowered = ascii_lower(text)
    present = (_MARKDOWN_MARKERS if markdown else _SCRIPT_MARKERS).present(lowered)
    read: list[tuple[int, str, str, str]] = []
    if markdown:
        read.extend(directives.find_directives(text, lowered, present))
    shell = markdown or is_shell_path(path)
    read.extend(commands.find_commands(text, lowered, markdown, present, shell))
    # '_' emphasis against a command's word (__curl ... | sh__): the command view
    breaks = commands.underscore_breaks(text, lowered, present) if markdown else []
    if breaks or _may_need_views(text, markdown, present, invisible):
        from skillpack.scan import views  # imported for a file that may need a view

        if breaks or views.needed(text, markdown, present, invisible):
            evasions, superseded = views.evasions(
                text, markdown, lowered, present, invisible, read, MAX_PER_CODE, shell, breaks
            )
            if superseded:
                read = [r for r in read if (r[0], r[1]) not in superseded]
            read.extend(evasions)
    raw.extend(read)
    if not raw:
        return []
    lines = Lines(text)
    raw.sort(key=lambda r: (r[0], r[1]))
    findings = []
    per_code: dict[str, int] = {}
    last: tuple[int, str] | None = None
    for offset, code, severity, message in raw:
        if (offset, code) == last:  # one finding per code and place
            continue
        last = (offset, code)
        count = per_code[code] = per_code.get(code, 0) + 1
        if count > MAX_PER_CODE:
            continue
        line, column = lines.at(offset)
        if count == MAX_PER_CODE:
            more = len({r[0] for r in raw if r[1] == code}) - MAX_PER_CODE + 1
            if more > 1:
                message = f"{more} more {code} findings from here on (not listed one by one)"
        findings.append(ScanFinding(code, severity, message, line, column))
    findings.sort(key=ScanFinding.sort_key)
    return findings


#: findings listed per code and file; the last one listed counts the rest
MAX_PER_CODE = 50


def line_endings(text: str, markdown: bool) -> str:
    """``text`` with its CRLF line endings as LF (and in Markdown its lone CRs too:
    CommonMark ends a line at LF, CR or CRLF; a shell reads a lone CR as a character
    of its line). Lines and columns stay those of the file: a CRLF's CR is the end of
    its line, and a lone CR becomes an LF in place."""
    text = text.replace("\r\n", "\n")
    return text.replace("\r", "\n") if markdown and "\r" in text else text


#: a Unicode escape in YAML's double-quoted scalars (\\uXXXX, \\UXXXXXXXX, \\xXX)
_ESCAPE = Lazy(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|x([0-9A-Fa-f]{2}))")


def _escaped(text: str) -> list[tuple[int, str, str, str]]:
    """Hidden characters written as escapes in the frontmatter of SKILL.md
    (``description: "...\\U000E0069\\U000E0067..."``): the file is plain ASCII, but the
    value a host reads holds tag characters. Each run of adjacent escapes is decoded and
    judged as the characters it makes; the finding is at the run's first escape."""
    body = text.removeprefix("\ufeff")
    if not body.startswith("---"):
        return []
    end = text.find("\n---", 3)
    if end < 0:
        return []
    runs: list[tuple[int, list[str]]] = []
    last = -1
    for match in _ESCAPE.finditer(text, 0, end):
        cp = int(match[1] or match[2] or match[3], 16)
        if cp > 0x10FFFF:
            continue
        if match.start() == last and runs:
            runs[-1][1].append(chr(cp))
        else:
            runs.append((match.start(), [chr(cp)]))
        last = match.end()
    found = []
    for offset, chars in runs:
        decoded = "".join(chars)
        if decoded.isascii():
            continue
        for hit in hidden.find_hidden(decoded):
            message = f"written as escapes in the frontmatter: {hit.message}"
            found.append((offset, hit.code, hidden.SEVERITY[hit.code], message))
    return found


def _decode(path: str, data: bytes) -> str | None:
    """The text of the file ``path``, None for a binary file
    (:func:`skillpack.scan.textfile.read_text`: a text file is always read, a NUL or a
    byte that is not UTF-8 never turns the scan off)."""
    return read_text(path, data)


def strip_hidden(text: str, codes: Collection[str] | None = None) -> str:
    """What ``lint --fix`` applies: ``text`` without the invisible characters the
    hidden-character rules flag (errors and warnings; ``codes``: only those rules'),
    never visible text; the benign invisible characters (emoji joiners, RTL marks in
    RTL text, a BOM at the start) are kept."""
    return hidden.strip_hidden(text, codes)
