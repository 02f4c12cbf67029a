"""A fetched file checked against a digest the text pins, before it runs.

``curl -fsSLo tool.sh URL``, then ``echo "<sha256>  tool.sh" | sha256sum -c -`` and
``sh tool.sh``: only the bytes that digest names can run, as with a pinned package, and
that is what SP521's hint asks for. The download-then-run rules leave a run alone when
such a check gates it: the check fails and the run does not happen.

A check (:func:`checked_files`) is ``sha256sum``, ``sha384sum``, ``sha512sum`` or
``shasum`` with ``-c``/``--check``, fed the digest line by ``echo``/``printf`` through
a pipe or by a here-string (``<<<``); the line holds the digest itself (64, 96 or 128
hex digits) followed by the file's name. A checksum file (``sha256sum -c x.sha256``)
pins nothing the text shows, and is no check here.

It gates a run (:func:`gated`, :func:`gates_rest`) when the run happens only if it
passed: ``check && ... && run`` on one line; ``check || exit 1`` (or ``return``), or
``check || { echo bad >&2; exit 1; }``, on the check's line (:func:`exit_group`) or
over the lines below it, closed before the run (:func:`group_end`): its commands plain,
one a line or joined by ``;``, the last an ``exit`` or ``return``; then the run after
it; or, in a script, a check standing alone on its line under ``set -e`` (``set -euo
pipefail``, ``set -o errexit``, a ``#!/bin/sh -e`` line) given before any block opens
and not switched off since. What the group runs is not gated: it runs when the check
failed.
``check || true``, ``check; run`` without ``set -e``, a group that may not end the
script (``{ echo bad; }``, ``{ exit 1 & }``, ``{ ( exit 1 ); }``, ``{ f && exit 1; }``,
``exit`` before its last command) or that holds the run, ``! check``, a check in the
background, in an ``if``, a loop or a function body, or after a here-document or any
such block opened between the fetch and the run, is not read as gating (the run stays
a finding).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillpack.scan.actions import normal_path
from skillpack.scan.shell import Command, Frame, ShellLine, joined, logical_span, unquote

#: the programs that check files against digest lines
CHECKERS = frozenset({"sha256sum", "sha384sum", "sha512sum", "shasum"})
#: a SHA-256, SHA-384 or SHA-512 digest in hex, alone
_DIGEST = re.compile(r"[0-9A-Fa-f]{64}(?:[0-9A-Fa-f]{32}){0,2}")
#: what ends a script's run after a failed check
_STOPS = frozenset({"exit", "return"})
#: the words that make a command part of a compound one (or negate it)
_KEYWORDS = frozenset(
    {"!", "if", "then", "else", "elif", "fi", "while", "until", "for", "select", "do",
     "done", "case", "esac", "function", "coproc", "{", "}"}
)  # fmt: skip
#: a here-document's operator (not a here-string's ``<<<``)
_HEREDOC = re.compile(r"(?<!<)<<-?(?!<)")
#: ``set`` with its options, at the start of a line
_SET = re.compile(r"^[ \t]*set[ \t]+([^\n;#&|]*)", re.MULTILINE)
_SHEBANG_E = re.compile(r"#![^\n]*[ \t]-[A-Za-z]*e")


def _check_mode(words: list[str]) -> bool:
    """Whether a checker's arguments ask it to check (``-c``, ``--check``, ``-sc``)."""
    return any(w == "--check" or (w[:1] == "-" and w[1:2] != "-" and "c" in w) for w in words)


def checked_files(parsed: ShellLine, cmds: list[Command], index: int) -> set[str]:
    """The files (:func:`~.actions.normal_path`) that ``cmds[index]`` checks against a
    digest written on the line: it is a checker in check mode, fed digest lines by the
    ``echo`` or ``printf`` before it in its pipeline or by a here-string. Empty for any
    other command."""
    cmd = cmds[index]
    head = parsed.head(cmd)
    if head is None or head.name not in CHECKERS:
        return set()
    args, redirects = parsed.args(cmd)
    if not _check_mode([unquote(a) for a in args]):
        return set()
    fed = [unquote(target) for op, target in redirects if op == "<<<"]
    at = index - 1
    while at >= 0 and cmds[at].sep in ("|", "|&"):
        feeder = parsed.head(cmds[at])
        if feeder is not None and feeder.name in ("echo", "printf"):
            fed.append(" ".join(unquote(a) for a in parsed.args(cmds[at])[0]))
        at -= 1
    if not plain_command(parsed, cmds[at + 1]):
        return set()  # ! check, then check, do check: negated, or run only maybe
    files: set[str] = set()
    for text in fed:
        tokens = text.split()
        for k in range(len(tokens) - 1):
            if _DIGEST.fullmatch(tokens[k]):
                name = normal_path(tokens[k + 1].lstrip("*"))
                if name:
                    files.add(name)
    return files


def _stops(parsed: ShellLine, cmd: Command) -> bool:
    """Whether ``cmd`` ends the script (``exit``, ``return``), not in the background."""
    head = parsed.head(cmd)
    return head is not None and head.name in _STOPS and cmd.sep != "&"


def exit_group(parsed: ShellLine, cmds: list[Command], start: int) -> int | None:
    """The index of the ``}`` that closes a brace group opened by ``cmds[start]`` when
    the group always ends the script: ``{ A; B; exit 1; }``, its commands plain
    (:func:`_plain_words`, read after the brace) and joined by ``;`` only, the last one
    before the ``}`` an ``exit`` or ``return``, the ``}`` alone and not in the
    background or a pipeline. None for any other command, and for a group that goes on
    past the line."""
    words = parsed.line[cmds[start].start : cmds[start].end].split()
    if len(words) < 2 or words[0] != "{":
        return None  # not a group ('{exit' is a word), or a brace on a line of its own
    index = start
    while index + 1 < len(cmds):
        cmd = cmds[index]
        inner = words[1:] if index == start else parsed.line[cmd.start : cmd.end].split()
        if not _plain_words(inner) or cmd.sep != ";":
            return None
        closing = cmds[index + 1]
        if parsed.line[closing.start : closing.end].split() == ["}"]:
            last = inner[0] in _STOPS
            return index + 1 if last and closing.sep in (";", "") else None
        index += 1
    return None


def plain_command(parsed: ShellLine, cmd: Command) -> bool:
    """Whether ``cmd`` starts with a plain word (:func:`_plain_words`)."""
    return _plain_words(parsed.line[cmd.start : cmd.end].split(None, 1))


def _plain_words(words: list[str]) -> bool:
    """Whether a command of these words starts with a plain word: not ``!`` (a negated
    pipeline), a keyword that makes it a condition or a body that may not run (``if``,
    ``then``, ``do``, ...), a brace or a function definition (``f() {``)."""
    return bool(words) and words[0] not in _KEYWORDS and "(" not in words[0]


def _command_lines(text: str, markdown: bool, start: int, end: int) -> Iterator[tuple[int, str]]:
    """The logical lines of ``text`` from ``start`` on, before ``end``, that hold a
    command: where each ends, and its text (:func:`~.shell.joined`); blank lines and
    comments are left out."""
    pos = start
    while pos < end:
        line_end = text.find("\n", pos, end)
        span = logical_span(text, pos, end if line_end < 0 else line_end, markdown)
        pos = span[1] + 1
        line = joined(text, *span, markdown)
        if line.strip() and not line.lstrip().startswith("#"):
            yield span[1], line


def plain_lines(text: str, markdown: bool, start: int, end: int) -> bool:
    """Whether the logical lines of ``text`` from ``start`` to ``end`` open or close
    nothing that decides whether a line among them runs: no here-document (its lines
    are data), and no command starting with a keyword, a brace or a function
    definition (a check in an ``if``, a loop or a function body may never run); a
    group that always ends the script (:func:`exit_group`, :func:`group_end`) decides
    only whether the script stops."""
    lines = _command_lines(text, markdown, start, end)
    for _, line in lines:
        if _HEREDOC.search(line):
            return False
        parsed = ShellLine(line, markdown)
        opened = opens_group(parsed)
        for number, frame in enumerate(parsed.frames):
            # a group opened at the end of the line: its lines below, read next
            cmds = frame.cmds[:-1] if opened and number == 0 else frame.cmds
            if not _plain_frame(parsed, cmds):
                return False
        if opened and _group_close(lines, markdown) is None:
            return False
    return True


def opens_group(parsed: ShellLine) -> bool:
    """Whether the logical line ``parsed`` ends by opening a brace group (its last
    command a ``{`` alone, after ``||``, ``&&`` or ``;``), whose body is on the lines
    below."""
    if not parsed.frames or not parsed.frames[0].cmds:
        return False
    last = parsed.frames[0].cmds[-1]
    return parsed.line[last.start : last.end].split() == ["{"] and last.sep == ""


def group_end(text: str, markdown: bool, start: int, end: int) -> int | None:
    """Where the line that closes a brace group ends, when the logical lines of
    ``text`` from ``start`` (the line after the one opening the group) on, before
    ``end``, are a group that always ends the script: plain commands (one a line or
    joined by ``;``), the last one ``exit`` or ``return``, then a line holding only
    ``}``; blank lines and comments between. None for any other lines, and when no
    ``}`` closes the group before ``end``."""
    return _group_close(_command_lines(text, markdown, start, end), markdown)


def _group_close(lines: Iterator[tuple[int, str]], markdown: bool) -> int | None:
    """:func:`group_end` of the lines ``lines`` gives, read up to the group's ``}``."""
    stops = False  #: whether the last command so far ends the script
    for line_end, line in lines:
        if line.split() == ["}"]:
            return line_end if stops else None
        parsed = ShellLine(line, markdown)
        if len(parsed.frames) != 1 or _HEREDOC.search(line):
            return None  # a subshell or a substitution, a here-document: not plain
        for cmd in parsed.frames[0].cmds:
            words = parsed.line[cmd.start : cmd.end].split(None, 1)
            if not _plain_words(words) or cmd.sep not in (";", ""):
                return None
            stops = words[0] in _STOPS
    return None


def _plain_frame(parsed: ShellLine, cmds: list[Command]) -> bool:
    """Whether every command of a frame is plain, a group that always ends the script
    (:func:`exit_group`) counting as one: it decides only whether the script stops."""
    index = 0
    while index < len(cmds):
        if not plain_command(parsed, cmds[index]):
            end = exit_group(parsed, cmds, index)
            if end is None:
                return False
            index = end
        index += 1
    return True


def gated(parsed: ShellLine, frame: Frame) -> dict[int, set[str]]:
    """For the commands of ``frame`` (by index) that run only after a check passed,
    the files it checked: ``check && a && b`` (``a`` and ``b``, not what follows a
    ``;``), ``check || exit 1; c; d`` and ``check || { ...; exit 1; }; c; d`` (``c``,
    ``d`` and all that follows, not what the group runs)."""
    out: dict[int, set[str]] = {}
    cmds = frame.cmds
    always: set[str] = set()  #: checked before an exit: for the rest of the frame
    chain: set[str] = set()  #: checked earlier in the running ``&&`` list
    pending: set[str] = set()  #: checked, once the exit after ``||`` is passed
    skip_to = -1  #: the end of a group run when a check failed: none of it is gated
    for index, cmd in enumerate(cmds):
        if index <= skip_to:
            continue
        if pending and (end := exit_group(parsed, cmds, index)) is not None:
            always |= pending
            pending, chain, skip_to = set(), set(), end
            continue
        if always or chain:
            out[index] = always | chain
        if pending and _stops(parsed, cmd):
            always |= pending
            pending = set()
            continue
        pending = set()
        if cmd.sep in ("|", "|&"):
            continue  # a pipeline goes on: its last command decides
        files = checked_files(parsed, cmds, index) if cmd.sep in ("&&", "||") else set()
        if cmd.sep == "&&":
            chain |= files
        else:
            chain = set()
            if cmd.sep == "||" and index + 1 < len(cmds):
                pending = files
    return out


def verified(files: set[str], path: str) -> bool:
    """Whether ``files`` (checked) holds ``path``, as the run names it: the same path
    (``./x`` and ``x`` are one), not only the same last part (``tool.sh`` checked in one
    directory says nothing of ``/tmp/x/tool.sh``)."""
    return path in files


def errexit_since(text: str, offset: int) -> int | None:
    """Where a script's ``set -e`` in force at ``offset`` was turned on: the start of the
    last ``set`` line before it that names the option, when it turned it on (``-e``,
    ``-euo pipefail``, ``-o errexit``), or 0 when none did and the ``#!`` line passes
    ``-e``; None when it is off."""
    since = 0 if _SHEBANG_E.match(text) else None
    for match in _SET.finditer(text, 0, offset):
        words = match.group(1).split()
        for k, word in enumerate(words):
            if word in ("-o", "+o") and k + 1 < len(words) and words[k + 1] == "errexit":
                since = match.start() if word == "-o" else None
            elif word[:1] in "-+" and word[1:2] not in ("-", "") and "e" in word[1:]:
                since = match.start() if word[0] == "-" else None
    return since


def gates_rest(
    parsed: ShellLine, path: str, script_errexit: bool, group_below: bool = False
) -> bool:
    """Whether a check on the logical line ``parsed`` (in its top frame) verifies
    ``path`` (:func:`verified`) so that the lines after it run only if it passed:
    ``check || exit``, ``check || { ...; exit 1; }`` (:func:`exit_group`), ``check ||
    {`` opening a group whose lines below always end the script (``group_below``: the
    caller read them, :func:`group_end`), or a check ending its line under ``set -e``
    (``script_errexit``)."""
    if not parsed.frames:
        return False
    cmds = parsed.frames[0].cmds
    for index, cmd in enumerate(cmds):
        if cmd.sep in ("|", "|&") or not verified(checked_files(parsed, cmds, index), path):
            continue
        if cmd.sep == "||" and index + 1 < len(cmds):
            after = index + 1
            if _stops(parsed, cmds[after]) or exit_group(parsed, cmds, after) is not None:
                return True
            if group_below and after + 1 == len(cmds) and opens_group(parsed):
                return True
        last = index + 1 == len(cmds) or cmd.sep == ";"
        if script_errexit and last and not _after_and_or(cmds, index):
            return True
    return False


def _after_and_or(cmds: list[Command], index: int) -> bool:
    """Whether the pipeline ending at ``cmds[index]`` follows ``&&`` or ``||`` (``set
    -e`` does not stop a script for a failure there)."""
    at = index - 1
    while at >= 0 and cmds[at].sep in ("|", "|&"):
        at -= 1
    return at >= 0 and cmds[at].sep in ("&&", "||")
