"""A file a fetch writes on one line and a later line runs.

``curl -s URL -o /tmp/p``, then ``chmod +x /tmp/p`` and ``/tmp/p`` (a dropper), or
``wget URL -O i.sh`` then ``bash i.sh``: the flow rules judge one logical line at a time
(the same line, ``curl -o x URL && ./x``, is theirs), and a shell runs a script's lines
in order. :func:`fetched_files` reads the files the fetches of some logical lines write;
:func:`runs_fetched` finds each later logical line with a command that runs one of them
(``sh FILE``, ``. FILE``, ``./FILE``: :func:`~skillpack.scan.actions.ran_file`), unless a
check of a digest the text pins gates the run (:mod:`.checksums`). Linear:
at most :data:`MAX_FETCHED` files, each looked for by name from the end of its fetch's
line, at most :data:`MAX_CANDIDATES` lines parsed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from skillpack.scan.actions import fetch_outputs, fetches, named_file, ran_file
from skillpack.scan.checksums import (
    errexit_since,
    gated,
    gates_rest,
    group_end,
    opens_group,
    plain_lines,
    verified,
)
from skillpack.scan.programs import SCRIPT_RUNNERS
from skillpack.scan.shell import Frame, Head, ShellLine, joined, line_commands, lines_holding

MAX_FETCHED = 64
MAX_CANDIDATES = 256


@dataclass(frozen=True, slots=True)
class Fetched:
    """A file a fetch writes: its path (as :func:`ran_file` reads one), the fetch's
    line (1-based), the fetch command's text (its URLs), the end of its logical line,
    and the fetch command's offset."""

    path: str
    line: int
    command: str
    end: int
    at: int  #: where the fetch command is


def fetched_files(text: str, markdown: bool, spans: Iterable[tuple[int, int]]) -> list[Fetched]:
    """The files the fetches on the logical lines ``spans`` (sorted) write, in order:
    those a later line can name (:func:`~.actions.named_file`)."""
    found: list[Fetched] = []
    for start, end, parsed, cmd in line_commands(text, markdown, spans):
        if not fetches(parsed, cmd):
            continue
        line = text.count("\n", 0, start) + 1
        command = parsed.line[cmd.start : cmd.end]
        for path in sorted(fetch_outputs(parsed, cmd)):
            if named_file(path):
                found.append(Fetched(path, line, command, end, start + cmd.start))
                if len(found) >= MAX_FETCHED:
                    return found
    return found


def _runs_by_name(head: Head) -> bool:
    """Whether the command runs a file it names as a script runner does (``sh x``,
    ``python3 x``, ``. x``) or as a path (``./x``, ``/tmp/x``): a word that only holds
    a slash (``recon/raw/app.js``, a quoted argument split off) runs nothing here."""
    return head.name in SCRIPT_RUNNERS or head.raw.startswith(("./", "/", "~/", ".\\"))


def runs_fetched(
    text: str, markdown: bool, fetched: list[Fetched]
) -> Iterator[tuple[int, Fetched]]:
    """(offset of the command, the file) for each later logical line that runs a file of
    ``fetched``, once per line and file."""
    parsed_at: dict[tuple[int, int], ShellLine] = {}
    looked = 0
    for item in fetched:
        name = item.path.rsplit("/", 1)[-1]
        for span in lines_holding(text, markdown, name, item.end, MAX_CANDIDATES - looked):
            looked += 1
            parsed = parsed_at.get(span)
            if parsed is None:
                parsed = parsed_at[span] = ShellLine(joined(text, *span, markdown), markdown)
            for frame in parsed.frames:
                for index, cmd in enumerate(frame.cmds):
                    head = parsed.head(cmd)
                    if head is None or not _runs_by_name(head):
                        continue
                    ran = ran_file(parsed, cmd)
                    if ran and (item.path in (ran, ran.rsplit("/", 1)[-1]) or ran == name):
                        if not checked(text, markdown, item, parsed, frame, index, ran, span[0]):
                            yield span[0] + head.at, item
                        break
                else:
                    continue
                break


def checked(
    text: str,
    markdown: bool,
    item: Fetched,
    parsed: ShellLine,
    frame: Frame,
    index: int,
    path: str,
    line_start: int,
) -> bool:
    """Whether command ``index`` of ``frame`` (on the logical line ``parsed``, which
    starts at ``line_start``) uses ``path``, the fetched ``item``, only once a check of
    its pinned digest passed: on its own line (:func:`~.checksums.gated`) or on a line
    between the fetch and this one (:func:`_checked_before`)."""
    return verified(gated(parsed, frame).get(index, set()), path) or _checked_before(
        text, markdown, path, item.end, line_start
    )


def _checked_before(text: str, markdown: bool, ran: str, start: int, end: int) -> bool:
    """Whether a logical line of ``text`` between ``start`` and ``end`` (after the fetch,
    before the run) checks ``ran`` against a pinned digest so that the lines after it
    run only if it passed (:func:`~.checksums.gates_rest`; ``set -e`` counts in a
    script, not in Markdown, whose lines an agent runs one by one), every line from the
    fetch to the run outside any block that decides whether it runs
    (:func:`~.checksums.plain_lines`). At most
    :data:`MAX_CANDIDATES` lines naming the file are parsed."""
    name = ran.rsplit("/", 1)[-1]
    for span in lines_holding(text, markdown, name, start, MAX_CANDIDATES, end):
        parsed = ShellLine(joined(text, *span, markdown), markdown)
        since = None if markdown else errexit_since(text, span[0])
        # set -e counts given before any block opens (not in a function never called)
        errexit = since is not None and plain_lines(text, markdown, 0, since)
        # a group opened here ({ on the line's end): it must close before the run
        below = opens_group(parsed) and group_end(text, markdown, span[1] + 1, end) is not None
        if gates_rest(parsed, ran, errexit, below):
            return plain_lines(text, markdown, start, end)
    return False
