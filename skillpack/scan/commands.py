"""Dangerous commands, in SKILL.md, references and scripts.

Download and execute (``curl | sh``, ``bash <(wget ...)``, PowerShell ``iex (iwr ...)``):
an error, except an install line for a named HTTPS host in Markdown code or for a
well-known installer, which is a warning (SP521): honest documentation shows those.
Decode and execute (``base64 -d | sh``, ``exec(base64.b64decode(...))``,
``eval(atob(...))``, ``powershell -enc``), reverse shells (``/dev/tcp`` wired to a
shell, ``nc -e``, a shell piped to and from a network tool, a socket's descriptors
handed to a shell), credentials or the environment sent to the network (piped into
the sink, passed to it as a file, put into the request by command substitution), and
Claude Code's load-time shell (``!`cmd``` and the ````!`` block) with a network fetch,
a package runner or a pipe into a shell are errors. A ``/dev/tcp`` device alone (a port
check) and a credential store read without a flow to the network are warnings.

How a line is read. The rules run on *logical* lines: a backslash-newline and the
newline after a trailing ``|``, ``&&`` or ``||`` join physical lines, replaced by spaces
of the same length so that offsets stay those of the file. Shell-shaped rules parse the
logical line once into commands (split on ``|``, ``;``, ``&&``, ``||``, ``&``) nested in
groups and substitutions (``(``, ``$(``, ``<(``, backticks), each command's name read
as the shell reads it (quotes and backslashes removed, PowerShell's backtick escapes
too, wrappers such as ``sudo``, ``env``, ``xargs`` skipped), and judge commands, not
characters: a fetch piped into a shell however long its arguments, a shell with a
substitution that fetches. Quotes do not hide a separator (``bash -c "curl ... | sh"``,
``execSync('curl ... | sh')`` run a pipeline), and a first word no shell would run (prose,
a Dockerfile's ``RUN``, YAML's ``run:``, a JSON key) gives way to the first command word
after it; in Markdown, block quote markers and ``<pre>``/``<code>`` tags are read as
spaces and a table row's cells as separate commands (its ``\\|`` is a pipe). Other rules
are regular expressions without gaps, or
sequences of them found one after the other: a line or a file costs linear time
however it is padded.

Each rule has markers (:class:`~skillpack.scan.text.Markers`), one of which every line it
reports holds (a space in a marker is any run of white space, ``\\b`` a word boundary);
a rule runs only on the logical lines holding one of its markers (the file-wide rules:
on a file holding one). A rule whose command is written with quotes inside its name
(``"cu"rl``) is found through the other end of the pipe (``| bash``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from skillpack.scan.markdown import CodeMap
from skillpack.scan.model import ERROR, WARNING
from skillpack.scan.text import Lazy, marked_lines

DOWNLOAD_EXEC = "SP520"
INSTALLER_PIPE = "SP521"
DECODE_EXEC = "SP522"
REVERSE_SHELL = "SP523"
TCP_DEVICE = "SP524"
CREDENTIAL_EXFIL = "SP525"
CREDENTIAL_READ = "SP526"
LOAD_TIME_SHELL = "SP527"

SEVERITY = {
    DOWNLOAD_EXEC: ERROR,
    INSTALLER_PIPE: WARNING,
    DECODE_EXEC: ERROR,
    REVERSE_SHELL: ERROR,
    TCP_DEVICE: WARNING,
    CREDENTIAL_EXFIL: ERROR,
    CREDENTIAL_READ: WARNING,
    LOAD_TIME_SHELL: ERROR,
}

_I = re.IGNORECASE

# --- hosts ------------------------------------------------------------------------

#: installers honest documentation shows (``curl -fsSL https://sh.rustup.rs | sh``): a
#: host (matched exactly, or with ``www.``), or a host and path prefix where the host
#: serves anyone's files and only that path is the vendor's (raw.githubusercontent.com,
#: deno.land/x/ serve any user's content and are no installers by themselves)
KNOWN_INSTALLERS: frozenset[str] = frozenset(
    {
        "sh.rustup.rs", "rustup.rs", "static.rust-lang.org", "astral.sh", "get.docker.com",
        "install.python-poetry.org", "bun.sh", "get.pnpm.io", "ollama.com",
        "claude.ai", "pyenv.run", "get.sdkman.io", "sdk.cloud.google.com", "get.helm.sh",
        "install.determinate.systems", "nixos.org", "starship.rs", "tailscale.com",
        "fly.io", "foundry.paradigm.xyz", "cli.moonrepo.dev", "mise.run", "get.volta.sh",
        "deb.nodesource.com", "rpm.nodesource.com", "pixi.sh", "micro.mamba.pm",
        "opencode.ai", "cursor.com", "brew.sh", "get.jetify.com", "aka.ms", "dot.net",
        "get.k3s.io", "sh.vector.dev", "install.duckdb.org", "supabase.com",
        "cli.github.com",
        "deno.land/install.sh", "deno.land/x/install/install.sh",
        "raw.githubusercontent.com/homebrew/install/",
        "raw.githubusercontent.com/nvm-sh/nvm/",
    }
)  # fmt: skip
_KNOWN_HOSTS = frozenset(k for k in KNOWN_INSTALLERS if "/" not in k)
_KNOWN_PREFIXES = tuple(sorted(k for k in KNOWN_INSTALLERS if "/" in k))

#: hosts an attack fetches from: URL shorteners, paste and tunnel services
_SUSPECT_HOSTS = Lazy(
    r"(?:^|\.)(?:bit\.ly|tinyurl\.com|t\.co|is\.gd|goo\.gl|pastebin\.com|paste\.ee|"
    r"hastebin\.com|transfer\.sh|ngrok\.io|ngrok-free\.app|trycloudflare\.com|"
    r"0x0\.st|termbin\.com|webhook\.site|requestbin\.\w+|pipedream\.net)$",
    _I,
)
_URL = Lazy(r"(https?)://([^/\s'\"`)>\]]+)([^\s'\"`)>\]]*)", _I)
_IP_HOST = Lazy(r"^\[?[0-9a-f:.]+\]?(?::\d+)?$", _I)


def _known_installer(host: str, path: str) -> bool:
    host = host.removeprefix("www.")
    if host in _KNOWN_HOSTS:
        return True
    path = path.lower()
    if ".." in path or "%" in path or "\\" in path or "//" in path or "/./" in path:
        return False  # a path a client normalizes out of the vendor's prefix
    return (host + path).startswith(_KNOWN_PREFIXES)


def _fetch_severity(urls: str, in_code: bool, markdown: bool) -> str:
    """SP520 or SP521 for a download-and-execute: an install line of a named HTTPS host
    shown in Markdown code, or of a well-known installer anywhere, is a warning."""
    found = _URL.findall(urls)
    if not found:
        return DOWNLOAD_EXEC  # from a variable, or a host we cannot see
    known = True
    for scheme, host, path in found:
        name = host.lower().rsplit("@", 1)[-1].split(":", 1)[0]
        if scheme.lower() != "https" or _IP_HOST.match(name) or _SUSPECT_HOSTS.search(name):
            return DOWNLOAD_EXEC
        if "." not in name or name.endswith((".invalid", ".onion", ".local")):
            return DOWNLOAD_EXEC
        known = known and _known_installer(name, path)
    return INSTALLER_PIPE if known or (markdown and in_code) else DOWNLOAD_EXEC


# --- what a shell command is ------------------------------------------------------

_SHELLS = frozenset({"sh", "bash", "zsh", "ksh", "dash", "fish", "ash", "mksh", "yash", "csh",
                     "tcsh"})  # fmt: skip
_PWSH = frozenset({"pwsh", "powershell"})
_INTERPS = frozenset({"python", "perl", "ruby", "node", "nodejs", "php"})
_PS_RUN = frozenset({"iex", "invoke-expression"})
_SOURCE = frozenset({"source", "."})
_RUNNERS = _SHELLS | _PWSH | _INTERPS | _PS_RUN | _SOURCE | {"eval"}
_FETCHERS = frozenset({"curl", "wget", "fetch", "iwr", "irm", "invoke-webrequest",
                       "invoke-restmethod"})  # fmt: skip
_NETWORK = frozenset({"nc", "ncat", "netcat", "telnet", "socat", "cryptcat"})
#: what sends its standard input, or a file, over the network
_SINKS = _NETWORK | {"curl", "wget", "ssh", "scp", "rsync", "sftp", "mail", "mailx",
                     "sendmail", "mutt", "iwr", "irm", "invoke-webrequest",
                     "invoke-restmethod", "openssl"}  # fmt: skip
#: what sends an argument (a name to resolve) over the network
_ARGUMENT_SINKS = _SINKS | {"dig", "nslookup", "host", "drill", "ping"}
_DECODERS = frozenset({"base64", "base32", "basenc", "gbase64", "xxd", "openssl", "printf",
                       "echo", "tr", "rev", "uudecode"})  # fmt: skip
#: what writes a file's content (or the environment) to its output
_READERS = frozenset({"cat", "tac", "head", "tail", "less", "more", "base64", "base32", "xxd",
                      "od", "hexdump", "strings", "tar", "zip", "7z", "gzip", "bzip2", "xz",
                      "zstd", "gpg", "openssl", "sed", "awk", "gawk", "grep", "egrep", "jq",
                      "yq", "cut", "sort", "dd", "get-content", "gc", "type", "sqlite3",
                      "security", "env", "printenv", "set", "export", "declare", "typeset",
                      "get-childitem", "gci", "dir", "ls"})  # fmt: skip
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
_COMPOUND = _WRAPPERS | _SHELLS | _PWSH | {"cmd"}
_K_FETCH, _K_DECODE, _K_READ, _K_RUN, _K_SHELL, _K_NET, _K_SINK, _K_SELF, _K_TOKEN = (
    1 << i for i in range(9)
)
_ROLE_FETCH = 1
_ROLE_DECODE = 2
_ROLE_READ = 4

#: one shell word: unquoted characters and quoted strings, adjacent
_WORD = Lazy(r"""(?:[^\s"']++|"[^"]*+"?+|'[^']*+'?+)++""")
_UNQUOTE = re.compile(r"""\\(.)|["']|`(?=\w)""")
_ASSIGN = re.compile(r"[A-Za-z_]\w*\+?=")
_BLANK = re.compile(r"\s")
_NAME_CHARS = re.compile(r"[\w.+-]+")
_NONBLANK = re.compile(r"[^\s\"'`]")
_ALNUM = re.compile(r"[^\W_]")
_REDIRECT = re.compile(r"\d*(?:[<>]|&>)")
_REDIRECT_FIRST = frozenset("<>&0123456789")
_REDIRECT_OP = re.compile(r"\d*(?:>>?|<<<?|<<|&>>?|>&|<&|>\||<>|<)")
#: what separates commands: pipes, lists, groups, substitutions, code spans
_SEPARATOR = Lazy(r"(?<!\\)\|[|&]?|&&|;|(?<![<>&\\])&(?![>&])|\$\(|[<>]\(|[()]|(?<!\w)`|`(?!\w)")
#: the HTML tags Markdown shows code or text in (<pre>curl ... | sh</pre>)
_HTML_TAG = Lazy(r"</?(?:pre|code|kbd|samp|tt|p|br|div|span|b|i|em|strong|li|td|th|details|"
                 r"summary)\b[^<>\n]*+>", _I)  # fmt: skip
_OPENERS = frozenset({"$(", "<(", ">(", "("})
#: a command that is one plain word, read without the general case's steps
_SIMPLE_HEAD = re.compile(r"[ \t]*([A-Za-z][\w.+-]*)(?=[ \t]|$)")
_NAMES: dict[str, str] = {}
#: a Markdown block quote's markers at a line's start ("> curl ... | sh")
_QUOTE_MARKS = Lazy(r"^[ \t]{0,3}(?:>[ \t]?)+", re.MULTILINE)
_IFS = Lazy(r"\$\{IFS\}|\$IFS\b")
_PS_WEBCLIENT = Lazy(r"net\.webclient|downloadstring|downloaddata|downloadfile", _I)
#: nesting deeper than this is read as plain text (a line costs at most this many passes)
_MAX_DEPTH = 32


def _name(word: str) -> str:
    """A command word as the shell runs it: quotes and escapes removed, the directory
    and ``.exe`` left out, lowercase (``"cu"rl``, ``c\\url``, ``/usr/bin/curl`` and
    PowerShell's ``i`ex`` are curl, curl, curl and iex)."""
    if "\\" in word or "'" in word or '"' in word or "`" in word:
        if "\\" in word and (word[1:3] == ":\\" or word.lower().endswith(".exe")):
            word = word.replace("\\", "/")
        word = _UNQUOTE.sub(r"\1", _balanced(word))
    name = word.rsplit("/", 1)[-1].lower().removesuffix(".exe")
    leading = _NAME_CHARS.match(name)
    if leading is not None and leading.end() < len(name):
        name = leading.group().removesuffix(".exe")  # bash"}}: the end of a JSON string
    if name.startswith("nc."):
        return "nc"  # nc.traditional, nc.openbsd
    stem = name.rstrip("0123456789.")
    return stem if stem in _INTERPS else name  # python3.12


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


def _plain(word: str) -> str:
    """A word without its quotes and escapes."""
    return _UNQUOTE.sub(r"\1", word) if ("'" in word or '"' in word or "\\" in word) else word


class _Frame:
    """The commands of the line, or of one group or substitution in it."""

    __slots__ = ("cmds", "end", "host", "kind", "roles", "start")

    def __init__(self, kind: str, host: _Cmd | None, start: int) -> None:
        self.kind = kind  #: "" (the line), "(", "$(", "<(", ">(" or "`"
        self.host = host
        self.start = start  #: just after the opener
        self.end = -1  #: at the closer (or the line's end)
        self.cmds: list[_Cmd] = []
        self.roles = 0  #: fetches, decodes or reads a secret somewhere in it


class _Cmd:
    """One command: where it starts and ends, the separator that ends it, the groups and
    substitutions inside it."""

    __slots__ = ("_args", "_head", "_headed", "children", "end", "sep", "start")

    def __init__(self, start: int) -> None:
        self.start = start
        self.end = -1
        self.sep = ""
        self.children: list[_Frame] = []
        self._head: _Head | None = None
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
class _Head:
    name: str  #: the command's name (:func:`_name`)
    at: int  #: offset of its word
    after: int  #: offset after its word
    raw: str  #: the word as written
    xargs: bool  #: run by xargs (its input becomes the arguments)


class _Line:
    """One logical line parsed into commands (see the module's docstring)."""

    def __init__(self, line: str, markdown: bool) -> None:
        self.line = line
        self.markdown = markdown
        self.frames: list[_Frame] = []
        self._parse()

    def _parse(self) -> None:
        line = self.line
        top = _Frame("", None, 0)
        frames = [top]
        frame = top
        cmds = top.cmds
        cmd = _Cmd(0)
        stack: list[tuple[_Frame, _Cmd]] = []
        skipped = 0
        for match in _SEPARATOR.compiled.finditer(line):
            token = match.group()
            if token in _OPENERS or (token == "`" and frame.kind != "`"):
                if len(stack) >= _MAX_DEPTH:
                    skipped += token != "`"
                    continue
                child = _Frame(token, cmd, match.end())
                cmd.children.append(child)
                frames.append(child)
                stack.append((frame, cmd))
                frame = child
                cmds = child.cmds
                cmd = _Cmd(match.end())
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
                cmd = _Cmd(match.end())
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

    def head(self, cmd: _Cmd) -> _Head | None:
        """The command's name after its wrappers, assignments and redirections; a
        wrapper alone (``env``, ``sudo``) is the name. A quoted command line in the
        command's place (``execSync('curl ... | sh')``) and the code of a shell's ``-c``
        (``bash -c "curl ... | sh"``) are read for the command they run."""
        if cmd._headed:
            return cmd._head
        start, end = cmd.start, cmd.first()
        cmd._headed = True
        found = self._head_at(start, end)
        if found is not None and found.name not in _KIND and found.name not in _COMPOUND:
            # a word no shell command here (prose, a Dockerfile's RUN, YAML's run:, a
            # JSON key): the first command word after it, inside quotes too, is the command
            search = _WORD.compiled.search
            pos = found.after
            while (match := search(self.line, pos, end)) is not None:
                word = match.group()
                if word[0] in "'\"" and _BLANK.search(word):
                    pos = match.start() + 1  # a quoted command line: its words
                    continue
                if _name(word) in _STRONG:
                    found = self._head_at(match.start(), end)
                    break
                pos = match.end()
        cmd._head = found
        return found

    def _head_at(self, start: int, end: int) -> _Head | None:
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
                return _Head(name, simple.start(1), simple.end(), raw, False)
        search = _WORD.compiled.search
        pos = start
        xargs = False
        found: _Head | None = None
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
            found = _Head(name, match.start(), pos, word, xargs)
            if (name in _SHELLS or name in _PWSH or name == "cmd") and not xargs:
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
            if name in _SHELLS and lower[:1] in "-+" and not lower.startswith("--"):
                code = "c" in lower and lower[0] == "-"
                value = lower in ("-o", "+o", "-O", "+O")
            elif name in _PWSH and lower.startswith("-"):
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

    def words(self, cmd: _Cmd, start: int) -> Iterator[tuple[int, str]]:
        """(offset, word) of the command's own words from ``start`` on."""
        finditer = _WORD.compiled.finditer
        for s, e in cmd.spans():
            if e <= start:
                continue
            for match in finditer(self.line, max(s, start), e):
                yield match.start(), match.group()

    def args(self, cmd: _Cmd) -> tuple[list[str], list[tuple[str, str]]]:
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

    # --- what a command does -----------------------------------------------------

    def runs_stdin(self, cmd: _Cmd) -> bool:
        """Whether the command runs what it reads on its standard input as code: a shell
        or an interpreter without a script, ``iex``, ``source /dev/stdin``, ``xargs sh
        -c``."""
        head = self.head(cmd)
        if head is None or head.name not in _RUNNERS or head.name == "eval":
            return False
        name = head.name
        if name in _PS_RUN:
            return True
        shell = name in _SHELLS
        interp = name in _INTERPS
        for word in self.args(cmd)[0]:
            plain = _plain(word)
            if plain in ("-", "/dev/stdin", "/dev/fd/0"):
                return True
            if not _ALNUM.search(plain):
                continue  # the end of a string the command was in: ' }], ");
            if plain == "--":
                continue
            if plain.startswith("-") and len(plain) > 1:
                letters = plain[1:]
                if shell and not plain.startswith("--"):
                    if "s" in letters:
                        return True  # bash -s: the rest are the script's arguments
                    if "c" in letters:
                        return head.xargs  # xargs sh -c: its input is the code
                elif interp:
                    if plain.startswith("--eval") or plain.startswith("--print"):
                        return head.xargs
                    if not plain.startswith("--") and set(letters) & set("cemEnprf"):
                        return head.xargs
                continue
            # a script file or code; in Markdown a word of prose ("| sh to finish")
            return bool(self.markdown and _PROSE_WORD.fullmatch(plain))
        return name not in _SOURCE

    def fetches(self, cmd: _Cmd) -> bool:
        head = self.head(cmd)
        if head is None:
            return False
        if head.name in _FETCHERS:
            return self.has_arguments(cmd, head)
        if head.raw.startswith("$"):  # c=curl; $c https://...
            return self.line.find("://", head.after, cmd.end) >= 0
        return head.name == "new-object" and bool(
            _PS_WEBCLIENT.search(self.line, head.after, cmd.end)
        )

    def decodes(self, cmd: _Cmd) -> bool:
        head = self.head(cmd)
        if head is None or head.name not in _DECODERS:
            return False
        name = head.name
        raw = self.args(cmd)[0]
        args = [_plain(a) for a in raw]
        flags = [a for a in args if a.startswith("-") and not a.startswith("--")]
        if name in ("base64", "base32", "basenc", "gbase64"):
            return "--decode" in args or any("d" in f or "D" in f for f in flags)
        if name == "xxd":
            return "-revert" in args or any("r" in f for f in flags)
        if name == "openssl":
            return bool(args) and args[0] in ("base64", "enc") and "-d" in args
        if name in ("printf", "echo"):
            if name == "echo" and not any("e" in f for f in flags):
                return False
            return any(_ESCAPES.search(a) for a in raw)
        if name == "tr":
            ranges = [a for a in args if not a.startswith("-")]
            return len(ranges) >= 2 and all(_ROT_RANGE.search(a) for a in ranges[:2])
        return True  # rev, uudecode

    def reads_secret(self, cmd: _Cmd) -> str:
        """What secret the command writes to its output: a credential store, the
        environment, the keychain ("" for none)."""
        head = self.head(cmd)
        if head is None:
            return ""
        args, redirects = self.args(cmd)
        for operator, target in redirects:
            if operator.endswith("<") and not operator.endswith("<<"):
                found = _flow_secret(target)
                if found:
                    return found
        name = head.name
        if name not in _READERS:
            return ""
        plain = [_plain(a) for a in args]
        if name in ("env", "printenv"):
            return "" if any(not a.startswith("-") for a in plain) else "the environment"
        if name in ("set", "export", "declare", "typeset"):
            if all(a in ("-p", "-x", "-px", "-xp") for a in plain):
                return "the environment"
            return ""
        if name in ("get-childitem", "gci", "dir", "ls"):
            envs = [a for a in plain if a.lower().rstrip("\\/*") == "env:"]
            return "the environment" if envs else ""
        if name == "security":
            return f"security {plain[0]}" if plain and plain[0] in _KEYCHAIN_READS else ""
        for word in plain:
            found = _flow_secret(word)
            if found:
                return found
        return ""

    def prints_token(self, cmd: _Cmd) -> str:
        """A CLI printing its access token (``gh auth token``): a secret when piped into
        a network tool, not in a request header where it belongs."""
        head = self.head(cmd)
        if head is None or head.name not in _TOKEN_PRINTERS:
            return ""
        words = " ".join(_plain(a) for a in self.args(cmd)[0][:3]).lower()
        for command in _TOKEN_PRINTERS[head.name]:
            if words.startswith(command):
                return f"{head.name} {command}"
        return ""

    def has_arguments(self, cmd: _Cmd, head: _Head) -> bool:
        """Whether anything follows the command's name: a fetch, a network tool without
        a host is no command but a word in a list (``"(curl|wget|ssh)"``)."""
        return bool(_NONBLANK.search(self.line, head.after, cmd.end))

    def sends_stdin(self, cmd: _Cmd) -> bool:
        """Whether the command sends its standard input over the network."""
        head = self.head(cmd)
        if head is None or head.name not in _SINKS or not self.has_arguments(cmd, head):
            return False
        name = head.name
        if head.xargs and name in ("curl", "wget"):
            return True
        if name == "openssl":
            return "s_client" in self.args(cmd)[0]
        if name in ("curl", "wget", "scp", "rsync", "sftp"):
            return "-" in (path for _, path in self.sent_files(cmd))
        return True

    def sent_files(self, cmd: _Cmd) -> list[tuple[str, str]]:
        """(option, path) of each file the command sends (``-`` for its input): curl's
        ``-d @f``, ``-F x=@f``, ``-T f``, wget's ``--post-file``, ``-InFile``, scp's and
        rsync's local sources, and an input redirection of a network tool."""
        head = self.head(cmd)
        if head is None or head.name not in _SINKS:
            return []
        name = head.name
        line = self.line
        if name in ("curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod"):
            if not _SENDS_FILE.search(line, head.after, cmd.end):
                return []  # no option that sends a file: most fetches
        elif name not in ("scp", "rsync", "sftp") and line.find("<", head.after, cmd.end) < 0:
            return []
        args, redirects = self.args(cmd)
        plain = [_plain(a) for a in args]
        sent: list[tuple[str, str]] = []
        if name == "curl":
            index = 0
            while index < len(plain):
                word = plain[index]
                option, value = word, ""
                for prefix in _CURL_DATA + _CURL_FORM + _CURL_UPLOAD:
                    if word == prefix:
                        value = plain[index + 1] if index + 1 < len(plain) else ""
                        index += 1
                        break
                    if word.startswith(prefix) and not prefix.startswith("--"):
                        option, value = prefix, word[len(prefix) :]
                        break
                else:
                    option = ""
                index += 1
                if not option:
                    continue
                if option in _CURL_UPLOAD:
                    sent.append((option, value))
                elif option in _CURL_FORM:
                    at = value.find("=@")
                    at = value.find("=<") if at < 0 else at
                    if at >= 0:
                        sent.append((option, value[at + 2 :].split(";", 1)[0]))
                elif option == "--data-urlencode":
                    if "@" in value:
                        sent.append((option, value.split("@", 1)[1]))
                elif value.startswith("@"):
                    sent.append((option, value[1:]))
        elif name == "wget":
            for index, word in enumerate(plain):
                for option in ("--post-file", "--body-file"):
                    if word.startswith(option + "="):
                        sent.append((option, word[len(option) + 1 :]))
                    elif word == option and index + 1 < len(plain):
                        sent.append((option, plain[index + 1]))
        elif name in ("iwr", "irm", "invoke-webrequest", "invoke-restmethod"):
            for index, word in enumerate(plain[:-1]):
                if word.lower() == "-infile":
                    sent.append((word, plain[index + 1]))
        elif name in ("scp", "rsync", "sftp"):
            paths: list[str] = []
            skip = False
            for word in plain:
                if skip:
                    skip = False
                elif word.startswith("-"):
                    skip = word in _COPY_VALUES
                else:
                    paths.append(word)
            remote = [p for p in paths if _REMOTE.match(p)]
            if remote:
                sent.extend(("", p) for p in paths if not _REMOTE.match(p))
        if name not in ("curl", "wget") or any(path == "-" for _, path in sent):
            for operator, target in redirects:
                if operator.endswith("<") and not operator.endswith("<<"):
                    sent.append(("<", target))
        return sent


#: a word of prose, not a script's path (in Markdown, "curl ... | sh to finish")
_PROSE_WORD = re.compile(r"[A-Za-z]+[.,;:!?]?")
#: what a fetch tool needs to send a file (curl's @file, -T; wget's --post-file, -InFile)
_SENDS_FILE = Lazy(r"@|-T|--upload-file|--post-file|--body-file|-infile", _I)
_TOKEN_PRINTERS = {
    "gh": ("auth token",),
    "gcloud": ("auth print-access-token", "auth print-identity-token",
               "auth application-default print-access-token"),
    "az": ("account get-access-token",),
    "aws": ("configure export-credentials", "sts get-session-token", "ecr get-login-password"),
    "op": ("read", "item get"),
}  # fmt: skip
_ESCAPES = Lazy(r"\\(?:x[0-9a-f]{2}|[0-7]{3}|u[0-9a-f]{4})", _I)
_ROT_RANGE = Lazy(r"[a-z]-[a-z]", _I)
_KEYCHAIN_READS = frozenset({"find-generic-password", "find-internet-password", "dump-keychain"})
_CURL_DATA = ("--data-binary", "--data-urlencode", "--data-ascii", "--data", "--json", "-d")
_CURL_FORM = ("--form", "-F")
_CURL_UPLOAD = ("--upload-file", "-T")
_COPY_VALUES = frozenset({"-i", "-P", "-p", "-o", "-F", "-c", "-l", "-S", "-e", "-J", "--rsh",
                          "-b"})  # fmt: skip
_REMOTE = re.compile(r"(?:[\w.-]+@)?[\w.-]+:(?!//)")

# --- secrets ------------------------------------------------------------------------

_HOME = (
    r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/[\w.-]+|/Users/[\w.-]+|/root)"
)
#: a path separator, also as code writes it ('.ssh', 'id_rsa' / Path.home()/'.ssh'/...)
_SEP = r"(?:[/\\]|[\"']\s*[,/+]\s*[\"']/?)"
_STORES = (
    r"\.(?:ssh" + _SEP + r"(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:[-_]sk)?\b(?!\.pub)|"
    r"authorized_keys\b)|aws" + _SEP + r"credentials\b|netrc\b|git-credentials\b|"
    r"docker"
    + _SEP
    + r"config\.json\b|kube"
    + _SEP
    + r"config\b|config"
    + _SEP
    + r"(?:gcloud\b|gh"
    + _SEP
    + r"hosts\.yml\b)|gnupg\b|npmrc\b|pypirc\b|"
    r"claude" + _SEP + r"\.credentials\.json\b|codex" + _SEP + r"auth\.json\b|"
    r"gemini" + _SEP + r"(?:oauth_creds\.json|google_accounts\.json|"
    r"mcp-oauth-tokens[\w.-]*\.json|\.env)\b|"
    r"azure" + _SEP + r"(?:accessTokens\.json|msal_token_cache\.\w+|"
    r"service_principal_entries\.json)\b)"
)
#: a credential store read (SP526 and the flows of SP525); ``.env`` only for the flows
_SECRET = Lazy(
    r"(?:" + _HOME + r"|expanduser\(\s*[\"']~|Path\.home\(\)|os\.homedir\(\))?"
    r"[/\\\"' +]{0,4}" + _STORES + r"|(?<![\w)\].$])\.env\b(?![.\w-])"
    r"|\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b"
    r"|Library/Keychains|\blogin\.keychain|\blogins\.json\b|\bkey4\.db\b|\bcookies\.sqlite\b"
    r"|/etc/shadow\b",
    _I,
)
_BROWSER = Lazy(r"Google/Chrome|Chromium|BraveSoftware|Microsoft/Edge|\.mozilla/firefox|"
                r"Firefox/Profiles", _I)  # fmt: skip
_BROWSER_FILE = Lazy(r"[/\\](?:Login Data|Cookies|Local State)\b", _I)
#: what only a flow to the network makes a finding: a whole credential directory, any
#: .env file but a template, the process environment, a private key by its name
_FLOW_ONLY = Lazy(
    r"^(?:" + _HOME + r"[/\\])?\.(?:ssh|aws|azure|kube|gnupg|docker|config[/\\](?:gcloud|gh))"
    r"(?:[/\\][^\s\"'`;|&]*)?$"
    r"|^" + _HOME + r"[/\\]\.(?:claude|codex|gemini)[/\\]?$"
    r"|(?:^|[/\\])\.env(?:rc|\.(?!example\b|sample\b|template\b|dist\b|defaults?\b|"
    r"schema\b)[\w-]+)?$"
    r"|^/proc/(?:self|\d+|\*)/environ$"
    r"|(?:^|[/\\])id_(?:rsa|dsa|ecdsa|ed25519)(?:[-_]sk)?$",
    _I,
)
#: a credential used where it belongs (ssh -i KEY, --netrc-file, IdentityFile, ssh-add)
_IDENTITY = Lazy(
    r"(?:(?:^|\s)(?:-i|--identity|-identity|--netrc-file|--key|--cert|-E|--cacert)|"
    r"IdentityFile|\bssh-add|\bssh-keygen\b[^\n|;&]{0,40}-f|\bchmod\s+\S+)[=\s]*[\"']?$",
    _I,
)


def _flow_secret(path: str) -> str:
    """``path`` (a word, quotes removed) when it names a secret sent in a flow."""
    path = path.strip()
    if not path or path.endswith((".pub", "known_hosts")):
        return ""
    if _SECRET.search(path) or _FLOW_ONLY.search(path):
        return path
    browser = _BROWSER.search(path)
    if browser and _BROWSER_FILE.search(path, browser.end()):
        return path
    return ""


def _secret_read(text: str, start: int, end: int) -> re.Match[str] | tuple[int, str] | None:
    """The first credential store named in ``text[start:end]`` not used as an identity
    (``ssh -i KEY``): a match, or (offset, text) for a browser profile's file."""
    for match in _SECRET.finditer(text, start, end):
        if match.group().strip().lower() == ".env":
            continue
        if _IDENTITY.search(text, max(start, match.start() - 48), match.start()):
            continue
        return match
    browser = _BROWSER.search(text, start, end)
    if browser:
        found = _BROWSER_FILE.search(text, browser.end(), end)
        if found:
            return browser.start(), text[browser.start() : found.end()][:80]
    return None


# --- the rules ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of the command scan: its code (SP520 may report SP521), the markers one
    of which every line it reports holds, and how it is judged: ``parts``, regular
    expressions found one after the other on a logical line (``scope`` "line"), or in the
    file (``scope`` "file"; ``ordered`` False: anywhere in it); ``scope`` "shell": by the
    command parser (``needs``: characters one of which the line must hold)."""

    name: str
    code: str
    markers: tuple[str, ...]
    what: str
    parts: tuple[Lazy, ...] = ()
    scope: str = "line"
    ordered: bool = True
    needs: str = ""
    #: the last part must be on the line of the part before it
    tail_on_line: bool = False


def _ps(word: str) -> str:
    """A PowerShell word as a pattern that allows its backtick escapes (``i`ex``)."""
    return "`?".join(re.escape(c) for c in word)


_IEX = r"(?<![\w-])(?:" + _ps("iex") + "|" + _ps("invoke-expression") + r")\b"
_PS_FETCH_WORDS = (
    r"(?<![\w-])(?:" + "|".join(_ps(w) for w in ("iwr", "irm", "invoke-webrequest",
                                                 "invoke-restmethod", "curl", "wget"))
    + r")\b|new-object\s+(?:system\.)?net\.webclient\b"
)  # fmt: skip
_PS_FETCH = Lazy(_PS_FETCH_WORDS + r"|net\.webclient|\.downloadstring\s*\(|\.downloaddata\s*\(", _I)
_SH = r"[\"'](?:/bin/|/usr/bin/)?(?:ba|z|da|k)?sh\b"
_STDIN_BIND = r"(?<!\d)(?:0?<&|0>&|>&)\s*\d"


def _rx(pattern: str, flags: int = _I) -> Lazy:
    return Lazy(pattern, flags)


# Markers are chosen for the prefilter's cost too: each is found at its rarest character
# (:class:`~skillpack.scan.text.Markers`), so a word whose rarest letter is a common one
# ("bash", "stdin", "telnet") would make every file pay; the runners are found as what
# follows a pipe ("| sh", "|/bin/bash"), the credential rules by the secret they send.

_FETCH_MARKERS = ("curl", "wget", "iwr", "irm", "invoke-")
#: what a pipe into a runner or a network tool starts with (its fetch written with quotes
#: inside is still found by these: ``"cu"rl ... | sh``); spaced forms only for the common
#: ones (a spaced marker is looked for at every "|" once a file holds many places)
_PIPE_MARKERS = (
    *("|" + word for word in (
        "sh", "bash", "zsh", "ksh", "dash", "fish", "sudo", "doas", "env", "xargs", "/",
        "pwsh", "powershell", "python", "perl", "ruby", "node", "php", "iex",
        "invoke-expression", "source", ".", "telnet", "nc", "ncat", "netcat", "socat",
        "openssl", "curl", "wget", "ssh", "mail", "sendmail", "irm", "iwr", "invoke-")),
    *("| " + word for word in (
        "sh", "bash", "sudo", "env", "xargs", "/", "pwsh", "python", "perl", "node", "iex",
        "source", ".", "telnet", "nc", "openssl", "curl", "wget", "ssh", "invoke-")),
)  # fmt: skip
_SUBST_MARKERS = ("$(", "<(", "eval", "iex", "invoke-")
_DECODE_MARKERS = ("base64", "base32", "xxd", "uudecode")
_NET_MARKERS = (r"\bnc\b", "ncat", "netcat", "socat", "s_client")
_CODE_SINK = Lazy(
    r"\brequests\.(?:post|put|patch|get)\b|\burlopen\b|\bhttp\.client\b|\bhttpx\.|"
    r"\baiohttp\b|\bfetch\s*\(|\baxios\b|XMLHttpRequest|sendBeacon|\bsmtplib\b|"
    r"UploadString|UploadFile",
    _I,
)
#: the whole environment as code writes it (only sent out counts)
_ENV_DUMP = Lazy(
    r"/proc/(?:self|\d+)/environ|\bdict\(\s*os\.environ\s*\)|\bos\.environ\.copy\(\)"
    r"|\b(?:json\.dumps|str|repr)\(\s*(?:dict\()?os\.environ\b"
    r"|\{\s*\*\*\s*os\.environ\b|\bin\s+os\.environ\.items\(\)"
    r"|JSON\.stringify\(\s*(?:\{\s*\.\.\.\s*)?process\.env\b|\{\s*\.\.\.\s*process\.env\b"
    r"|\bGet-ChildItem\s+env:|\[Environment\]::GetEnvironmentVariables"
    r"|\b(?:data|json|params|body)\s*[=:]\s*(?:dict\()?(?:os\.environ|process\.env)\b(?![.\[])",
    _I,
)
_CREDENTIAL_MARKERS = (
    ".ssh", ".aws", "netrc", "git-credentials", ".docker", ".kube", "gcloud", "gnupg",
    "npmrc", "pypirc", "keychain", "-password", "logins.json", "key4.db", "cookies",
    "login data", "local state", "shadow", "hosts.yml", ".credentials.json",
    "auth.json", "oauth_creds", "google_accounts", "-token", "msal_token_cache",
    "service_principal",
)  # fmt: skip
#: what a flow of a secret to the network holds: a credential store, a whole credential
#: directory, a .env file, the environment (env, printenv, environ, process.env, env:,
#: export -p, set), a CLI's access token
_SECRET_MARKERS = (
    *_CREDENTIAL_MARKERS, "env", "export -p", ".azure", "gh auth", "export-credentials",
)  # fmt: skip
#: a secret that is a file (no environment dump): what exfil-file needs
_FILE_MARKERS = (*_CREDENTIAL_MARKERS, ".env", "environ", ".azure")

RULES: tuple[Rule, ...] = (
    # --- download and execute (SP520, SP521 for an installer) ---
    Rule("download-pipe", DOWNLOAD_EXEC, (*_FETCH_MARKERS, *_PIPE_MARKERS),
         "downloads a script and pipes it into a shell", scope="shell", needs="|"),
    Rule("download-substitution", DOWNLOAD_EXEC, (*_FETCH_MARKERS, *_SUBST_MARKERS),
         "runs a downloaded script", scope="shell", needs="(`"),
    Rule("download-then-run", DOWNLOAD_EXEC, _FETCH_MARKERS,
         "downloads a script and runs it", scope="shell", needs=";&|"),
    Rule("powershell-iex-download", DOWNLOAD_EXEC,
         ("iex", "invoke-expression"),
         "downloads a PowerShell script and runs it (iex)",
         (_rx(_IEX + r"\s*\(?\s*(?:\[[^\]\n]*+\]\s*)?\(?\s*(?:&\s*)?(?:\(\s*)?(?:"
              + _PS_FETCH_WORDS + r"|\$[\w.]+\.download(?:string|data)\s*\()"),)),
    Rule("powershell-scriptblock-download", DOWNLOAD_EXEC, ("scriptblock",),
         "downloads a PowerShell script and runs it ([scriptblock]::Create)",
         (_rx(r"\[scriptblock\]::create\s*\("), _PS_FETCH)),
    Rule("code-eval-download", DOWNLOAD_EXEC, ("exec", "eval"),
         "downloads code and evaluates it",
         (_rx(r"\b(?:exec|eval)\s*\(\s*(?:await\s+)?\(?\s*(?:await\s+)?(?:"
              r"urllib\.request\.urlopen|urlopen|requests\.get|fetch|[\w.]*\burlopen|"
              r"__import__\(\s*[\"']urllib[\w.]*[\"']\s*\)\.[\w.]*urlopen)\s*\("),)),
    # --- decode and execute (SP522) ---
    Rule("decode-pipe", DECODE_EXEC, (*_DECODE_MARKERS, *_PIPE_MARKERS),
         "decodes data and pipes it into a shell", scope="shell", needs="|"),
    Rule("decode-substitution", DECODE_EXEC, (*_DECODE_MARKERS, *_SUBST_MARKERS),
         "runs decoded data", scope="shell", needs="(`"),
    Rule("decode-then-run", DECODE_EXEC, _DECODE_MARKERS,
         "decodes data to a file and runs it", scope="shell", needs=";&|"),
    Rule("powershell-encoded", DECODE_EXEC, ("powershell", "pwsh"),
         "runs an encoded PowerShell command", scope="shell"),
    Rule("python-decode-exec", DECODE_EXEC, ("exec", "eval", "compile"),
         "executes decoded data",
         (_rx(r"\b(?:exec|eval|compile)\s*\(\s*(?:[\w.]+\.)?(?:b64decode|b32decode|"
              r"b85decode|a85decode|urlsafe_b64decode|decompress|unhexlify|fromhex|loads|"
              r"decodebytes)\s*\(|\b(?:exec|eval)\s*\(\s*(?:codecs\.decode|__import__\("
              r"\s*[\"'](?:base64|zlib|marshal|codecs|bz2|lzma)[\"']\s*\)|[\"']{2}\.join\s*\("
              r"\s*(?:map\s*\(\s*)?chr\b)"),)),
    Rule("js-decode-eval", DECODE_EXEC, ("eval", "function", "settimeout", "setinterval"),
         "evaluates decoded data (atob)",
         (_rx(r"\b(?:eval|(?:new\s+)?Function|setTimeout|setInterval)\s*\(\s*"
              r"(?:(?:window|globalThis)\.)?(?:atob|unescape|decodeURIComponent|"
              r"String\.fromCharCode)\s*\("),)),
    Rule("js-buffer-eval", DECODE_EXEC, ("eval", "function"),
         "evaluates decoded data (Buffer.from)",
         (_rx(r"\b(?:eval|(?:new\s+)?Function)\s*\(\s*Buffer\.from\("),
          _rx(r"[\"'](?:base64|hex)[\"']"))),
    Rule("php-decode-eval", DECODE_EXEC, ("eval", "assert("),
         "evaluates decoded data (PHP)",
         (_rx(r"\b(?:eval\s*|assert)\(\s*@?\s*(?:base64_decode|gzinflate|gzuncompress|"
              r"gzdecode|str_rot13|hex2bin|convert_uudecode|rawurldecode|urldecode|"
              r"(?:un)?pack)\s*\("),)),
    Rule("ruby-decode-eval", DECODE_EXEC, ("eval",),
         "evaluates decoded data (Ruby)",
         (_rx(r"\b(?:instance_|class_|module_)?eval\s*\(?\s*(?:::)?(?:Base64\.(?:strict_|"
              r"urlsafe_)?decode64|Zlib::Inflate\.inflate)\b"),)),
    Rule("perl-decode-eval", DECODE_EXEC, ("eval",),
         "evaluates decoded data (Perl)",
         (_rx(r"\beval\s*\(?\s*(?:(?:MIME::Base64::)?decode_base64|(?:un)?pack\s*\(?\s*"
              r"[\"'])"),)),
    Rule("powershell-iex-base64", DECODE_EXEC, ("frombase64string",),
         "runs decoded base64 (iex)", (_rx(_IEX), _rx(r"frombase64string"))),
    # --- reverse shells (SP523) and the raw network device (SP524) ---
    Rule("dev-tcp-interactive", REVERSE_SHELL, ("/dev/",),
         "wires an interactive shell to a network connection (/dev/tcp)",
         (_rx(r"\b(?:ba|z|k|da)?sh\s+(?:-\w+\s+)*-i\b"), _rx(r"/dev/(?:tcp|udp)/"))),
    Rule("dev-tcp-bound", REVERSE_SHELL, ("/dev/",),
         "wires a shell to a network connection (/dev/tcp)",
         (_rx(r"/dev/(?:tcp|udp)/"), _rx(_STDIN_BIND))),
    Rule("dev-tcp-descriptor", REVERSE_SHELL, ("/dev/",),
         "opens a network connection as a descriptor for a shell (/dev/tcp)",
         (_rx(r"\bexec\s+\d+<>\s*/dev/(?:tcp|udp)/"),)),
    Rule("dev-tcp", TCP_DEVICE, ("/dev/",),
         "opens a raw network connection (/dev/tcp)", (_rx(r"/dev/(?:tcp|udp)/"),)),
    Rule("nc-exec", REVERSE_SHELL, (r"\bnc\b", "ncat", "netcat"),
         "connects a shell to the network (nc -e)", scope="shell"),
    Rule("socat-exec", REVERSE_SHELL, ("socat",),
         "connects a shell to the network (socat)", scope="shell"),
    Rule("shell-network-pipe", REVERSE_SHELL, (*_NET_MARKERS, *_PIPE_MARKERS),
         "wires a shell to a network connection", scope="shell", needs="|"),
    Rule("python-dup2", REVERSE_SHELL, ("dup2",),
         "duplicates a socket onto standard input and output (a reverse shell)",
         (_rx(r"\bdup2\s*\(\s*[\w.]+\.fileno\s*\(\s*\)"),)),
    Rule("python-popen-socket", REVERSE_SHELL, ("fileno",),
         "runs a shell on a socket (a reverse shell)",
         (_rx(r"\b(?:Popen|call|run)\s*\(\s*\[?\s*" + _SH),
          _rx(r"\bstdin\s*=\s*[\w.]+\.fileno\s*\("))),
    Rule("python-socket-shell", REVERSE_SHELL, ("pty.", "popen", "call(", "run("),
         "runs a shell on a socket it connected (a reverse shell)",
         (_rx(r"\.connect\s*\(\s*\(|\bcreate_connection\s*\("),
          _rx(r"\bpty\.spawn\s*\(\s*\[?\s*" + _SH + r"|(?:\bPopen\s*|\b(?:call|run|check_call))\("
              r"\s*\[?\s*" + _SH + r"[^\n]*?\bstdin\s*=\s*(?!subprocess\b|PIPE\b|DEVNULL\b|"
              r"None\b|sys\.|open\b|f\b)\w")),
         scope="file"),
    Rule("perl-socket-shell", REVERSE_SHELL, ("use socket", "io::socket"),
         "connects a shell to the network (Perl)",
         (_rx(r"\buse\s+Socket\b|\bIO::Socket"), _rx(r"\b(?:exec|system)\b"),
          _rx(r"[\"'](?:/bin/)?(?:ba|z|da)?sh\b")),
         scope="file", tail_on_line=True),
    Rule("php-socket-shell", REVERSE_SHELL, ("fsockopen",),
         "connects a shell to the network (PHP)",
         (_rx(r"\bfsockopen\s*\("),
          _rx(r"\b(?:exec|shell_exec|system|passthru|proc_open|popen)\s*\("),
          _rx(r"[\"'](?:/bin/)?(?:ba|z|da)?sh\b|cmd\.exe")),
         scope="file", tail_on_line=True),
    Rule("ruby-socket-shell", REVERSE_SHELL, ("tcpsocket",),
         "connects a shell to the network (Ruby)",
         (_rx(r"\bTCPSocket\.(?:new|open)\s*\("), _rx(r"\b(?:exec|spawn|system|IO\.popen)\b"),
          _rx(r"[\"'](?:/bin/)?(?:ba|z|da)?sh\b")),
         scope="file", tail_on_line=True),
    Rule("node-socket-shell", REVERSE_SHELL, ("spawn(", "exec"),
         "pipes a socket into a shell (Node.js)",
         (_rx(r"\bnet\.(?:Socket|connect|createConnection)\s*\("),
          _rx(r"\b(?:spawn\(|(?:exec|execFile)\s*\()\s*[\"'](?:(?:/bin/|/usr/bin/)?(?:ba|z|da)?sh"
              r"|cmd(?:\.exe)?|powershell(?:\.exe)?)[\"']"),
          _rx(r"\.pipe\s*\(")),
         scope="file", ordered=False),
    Rule("go-socket-shell", REVERSE_SHELL, ("exec.command",),
         "runs a shell on a network connection (Go)",
         (_rx(r"\bnet\.Dial(?:Timeout)?\s*\("),
          _rx(r"\bexec\.Command\s*\(\s*\"(?:(?:/bin/|/usr/bin/)?(?:ba|z|da)?sh|cmd(?:\.exe)?)\""),
          _rx(r"\.Std(?:in|out|err)\s*(?:,\s*\w+\.Std(?:in|out|err)\s*)*=")),
         scope="file", ordered=False),
    Rule("powershell-tcpclient", REVERSE_SHELL, ("tcpclient",),
         "connects PowerShell to the network",
         (_rx(r"Net\.Sockets\.TCPClient\s*\("), _rx(r"GetStream|" + _IEX))),
    Rule("awk-inet", REVERSE_SHELL, ("|&", "system("),
         "runs commands from a network connection (awk /inet/tcp)",
         (_rx(r"/inet/(?:tcp|udp)/"), _rx(r"\|&\s*getline|\bsystem\("))),
    Rule("zsh-ztcp", REVERSE_SHELL, ("ztcp",),
         "wires a shell to a network connection (zsh ztcp)",
         (_rx(r"\bztcp\b"), _rx(r">&\s*\$REPLY"))),
    # --- credentials and the environment sent out (SP525), read (SP526) ---
    Rule("exfil-pipe", CREDENTIAL_EXFIL, (*_SECRET_MARKERS, *_PIPE_MARKERS),
         "pipes {secret} into a network tool", scope="shell", needs="|"),
    Rule("exfil-file", CREDENTIAL_EXFIL, _FILE_MARKERS,
         "sends {secret} over the network", scope="shell"),
    Rule("exfil-substitution", CREDENTIAL_EXFIL, _SECRET_MARKERS,
         "puts {secret} into a network request", scope="shell", needs="(`"),
    Rule("exfil-tempfile", CREDENTIAL_EXFIL, _SECRET_MARKERS,
         "writes {secret} to a file and sends it over the network", scope="shell",
         needs=";&|"),
    Rule("code-exfil", CREDENTIAL_EXFIL, (*_CREDENTIAL_MARKERS, "env"),
         "sends {secret} over the network", (_CODE_SINK,), ordered=False),
    Rule("credential-read", CREDENTIAL_READ, _CREDENTIAL_MARKERS, "reads a credential store"),
    # --- Claude Code's load-time shell (SP527) ---
    Rule("load-time-inline", LOAD_TIME_SHELL, ("!`",), "",
         (_rx(r"(?<![\w!\\`])!`(?P<cmd>[^`\n]+)`", 0),)),
    Rule("load-time-block", LOAD_TIME_SHELL, ("```!",), "", scope="file"),
)  # fmt: skip
_BY_NAME = {rule.name: rule for rule in RULES}

#: every marker of the rules
MARKERS: tuple[str, ...] = tuple(dict.fromkeys(m for rule in RULES for m in rule.markers))
#: the same but the load-time shell's, which only Markdown has
SCRIPT_MARKERS: tuple[str, ...] = tuple(m for m in MARKERS if m not in ("!`", "```!"))

# --- logical lines -------------------------------------------------------------------


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


def _logical(text: str, start: int, end: int, markdown: bool) -> tuple[int, int]:
    """The logical line holding the physical line ``text[start:end]``."""
    while start > 0 and _continues(text, start - 1, markdown):
        start = text.rfind("\n", 0, start - 1) + 1
    size = len(text)
    while end < size and _continues(text, end, markdown):
        following = text.find("\n", end + 1)
        end = size if following < 0 else following
    return start, end


def _joined(text: str, start: int, end: int, markdown: bool) -> str:
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


# --- the scan ----------------------------------------------------------------------


@dataclass(slots=True)
class _Found:
    at: int  #: offset in the logical line
    rule: str
    message: str = ""
    urls: tuple[int, int] = (0, 0)  #: where the fetch's URLs are (download rules)


def _what(secret: str) -> str:
    return secret if secret.startswith("the ") else repr(secret)


def _judge_shell(parsed: _Line, rules: Collection[str]) -> Iterator[_Found]:
    """The findings of the shell rules in ``rules`` on one parsed logical line (the
    caller may take a rule out of ``rules`` once it has its finding: it is looked at
    again at each step)."""
    line = parsed.line
    markdown = parsed.markdown
    then_run = "download-then-run" in rules or "decode-then-run" in rules
    # children first: a frame's roles are known before its host's frame is judged
    for frame in reversed(parsed.frames):
        fetch: _Cmd | None = None
        decode: _Cmd | None = None
        network: _Cmd | None = None
        shell: _Cmd | None = None
        reader: tuple[_Cmd, str] | None = None
        fetched: list[_Cmd] = []  #: the fetches of the frame so far
        outputs: dict[str, _Cmd] = {}  #: the files they write (filled when asked)
        pending = 0  #: fetched[pending:] not yet in outputs
        tainted: dict[str, str] = {}  #: files a secret was written to
        decoded: set[str] = set()  #: files decoded data was written to
        for cmd in frame.cmds:
            head = parsed.head(cmd)
            name = head.name if head else ""
            kind = _KIND.get(name, 0)
            if head is not None and head.raw[0] == "$":
                kind |= _K_FETCH
            roles = 0
            for child in cmd.children:
                if child.kind != "`" or not markdown:
                    roles |= child.roles
            if kind & _K_FETCH and parsed.fetches(cmd):
                roles |= _ROLE_FETCH
            if kind & _K_DECODE and parsed.decodes(cmd):
                roles |= _ROLE_DECODE
            secret = ""
            if kind & _K_READ or line.find("<", cmd.start, cmd.end) >= 0:
                secret = parsed.reads_secret(cmd)
                roles |= _ROLE_READ if secret else 0
            frame.roles |= roles
            # what flows into this command from the earlier ones of its pipeline
            if kind & _K_RUN and (fetch or decode or network) and parsed.runs_stdin(cmd):
                if fetch is not None and "download-pipe" in rules:
                    yield _Found(_at(parsed, fetch), "download-pipe", "", (fetch.start, fetch.end))
                if decode is not None and "decode-pipe" in rules:
                    yield _Found(_at(parsed, decode), "decode-pipe")
                if network is not None and kind & _K_SHELL and "shell-network-pipe" in rules:
                    yield _Found(_at(parsed, network), "shell-network-pipe",
                                 "runs commands it reads from a network connection")  # fmt: skip
            if (
                shell is not None
                and kind & _K_NET
                and "shell-network-pipe" in rules
                and parsed.sends_stdin(cmd)
            ):
                yield _Found(_at(parsed, shell), "shell-network-pipe",
                                 "sends a shell's input and output over the network")  # fmt: skip
            if (
                reader is not None
                and kind & _K_SINK
                and "exfil-pipe" in rules
                and parsed.sends_stdin(cmd)
            ):
                yield _Found(_at(parsed, reader[0]), "exfil-pipe", _what(reader[1]))
            # the command itself
            if head is not None and kind & _K_SELF:
                yield from _judge_command(parsed, cmd, head, rules, tainted)
            for child in cmd.children:
                yield from _judge_substitution(parsed, cmd, head, child, rules)
            # what a later command of the line may use
            runs_file = head is not None and (kind & _K_RUN or "/" in head.raw or "\\" in head.raw)
            if then_run and (fetched or decoded) and runs_file:
                ran = _ran_file(parsed, cmd)
                if ran and fetched and "download-then-run" in rules:
                    for earlier in fetched[pending:]:
                        for path in _outputs(parsed, earlier):
                            outputs.setdefault(path, earlier)
                    pending = len(fetched)
                    source = outputs.get(ran) or outputs.get(ran.rsplit("/", 1)[-1])
                    if source is not None and source is not cmd:
                        yield _Found(_at(parsed, source), "download-then-run", "",
                                     (source.start, source.end))  # fmt: skip
                if (
                    ran
                    and (ran in decoded or ran.rsplit("/", 1)[-1] in decoded)
                    and "decode-then-run" in rules
                ):
                    yield _Found(_at(parsed, cmd), "decode-then-run")
            if (
                (roles & _ROLE_DECODE or decode is not None)
                and then_run
                and line.find(">", cmd.start, cmd.end) >= 0
            ):
                redirects = parsed.args(cmd)[1]
                decoded.update(_path(_plain(t)) for op, t in redirects if op.endswith(">"))
            if roles & _ROLE_FETCH:
                fetched.append(cmd)
            if secret and cmd.sep not in ("|", "|&"):
                for path in _written(parsed, cmd):
                    tainted[path] = secret
            # the pipeline goes on, or a new one starts
            if cmd.sep in ("|", "|&"):
                if roles:
                    fetch = cmd if roles & _ROLE_FETCH else fetch
                    decode = cmd if roles & _ROLE_DECODE else decode
                if kind & _K_NET and parsed.sends_stdin(cmd):
                    network = cmd
                if kind & _K_SHELL and parsed.runs_stdin(cmd):
                    shell = cmd
                token = secret or (parsed.prints_token(cmd) if kind & _K_TOKEN else "")
                if token:
                    reader = (cmd, token)
            elif fetch or decode or network or shell or reader:
                fetch = decode = network = shell = None
                reader = None


def _judge_command(
    parsed: _Line, cmd: _Cmd, head: _Head, rules: Collection[str], tainted: dict[str, str]
) -> Iterator[_Found]:
    """What one command does by itself: nc -e, socat exec:, powershell -enc, a secret
    (or a file a secret was written to) sent as a file."""
    name = head.name
    line = parsed.line
    if name in _SINKS and ("exfil-file" in rules or "exfil-tempfile" in rules):
        for _, path in parsed.sent_files(cmd):
            plain = _plain(path)
            if plain in tainted:
                if "exfil-tempfile" in rules:
                    yield _Found(head.at, "exfil-tempfile", _what(tainted[plain]))
            elif plain != "-" and "exfil-file" in rules:
                found = _flow_secret(plain)
                if found:
                    yield _Found(head.at, "exfil-file", _what(found))
    for rule, names, pattern in _SELF_RULES:
        if name in names and rule in rules and pattern.search(line, head.after, cmd.end):
            yield _Found(head.at, rule)


def _at(parsed: _Line, cmd: _Cmd) -> int:
    head = parsed.head(cmd)
    return head.at if head else cmd.start


_PWSH_ENCODED = Lazy(
    r"(?:^|\s)[-/](?:e|ec|en|enc|enco|encod|encode|encoded|encodedc\w*)\s+[\"']?"
    r"[A-Za-z0-9+/=]{16,}",
    _I,
)
_NC_EXEC = Lazy(
    r"(?:^|\s)(?:-[a-z]*[ec]|--exec|--sh-exec|--lua-exec)\s*[\"']?(?:\S*/)?(?:(?:ba|z|k|da)?sh|"
    r"cmd(?:\.exe)?|powershell(?:\.exe)?|pwsh)\b",
    _I,
)
_SOCAT_EXEC = Lazy(r"\b(?:exec|system):[\"']?(?:\S*/)?(?:(?:ba|z)?sh|cmd|powershell)\b", _I)
#: a command that is an attack by its own options: (rule, its names, the options)
_SELF_RULES = (
    ("powershell-encoded", _PWSH, _PWSH_ENCODED),
    ("nc-exec", frozenset({"nc", "ncat", "netcat"}), _NC_EXEC),
    ("socat-exec", frozenset({"socat"}), _SOCAT_EXEC),
)
#: a code option before a substitution: sh -c "$(...)", python -c, perl -e, pwsh -Command
_CODE_FLAG = Lazy(r"^-(?:[a-z]*c|e|r|-?command|-eval)$", _I)


def _judge_substitution(
    parsed: _Line, cmd: _Cmd, head: _Head | None, child: _Frame, rules: Collection[str]
) -> Iterator[_Found]:
    """A group or substitution whose output is run, or sent: ``bash -c "$(curl ...)"``,
    ``sh <(curl ...)``, ``eval "$(... | base64 -d)"``, ``iex (iwr ...)``,
    ``curl -d "$(cat ~/.ssh/id_rsa)"``. A command made of a substitution alone runs its
    output too, but is no finding: the same line is a heredoc's text (a report
    template's ``$(curl ...)``) as often."""
    kind = child.kind
    roles = child.roles
    if not roles or (kind == "`" and parsed.markdown):
        return
    opener = child.start - len(kind)
    runs = False
    before = head is not None and head.at < opener
    if head is None or not before:
        pass
    elif head.name == "eval":
        runs = kind in ("$(", "`")
    elif head.name in _PS_RUN:
        runs = kind in ("(", "$(")
    elif head.name in _SHELLS | _INTERPS | _PWSH | _SOURCE and child is cmd.children[0]:
        words = []
        for at, word in parsed.words(cmd, head.after):
            if at >= opener:
                break
            plain = _plain(word)
            if plain.strip("\"'"):
                words.append(plain)
        if kind == "<(":
            runs = all(w.startswith("-") for w in words)
        elif kind in ("$(", "`"):
            runs = bool(words) and all(w.startswith("-") for w in words)
            runs = runs and bool(_CODE_FLAG.search(words[-1]))
    at = head.at if head is not None and before else opener
    if runs and roles & _ROLE_FETCH and "download-substitution" in rules:
        yield _Found(at, "download-substitution", "", (child.start, child.end))
    if runs and roles & _ROLE_DECODE and "decode-substitution" in rules:
        yield _Found(at, "decode-substitution")
    if (
        roles & _ROLE_READ
        and kind in ("$(", "`")
        and head is not None
        and before
        and head.name in _ARGUMENT_SINKS
        and "exfil-substitution" in rules
    ):
        yield _Found(head.at, "exfil-substitution", _what(_child_secret(parsed, child)))


def _child_secret(parsed: _Line, frame: _Frame) -> str:
    for cmd in frame.cmds:
        found = parsed.reads_secret(cmd)
        if found:
            return found
        for child in cmd.children:
            found = _child_secret(parsed, child)
            if found != "a secret":
                return found
    return "a secret"


def _written(parsed: _Line, cmd: _Cmd) -> list[str]:
    """The files a command that reads a secret writes it to: its output redirection,
    tar's -f, zip's archive."""
    head = parsed.head(cmd)
    args, redirects = parsed.args(cmd)
    paths = [_plain(t) for op, t in redirects if op.endswith(">")]
    plain = [_plain(a) for a in args]
    name = head.name if head is not None else ""
    if name == "tar":
        for index, word in enumerate(plain[:-1]):
            if word.endswith("f") and (word.startswith("-") or index == 0):
                paths.append(plain[index + 1])
    elif name == "zip":
        files = [w for w in plain if not w.startswith("-")]
        if files:
            paths.append(files[0])
    return paths


def _ran_file(parsed: _Line, cmd: _Cmd) -> str:
    """The file a command runs: ``sh x.sh``, ``. ./x``, ``./x``, ``.\\x.ps1``."""
    head = parsed.head(cmd)
    if head is None:
        return ""
    if head.name in _SHELLS | _INTERPS | _PWSH | _SOURCE:
        for word in parsed.args(cmd)[0]:
            plain = _plain(word)
            if plain.startswith("-"):
                if plain.lstrip("-").lower() in ("c", "command", "e"):
                    return ""
                continue
            return _path(plain)
        return ""
    raw = head.raw.replace("\\", "/")
    return _path(_plain(raw)) if "/" in raw else ""


def _path(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _outputs(parsed: _Line, cmd: _Cmd) -> set[str]:
    """The files a fetch writes: -o/-O FILE, --output(-document), -OutFile, > FILE, and
    the URL's last part for ``curl -O`` and ``wget`` without -O."""
    head = parsed.head(cmd)
    name = head.name if head is not None else ""
    args, redirects = parsed.args(cmd)
    plain = [_plain(a) for a in args]
    found = {_path(_plain(t)) for op, t in redirects if op.endswith(">")}
    named = False
    for index, word in enumerate(plain):
        value = plain[index + 1] if index + 1 < len(plain) else ""
        lower = word.lower()
        if (
            (name == "curl" and word in ("-o", "--output"))
            or (name == "wget" and word in ("-O", "--output-document"))
            or lower == "-outfile"
        ):
            found.add(_path(value))
            named = True
        elif lower.startswith(("--output-document=", "--output=")):
            found.add(_path(word.split("=", 1)[1]))
            named = True
        elif name in ("curl", "wget") and word[:1] == "-" and word[1:2] != "-":
            flag = word.find("o" if name == "curl" else "O")
            if flag > 0:  # a cluster: -so FILE, -qO- , -sSLo FILE
                found.add(_path(word[flag + 1 :] or value))
                named = True
    if (name == "wget" and not named) or (
        name == "curl" and any(w in ("-O", "--remote-name") for w in plain)
    ):
        for _, _, path in _URL.findall(parsed.line[cmd.start : cmd.end]):
            last = path.split("?", 1)[0].rsplit("/", 1)[-1]
            if last:
                found.add(last)
    found.discard("")
    found.discard("-")
    return found


def _load_time(command: str) -> tuple[int, str] | None:
    """Where Claude Code's load-time shell command (``!`command``` or a ````!`` block,
    run when the skill is loaded, before the model or the user sees its output) is
    dangerous, and why; None when it is harmless."""
    match = _LOAD_NETWORK.search(command)
    if match:
        return match.start(), "fetches from the network when the skill loads"
    match = _LOAD_PACKAGE.search(command)
    if match:
        runner = match.group().split()[0]
        return match.start(), f"downloads and runs a package ({runner}) when the skill loads"
    match = _LOAD_PIPE.search(command)
    if match:
        return match.start(), "pipes into a shell when the skill loads"
    return None


_SUDO = r"(?:sudo\s+(?:-\S+\s+)*)?"
_LOAD_NETWORK = Lazy(
    r"(?<![\w./~-])(?:curl|wget|nc|ncat|netcat|iwr|irm|invoke-webrequest|invoke-restmethod|"
    r"ssh|scp|telnet|ftp)\b|https?://|\bfetch\s*\(",
    _I,
)
_LOAD_PACKAGE = Lazy(
    r"\b(?:npx|bunx|pnpx|uvx)\b|\b(?:pnpm|yarn|bun)\s+dlx\b|\bpipx\s+run\b|"
    r"\b(?:pip3?|uv\s+pip|python3?\s+-m\s+pip)\s+install\b|\bnpm\s+(?:install|i|add|exec|x)\b|"
    r"\b(?:gem|cargo)\s+install\b|\bgo\s+(?:install|run)\s+\S*@|"
    r"\buv\s+(?:tool\s+(?:run|install)|run\s+--with)\b",
    _I,
)
_LOAD_PIPE = Lazy(
    r"\|\s*" + _SUDO + r"(?:\S*/)?(?:(?:ba|z|k|da|fi|a)?sh\b|(?:python[0-9.]*|perl|ruby|node|php)"
    r"\s*-?\s*(?=$|[;&|)\n'\"`])|iex\b)",
    _I,
)
_BLOCK_OPEN = Lazy(r"^[ \t]*```!", re.MULTILINE)
_BLOCK_CLOSE = Lazy(r"^[ \t]*```[ \t]*\r?$", re.MULTILINE)


def _load_time_blocks(text: str) -> Iterator[tuple[int, str]]:
    """The ````!`` blocks Claude Code runs when the skill loads, judged like
    ``!`command```."""
    pos = 0
    while True:
        opening = _BLOCK_OPEN.search(text, pos)
        if opening is None:
            return
        body = text.find("\n", opening.end())
        if body < 0:
            return
        closing = _BLOCK_CLOSE.search(text, body + 1)
        end = closing.start() if closing else len(text)
        found = _load_time(text[body + 1 : end])
        if found:
            yield body + 1 + found[0], f"a load-time shell block (```!) {found[1]}"
        pos = closing.end() if closing else len(text)


def _sequence(rule: Rule, text: str, start: int, end: int) -> tuple[int, int]:
    """Where ``rule``'s parts are found in ``text[start:end]``, one after the other (or
    anywhere, for an unordered rule): the offsets of its first and last parts; (-1, -1)
    when they are not. Each part is searched for once from where the one before it
    ends (the last part of a ``tail_on_line`` rule once per line): linear time."""
    parts = rule.parts
    if not rule.ordered:
        offsets = []
        for part in parts:
            match = part.search(text, start, end)
            if match is None:
                return -1, -1
            offsets.append(match.start())
        return offsets[0], offsets[-1]
    match = parts[0].search(text, start, end)
    if match is None:
        return -1, -1
    first = match.start()
    last = len(parts) - 1
    for index in range(1, last):
        match = parts[index].search(text, match.end(), end)
        if match is None:
            return -1, -1
    if not rule.tail_on_line:
        tail = parts[last].search(text, match.end(), end) if last else match
        return (first, tail.start()) if tail is not None else (-1, -1)
    while True:
        line_end = text.find("\n", match.end(), end)
        line_end = end if line_end < 0 else line_end
        tail = parts[last].search(text, match.end(), line_end)
        if tail is not None:
            return first, tail.start()
        if line_end >= end:
            return -1, -1
        match = parts[last - 1].search(text, line_end + 1, end)
        if match is None:
            return -1, -1
        first = match.start() if last == 1 else first


#: the rules each marker sends a line (or a file) to
_BY_MARKER: dict[str, tuple[Rule, ...]] = {
    marker: tuple(r for r in RULES if marker in r.markers) for marker in MARKERS
}


def find_commands(
    text: str, lowered: str, markdown: bool, present: Collection[str]
) -> Iterator[tuple[int, str, str, str]]:
    """(offset, code, severity, message) of each dangerous command in ``text``
    (``lowered``: :func:`~skillpack.scan.text.ascii_lower` of it; ``present``: the
    markers of :data:`MARKERS` it holds, or of :data:`SCRIPT_MARKERS` for a script), at
    most one per code and line."""
    raw: list[tuple[int, str, str]] = []  # (offset, code, message)
    rules_on: dict[tuple[int, int], set[str]] = {}  # logical line -> rule names
    files: set[str] = set()
    marked: list[tuple[int, int, tuple[Rule, ...]]] = []
    for marker in present:
        rules = _BY_MARKER.get(marker)
        if not rules:
            continue
        files.update(r.name for r in rules if r.scope == "file")
        on_lines = tuple(r for r in rules if r.scope != "file")
        if on_lines:
            marked.extend((s, e, on_lines) for s, e in marked_lines(lowered, (marker,)))
    # physical lines in order, each logical line found once (linear: logical lines are
    # disjoint, and a line is looked at by at most one extension each way)
    marked.sort(key=lambda m: m[0])
    span = (-1, -1)
    for start, end, on_lines in marked:
        if start > span[1]:
            span = _logical(text, start, end, markdown)
        rules_on.setdefault(span, set()).update(r.name for r in on_lines)
    if not rules_on and not files:
        return
    code_map: CodeMap | None = None

    def download(at: int, urls: str) -> tuple[str, str]:
        """SP520, or SP521 with what the message adds."""
        nonlocal code_map
        if code_map is None:
            code_map = CodeMap(text if markdown else "")
        code = _fetch_severity(urls, code_map.in_code(at), markdown)
        return code, " (an installer from a named HTTPS host)" if code == INSTALLER_PIPE else ""

    spans = sorted(rules_on)
    for start, end in spans:
        names = rules_on[(start, end)]
        line = _joined(text, start, end, markdown)
        seen: set[str] = set()
        shell = {n for n in names if _BY_NAME[n].scope == "shell"}
        if shell and any(
            not _BY_NAME[n].needs or any(c in line for c in _BY_NAME[n].needs) for n in shell
        ):
            for found in _judge_shell(_Line(line, markdown), shell):
                rule = _BY_NAME[found.rule]
                code, extra = rule.code, ""
                if code == DOWNLOAD_EXEC:
                    if DOWNLOAD_EXEC in seen and INSTALLER_PIPE in seen:
                        continue
                    urls = line[found.urls[0] : found.urls[1]] if found.urls[1] else line
                    code, extra = download(start + found.at, urls)
                if code in seen:
                    continue  # one finding per code and line
                seen.add(code)
                if rule.code != DOWNLOAD_EXEC or (INSTALLER_PIPE in seen and DOWNLOAD_EXEC in seen):
                    shell.discard(rule.name)
                if "{" in rule.what:
                    message = rule.what.format(secret=found.message)
                else:
                    message = found.message or rule.what
                raw.append((start + found.at, code, message + extra))
        for name in names:
            if _BY_NAME[name].scope == "shell":
                continue
            for at, code, message in _line_rule(_BY_NAME[name], line, markdown):
                if code == DOWNLOAD_EXEC:
                    code, extra = download(start + at, line[at:])
                    message += extra
                raw.append((start + at, code, message))
    for name in files:
        rule = _BY_NAME[name]
        if rule.name == "load-time-block":
            if markdown:
                raw.extend((at, rule.code, msg) for at, msg in _load_time_blocks(text))
            continue
        first, last = _sequence(rule, text, 0, len(text))
        if first >= 0:
            raw.append((last, rule.code, rule.what))
    yield from _report(text, raw, spans, markdown)


def _line_rule(rule: Rule, line: str, markdown: bool) -> Iterator[tuple[int, str, str]]:
    """(offset, code, message) of one regular-expression rule on one logical line."""
    if rule.name == "load-time-inline":
        if markdown:
            for match in rule.parts[0].finditer(line):
                found = _load_time(match.group("cmd"))
                if found:
                    yield match.start(), rule.code, f"a load-time shell command (!`...`) {found[1]}"
        return
    if rule.name == "credential-read":
        read = _secret_read(line, 0, len(line))
        if read is not None:
            at, what = (read.start(), read.group()) if isinstance(read, re.Match) else read
            yield at, rule.code, f"reads a credential store: {what.strip()!r}"
        return
    if rule.name == "code-exfil":
        if _CODE_SINK.search(line) is None:
            return
        for secret in _SECRET.finditer(line):
            if secret.group().strip().lower() != ".env":
                yield (
                    secret.start(),
                    rule.code,
                    rule.what.format(secret=repr(secret.group().strip())),
                )
                return
        dump = _ENV_DUMP.search(line)
        if dump is not None:
            what = "the whole environment (its secrets too)"
            yield dump.start(), rule.code, rule.what.format(secret=what)
        return
    first, _ = _sequence(rule, line, 0, len(line))
    if first >= 0:
        yield first, rule.code, rule.what


def _report(
    text: str, raw: list[tuple[int, str, str]], spans: list[tuple[int, int]], markdown: bool
) -> Iterator[tuple[int, str, str, str]]:
    """At most one finding per code and logical line; a /dev/tcp device on a reverse
    shell's line, and a credential read on the line of its exfiltration, are not
    reported."""
    starts = [s for s, _ in spans]

    def line_of(offset: int) -> tuple[int, int]:
        index = bisect_right(starts, offset) - 1
        if index >= 0 and offset <= spans[index][1]:
            return spans[index]
        start = text.rfind("\n", 0, offset) + 1
        end = text.find("\n", offset)
        return start, len(text) if end < 0 else end

    located = [(offset, code, message, line_of(offset)) for offset, code, message in raw]
    covered = {(code, span) for _, code, _, span in located}
    reported: set[tuple[str, tuple[int, int]]] = set()
    for offset, code, message, span in sorted(located):
        if (code, span) in reported:
            continue
        if code == TCP_DEVICE and (REVERSE_SHELL, span) in covered:
            continue
        if code == CREDENTIAL_READ and (CREDENTIAL_EXFIL, span) in covered:
            continue
        reported.add((code, span))
        line = _joined(text, span[0], span[1], markdown)
        yield offset, code, SEVERITY[code], f"{message}: {_excerpt(line)}"


def _excerpt(line: str, limit: int = 120) -> str:
    line = line.strip()
    return repr(line if len(line) <= limit else line[:limit] + "...")


def _kinds() -> dict[str, int]:
    kinds: dict[str, int] = {}
    for names, bit in (
        (_FETCHERS | {"new-object"}, _K_FETCH), (_DECODERS, _K_DECODE), (_READERS, _K_READ),
        (_RUNNERS, _K_RUN), (_SHELLS | _INTERPS | _PWSH, _K_SHELL),
        (_NETWORK | {"openssl"}, _K_NET), (_SINKS, _K_SINK),
        (_SINKS | _PWSH | {"nc", "ncat", "netcat", "socat"}, _K_SELF),
        (frozenset(_TOKEN_PRINTERS), _K_TOKEN),
    ):  # fmt: skip
        for name in names:
            kinds[name] = kinds.get(name, 0) | bit
    return kinds


#: what each command name may do (a bit per role)
_KIND = _kinds()
#: names that start a command wherever they stand after an unknown word (not English
#: words: "more", "set", "type", "then" are no command in "Read more | ...")
_STRONG = (
    _FETCHERS | _RUNNERS | _NETWORK | _SINKS | _PWSH | _SHELLS
    | {"base64", "base32", "basenc", "xxd", "uudecode", "env", "printenv", "cat", "tar", "zip",
       "security", "sudo", "doas", "xargs", "busybox", "new-object", "gh", "gcloud", "az"}
) - {"source", ".", "eval", "fetch", "http", "https", "host", "mail"}  # fmt: skip


def rule_findings(name: str, text: str, markdown: bool) -> list[tuple[int, tuple[int, int]]]:
    """Where the rule ``name`` alone finds something in ``text``, read on every logical
    line whatever markers it holds: (offset, the logical line's span), or the whole
    text's span for a file-wide rule. For tests: the markers of the rule must be on
    each of these lines (the scan runs a rule only where they are)."""
    rule = _BY_NAME[name]
    whole = (0, len(text))
    if rule.scope == "file":
        if name == "load-time-block":
            return [(at, whole) for at, _ in _load_time_blocks(text)] if markdown else []
        first, last = _sequence(rule, text, 0, len(text))
        return [(last, whole)] if first >= 0 else []
    found: list[tuple[int, tuple[int, int]]] = []
    size = len(text)
    pos = 0
    span = (-1, -1)
    while pos <= size:
        end = text.find("\n", pos)
        end = size if end < 0 else end
        if pos > span[1]:
            span = _logical(text, pos, end, markdown)
            line = _joined(text, span[0], span[1], markdown)
            if rule.scope == "shell":
                ats = [f.at for f in _judge_shell(_Line(line, markdown), {name})]
            else:
                ats = [at for at, _, _ in _line_rule(rule, line, markdown)]
            found.extend((span[0] + at, span) for at in ats)
        pos = end + 1
    return found
