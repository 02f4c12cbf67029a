"""The shell rules judged on a parsed logical line: what flows from one command to the
next (a fetch or decoded data piped into a shell, a shell wired to a network tool, a
secret piped into one), what a command does by its own options (``nc -e``,
``powershell -enc``, a secret sent as a file), a substitution whose output is run or
sent (``bash -c "$(curl ...)"``, ``curl -d "$(cat ~/.ssh/id_rsa)"``) and a file
fetched or decoded, then run. Commands are judged, not characters: a fetch piped into
a shell however long its arguments.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from skillpack.scan.actions import (
    decodes,
    fetch_outputs,
    fetches,
    known_secret,
    normal_path,
    prints_token,
    ran_file,
    reads_secret,
    runs_stdin,
    sends_stdin,
    sent_files,
    written_files,
)
from skillpack.scan.checksums import gated, verified
from skillpack.scan.programs import (
    ARGUMENT_SINKS,
    K_DECODE,
    K_FETCH,
    K_NET,
    K_READ,
    K_RUN,
    K_SELF,
    K_SHELL,
    K_SINK,
    K_TOKEN,
    KIND,
    PS_RUN,
    PWSH,
    SCRIPT_RUNNERS,
    SINKS,
)
from skillpack.scan.secrets import flow_secret
from skillpack.scan.shell import Command, Frame, Head, ShellLine, unquote
from skillpack.scan.text import Lazy

_I = re.IGNORECASE

#: what a group or substitution does somewhere in it (:attr:`Frame.roles`), a bit each
_ROLE_FETCH = 1
_ROLE_DECODE = 2
_ROLE_READ = 4


@dataclass(slots=True)
class Found:
    """A shell rule's finding on a logical line."""

    at: int  #: offset in the logical line
    rule: str
    message: str = ""
    urls: tuple[int, int] = (0, 0)  #: where the fetch's URLs are (download rules)


def _what(secret: str) -> str:
    return secret if secret.startswith("the ") else repr(secret)


def judge_shell(
    parsed: ShellLine, rules: Collection[str], known: Mapping[str, str] | None = None
) -> Iterator[Found]:
    """The findings of the shell rules in ``rules`` on one parsed logical line (the
    caller may take a rule out of ``rules`` once it has its finding: it is looked at
    again at each step); ``known``: files that earlier lines wrote a secret to, by
    path, read as that secret (:mod:`.stashed`)."""
    line = parsed.line
    markdown = parsed.markdown
    then_run = "download-then-run" in rules or "decode-then-run" in rules
    # children first: a frame's roles are known before its host's frame is judged
    for frame in reversed(parsed.frames):
        fetch: Command | None = None
        decode: Command | None = None
        network: Command | None = None
        shell: Command | None = None
        reader: tuple[Command, str] | None = None
        fetched: list[Command] = []  #: the fetches of the frame so far
        outputs: dict[str, Command] = {}  #: the files they write (filled when asked)
        pending = 0  #: fetched[pending:] not yet in outputs
        tainted: dict[str, str] = {}  #: files a secret was written to
        decoded: set[str] = set()  #: files decoded data was written to
        #: by command, the files a pinned digest's check gates (made when first needed)
        checks: dict[int, set[str]] | None = None
        for index, cmd in enumerate(frame.cmds):
            head = parsed.head(cmd)
            name = head.name if head else ""
            kind = KIND.get(name, 0)
            if head is not None and head.raw[0] == "$":
                kind |= K_FETCH
            roles = 0
            for child in cmd.children:
                if child.kind != "`" or not markdown:
                    roles |= child.roles
            if kind & K_FETCH and fetches(parsed, cmd):
                roles |= _ROLE_FETCH
            if kind & K_DECODE and decodes(parsed, cmd):
                roles |= _ROLE_DECODE
            secret = ""
            if kind & K_READ or line.find("<", cmd.start, cmd.end) >= 0:
                secret = reads_secret(parsed, cmd, known)
                roles |= _ROLE_READ if secret else 0
            frame.roles |= roles
            # what flows into this command from the earlier ones of its pipeline
            if kind & K_RUN and (fetch or decode or network) and runs_stdin(parsed, cmd):
                if fetch is not None and "download-pipe" in rules:
                    yield Found(_at(parsed, fetch), "download-pipe", "", (fetch.start, fetch.end))
                if decode is not None and "decode-pipe" in rules:
                    yield Found(_at(parsed, decode), "decode-pipe")
                if network is not None and kind & K_SHELL and "shell-network-pipe" in rules:
                    yield Found(_at(parsed, network), "shell-network-pipe",
                                "runs commands it reads from a network connection")  # fmt: skip
            if (
                shell is not None
                and kind & K_NET
                and "shell-network-pipe" in rules
                and sends_stdin(parsed, cmd)
            ):
                yield Found(_at(parsed, shell), "shell-network-pipe",
                            "sends a shell's input and output over the network")  # fmt: skip
            if (
                reader is not None
                and kind & K_SINK
                and "exfil-pipe" in rules
                and sends_stdin(parsed, cmd)
            ):
                yield Found(_at(parsed, reader[0]), "exfil-pipe", _what(reader[1]))
            # the command itself
            if head is not None and kind & K_SELF:
                yield from _judge_command(parsed, cmd, head, rules, tainted, known)
            for child in cmd.children:
                yield from _judge_substitution(parsed, cmd, head, child, rules, known)
            # what a later command of the line may use
            runs_file = head is not None and (kind & K_RUN or "/" in head.raw or "\\" in head.raw)
            if then_run and (fetched or decoded) and runs_file:
                ran = ran_file(parsed, cmd)
                if ran and fetched and "download-then-run" in rules:
                    for earlier in fetched[pending:]:
                        for path in fetch_outputs(parsed, earlier):
                            outputs.setdefault(path, earlier)
                    pending = len(fetched)
                    source = outputs.get(ran) or outputs.get(ran.rsplit("/", 1)[-1])
                    if source is not None and source is not cmd:
                        checks = gated(parsed, frame) if checks is None else checks
                        if not verified(checks.get(index, set()), ran):
                            yield Found(_at(parsed, source), "download-then-run", "",
                                        (source.start, source.end))  # fmt: skip
                if (
                    ran
                    and (ran in decoded or ran.rsplit("/", 1)[-1] in decoded)
                    and "decode-then-run" in rules
                ):
                    yield Found(_at(parsed, cmd), "decode-then-run")
            if (
                (roles & _ROLE_DECODE or decode is not None)
                and then_run
                and line.find(">", cmd.start, cmd.end) >= 0
            ):
                redirects = parsed.args(cmd)[1]
                decoded.update(normal_path(unquote(t)) for op, t in redirects if op.endswith(">"))
            if roles & _ROLE_FETCH:
                fetched.append(cmd)
            if secret and cmd.sep not in ("|", "|&"):
                for path in written_files(parsed, cmd):
                    tainted[path] = secret
            # the pipeline goes on, or a new one starts
            if cmd.sep in ("|", "|&"):
                if roles:
                    fetch = cmd if roles & _ROLE_FETCH else fetch
                    decode = cmd if roles & _ROLE_DECODE else decode
                if kind & K_NET and sends_stdin(parsed, cmd):
                    network = cmd
                if kind & K_SHELL and runs_stdin(parsed, cmd):
                    shell = cmd
                token = secret or (prints_token(parsed, cmd) if kind & K_TOKEN else "")
                if token:
                    reader = (cmd, token)
            elif fetch or decode or network or shell or reader:
                fetch = decode = network = shell = None
                reader = None


def _judge_command(
    parsed: ShellLine,
    cmd: Command,
    head: Head,
    rules: Collection[str],
    tainted: dict[str, str],
    known: Mapping[str, str] | None = None,
) -> Iterator[Found]:
    """What one command does by itself: nc -e, socat exec:, powershell -enc, a secret
    (or a file a secret was written to) sent as a file."""
    name = head.name
    line = parsed.line
    if name in SINKS and ("exfil-file" in rules or "exfil-tempfile" in rules):
        for _, path in sent_files(parsed, cmd):
            plain = unquote(path)
            if plain in tainted:
                if "exfil-tempfile" in rules:
                    yield Found(head.at, "exfil-tempfile", _what(tainted[plain]))
            elif plain != "-" and "exfil-file" in rules:
                found = flow_secret(plain) or known_secret(known, plain)
                if found:
                    yield Found(head.at, "exfil-file", _what(found))
    for rule, names, pattern in _SELF_RULES:
        if name in names and rule in rules and pattern.search(line, head.after, cmd.end):
            yield Found(head.at, rule)


def _at(parsed: ShellLine, cmd: Command) -> int:
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
    ("powershell-encoded", PWSH, _PWSH_ENCODED),
    ("nc-exec", frozenset({"nc", "ncat", "netcat"}), _NC_EXEC),
    ("socat-exec", frozenset({"socat"}), _SOCAT_EXEC),
)
#: a code option before a substitution: sh -c "$(...)", python -c, perl -e, pwsh -Command
_CODE_FLAG = Lazy(r"^-(?:[a-z]*c|e|r|-?command|-eval)$", _I)


def _judge_substitution(
    parsed: ShellLine,
    cmd: Command,
    head: Head | None,
    child: Frame,
    rules: Collection[str],
    known: Mapping[str, str] | None = None,
) -> Iterator[Found]:
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
    elif head.name in PS_RUN:
        runs = kind in ("(", "$(")
    elif head.name in SCRIPT_RUNNERS and child is cmd.children[0]:
        words = []
        for at, word in parsed.words(cmd, head.after):
            if at >= opener:
                break
            plain = unquote(word)
            if plain.strip("\"'"):
                words.append(plain)
        if kind == "<(":
            runs = all(w.startswith("-") for w in words)
        elif kind in ("$(", "`"):
            runs = bool(words) and all(w.startswith("-") for w in words)
            runs = runs and bool(_CODE_FLAG.search(words[-1]))
    at = head.at if head is not None and before else opener
    if runs and roles & _ROLE_FETCH and "download-substitution" in rules:
        yield Found(at, "download-substitution", "", (child.start, child.end))
    if runs and roles & _ROLE_DECODE and "decode-substitution" in rules:
        yield Found(at, "decode-substitution")
    if (
        roles & _ROLE_READ
        and kind in ("$(", "`")
        and head is not None
        and before
        and head.name in ARGUMENT_SINKS
        and "exfil-substitution" in rules
    ):
        yield Found(head.at, "exfil-substitution", _what(_child_secret(parsed, child, known)))


def _child_secret(parsed: ShellLine, frame: Frame, known: Mapping[str, str] | None) -> str:
    for cmd in frame.cmds:
        found = reads_secret(parsed, cmd, known)
        if found:
            return found
        for child in cmd.children:
            found = _child_secret(parsed, child, known)
            if found != "a secret":
                return found
    return "a secret"
