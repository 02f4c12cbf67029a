"""The scan ends on any text: shell-like token soup, as a script and in Markdown code.

A scan that never ends stops the consumer that runs it (lint, and install, pull and
serve admitting a bundle): each example is scanned under an alarm that turns a hang
into a failure. The tokens are the ones the command rules follow (fetches and their
output files, directories among them, redirections, substitutions, variables, secrets,
quotes, continuations, emphasis)."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillpack.scan import scan_file

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs SIGALRM")

TOKENS = [
    "curl", "wget", "-o", "-O", "-o /tmp/x/", "-F f=@", "-d", "@", "/tmp/x/", "/tmp/k", "k",
    "'", '"', "$(", ")", "`", "|", ";", "&&", "||", ">", "<", ">>", "cat", "~/.ssh/id_rsa",
    "~/.aws/credentials", "env", "\n", "\\\n", "$k", "${k}", "k=", "eval", "sh", "bash",
    "-c", "base64 -d", "nc -e", "/dev/tcp/1.2.3.4/9", "https://x.invalid/a", " ", "#",
    "<<EOF", "EOF", "*", "_", "__", "**", "```", "!`", "iex", "iwr", "(", "{", "}", "tee",
    "./k", ". ", "source", "python3 -c", "exec(", "base64.b64decode(", "\t", "é", "\u200b",
    "\u202e", "$'\\n'", "cd /tmp", "x/", "''", '""', "\\", "=", "&", "2>&1", "<(", "xargs",
]  # fmt: skip
SOUP = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=80).map(" ".join)


class Hang(Exception):
    pass


@contextmanager
def ends_within(seconds: int) -> Iterator[None]:
    def alarm(signum: int, frame: object) -> None:
        raise Hang(f"the scan did not end within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@settings(max_examples=1500, deadline=None)
@given(SOUP)
def test_the_scan_ends_on_any_shell_text(text: str) -> None:
    for path, body in (
        ("scripts/x.sh", text),
        ("SKILL.md", f"# T\n\n```sh\n{text}\n```\n\n{text}"),
    ):
        with ends_within(20):
            findings = scan_file(path, body.encode("utf-8", "surrogatepass"))
        assert all(f.line >= 1 and f.column >= 1 for f in findings)


def test_the_alarm_turns_a_hang_into_a_failure() -> None:
    with pytest.raises(Hang), ends_within(1):
        while sys.maxsize:
            pass
