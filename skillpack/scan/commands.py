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

The rules run on *logical* lines (continuations joined: :mod:`skillpack.scan.shell`).
Shell-shaped rules parse the logical line once into commands
(:class:`~skillpack.scan.shell.ShellLine`) and judge commands, not characters
(:mod:`skillpack.scan.flows`: what flows where; :mod:`skillpack.scan.actions`: what one
command does; :mod:`skillpack.scan.hosts`: which URLs are an installer's;
:mod:`skillpack.scan.secrets`: what is a secret). Other rules are regular expressions
without gaps, or sequences of them found one after the other: a line or a file costs
linear time however it is padded.

Each rule has markers (:class:`~skillpack.scan.text.Markers`), one of which every line it
reports holds (a space in a marker is any run of white space, ``\\b`` a word boundary);
a rule runs only on the logical lines holding one of its markers (the file-wide rules:
on a file holding one). A rule whose command is written with quotes inside its name
(``"cu"rl``) is found through the other end of the pipe (``| bash``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from skillpack.scan.actions import runs_stdin
from skillpack.scan.extracted import extracted_runs
from skillpack.scan.fetched import fetched_files, runs_fetched
from skillpack.scan.flows import Found, judge_shell
from skillpack.scan.hosts import KNOWN_INSTALLERS, honest_installer
from skillpack.scan.markdown import CodeMap
from skillpack.scan.model import ERROR, WARNING
from skillpack.scan.secrets import ENV_DUMP, SECRET, secret_read
from skillpack.scan.shell import ShellLine, joined, logical_span
from skillpack.scan.stashed import Stashed, known_before, later_lines, stashed_files
from skillpack.scan.text import (
    UNDERSCORE_EMPHASIS,
    Lazy,
    Markers,
    ascii_lower,
    marked_lines,
)
from skillpack.scan.variables import (
    MAX_USES,
    USE,
    Assignment,
    assignments,
    expand,
    source_offset,
)

__all__ = [
    "CREDENTIAL_EXFIL",
    "CREDENTIAL_READ",
    "DECODE_EXEC",
    "DOWNLOAD_EXEC",
    "INSTALLER_PIPE",
    "KNOWN_INSTALLERS",
    "LOAD_TIME_SHELL",
    "MARKERS",
    "REVERSE_SHELL",
    "RULES",
    "SCRIPT_MARKERS",
    "SEVERITY",
    "TCP_DEVICE",
    "Rule",
    "find_commands",
    "rule_findings",
]

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


# --- the rules ------------------------------------------------------------------------


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
_MARKER_SET = frozenset(MARKERS)
_ALL_MARKERS = Markers(MARKERS)
_UNDERSCORES = Lazy(UNDERSCORE_EMPHASIS)
#: the letters and digits of a word from a place on, and up to a place
_WORD_ON = Lazy(r"[^\W_]+")
_WORD_UP_TO = Lazy(r"[^\W_]+\Z")
#: a run of ``*`` inside a word (the run's first ``*`` first, so that the expression
#: engine skips to a ``*`` at once), and the word around it
_STAR_IN_WORD = Lazy(r"\*(?<=\w\*)\**(?=\w)")
_STARRED_UP_TO = Lazy(r"[\w*]+\Z")
_STARRED_ON = Lazy(r"[\w*]+")
#: the markup runs looked at one by one; past them every run counts (a view is made)
_MAX_RUNS = 64


def underscore_breaks(text: str, lowered: str, present: Collection[str]) -> list[int]:
    """Where Markdown ``text`` (``lowered``: :func:`ascii_lower` of it, holding the
    markers ``present``) holds ``_`` emphasis against a word that, with the two
    characters before it, holds a marker of the rules: ``__curl ... | sh__``,
    ``| _bash_``. The markup hides the command's words from the rules until it is
    removed; ``__init__`` or ``_config.yml`` is no reason to read the file again (a
    view costs far more than this test)."""
    if "_" not in text or _MARKER_SET.isdisjoint(present):
        return []  # a command's line holds a marker whatever its markup
    size = len(text)

    def probe(run: re.Match[str]) -> str | None:
        after = _WORD_ON.match(lowered, run.end(), min(size, run.end() + 64))
        if after is not None:  # it opens before a word
            return lowered[max(0, run.start() - 2) : run.start()] + after.group()
        before = _WORD_UP_TO.search(lowered, max(0, run.start() - 64), run.start())
        if before is None:  # it closes after a word
            return None
        return lowered[max(0, before.start() - 2) : run.start()]

    return _breaks(_UNDERSCORES, text, probe)


def star_breaks(text: str, lowered: str) -> list[int]:
    """Where a ``*`` run inside a word of Markdown ``text`` (``lowered``:
    :func:`ascii_lower` of it) splits a word that, read without it (as it renders:
    ``c*ur*l`` is *curl*), holds a marker of the rules, with the two characters before
    the word (``| s*h*``). A backtick inside a word is a quote to a shell: the quotes
    view reads it so."""
    if "*" not in text:
        return []
    size = len(text)

    def probe(run: re.Match[str]) -> str:
        at = run.start()
        before = _STARRED_UP_TO.search(lowered, max(0, at - 64), at)
        start = at if before is None else before.start()
        after = _STARRED_ON.match(lowered, at, min(size, at + 64))
        end = at if after is None else after.end()
        return lowered[max(0, start - 2) : end].replace("*", "")

    return _breaks(_STAR_IN_WORD, text, probe)


def _breaks(runs: Lazy, text: str, probe: Callable[[re.Match[str]], str | None]) -> list[int]:
    """The starts of the markup ``runs`` in ``text`` whose ``probe`` (the word a run
    breaks, as it renders) holds a marker of the rules; past :data:`_MAX_RUNS` runs,
    every run."""
    found: list[int] = []
    for count, run in enumerate(runs.finditer(text)):
        if count == _MAX_RUNS:
            return [m.start() for m in runs.finditer(text)]
        word = probe(run)
        if word is not None and _ALL_MARKERS.present(word):
            found.append(run.start())
    return found


# --- Claude Code's load-time shell ----------------------------------------------------


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


# --- the scan -------------------------------------------------------------------------


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


def _in_comment(text: str, at: int) -> bool:
    """Whether the script line holding offset ``at`` is a comment (``#`` or ``//`` after
    nothing but white space; not a ``#!`` line): documentation, which no interpreter
    runs, like Markdown code (a usage line of an installer)."""
    start = text.rfind("\n", 0, at) + 1
    line = text[start:at].lstrip()
    return (line.startswith("#") and not line.startswith("#!")) or line.startswith("//")


def find_commands(
    text: str, lowered: str, markdown: bool, present: Collection[str], variables: bool = False
) -> Iterator[tuple[int, str, str, str]]:
    """(offset, code, severity, message) of each dangerous command in ``text``
    (``lowered``: :func:`~skillpack.scan.text.ascii_lower` of it; ``present``: the
    markers of :data:`MARKERS` it holds, or of :data:`SCRIPT_MARKERS` for a script), at
    most one per code and line; ``variables``: a shell runs the text's lines in order (a
    shell script, Markdown's code), so a variable carries a substitution's output from
    one line to a later one (:mod:`.variables`)."""
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
            span = logical_span(text, start, end, markdown)
        rules_on.setdefault(span, set()).update(r.name for r in on_lines)
    code_map: CodeMap | None = None

    def in_code(at: int) -> bool:
        """Whether offset ``at`` of the Markdown text is code (its blocks parsed once)."""
        nonlocal code_map
        if code_map is None:
            code_map = CodeMap(text)
        return code_map.in_code(at)

    spans = sorted(rules_on)
    stashed = _stashed(text, markdown, spans, rules_on, in_code) if variables else []
    # a variable assigned what a file of ``stashed`` holds carries its secret too
    named = {item.name for item in stashed}

    def keep(value: str) -> bool:
        return _may_flow(value) or any(name in value for name in named)

    tracked = assignments(text, markdown, keep) if variables and "$" in text else {}
    if not rules_on and not files and not tracked:
        return

    def download(at: int, urls: str) -> tuple[str, str]:
        """SP520, or SP521 with what the message adds."""
        shown = in_code(at) if markdown else _in_comment(text, at)
        honest = honest_installer(urls, shown)
        code = INSTALLER_PIPE if honest else DOWNLOAD_EXEC
        return code, " (an installer from a named HTTPS host)" if code == INSTALLER_PIPE else ""

    names_on = {name for names in rules_on.values() for name in names}
    for start, end in spans:
        names = rules_on[(start, end)]
        line = joined(text, start, end, markdown)
        seen: set[str] = set()
        shell = {n for n in names if _BY_NAME[n].scope == "shell"}
        if shell and any(
            not _BY_NAME[n].needs or any(c in line for c in _BY_NAME[n].needs) for n in shell
        ):
            # the line, then the code it prints into a shell (echo '...' | sh)
            for base, code_line in [(0, line), *_printed_code(line, markdown)]:
                for found in judge_shell(ShellLine(code_line, markdown), shell):
                    rule = _BY_NAME[found.rule]
                    at = start + base + found.at
                    code, extra = rule.code, ""
                    if code == DOWNLOAD_EXEC:
                        if DOWNLOAD_EXEC in seen and INSTALLER_PIPE in seen:
                            continue
                        urls = (code_line[found.urls[0] : found.urls[1]] if found.urls[1]
                                else code_line)  # fmt: skip
                        code, extra = download(at, urls)
                    if code in seen:
                        continue  # one finding per code and line
                    seen.add(code)
                    if rule.code != DOWNLOAD_EXEC or (
                        INSTALLER_PIPE in seen and DOWNLOAD_EXEC in seen
                    ):
                        shell.discard(rule.name)
                    raw.append((at, code, _message(rule, found) + extra))
        for name in names:
            if _BY_NAME[name].scope == "shell":
                continue
            for at, code, message in _line_rule(_BY_NAME[name], line, markdown):
                if code == DOWNLOAD_EXEC:
                    code, extra = download(start + at, line[at:])
                    message += extra
                raw.append((start + at, code, message))
    if stashed:
        raw.extend(_sent_later(text, markdown, stashed, in_code))
    if tracked:
        raw.extend(_through_variables(text, markdown, tracked, download, stashed))
    if variables and "download-then-run" in names_on:
        raw.extend(_fetched_then_run(text, markdown, spans, rules_on, download, in_code))
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


def _message(rule: Rule, found: Found) -> str:
    """The message of a shell rule's finding: the rule's words, with the secret it
    names, or the finding's own."""
    if "{" in rule.what:
        return rule.what.format(secret=found.message)
    return found.message or rule.what


#: the rules that judge what a variable holds where it is used: its value run
#: (``bash -c "$s"``, ``eval "$s"``) or sent (``curl -d "$k"``)
_VARIABLE_RULES = ("download-substitution", "decode-substitution", "exfil-substitution")
#: the markers of what they judge in a value (a fetch, a decode, a secret); a
#: :class:`~skillpack.scan.text.Markers` builds its expression on its first use
_VALUE_MARKERS = Markers(
    m for name in _VARIABLE_RULES for m in _BY_NAME[name].markers if m not in _SUBST_MARKERS
)


def _may_flow(value: str) -> bool:
    """Whether a substitution a variable is assigned may matter where it is used: it
    holds one of :data:`_VALUE_MARKERS`; ``$(date +%s)`` or ``$(git rev-parse HEAD)`` is
    not looked for again."""
    return bool(_VALUE_MARKERS.present(ascii_lower(value)))


def _through_variables(
    text: str,
    markdown: bool,
    tracked: dict[str, list[Assignment]],
    download: Callable[[int, str], tuple[str, str]],
    stashed: list[Stashed],
) -> list[tuple[int, str, str]]:
    """(offset, code, message) of what the substitution rules find on the logical lines
    that use a variable holding a substitution (:mod:`.variables`), read with the
    substitution in the variable's place (and a file an earlier line wrote a secret to
    read as that secret, :mod:`.stashed`); at most :data:`~.variables.MAX_USES` lines."""
    found: list[tuple[int, str, str]] = []
    span = (-1, -1)
    lines = 0
    for use in USE.finditer(text):
        if use.start() <= span[1] or (use.group(1) or use.group(2)) not in tracked:
            continue
        start = text.rfind("\n", 0, use.start()) + 1
        end = text.find("\n", use.start())
        span = logical_span(text, start, len(text) if end < 0 else end, markdown)
        lines += 1
        if lines > MAX_USES:
            break
        expanded = expand(joined(text, span[0], span[1], markdown), span[0], tracked)
        if expanded is None:
            continue
        line, pieces, via = expanded
        held = ", ".join(dict.fromkeys(f"${a.name} (set on line {a.line})" for a in via))
        known = {k: v.secret for k, v in known_before(stashed, span[0]).items()}
        for hit in judge_shell(ShellLine(line, markdown), set(_VARIABLE_RULES), known):
            rule = _BY_NAME[hit.rule]
            at = span[0] + source_offset(pieces, hit.at)
            code, extra = rule.code, ""
            if code == DOWNLOAD_EXEC:
                code, extra = download(at, line[hit.urls[0] : hit.urls[1]] if hit.urls[1] else line)
            found.append((at, code, f"{_message(rule, hit)}{extra}, through {held}"))
    return found


#: a string printed into a pipe (echo '...' |, printf "..." |), and a here-string
_PRINTED = Lazy(r"""\b(?:echo|printf)(?:\s+-[A-Za-z]+)*\s+(?:"([^"\n]*)"|'([^'\n]*)')(?=\s*\|)""")
_HERE_STRING = Lazy(r"""<<<\s*(?:"([^"\n]*)"|'([^'\n]*)')""")


def _printed_code(line: str, markdown: bool) -> list[tuple[int, str]]:
    """(offset, text) of each string of ``line`` that a shell or an interpreter runs as
    code: printed into a pipe to one (``echo 'curl ... | sh' | bash``), or given to one
    as a here-string (``bash <<< "curl ... | sh"``)."""
    found: list[tuple[int, str]] = []
    if "echo" in line or "printf" in line:
        for match in _PRINTED.finditer(line):
            group = 1 if match.group(1) is not None else 2
            rest = line[match.end() :].lstrip()[1:]
            parsed = ShellLine(rest, markdown)
            first = parsed.frames[0].cmds[0]
            if rest[:1] not in "|&" and runs_stdin(parsed, first):
                found.append((match.start(group), match.group(group)))
    if "<<<" in line:
        parsed = ShellLine(line, markdown)
        for match in _HERE_STRING.finditer(line):
            group = 1 if match.group(1) is not None else 2
            fed = next((c for f in parsed.frames for c in f.cmds
                        if c.start <= match.start() < c.end), None)  # fmt: skip
            if fed is not None and runs_stdin(parsed, fed):
                found.append((match.start(group), match.group(group)))
    return found


def _indent(text: str, start: int) -> int:
    """The white space at the start of the line at ``start``."""
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return end - start


def _fetched_then_run(
    text: str,
    markdown: bool,
    spans: list[tuple[int, int]],
    rules_on: dict[tuple[int, int], set[str]],
    download: Callable[[int, str], tuple[str, str]],
    in_code: Callable[[int], bool],
) -> list[tuple[int, str, str]]:
    """(offset, code, message) of each later line of a shell text that runs a file a
    fetch wrote (:mod:`.fetched`: ``curl -o /tmp/p URL``, then ``/tmp/p``); in
    Markdown, the fetch and the run each in code (``in_code``)."""
    fetching = [span for span in spans if "download-then-run" in rules_on[span]]
    if markdown:
        fetching = [span for span in fetching if in_code(span[0] + _indent(text, span[0]))]
    found: list[tuple[int, str, str]] = []
    fetched = fetched_files(text, markdown, fetching)
    for at, item in runs_fetched(text, markdown, fetched):
        if markdown and not in_code(at):
            continue
        code, extra = download(at, item.command)
        what = _BY_NAME["download-then-run"].what
        found.append((at, code, f"{what}{extra}: runs {item.path}, fetched on line {item.line}"))
    for at, extraction, ran in extracted_runs(text, markdown, fetching, fetched):
        if markdown and not (in_code(at) and in_code(extraction.at)):
            continue
        code, extra = download(at, extraction.command)
        source = f"{extraction.archive}, fetched" if extraction.archive else "fetched"
        message = f"downloads an archive and runs a file of it{extra}: runs {ran}, "
        found.append((at, code, f"{message}extracted from {source} on line {extraction.line}"))
    return found


#: the rules that judge a later line sending a file an earlier line wrote a secret to
_STASHED_RULES = ("exfil-file", "exfil-pipe", "exfil-substitution")


def _stashed(
    text: str,
    markdown: bool,
    spans: list[tuple[int, int]],
    rules_on: dict[tuple[int, int], set[str]],
    in_code: Callable[[int], bool],
) -> list[Stashed]:
    """The files a shell text's lines write a secret to (:mod:`.stashed`); in Markdown,
    lines in code only."""
    writing = [span for span in spans if "exfil-tempfile" in rules_on[span]]
    if markdown:
        writing = [span for span in writing if in_code(span[0] + _indent(text, span[0]))]
    return stashed_files(text, markdown, writing) if writing else []


def _sent_later(
    text: str, markdown: bool, stashed: list[Stashed], in_code: Callable[[int], bool]
) -> list[tuple[int, str, str]]:
    """(offset, code, message) of each later line of a shell text that sends a file an
    earlier line wrote a secret to (``cat ~/.ssh/id_rsa > /tmp/k``, then ``curl -F
    f=@/tmp/k URL``); in Markdown, in code."""
    found: list[tuple[int, str, str]] = []
    for span, known in later_lines(text, markdown, stashed):
        if markdown and not in_code(span[0] + _indent(text, span[0])):
            continue
        line = joined(text, span[0], span[1], markdown)
        secrets = {k: v.secret for k, v in known.items()}
        named = sorted({v for k, v in known.items() if k in line}, key=lambda s: s.line)
        if not named:
            continue
        where = ", ".join(f"{s.path} (written on line {s.line})" for s in named)
        for hit in judge_shell(ShellLine(line, markdown), set(_STASHED_RULES), secrets):
            rule = _BY_NAME[hit.rule]
            found.append((span[0] + hit.at, rule.code, f"{_message(rule, hit)}, through {where}"))
    return found


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
        read = secret_read(line, 0, len(line))
        if read is not None:
            at, what = (read.start(), read.group()) if isinstance(read, re.Match) else read
            yield at, rule.code, f"reads a credential store: {what.strip()!r}"
        return
    if rule.name == "code-exfil":
        if _CODE_SINK.search(line) is None:
            return
        for secret in SECRET.finditer(line):
            if secret.group().strip().lower() != ".env":
                yield (
                    secret.start(),
                    rule.code,
                    rule.what.format(secret=repr(secret.group().strip())),
                )
                return
        dump = ENV_DUMP.search(line)
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
        line = joined(text, span[0], span[1], markdown)
        yield offset, code, SEVERITY[code], f"{message}: {_excerpt(line)}"


def _excerpt(line: str, limit: int = 120) -> str:
    line = line.strip()
    return repr(line if len(line) <= limit else line[:limit] + "...")


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
            span = logical_span(text, pos, end, markdown)
            line = joined(text, span[0], span[1], markdown)
            if rule.scope == "shell":
                ats = [f.at for f in judge_shell(ShellLine(line, markdown), {name})]
            else:
                ats = [at for at, _, _ in _line_rule(rule, line, markdown)]
            found.extend((span[0] + at, span) for at in ats)
        pos = end + 1
    return found
