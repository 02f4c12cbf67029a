"""The programs the command scan knows, by what they do.

A name here is a command's name as :func:`skillpack.scan.shell.ShellLine.head` reads it
(dequoted, lowercase, without its directory or ``.exe``). :data:`KIND` gives each name
its roles, a bit each (``K_FETCH``, ``K_RUN``, ...): the judging
(:mod:`skillpack.scan.flows`) looks at a command's own words only when its name may play
the role; :data:`STRONG` are the names the parser takes for a command even after a word
no shell runs (prose, a Dockerfile's ``RUN``).
"""

from __future__ import annotations

SHELLS = frozenset({"sh", "bash", "zsh", "ksh", "dash", "fish", "ash", "mksh", "yash", "csh",
                    "tcsh"})  # fmt: skip
PWSH = frozenset({"pwsh", "powershell"})
INTERPS = frozenset({"python", "perl", "ruby", "node", "nodejs", "php"})
PS_RUN = frozenset({"iex", "invoke-expression"})
SOURCE = frozenset({"source", "."})
RUNNERS = SHELLS | PWSH | INTERPS | PS_RUN | SOURCE | {"eval"}
#: what runs a script file, or code, given as its argument (``sh x.sh``, ``. ./x``)
SCRIPT_RUNNERS = SHELLS | INTERPS | PWSH | SOURCE
FETCHERS = frozenset({"curl", "wget", "fetch", "iwr", "irm", "invoke-webrequest",
                      "invoke-restmethod"})  # fmt: skip
NETWORK = frozenset({"nc", "ncat", "netcat", "telnet", "socat", "cryptcat"})
#: what sends its standard input, or a file, over the network
SINKS = NETWORK | {"curl", "wget", "ssh", "scp", "rsync", "sftp", "mail", "mailx",
                   "sendmail", "mutt", "iwr", "irm", "invoke-webrequest",
                   "invoke-restmethod", "openssl"}  # fmt: skip
#: what sends an argument (a name to resolve) over the network
ARGUMENT_SINKS = SINKS | {"dig", "nslookup", "host", "drill", "ping"}
DECODERS = frozenset({"base64", "base32", "basenc", "gbase64", "xxd", "openssl", "printf",
                      "echo", "tr", "rev", "uudecode"})  # fmt: skip
#: what writes a file's content (or the environment) to its output
READERS = frozenset({"cat", "tac", "head", "tail", "less", "more", "base64", "base32", "xxd",
                     "od", "hexdump", "strings", "tar", "zip", "7z", "gzip", "bzip2", "xz",
                     "zstd", "gpg", "openssl", "sed", "awk", "gawk", "grep", "egrep", "jq",
                     "yq", "cut", "sort", "dd", "get-content", "gc", "type", "sqlite3",
                     "security", "env", "printenv", "set", "export", "declare", "typeset",
                     "get-childitem", "gci", "dir", "ls"})  # fmt: skip
#: CLIs printing an access token, and the subcommands that do (``gh auth token``)
TOKEN_PRINTERS = {
    "gh": ("auth token",),
    "gcloud": ("auth print-access-token", "auth print-identity-token",
               "auth application-default print-access-token"),
    "az": ("account get-access-token",),
    "aws": ("configure export-credentials", "sts get-session-token", "ecr get-login-password"),
    "op": ("read", "item get"),
}  # fmt: skip

K_FETCH, K_DECODE, K_READ, K_RUN, K_SHELL, K_NET, K_SINK, K_SELF, K_TOKEN = (
    1 << i for i in range(9)
)


def _kinds() -> dict[str, int]:
    kinds: dict[str, int] = {}
    for names, bit in (
        (FETCHERS | {"new-object"}, K_FETCH), (DECODERS, K_DECODE), (READERS, K_READ),
        (RUNNERS, K_RUN), (SHELLS | INTERPS | PWSH, K_SHELL),
        (NETWORK | {"openssl"}, K_NET), (SINKS, K_SINK),
        (SINKS | PWSH | {"nc", "ncat", "netcat", "socat"}, K_SELF),
        (frozenset(TOKEN_PRINTERS), K_TOKEN),
    ):  # fmt: skip
        for name in names:
            kinds[name] = kinds.get(name, 0) | bit
    return kinds


#: what each command name may do (a bit per role)
KIND = _kinds()
#: names that start a command wherever they stand after an unknown word (not English
#: words: "more", "set", "type", "then" are no command in "Read more | ...")
STRONG = (
    FETCHERS | RUNNERS | NETWORK | SINKS | PWSH | SHELLS
    | {"base64", "base32", "basenc", "xxd", "uudecode", "env", "printenv", "cat", "tar", "zip",
       "security", "sudo", "doas", "xargs", "busybox", "new-object", "gh", "gcloud", "az"}
) - {"source", ".", "eval", "fetch", "http", "https", "host", "mail"}  # fmt: skip
