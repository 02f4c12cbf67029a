"""What one command of a parsed line does: runs its standard input as code, fetches,
decodes, reads a secret, prints a token, sends its input or files over the network; the
files it writes, runs, or fetches to. Each is read from the command's name
(:mod:`skillpack.scan.programs`) and its own words (:class:`~skillpack.scan.shell.ShellLine`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from skillpack.scan.hosts import URL
from skillpack.scan.programs import (
    DECODERS,
    FETCHERS,
    INTERPS,
    PS_RUN,
    READERS,
    RUNNERS,
    SCRIPT_RUNNERS,
    SHELLS,
    SINKS,
    SOURCE,
    TOKEN_PRINTERS,
)
from skillpack.scan.secrets import KEYCHAIN_READS, flow_secret
from skillpack.scan.shell import Command, Head, ShellLine, unquote
from skillpack.scan.text import Lazy

_I = re.IGNORECASE

#: a word of prose, not a script's path (in Markdown, "curl ... | sh to finish")
_PROSE_WORD = re.compile(r"[A-Za-z]+[.,;:!?]?")
#: what a fetch tool needs to send a file (curl's @file, -T; wget's --post-file, -InFile)
_SENDS_FILE = Lazy(r"@|-T|--upload-file|--post-file|--body-file|-infile", _I)
_ESCAPES = Lazy(r"\\(?:x[0-9a-f]{2}|[0-7]{3}|u[0-9a-f]{4})", _I)
_ROT_RANGE = Lazy(r"[a-z]-[a-z]", _I)
_CURL_DATA = ("--data-binary", "--data-urlencode", "--data-ascii", "--data", "--json", "-d")
_CURL_FORM = ("--form", "-F")
_CURL_UPLOAD = ("--upload-file", "-T")
_COPY_VALUES = frozenset({"-i", "-P", "-p", "-o", "-F", "-c", "-l", "-S", "-e", "-J", "--rsh",
                          "-b"})  # fmt: skip
_REMOTE = re.compile(r"(?:[\w.-]+@)?[\w.-]+:(?!//)")
#: neither blank nor a quote: something follows a command's name
_NONBLANK = re.compile(r"[^\s\"'`]")
#: a letter or a digit: a word that is more than the end of a string (' }], ");)
_ALNUM = re.compile(r"[^\W_]")
#: PowerShell's web client (New-Object Net.WebClient ... DownloadString)
_PS_WEBCLIENT = Lazy(r"net\.webclient|downloadstring|downloaddata|downloadfile", _I)


def runs_stdin(parsed: ShellLine, cmd: Command) -> bool:
    """Whether the command runs what it reads on its standard input as code: a shell
    or an interpreter without a script, ``iex``, ``source /dev/stdin``, ``xargs sh
    -c``."""
    head = parsed.head(cmd)
    if head is None or head.name not in RUNNERS or head.name == "eval":
        return False
    name = head.name
    if name in PS_RUN:
        return True
    shell = name in SHELLS
    interp = name in INTERPS
    for word in parsed.args(cmd)[0]:
        plain = unquote(word)
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
        return bool(parsed.markdown and _PROSE_WORD.fullmatch(plain))
    return name not in SOURCE


def fetches(parsed: ShellLine, cmd: Command) -> bool:
    """Whether the command downloads: a fetch tool with arguments, a command from a
    variable given a URL (``$c https://...``), PowerShell's web client."""
    head = parsed.head(cmd)
    if head is None:
        return False
    if head.name in FETCHERS:
        return _has_arguments(parsed, cmd, head)
    if head.raw.startswith("$"):  # c=curl; $c https://...
        return parsed.line.find("://", head.after, cmd.end) >= 0
    return head.name == "new-object" and bool(
        _PS_WEBCLIENT.search(parsed.line, head.after, cmd.end)
    )


def decodes(parsed: ShellLine, cmd: Command) -> bool:
    """Whether the command decodes data: ``base64 -d``, ``xxd -r``, ``openssl enc -d``,
    escapes printed by ``printf`` or ``echo -e``, ``tr`` with rot ranges, ``rev``."""
    head = parsed.head(cmd)
    if head is None or head.name not in DECODERS:
        return False
    name = head.name
    raw = parsed.args(cmd)[0]
    args = [unquote(a) for a in raw]
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


def reads_secret(parsed: ShellLine, cmd: Command, known: Mapping[str, str] | None = None) -> str:
    """What secret the command writes to its output: a credential store, the
    environment, the keychain, a file ``known`` to hold a secret (by its
    :func:`normal_path`: one an earlier line wrote a secret to) ("" for none)."""
    head = parsed.head(cmd)
    if head is None:
        return ""
    args, redirects = parsed.args(cmd)
    for operator, target in redirects:
        if operator.endswith("<") and not operator.endswith("<<"):
            found = flow_secret(target) or known_secret(known, unquote(target))
            if found:
                return found
    name = head.name
    if name not in READERS:
        return ""
    plain = [unquote(a) for a in args]
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
        return f"security {plain[0]}" if plain and plain[0] in KEYCHAIN_READS else ""
    for word in plain:
        found = flow_secret(word) or known_secret(known, word)
        if found:
            return found
    return ""


def known_secret(known: Mapping[str, str] | None, path: str) -> str:
    """The secret ``known`` says the file at ``path`` (unquoted) holds: one an earlier
    line wrote to it ("" for none)."""
    return known.get(normal_path(path), "") if known else ""


def prints_token(parsed: ShellLine, cmd: Command) -> str:
    """A CLI printing its access token (``gh auth token``): a secret when piped into
    a network tool, not in a request header where it belongs."""
    head = parsed.head(cmd)
    if head is None or head.name not in TOKEN_PRINTERS:
        return ""
    words = " ".join(unquote(a) for a in parsed.args(cmd)[0][:3]).lower()
    for command in TOKEN_PRINTERS[head.name]:
        if words.startswith(command):
            return f"{head.name} {command}"
    return ""


def _has_arguments(parsed: ShellLine, cmd: Command, head: Head) -> bool:
    """Whether anything follows the command's name: a fetch, a network tool without
    a host is no command but a word in a list (``"(curl|wget|ssh)"``)."""
    return bool(_NONBLANK.search(parsed.line, head.after, cmd.end))


def sends_stdin(parsed: ShellLine, cmd: Command) -> bool:
    """Whether the command sends its standard input over the network."""
    head = parsed.head(cmd)
    if head is None or head.name not in SINKS or not _has_arguments(parsed, cmd, head):
        return False
    name = head.name
    if head.xargs and name in ("curl", "wget"):
        return True
    if name == "openssl":
        return "s_client" in parsed.args(cmd)[0]
    if name in ("curl", "wget", "scp", "rsync", "sftp"):
        return "-" in (path for _, path in sent_files(parsed, cmd))
    return True


def sent_files(parsed: ShellLine, cmd: Command) -> list[tuple[str, str]]:
    """(option, path) of each file the command sends (``-`` for its input): curl's
    ``-d @f``, ``-F x=@f``, ``-T f``, wget's ``--post-file``, ``-InFile``, scp's and
    rsync's local sources, and an input redirection of a network tool."""
    head = parsed.head(cmd)
    if head is None or head.name not in SINKS:
        return []
    name = head.name
    line = parsed.line
    if name in ("curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod"):
        if not _SENDS_FILE.search(line, head.after, cmd.end):
            return []  # no option that sends a file: most fetches
    elif name not in ("scp", "rsync", "sftp") and line.find("<", head.after, cmd.end) < 0:
        return []
    args, redirects = parsed.args(cmd)
    plain = [unquote(a) for a in args]
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


def written_files(parsed: ShellLine, cmd: Command) -> list[str]:
    """The files a command that reads a secret writes it to: its output redirection,
    tar's -f, zip's archive."""
    head = parsed.head(cmd)
    args, redirects = parsed.args(cmd)
    paths = [unquote(t) for op, t in redirects if op.endswith(">")]
    plain = [unquote(a) for a in args]
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


def ran_file(parsed: ShellLine, cmd: Command) -> str:
    """The file a command runs: ``sh x.sh``, ``. ./x``, ``./x``, ``.\\x.ps1``."""
    head = parsed.head(cmd)
    if head is None:
        return ""
    if head.name in SCRIPT_RUNNERS:
        for word in parsed.args(cmd)[0]:
            plain = unquote(word)
            if plain.startswith("-"):
                if plain.lstrip("-").lower() in ("c", "command", "e"):
                    return ""
                continue
            return normal_path(plain)
        return ""
    raw = head.raw.replace("\\", "/")
    return normal_path(unquote(raw)) if "/" in raw else ""


def named_file(path: str) -> bool:
    """Whether a later line can name the file at ``path`` (:func:`normal_path`): not
    ``-`` (standard input or output), not a device, and not a directory (a last part
    that is empty or white space: ``curl -o /tmp/x/``)."""
    return path != "-" and not path.startswith("/dev/") and bool(path.rsplit("/", 1)[-1].strip())


def normal_path(path: str) -> str:
    """A path as the files of a line are compared: forward slashes, no leading ``./``."""
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def fetch_outputs(parsed: ShellLine, cmd: Command) -> set[str]:
    """The files a fetch writes: -o/-O FILE, --output(-document), -OutFile, > FILE, and
    the URL's last part for ``curl -O`` and ``wget`` without -O."""
    head = parsed.head(cmd)
    name = head.name if head is not None else ""
    args, redirects = parsed.args(cmd)
    plain = [unquote(a) for a in args]
    found = {normal_path(unquote(t)) for op, t in redirects if op.endswith(">")}
    named = False
    for index, word in enumerate(plain):
        value = plain[index + 1] if index + 1 < len(plain) else ""
        lower = word.lower()
        if (
            (name == "curl" and word in ("-o", "--output"))
            or (name == "wget" and word in ("-O", "--output-document"))
            or lower == "-outfile"
        ):
            found.add(normal_path(value))
            named = True
        elif lower.startswith(("--output-document=", "--output=")):
            found.add(normal_path(word.split("=", 1)[1]))
            named = True
        elif name in ("curl", "wget") and word[:1] == "-" and word[1:2] != "-":
            flag = word.find("o" if name == "curl" else "O")
            if flag > 0:  # a cluster: -so FILE, -qO- , -sSLo FILE
                found.add(normal_path(word[flag + 1 :] or value))
                named = True
    if (name == "wget" and not named) or (
        name == "curl"
        and any(
            w in ("-O", "--remote-name") or (w[:1] == "-" and w[1:2] != "-" and "O" in w)
            for w in plain
        )  # -O alone or in a cluster: -sO, -fsSLO
    ):
        for _, _, path in URL.findall(parsed.line[cmd.start : cmd.end]):
            last = path.split("?", 1)[0].rsplit("/", 1)[-1]
            if last:
                found.add(last)
    found.discard("")
    found.discard("-")
    return found
