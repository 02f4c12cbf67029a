"""Dangerous commands, in SKILL.md, references and scripts.

Download and execute (``curl | sh``, ``bash <(wget ...)``, PowerShell ``iex (iwr ...)``):
an error, except an install line for a named HTTPS host in Markdown code or for a
well-known installer, which is a warning (SP521): honest documentation shows those.
Decode and execute (``base64 -d | sh``, ``exec(base64.b64decode(...))``,
``eval(atob(...))``, ``powershell -enc``), reverse shells (``/dev/tcp`` wired to a
shell, ``nc -e``, a socket's descriptors duplicated onto a shell's), credentials or the
environment read and sent out on one line, and Claude Code's load-time shell
preprocessing (``!`cmd```) with a network fetch or a pipe into a shell are errors. A
``/dev/tcp`` device alone (a port check) and a credential store read without a network
call on its line are warnings.

Each group of patterns has markers (:class:`~skillpack.scan.text.Markers`), one of which
every match of its regular expressions holds (a space in a marker is any run of white
space, as the expressions allow); the expressions run only on the lines holding one.
Gaps inside a command are bounded (1,000 characters), so a long line costs linear time,
never quadratic.
"""

from __future__ import annotations

import re
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
_SUDO = r"(?:sudo\s+(?:-\S+\s+)*)?"
_SHELL = r"(?:\S*/)?(?:ba|z|k|da|fi|a)?sh\b"
_INTERP = r"(?:\S*/)?(?:python[0-9.]*|perl|ruby|node|php)\s*-?\s*(?=$|[;&|)\n'\"`])"
_FETCH = r"\b(?:curl|wget)\b"
#: a bounded gap inside one command, and up to three pipes: a long line costs linear time
_GAP = r"[^\n]{0,160}"
_PIPES = r"(?:[^\n|]{0,300}+\|){1,3}\s*"
_PS_FETCH = (
    r"(?:iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget|"
    r"\(?\s*new-object\s+(?:system\.)?net\.webclient\s*\)?)"
)

#: installers honest documentation shows (``curl -fsSL https://sh.rustup.rs | sh``)
KNOWN_INSTALLERS: frozenset[str] = frozenset(
    {
        "sh.rustup.rs", "rustup.rs", "static.rust-lang.org", "astral.sh", "get.docker.com",
        "install.python-poetry.org", "bun.sh", "deno.land", "get.pnpm.io", "ollama.com",
        "claude.ai", "pyenv.run", "get.sdkman.io", "sdk.cloud.google.com", "get.helm.sh",
        "install.determinate.systems", "nixos.org", "starship.rs", "tailscale.com",
        "fly.io", "foundry.paradigm.xyz", "cli.moonrepo.dev", "mise.run", "get.volta.sh",
        "deb.nodesource.com", "rpm.nodesource.com", "pixi.sh", "micro.mamba.pm",
        "opencode.ai", "cursor.com", "brew.sh", "get.jetify.com", "aka.ms", "dot.net",
        "get.k3s.io", "sh.vector.dev", "install.duckdb.org", "supabase.com",
        "cli.github.com", "raw.githubusercontent.com",
    }
)  # fmt: skip

#: hosts an attack fetches from: URL shorteners, paste and tunnel services
_SUSPECT_HOSTS = Lazy(
    r"(?:^|\.)(?:bit\.ly|tinyurl\.com|t\.co|is\.gd|goo\.gl|pastebin\.com|paste\.ee|"
    r"hastebin\.com|transfer\.sh|ngrok\.io|ngrok-free\.app|trycloudflare\.com|"
    r"0x0\.st|termbin\.com|webhook\.site|requestbin\.\w+|pipedream\.net)$",
    _I,
)
_URL = Lazy(r"(https?)://([^/\s'\"`)>\]]+)", _I)
_IP_HOST = Lazy(r"^\[?[0-9a-f:.]+\]?(?::\d+)?$", _I)


@dataclass(frozen=True, slots=True)
class _Group:
    markers: tuple[str, ...]
    patterns: tuple[tuple[str, Lazy, str], ...]  #: (code, regex, what)


def _p(code: str, pattern: str, what: str) -> tuple[str, Lazy, str]:
    return code, Lazy(pattern, _I | re.MULTILINE), what


_GROUPS: tuple[_Group, ...] = (
    _Group(
        ("curl", "wget"),
        (
            _p(DOWNLOAD_EXEC, _FETCH + _PIPES + _SUDO + r"(?:" + _SHELL + r"|" + _INTERP
               + r")", "downloads a script and pipes it into a shell"),
            _p(DOWNLOAD_EXEC, r"\b(?:(?:ba|z|k)?sh|source|eval|\.)\s+(?:-\S+\s+)*[\"']?"
               r"(?:\$\(|<\(|`)\s*" + _FETCH, "runs a downloaded script"),
            _p(DOWNLOAD_EXEC, _FETCH + r"(?:[^\n;&]{0,300}+(?:&&|;)\s*){1,3}" + _SUDO
               + r"(?:chmod\s+\+x\s+\S+\s*(?:&&|;)\s*)?(?:(?:ba|z)?sh\s+)\S+\.sh\b",
               "downloads a script and runs it"),
        ),
    ),
    _Group(
        ("iex", "invoke-expression"),
        (
            _p(DOWNLOAD_EXEC, r"\b(?:iex|invoke-expression)\b\s*\(?\s*(?:\[[^\]]+\]\s*)?"
               r"(?:\(\s*)?(?:&\s*)?" + _PS_FETCH,
               "downloads a PowerShell script and runs it (iex)"),
            _p(DOWNLOAD_EXEC, r"\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|"
               r"downloadstring)\b" + _GAP + r"\|\s*(?:iex|invoke-expression)\b",
               "downloads a PowerShell script and pipes it into iex"),
            _p(DOWNLOAD_EXEC, r"\b(?:iex|invoke-expression)\b" + _GAP + r"\.downloadstring\s*\(",
               "downloads a PowerShell script and runs it (iex)"),
        ),
    ),
    _Group(
        ("exec", "eval"),
        (
            _p(DOWNLOAD_EXEC, r"\b(?:exec|eval)\s*\(\s*(?:await\s+)?\(?\s*(?:await\s+)?"
               r"(?:urllib\.request\.urlopen|urlopen|requests\.get|fetch)\s*\(",
               "downloads code and evaluates it"),
        ),
    ),
    _Group(
        ("base64", "base32", "xxd", "exec", "eval", "compile", "function", "settimeout",
         "setinterval", "powershell", "pwsh", "iex", "invoke-expression"),
        (
            _p(DECODE_EXEC, r"\bbase(?:64|32)\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b" + _PIPES
               + _SUDO + r"(?:" + _SHELL + r"|" + _INTERP + r")",
               "decodes base64 and pipes it into a shell"),
            _p(DECODE_EXEC, r"\bxxd\s+-r\b" + _PIPES + _SUDO + _SHELL,
               "decodes hex and pipes it into a shell"),
            _p(DECODE_EXEC, r"\b(?:eval|(?:ba|z)?sh\s+-c)\s+[\"']?(?:\$\(|`)" + _GAP
               + r"\bbase64\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b", "evaluates decoded base64"),
            _p(DECODE_EXEC, r"\b(?:exec|eval|compile)\s*\(\s*(?:[\w.]+\.)?(?:b64decode|"
               r"b32decode|b85decode|a85decode|urlsafe_b64decode|decompress|unhexlify|"
               r"fromhex|loads|decodebytes)\s*\(", "executes decoded data"),
            _p(DECODE_EXEC, r"\b(?:exec|eval)\s*\(\s*(?:codecs\.decode|__import__\(\s*[\"']"
               r"(?:base64|zlib|marshal|codecs|bz2|lzma)[\"']\s*\))",
               "executes decoded data"),
            _p(DECODE_EXEC, r"\b(?:eval|(?:new\s+)?Function|setTimeout|setInterval)\s*\(\s*"
               r"(?:atob|unescape|decodeURIComponent)\s*\(", "evaluates decoded data (atob)"),
            _p(DECODE_EXEC, r"\b(?:eval|(?:new\s+)?Function)\s*\(\s*Buffer\.from\([^\n)]*"
               r"[\"'](?:base64|hex)[\"']", "evaluates decoded data (Buffer.from)"),
            _p(DECODE_EXEC, r"\b(?:powershell|pwsh)(?:\.exe)?\b" + _GAP + r"\s-(?:e|ec|en|enc|enco|"
               r"encod|encode|encoded|encodedcommand)\s+[A-Za-z0-9+/=]{16,}",
               "runs an encoded PowerShell command"),
            _p(DECODE_EXEC, r"\b(?:iex|invoke-expression)\b" + _GAP + r"frombase64string",
               "runs decoded base64 (iex)"),
        ),
    ),
    _Group(
        ("/dev/",),
        (
            _p(REVERSE_SHELL, r"(?:\b(?:ba|z)?sh\s+-i\b" + _GAP + r"/dev/(?:tcp|udp)/|"
               r"/dev/(?:tcp|udp)/" + _GAP + r"(?:0>&1|>&\s*\d|<&\s*\d)"
               r"|\bexec\s+\d+<>\s*/dev/(?:tcp|udp)/)",
               "wires a shell to a network connection (/dev/tcp)"),
            _p(TCP_DEVICE, r"/dev/(?:tcp|udp)/", "opens a raw network connection (/dev/tcp)"),
        ),
    ),
    _Group(
        (r"\bnc\b", "ncat", "netcat"),  # nc.traditional, "nc" quoted: not only "nc "
        (
            _p(REVERSE_SHELL, r"\b(?:nc|ncat|netcat)\b[^\n|;]{0,160}\s(?:-[a-z]*[ec]|--exec|"
               r"--sh-exec)\s*[\"']?" + r"(?:\S*/)?(?:(?:ba|z|k|da)?sh|cmd(?:\.exe)?|"
               r"powershell)\b", "connects a shell to the network (nc -e)"),
        ),
    ),
    _Group(
        ("mkfifo",),
        (
            _p(REVERSE_SHELL, r"\bmkfifo\b" + _GAP + _SHELL + _GAP + r"\|\s*(?:nc|ncat|netcat|"
               r"openssl\s+s_client|telnet)\b", "wires a shell to a network pipe"),
        ),
    ),
    _Group(
        ("socat",),
        (
            _p(REVERSE_SHELL, r"\bsocat\b" + _GAP + r"\b(?:exec|system):[\"']?(?:\S*/)?"
               r"(?:(?:ba|z)?sh|cmd|powershell)\b", "connects a shell to the network (socat)"),
        ),
    ),
    _Group(
        ("dup2", "fileno"),
        (
            _p(REVERSE_SHELL, r"\bdup2\s*\(\s*[\w.]+\.fileno\s*\(\s*\)",
               "duplicates a socket onto standard input and output (a reverse shell)"),
            _p(REVERSE_SHELL, r"\b(?:Popen|call|run)\s*\(\s*\[?\s*[\"'](?:/bin/)?(?:ba|z)?sh[\"']"
               + _GAP + r"\bstdin\s*=\s*[\w.]+\.fileno\s*\(",
               "runs a shell on a socket (a reverse shell)"),
        ),
    ),
    _Group(
        ("fsockopen", "tcpsocket", "use socket", "tcpclient"),
        (
            _p(REVERSE_SHELL, r"\bfsockopen\s*\(" + _GAP + r"\b(?:exec|shell_exec|system|passthru|"
               r"proc_open|popen)\s*\(", "connects a shell to the network (PHP)"),
            _p(REVERSE_SHELL, r"\bTCPSocket\.(?:new|open)\s*\(" + _GAP + r"\b(?:exec|spawn|system|"
               r"IO\.popen)\b", "connects a shell to the network (Ruby)"),
            _p(REVERSE_SHELL, r"\buse\s+Socket\b" + _GAP
               + r"\bexec\s*\(?\s*[\"'](?:/bin/)?(?:ba|z)?sh",
               "connects a shell to the network (Perl)"),
            _p(REVERSE_SHELL, r"Net\.Sockets\.TCPClient\s*\(" + _GAP + r"(?:GetStream|iex|"
               r"Invoke-Expression)", "connects PowerShell to the network"),
        ),
    ),
    _Group(
        ("!`",),
        (
            _p(LOAD_TIME_SHELL, r"(?<![\w!\\`])!`(?P<cmd>[^`\n]+)`", ""),
        ),
    ),
)  # fmt: skip

#: what counts as a credential store or the whole environment
_SECRET_SOURCE = Lazy(
    r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/[\w.-]+|/root|"
    r"expanduser\(\s*[\"']~|Path\.home\(\)[^\n]{0,20})?[/\\\"' ]?"
    r"\.(?:ssh[/\\](?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\b(?!\.pub)|authorized_keys)|"
    r"aws[/\\]credentials|netrc\b|"
    r"git-credentials|docker[/\\]config\.json|kube[/\\]config|config[/\\]gcloud|gnupg\b|"
    r"npmrc\b|pypirc\b|config[/\\]gh[/\\]hosts\.yml)"
    r"|(?<![\w)\].$])\.env\b(?![.\w-])"
    r"|\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b"
    r"|Library/Keychains|\blogin\.keychain|\blogins\.json\b|\bkey4\.db\b"
    r"|(?:Google/Chrome|Chromium|BraveSoftware|Microsoft/Edge|\.mozilla/firefox|"
    r"Firefox/Profiles)" + _GAP + r"(?:Login Data|Cookies|Local State)"
    r"|/etc/shadow\b",
    _I,
)
#: the whole environment (only sent out counts: reading it is ordinary)
_ENV_DUMP = Lazy(
    r"(?:^|[|;&(`$]|\s)(?:env|printenv|export\s+-p)\s*(?:\||\)|`)"
    r"|/proc/(?:self|\d+)/environ|\bdict\(\s*os\.environ\s*\)|\bos\.environ\.copy\(\)"
    r"|\b(?:json\.dumps|str)\(\s*(?:dict\()?os\.environ\b|JSON\.stringify\(\s*process\.env\s*\)"
    r"|\bGet-ChildItem\s+env:|\[Environment\]::GetEnvironmentVariables"
    r"|\b(?:data|json|params|body)\s*[=:]\s*(?:dict\()?(?:os\.environ|process\.env)\b(?![.\[])",
    _I | re.MULTILINE,
)
_NETWORK_SINK = Lazy(
    r"\b(?:curl|wget|nc|ncat|netcat|telnet|scp|sftp|ftp|iwr|irm)\b|Invoke-(?:WebRequest|"
    r"RestMethod)|\brequests\.(?:post|put|patch|get)\b|\burlopen\b|\bhttp\.client\b|"
    r"\bhttpx\.|\baiohttp\b|\bfetch\s*\(|\baxios\b|XMLHttpRequest|sendBeacon|\bsmtplib\b|"
    r"\bsendmail\b|\bmail\s+-s\b|UploadString|UploadFile|\bopenssl\s+s_client\b",
    _I,
)
_CREDENTIAL_MARKERS = (
    ".ssh", ".aws", "netrc", "git-credentials", ".docker", ".kube", "gcloud", "gnupg",
    "npmrc", "pypirc", "keychain", "-password", "logins.json", "key4.db", "login data",
    "cookies", "local state", "shadow", "hosts.yml",
)  # fmt: skip
#: what an environment dump holds (env, printenv, os.environ, process.env, /proc/*/environ)
_ENV_MARKERS = ("env", "export -p")
_SINK_MARKERS = (
    "curl", "wget", r"\bnc\b", "ncat", "netcat", "telnet", r"\bscp\b", "ftp", r"\biwr\b",
    r"\birm\b", "invoke-", "requests.", "urlopen", "http.client", "httpx", "aiohttp", "fetch",
    "axios", "xmlhttprequest", "sendbeacon", "smtplib", "sendmail", "mail -s", "upload",
    "s_client",
)  # fmt: skip
_LOAD_NETWORK = Lazy(
    r"\b(?:curl|wget|nc|ncat|netcat|iwr|irm|invoke-webrequest|invoke-restmethod|ssh|scp|"
    r"telnet|ftp)\b|https?://|\bfetch\s*\(",
    _I,
)
_LOAD_PIPE = Lazy(r"\|\s*" + _SUDO + r"(?:" + _SHELL + "|" + _INTERP + r"|iex\b)", _I)


def _line_of(text: str, offset: int) -> tuple[int, str]:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return start, text[start : end if end >= 0 else len(text)]


def _fetch_severity(line: str, in_code: bool, markdown: bool) -> str:
    """SP520 or SP521 for a download-and-execute line: an install line of a named HTTPS
    host shown in Markdown code, or of a well-known installer anywhere, is a warning."""
    urls = _URL.findall(line)
    if not urls:
        return DOWNLOAD_EXEC  # from a variable, or a host we cannot see
    for scheme, host in urls:
        name = host.lower().rsplit("@", 1)[-1].split(":", 1)[0]
        if scheme.lower() != "https" or _IP_HOST.match(name) or _SUSPECT_HOSTS.search(name):
            return DOWNLOAD_EXEC
        if "." not in name or name.endswith((".invalid", ".onion", ".local")):
            return DOWNLOAD_EXEC
    hosts = {h.lower().rsplit("@", 1)[-1].split(":", 1)[0] for _, h in urls}
    known = all(h in KNOWN_INSTALLERS or h.endswith(tuple("." + k for k in KNOWN_INSTALLERS))
                for h in hosts)  # fmt: skip
    if known or (markdown and in_code):
        return INSTALLER_PIPE
    return DOWNLOAD_EXEC


def _find_secrets(
    text: str, lowered: str, present: Collection[str]
) -> Iterator[tuple[int, str, str]]:
    """Credential stores or the whole environment sent out on one line (SP525); a
    credential store read without a network call on its line (SP526). Network calls are
    looked for only in a file that names a credential store or the environment."""
    credentials = [m for m in _CREDENTIAL_MARKERS if m in present]
    if not credentials and not any(m in present for m in _ENV_MARKERS):
        return
    sending = set()
    for start, end in marked_lines(lowered, _SINK_MARKERS):
        if not _NETWORK_SINK.search(text, start, end):
            continue
        sending.add(start)
        match = _SECRET_SOURCE.search(text, start, end)
        if match is not None:
            yield (
                match.start(),
                CREDENTIAL_EXFIL,
                (f"reads {match.group().strip()!r} and sends it over the network on the same line"),
            )
            continue
        match = _ENV_DUMP.search(text, start, end)
        if match is not None:
            yield (
                match.start(),
                CREDENTIAL_EXFIL,
                ("sends the whole environment (its secrets too) over the network"),
            )
    for start, end in marked_lines(lowered, credentials):
        if start in sending:
            continue
        match = _SECRET_SOURCE.search(text, start, end)
        if match is not None and match.group().strip().lower() != ".env":
            yield (
                match.start(),
                CREDENTIAL_READ,
                (f"reads a credential store: {match.group().strip()!r}"),
            )


#: every marker of the groups and the credential rules
MARKERS: tuple[str, ...] = tuple(
    dict.fromkeys([m for g in _GROUPS for m in g.markers] + [*_CREDENTIAL_MARKERS, *_ENV_MARKERS])
)
#: the same but the load-time shell's (``!`cmd```), which only Markdown has
SCRIPT_MARKERS: tuple[str, ...] = tuple(m for m in MARKERS if m != "!`")


def find_commands(
    text: str, lowered: str, markdown: bool, present: Collection[str]
) -> Iterator[tuple[int, str, str, str]]:
    """(offset, code, severity, message) of each dangerous command in ``text``
    (``lowered``: :func:`~skillpack.scan.text.ascii_lower` of it; ``present``: the
    markers of :data:`MARKERS` it holds, or of :data:`SCRIPT_MARKERS` for a script), at
    most one per code and line."""
    if not present:
        return
    code_map: CodeMap | None = None
    raw: list[tuple[int, str, str]] = []
    for group in _GROUPS:
        markers = [m for m in group.markers if m in present]
        if not markers:
            continue
        lines = marked_lines(lowered, markers)
        for code, regex, what in group.patterns:
            finditer = regex.compiled.finditer
            for start, end in lines:
                for match in finditer(text, start, end):
                    found, message = code, what
                    if code == DOWNLOAD_EXEC:
                        if code_map is None:
                            code_map = CodeMap(text if markdown else "")
                        in_code = code_map.in_code(match.start())
                        found = _fetch_severity(text[start:end], in_code, markdown)
                        if found == INSTALLER_PIPE:
                            message = what + " (an installer from a named HTTPS host)"
                    elif code == LOAD_TIME_SHELL:
                        message = _load_time(match.group("cmd"))
                        if not message:
                            continue
                    raw.append((match.start(), found, message))
    raw.extend(_find_secrets(text, lowered, present))
    reported: set[tuple[str, int]] = set()
    shells = {_line_of(text, offset)[0] for offset, code, _ in raw if code == REVERSE_SHELL}
    for offset, code, message in sorted(raw):
        line_start, line = _line_of(text, offset)
        if (code, line_start) in reported or (code == TCP_DEVICE and line_start in shells):
            continue
        reported.add((code, line_start))
        yield offset, code, SEVERITY[code], f"{message}: {_excerpt(line)}"


def _load_time(command: str) -> str:
    """The message for Claude Code's ``!`command``` preprocessing (run when the skill is
    loaded, before the model or the user sees its output), or "" when it is harmless."""
    if _LOAD_NETWORK.search(command):
        return "a load-time shell command (!`...`) fetches from the network when the skill loads"
    if _LOAD_PIPE.search(command):
        return "a load-time shell command (!`...`) pipes into a shell when the skill loads"
    return ""


def _excerpt(line: str, limit: int = 120) -> str:
    line = line.strip()
    return repr(line if len(line) <= limit else line[:limit] + "...")
