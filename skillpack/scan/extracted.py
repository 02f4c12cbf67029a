"""An archive a fetch brings, extracted, then a file of it run.

``curl -fsSLo /tmp/t.tgz URL``, ``tar xzf /tmp/t.tgz -C /tmp`` and ``sh
/tmp/t/install.sh``; or ``curl -s URL | tar xz && ./t/run``: the file that runs is in
no fetch's output, so :mod:`.fetched` (a fetched file run by its name) does not see it,
yet whatever the server sends runs all the same. :func:`extracted_runs` finds such
runs, line after line as a shell runs them (the extraction on the fetch's line or a
later one, the run after the extraction):

* an extraction is ``tar``/``bsdtar`` extracting (``x`` in its first word's letters,
  ``-x``, ``--extract``, ``--get``) the fetched archive (``-f A``, ``-xzfA``,
  ``--file=A``) or its standard input from a fetch piped into it, or ``unzip A``;
* what it writes is its target directory (``-C DIR``, ``--directory=DIR``, ``unzip -d
  DIR``), and else, in the working directory, the folder named as the archive
  (``t.tgz``, ``t.tar.gz``: ``t/``), as release archives are laid out; a run of a path
  below it (``sh /tmp/t/install.sh``, ``./t/run``, ``python3 t/setup.py``) is one of
  the archive's files. A bare ``./configure`` after ``cd`` is not read as one (the
  directory changed; an honest build from a source archive does that);
* an archive checked against a digest the text pins before its extraction
  (:mod:`.checksums`) runs only those bytes: no finding.

Linear: at most :data:`MAX_EXTRACTIONS` extractions, each looked for and followed in at
most :data:`~.fetched.MAX_CANDIDATES` lines, each line parsed once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from skillpack.scan.actions import fetches, normal_path, ran_file
from skillpack.scan.fetched import MAX_CANDIDATES, Fetched, checked
from skillpack.scan.hosts import URL
from skillpack.scan.shell import Command, ShellLine, joined, lines_holding, unquote

#: the endings of archive names, longest first (``t.tar.gz`` before ``t.gz``)
ARCHIVE_SUFFIXES = (".tar.gz", ".tar.xz", ".tar.bz2", ".tar.zst", ".tgz", ".txz", ".tbz2",
                    ".tbz", ".tar", ".zip")  # fmt: skip
_TARS = frozenset({"tar", "bsdtar", "gtar"})


@dataclass(frozen=True, slots=True)
class Extraction:
    """Where an extraction writes a fetched archive's files: ``below`` (a directory,
    ``/``-ended) that a run's path starts with; the archive; the fetch's line and
    command (its URLs); the end of the extraction's logical line and its offset."""

    below: str
    archive: str
    line: int
    command: str
    end: int
    at: int  #: where the extraction command is


def archive_stem(name: str) -> str:
    """``t`` for ``t.tgz`` or ``x/t.tar.gz``; empty for a name that is no archive."""
    base = name.rsplit("/", 1)[-1]
    lowered = base.lower()
    for suffix in ARCHIVE_SUFFIXES:
        if lowered.endswith(suffix) and len(base) > len(suffix):
            return base[: -len(suffix)]
    return ""


def _target(parsed: ShellLine, cmd: Command, archive: str) -> tuple[str, str] | None:
    """(archive read, where its files land ``/``-ended) when ``cmd`` extracts an archive:
    the archive is ``-`` for standard input; None for any other command."""
    head = parsed.head(cmd)
    if head is None:
        return None
    words = [unquote(w) for w in parsed.args(cmd)[0]]
    directory = ""
    read = ""
    if head.name in _TARS:
        extract = False
        for index, word in enumerate(words):
            value = words[index + 1] if index + 1 < len(words) else ""
            if word in ("-x", "--extract", "--get") or (
                index == 0 and word[:1] != "-" and "x" in word  # tar xzf A
            ):
                extract = True
            if word in ("-C", "--directory"):
                directory = value
            elif word.startswith(("--directory=", "--file=")):
                key, _, given = word.partition("=")
                directory, read = (given, read) if key == "--directory" else (directory, given)
            elif word == "--file":
                read = value
            elif word[:1] == "-" and word[1:2] != "-" and "x" in word:
                extract = True
            if ((word[:1] == "-" and word[1:2] != "-") or (index == 0 and word[:1] != "-")) and (
                "f" in word
            ):
                rest = word[word.index("f") + 1 :]  # -xzfA, or the next word
                read = rest or value
        if not extract:
            return None
        read = read or "-"
    elif head.name == "unzip":
        for index, word in enumerate(words):
            if word == "-d" and index + 1 < len(words):
                directory = words[index + 1]
            elif word[:1] != "-" and not read and (index == 0 or words[index - 1] != "-d"):
                read = word
        if not read:
            return None
    else:
        return None
    if directory:
        below = normal_path(directory).rstrip("/")
        return read, (below + "/" if below not in ("", ".") else _stem_dir(archive))
    return read, _stem_dir(archive)


def _stem_dir(archive: str) -> str:
    stem = archive_stem(archive)
    return stem + "/" if stem else ""


#: extractions followed at most (each looked for in later lines)
MAX_EXTRACTIONS = 16

_Lines = dict[tuple[int, int], tuple[ShellLine, list[tuple[int, str]]]]


def _line(text: str, markdown: bool, span: tuple[int, int], lines: _Lines) -> tuple[
    ShellLine, list[tuple[int, str]]
]:  # fmt: skip
    """The logical line at ``span`` parsed, and (offset in it, path) of each command of
    it that runs a file by its path; each line parsed once (``lines``)."""
    got = lines.get(span)
    if got is None:
        parsed = ShellLine(joined(text, *span, markdown), markdown)
        runs = []
        for frame in parsed.frames:
            for cmd in frame.cmds:
                head = parsed.head(cmd)
                ran = ran_file(parsed, cmd)  # "" for a command without a head
                if head is not None and ran:
                    runs.append((head.at, ran))
        got = lines[span] = (parsed, runs)
    return got


def _below(runs: list[tuple[int, str]], below: str, after: int) -> tuple[int, str] | None:
    """The first run past offset ``after`` of a path below ``below``."""
    for at, ran in runs:
        if at > after and ran.startswith(below) and len(ran) > len(below):
            return at, ran
    return None


def extracted_runs(
    text: str, markdown: bool, fetching: Iterable[tuple[int, int]], fetched: list[Fetched]
) -> Iterator[tuple[int, Extraction, str]]:
    """(offset of the command, the extraction, the path run) for the first run of a
    file that an extraction of a fetched archive wrote, for each such extraction (the
    fetches: ``fetched``, the files of :func:`~.fetched.fetched_files` on the lines
    ``fetching``)."""
    lines: _Lines = {}
    count = 0  #: extractions found
    later: list[Extraction] = []  #: those with no run on their own line
    # a fetch piped into tar: its archive has the URL's last part for a name
    for span in fetching:
        if count >= MAX_EXTRACTIONS:
            break
        parsed, runs = _line(text, markdown, span, lines)
        for frame in parsed.frames:
            cmds = frame.cmds
            for index in range(len(cmds) - 1):
                cmd, tar = cmds[index], cmds[index + 1]
                if cmd.sep not in ("|", "|&"):
                    continue
                head = parsed.head(tar)
                if head is None or head.name not in _TARS or not fetches(parsed, cmd):
                    continue
                command = parsed.line[cmd.start : cmd.end]
                urls = URL.findall(command)
                name = urls[0][2].split("?", 1)[0].rsplit("/", 1)[-1] if urls else ""
                target = _target(parsed, tar, name)
                if target is None or target[0] != "-" or not target[1]:
                    continue
                line = text.count("\n", 0, span[0]) + 1
                found = Extraction(target[1], name, line, command, span[1], span[0] + tar.start)
                count += 1
                run = _below(runs, found.below, tar.start)
                if run is None:
                    later.append(found)
                else:
                    yield span[0] + run[0], found, run[1]
                if count >= MAX_EXTRACTIONS:
                    break
            if count >= MAX_EXTRACTIONS:
                break
    # a fetched archive, extracted on the fetch's line or a later one
    for item in fetched:
        if count >= MAX_EXTRACTIONS:
            break
        if not archive_stem(item.path):
            continue
        name = item.path.rsplit("/", 1)[-1]
        for span in lines_holding(text, markdown, name, item.at, MAX_CANDIDATES):
            parsed, runs = _line(text, markdown, span, lines)
            extraction = _extraction_of(text, markdown, item, parsed, span)
            if extraction is None:
                continue
            count += 1
            run = _below(runs, extraction.below, extraction.at - span[0])
            if run is None:
                later.append(extraction)
            else:
                yield span[0] + run[0], extraction, run[1]
            break
    # else the first run on the lines after the extraction's: one finding each
    for extraction in later:
        needle = extraction.below.lstrip("./") or extraction.below
        for span in lines_holding(text, markdown, needle, extraction.end, MAX_CANDIDATES):
            run = _below(_line(text, markdown, span, lines)[1], extraction.below, -1)
            if run is not None:
                yield span[0] + run[0], extraction, run[1]
                break


def _extraction_of(
    text: str, markdown: bool, item: Fetched, parsed: ShellLine, span: tuple[int, int]
) -> Extraction | None:
    """The extraction of ``item`` on the logical line ``parsed`` (at ``span``), unless
    a check of the archive's pinned digest gates it."""
    for frame in parsed.frames:
        for index, cmd in enumerate(frame.cmds):
            if span[0] + cmd.start <= item.at:
                continue  # on the fetch's own line: only what comes after the fetch
            target = _target(parsed, cmd, item.path)
            if target is None or not target[1]:
                continue
            read = normal_path(target[0])
            if read not in (item.path, item.path.rsplit("/", 1)[-1]):
                continue
            if checked(text, markdown, item, parsed, frame, index, read, span[0]):
                return None
            return Extraction(
                target[1], item.path, item.line, item.command, span[1], span[0] + cmd.start
            )
    return None
