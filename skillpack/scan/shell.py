"""A logical shell line read as a shell reads it.

A logical line: a backslash-newline and the newline after a trailing ``|``, ``&&`` or
``||`` join physical lines, replaced by spaces of the same length so that offsets stay
those of the file (:func:`logical_span`, :func:`joined`). In Markdown, block quote
markers and ``<pre>``/``<code>`` tags are read as spaces and a table row's cells as
separate commands (its ``\\|`` is a pipe).

:class:`ShellLine` parses a logical line once into commands (split on ``|``, ``;``,
``&&``, ``||``, ``&``) nested in groups and substitutions (``(``, ``$(``, ``<(``,
backticks), each command's name read as the shell reads it (quotes and backslashes
removed, PowerShell's backtick escapes too, wrappers such as ``sudo``, ``env``,
``xargs`` skipped). Quotes do not hide a separator (``bash -c "curl ... | sh"``,
``execSync('curl ... | sh')`` run a pipeline), and a first word no shell would run
(prose, a Dockerfile's ``RUN``, YAML's ``run:``, a JSON key) gives way to the first
command word after it (:data:`~skillpack.scan.programs.STRONG`). A line costs linear
time however long, nesting deeper than 32 levels read as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from skillpack.scan.programs import INTERPS, KIND, PWSH, SHELLS, STRONG
from skillpack.scan.text import Lazy

_I = re.IGNORECASE


# --- logical lines --------------------------------------------------------------------

#: the HTML tags Markdown shows code or text in (<pre>curl ... | sh</pre>)
_HTML_TAG = Lazy(r"</?(?:pre|code|kbd|samp|tt|p|br|div|span|b|i|em|strong|li|td|th|details|"
                 r"summary)\b[^<>\n]*+>", _I)  # fmt: skip
#: a Markdown block quote's markers at a line's start ("> curl ... | sh")
_QUOTE_MARKS = Lazy(r"^[ \t]{0,3}(?:>[ \t]?)+", re.MULTILINE)
_IFS = Lazy(r"\$\{IFS\}|\$IFS\b")


def _table_row(text: str, start: int) -> bool:
    """Whether the line starting at ``start`` is a Markdown table row."""
    pos = start
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return text.startswith("|", pos)


def _continues(text: str, newline: int, markdown: bool) -> bool:
    """Whether the physical line ending at ``newline`` (the offset of its ``\\n``) goes on
    to the next: a backslash-newline, or a trailing ``|``, ``&&`` or ``||``."""
    end = newline - 1 if newline and text[newline - 1] == "\r" else newline
    pos = end - 1
    while pos >= 0 and text[pos] == "\\":
        pos -= 1
    if (end - 1 - pos) % 2:
        return True
    while pos >= 0 and text[pos] in " \t":
        pos -= 1
    if pos < 0 or text[pos] not in "|&":
        return False
    if text[pos] == "&" and not (pos and text[pos - 1] == "&"):
        return False
    if text[pos] == "|" and pos and text[pos - 1] == "\\":
        return False
    if markdown:
        start = text.rfind("\n", 0, pos) + 1
        return not _table_row(text, start) and not _table_row(text, newline + 1)
    return True


def logical_span(text: str, start: int, end: int, markdown: bool) -> tuple[int, int]:
    """The logical line holding the physical line ``text[start:end]``."""
    while start > 0 and _continues(text, start - 1, markdown):
        start = text.rfind("\n", 0, start - 1) + 1
    size = len(text)
    while end < size and _continues(text, end, markdown):
        following = text.find("\n", end + 1)
        end = size if following < 0 else following
    return start, end


def lines_holding(
    text: str, markdown: bool, needle: str, start: int, limit: int, end: int | None = None
) -> Iterator[tuple[int, int]]:
    """The logical lines (:func:`logical_span`) that hold ``needle`` from ``start`` on
    (before ``end``), in order, each once, at most ``limit``: each search starts past
    the line found, whatever ``needle`` is (an empty one too)."""
    stop = len(text) if end is None else end
    pos = text.find(needle, start, stop)
    while pos >= 0 and limit > 0:
        line_end = text.find("\n", pos)
        span = logical_span(
            text, text.rfind("\n", 0, pos) + 1, len(text) if line_end < 0 else line_end, markdown
        )
        pos = text.find(needle, max(span[1], pos) + 1, stop)
        limit -= 1
        yield span


def joined(text: str, start: int, end: int, markdown: bool) -> str:
    """``text[start:end]`` as one line of the same length: continuations become spaces,
    ``${IFS}`` spaces; in Markdown, block quote markers and the HTML tags code is shown
    in become spaces, and in a table row a cell's ``|`` a ``;`` and an escaped ``\\|``
    a pipe."""
    line = text[start:end]
    if markdown and ">" in line:
        line = _QUOTE_MARKS.compiled.sub(lambda m: " " * len(m.group()), line)
    if "\n" in line:
        chars = list(line)
        pos = line.find("\n")
        while pos >= 0:
            chars[pos] = " "
            if pos and chars[pos - 1] == "\r":
                chars[pos - 1] = " "
            back = pos - 1 if pos and line[pos - 1] == "\r" else pos
            if back and line[back - 1] == "\\":
                chars[back - 1] = " "
            pos = line.find("\n", pos + 1)
        line = "".join(chars)
    if markdown and "<" in line:
        line = _HTML_TAG.compiled.sub(lambda m: " " * len(m.group()), line)
    if markdown and "|" in line and _table_row(line, 0):
        line = line.replace("\\|", "\0").replace("|", ";").replace("\0", " |")
    if "IFS" in line:
        line = _IFS.compiled.sub(lambda m: " " * len(m.group()), line)
    return line


# --- commands -------------------------------------------------------------------------

#: commands that run the command after them (their options and assignments skipped)
_WRAPPERS = frozenset({"sudo", "doas", "env", "nohup", "time", "command", "builtin", "exec",
                       "nice", "ionice", "stdbuf", "timeout", "xargs", "busybox", "torsocks",
                       "proxychains", "proxychains4", "caffeinate", "unbuffer", "setsid",
                       "then", "do", "else", "if", "elif", "while", "until", "!"})  # fmt: skip
#: a wrapper's options that take the next word as their value
_WRAPPER_VALUES = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "nice": frozenset({"-n"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "exec": frozenset({"-a"}),
    "xargs": frozenset({"-I", "-n", "-P", "-L", "-d", "-a", "-s", "-E"}),
}
#: names whose command is read past them: wrappers, shells with -c
_COMPOUND = _WRAPPERS | SHELLS | PWSH | {"cmd"}
#: one shell word: unquoted characters and quoted strings, adjacent
_WORD = Lazy(r"""(?:[^\s"']++|"[^"]*+"?+|'[^']*+'?+)++""")
_UNQUOTE = re.compile(r"""\\(.)|["']|`(?=\w)""")
_ASSIGN = re.compile(r"[A-Za-z_]\w*\+?=")
_BLANK = re.compile(r"\s")
_NAME_CHARS = re.compile(r"[\w.+-]+")
_REDIRECT = re.compile(r"\d*(?:[<>]|&>)")
_REDIRECT_FIRST = frozenset("<>&0123456789")
_REDIRECT_OP = re.compile(r"\d*(?:>>?|<<<?|<<|&>>?|>&|<&|>\||<>|<)")
#: what separates commands: pipes, lists, groups, substitutions, code spans
_SEPARATOR = Lazy(r"(?<!\\)\|[|&]?|&&|;|(?<![<>&\\])&(?![>&])|\$\(|[<>]\(|[()]|(?<!\w)`|`(?!\w)")
_OPENERS = frozenset({"$(", "<(", ">(", "("})
#: a command that is one plain word, read without the general case's steps
_SIMPLE_HEAD = re.compile(r"[ \t]*([A-Za-z][\w.+-]*)(?=[ \t]|$)")
_NAMES: dict[str, str] = {}
#: nesting deeper than this is read as plain text (a line costs at most this many passes)
_MAX_DEPTH = 32


def _name(word: str) -> str:
    """A command word as the shell runs it: quotes and escapes removed, the directory
    and ``.exe`` left out, lowercase, Markdown's emphasis around it dropped (``"cu"rl``,
    ``c\\url``, ``/usr/bin/curl``, ``**curl`` and PowerShell's ``i`ex`` are curl, curl,
    curl, curl and iex)."""
    if "\\" in word or "'" in word or '"' in word or "`" in word:
        if "\\" in word and (word[1:3] == ":\\" or word.lower().endswith(".exe")):
            word = word.replace("\\", "/")
        word = _UNQUOTE.sub(r"\1", _balanced(word))
    # Markdown's emphasis around a command (**curl ... | sh**): no command name starts
    # with "*" (a shell would read a glob there)
    name = word.rsplit("/", 1)[-1].lower().removesuffix(".exe").lstrip("*")
    leading = _NAME_CHARS.match(name)
    if leading is not None and leading.end() < len(name):
        name = leading.group().removesuffix(".exe")  # bash"}}: the end of a JSON string
    if name.startswith("nc."):
        return "nc"  # nc.traditional, nc.openbsd
    stem = name.rstrip("0123456789.")
    return stem if stem in INTERPS else name  # python3.12


def _balanced(word: str) -> str:
    """A word without the quote it opens and never closes: the start (``'curl``) or the
    end (``sh'``, ``bash"}``) of a string in code the command line is written in."""
    quote = ""
    opened = -1
    for index, char in enumerate(word):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote, opened = char, index
    if not quote:
        return word
    return word[1:] if opened == 0 else word[:opened]


def unquote(word: str) -> str:
    """A word without its quotes and escapes."""
    return _UNQUOTE.sub(r"\1", word) if ("'" in word or '"' in word or "\\" in word) else word


class Frame:
    """The commands of the line, or of one group or substitution in it."""

    __slots__ = ("cmds", "end", "kind", "roles", "start")

    def __init__(self, kind: str, start: int) -> None:
        self.kind = kind  #: "" (the line), "(", "$(", "<(", ">(" or "`"
        self.start = start  #: just after the opener
        self.end = -1  #: at the closer (or the line's end)
        self.cmds: list[Command] = []
        #: fetches, decodes or reads a secret somewhere in it (set by the judging)
        self.roles = 0


class Command:
    """One command: where it starts and ends, the separator that ends it, the groups and
    substitutions inside it."""

    __slots__ = ("_args", "_head", "_headed", "children", "end", "sep", "start")

    def __init__(self, start: int) -> None:
        self.start = start
        self.end = -1
        self.sep = ""
        self.children: list[Frame] = []
        self._head: Head | None = None
        self._headed = False
        self._args: tuple[list[str], list[tuple[str, str]]] | None = None

    def spans(self) -> list[tuple[int, int]]:
        """The command's own text: (start, end) of each part outside its groups and
        substitutions."""
        spans = []
        pos = self.start
        for child in self.children:
            spans.append((pos, child.start - len(child.kind)))
            pos = child.end + 1
        spans.append((min(pos, self.end), self.end))
        return spans

    def first(self) -> int:
        """The end of the command's text before its first group or substitution."""
        children = self.children
        return children[0].start - len(children[0].kind) if children else self.end


@dataclass(frozen=True, slots=True)
class Head:
    """A command's name, read past its wrappers, and where its word is."""

    name: str  #: the command's name (:func:`_name`)
    at: int  #: offset of its word
    after: int  #: offset after its word
    raw: str  #: the word as written
    xargs: bool  #: run by xargs (its input becomes the arguments)


class ShellLine:
    """One logical line parsed into commands (see the module's docstring)."""

    def __init__(self, line: str, markdown: bool) -> None:
        self.line = line
        self.markdown = markdown
        self.frames: list[Frame] = []
        self._parse()

    def _parse(self) -> None:
        line = self.line
        top = Frame("", 0)
        frames = [top]
        frame = top
        cmds = top.cmds
        cmd = Command(0)
        stack: list[tuple[Frame, Command]] = []
        skipped = 0
        for match in _SEPARATOR.compiled.finditer(line):
            token = match.group()
            if token in _OPENERS or (token == "`" and frame.kind != "`"):
                if len(stack) >= _MAX_DEPTH:
                    skipped += token != "`"
                    continue
                child = Frame(token, match.end())
                cmd.children.append(child)
                frames.append(child)
                stack.append((frame, cmd))
                frame = child
                cmds = child.cmds
                cmd = Command(match.end())
            elif token == ")" or token == "`":
                if token == ")" and skipped:
                    skipped -= 1
                    continue
                if not stack or (token == ")") != (frame.kind != "`"):
                    continue  # an unmatched closer is text
                cmd.end = frame.end = match.start()
                cmds.append(cmd)
                frame, cmd = stack.pop()
                cmds = frame.cmds
            else:
                cmd.end = match.start()
                cmd.sep = token
                cmds.append(cmd)
                cmd = Command(match.end())
        size = len(line)
        cmd.end = size
        cmds.append(cmd)
        while stack:
            frame.end = size
            frame, cmd = stack.pop()
            cmd.end = size
            frame.cmds.append(cmd)
        top.end = size
        self.frames = frames

    # --- reading one command ----------------------------------------------------

    def head(self, cmd: Command) -> Head | None:
        """The command's name after its wrappers, assignments and redirections; a
        wrapper alone (``env``, ``sudo``) is the name. A quoted command line in the
        command's place (``execSync('curl ... | sh')``) and the code of a shell's ``-c``
        (``bash -c "curl ... | sh"``) are read for the command they run."""
        if cmd._headed:
            return cmd._head
        start, end = cmd.start, cmd.first()
        cmd._headed = True
        found = self._head_at(start, end)
        if found is not None and found.name not in KIND and found.name not in _COMPOUND:
            # a word no shell command here (prose, a Dockerfile's RUN, YAML's run:, a
            # JSON key): the first command word after it, inside quotes too, is the command
            search = _WORD.compiled.search
            pos = found.after
            while (match := search(self.line, pos, end)) is not None:
                word = match.group()
                if word[0] in "'\"" and _BLANK.search(word):
                    pos = match.start() + 1  # a quoted command line: its words
                    continue
                if _name(word) in STRONG:
                    found = self._head_at(match.start(), end)
                    break
                pos = match.end()
        cmd._head = found
        return found

    def _head_at(self, start: int, end: int) -> Head | None:
        """:meth:`head` read from ``start``."""
        line = self.line
        simple = _SIMPLE_HEAD.match(line, start, end)
        if simple is not None:  # the common case: a plain word
            raw = simple.group(1)
            name = _NAMES.get(raw)
            if name is None:
                name = _name(raw)
                if len(_NAMES) < 4096:
                    _NAMES[raw] = name
            if name not in _COMPOUND:
                return Head(name, simple.start(1), simple.end(), raw, False)
        search = _WORD.compiled.search
        pos = start
        xargs = False
        found: Head | None = None
        while True:
            match = search(line, pos, end)
            if match is None:
                break
            word = match.group()
            pos = match.end()
            if word[0] in "'\"" and _BLANK.search(word):
                pos = match.start() + 1  # a command line in quotes: read inside them
                continue
            if _REDIRECT.match(word):
                if _REDIRECT_OP.fullmatch(word):
                    target = search(line, pos, end)
                    pos = target.end() if target else pos
                continue
            if _ASSIGN.match(word) or not word.strip("'\""):
                continue
            name = _name(word)
            found = Head(name, match.start(), pos, word, xargs)
            if (name in SHELLS or name in PWSH or name == "cmd") and not xargs:
                inner = self._code(name, pos, end)
                if inner < 0:
                    break
                pos = inner  # the command its -c runs
                continue
            if name not in _WRAPPERS:
                break
            xargs = xargs or name == "xargs"
            values = _WRAPPER_VALUES.get(name, frozenset())
            while True:
                option = search(line, pos, end)
                if option is None:
                    break
                value = option.group()
                if (
                    (value.startswith("-") and len(value) > 1)
                    or _ASSIGN.match(value)
                    or (name == "timeout" and value[:1].isdigit())
                ):
                    pos = option.end()
                    if value in values:
                        following = search(line, pos, end)
                        pos = following.end() if following else pos
                    continue
                break
        return found

    def _code(self, name: str, pos: int, end: int) -> int:
        """Where the code of a shell's ``-c`` (``-Command``, ``/c``) starts, inside its
        quotes; -1 when the shell has no such code among the words from ``pos`` (it runs
        a script, or its input)."""
        value = False  # the word is an option's value (-o pipefail, -ExecutionPolicy Bypass)
        for match in _WORD.compiled.finditer(self.line, pos, end):
            word = match.group()
            lower = word.lower()
            code = False
            if value:
                value = False
                continue
            if name in SHELLS and lower[:1] in "-+" and not lower.startswith("--"):
                code = "c" in lower and lower[0] == "-"
                value = lower in ("-o", "+o", "-O", "+O")
            elif name in PWSH and lower.startswith("-"):
                code = len(lower) > 1 and "-command".startswith(lower)
                if len(lower) > 1 and "-file".startswith(lower):
                    return -1
                value = not code and not lower.startswith(
                    ("-noprofile", "-nologo", "-noni", "-nop", "-noexit", "-sta", "-mta")
                )
            elif name == "cmd" and lower.startswith("/"):
                code = lower in ("/c", "/k")
            else:
                return -1  # a script, or an argument
            if code:
                following = _WORD.compiled.search(self.line, match.end(), end)
                if following is None:
                    return -1
                inner = following.start()
                return inner + 1 if following.group()[0] in "'\"" else inner
        return -1

    def words(self, cmd: Command, start: int) -> Iterator[tuple[int, str]]:
        """(offset, word) of the command's own words from ``start`` on."""
        finditer = _WORD.compiled.finditer
        for s, e in cmd.spans():
            if e <= start:
                continue
            for match in finditer(self.line, max(s, start), e):
                yield match.start(), match.group()

    def args(self, cmd: Command) -> tuple[list[str], list[tuple[str, str]]]:
        """The command's arguments after its name, and its redirections (operator,
        target), quotes kept."""
        if cmd._args is not None:
            return cmd._args
        head = self.head(cmd)
        args: list[str] = []
        redirects: list[tuple[str, str]] = []
        if head is not None:
            operator = ""
            for _, word in self.words(cmd, head.after):
                if word[0] == "#":
                    break  # a comment
                if operator:
                    redirects.append((operator, word))
                    operator = ""
                elif word[0] in _REDIRECT_FIRST and _REDIRECT.match(word):
                    op = _REDIRECT_OP.match(word)
                    if op is None:
                        continue
                    if op.end() == len(word):
                        operator = word
                    else:
                        redirects.append((op.group(), word[op.end() :]))
                else:
                    args.append(word)
        cmd._args = (args, redirects)
        return cmd._args


def line_commands(
    text: str, markdown: bool, spans: Iterable[tuple[int, int]]
) -> Iterator[tuple[int, int, ShellLine, Command]]:
    """Each command of the logical lines ``spans`` of ``text``, in order: the line's
    start and end in ``text``, the parsed line, the command (of every frame: groups and
    substitutions too)."""
    for start, end in spans:
        parsed = ShellLine(joined(text, start, end, markdown), markdown)
        for frame in parsed.frames:
            for cmd in frame.cmds:
                yield start, end, parsed, cmd
