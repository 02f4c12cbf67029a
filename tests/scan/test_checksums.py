"""A fetched file checked against a digest the text pins before it runs
(skillpack.scan.checksums): the practice SP521's hint recommends is no download-and-run
finding when the check gates the run. Before, a script doing it was an SP520 error and
install refused the skill. Every way the check can fail to gate keeps the finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillpack.scan.checksums import checked_files, errexit_since, exit_group, gated
from skillpack.scan.shell import ShellLine
from tests.conftest import run_cli
from tests.lintutil import download_codes

H = "7f83b1657ff1fc53b92dc18148a1d65dfc2d4b1fa3d677284addd200126d9069"
H512 = "ab" * 64
URL = "https://example.com/tool.sh"
FETCH = f"curl -fsSLo /tmp/tool.sh {URL}"
CHECK = f'echo "{H}  /tmp/tool.sh" | sha256sum -c -'
RUN = "sh /tmp/tool.sh"


@pytest.mark.parametrize(
    "text",
    [
        # set -e: the check's failure ends the script
        f"#!/bin/sh\nset -eu\n{FETCH}\n{CHECK}\n{RUN}\n",
        f"#!/bin/bash\nset -euo pipefail\n{FETCH}\n{CHECK}\nchmod +x /tmp/tool.sh\n{RUN}\n",
        f"#!/bin/sh\nset -o errexit\n{FETCH}\n{CHECK}\n{RUN}\n",
        f"#!/bin/sh -e\n{FETCH}\n{CHECK}\n{RUN}\n",
        f"#!/bin/sh\nset -e\nlog() {{\n  echo \"$@\"\n}}\n{FETCH}\n{CHECK}\nlog ok\n{RUN}\n",
        # a && list before || exit: the exit runs unless both passed
        f"#!/bin/sh\n{FETCH}\ncd /tmp && {CHECK} || exit 1\n{RUN}\n",
        # || exit, with or without set -e
        f"#!/bin/sh\n{FETCH}\n{CHECK} || exit 1\n{RUN}\n",
        f"#!/bin/sh\n{FETCH}\n{CHECK} || return 1\n{RUN}\n",
        # the check and the run chained on one line
        f"#!/bin/sh\n{FETCH}\n{CHECK} && {RUN}\n",
        f"#!/bin/sh\n{FETCH}\n{CHECK} && chmod +x /tmp/tool.sh && /tmp/tool.sh\n",
        f"#!/bin/sh\n{FETCH}\n{CHECK} || exit 1; {RUN}\n",
        # || a group on the check's line that always ends the script
        f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ echo 'bad checksum' >&2; exit 1; }}\n{RUN}\n",
        f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ exit 1; }}\n{RUN}\n",
        f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ rm -f /tmp/tool.sh; echo bad; return 2; }}\n{RUN}\n",
        f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ echo bad; exit 1; }}; {RUN}\n",
        # the group over several lines, closed before the run
        f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  echo 'bad checksum' >&2\n  exit 1\n}}\n{RUN}\n",
        f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n\n  # say why\n  rm -f /tmp/tool.sh; exit 1\n}}\n"
        f"chmod +x /tmp/tool.sh\n{RUN}\n",
        # all on one line
        f"#!/bin/sh\n{FETCH} && {CHECK} && {RUN}\n",
        # a here-string, printf, shasum, SHA-512, a binary-mode '*', a relative name
        f"#!/bin/sh\nset -e\n{FETCH}\nsha256sum -c <<< \"{H}  /tmp/tool.sh\"\n{RUN}\n",
        f"#!/bin/sh\nset -e\n{FETCH}\nprintf '%s  %s\\n' {H} /tmp/tool.sh | sha256sum --check\n"
        f"{RUN}\n",
        f"#!/bin/sh\nset -e\n{FETCH}\necho \"{H} */tmp/tool.sh\" | shasum -a 256 -c\n{RUN}\n",
        f"#!/bin/sh\nset -e\n{FETCH}\necho \"{H512}  /tmp/tool.sh\" | sha512sum -c -\n{RUN}\n",
        f"#!/bin/sh\nset -e\ncurl -fsSLo tool.sh {URL}\necho \"{H}  tool.sh\" | sha256sum -c\n"
        "./tool.sh\n",
    ],
)  # fmt: skip
def test_a_gating_check_of_a_pinned_digest_leaves_the_run_alone(text: str) -> None:
    assert download_codes("scripts/install.sh", text) == []


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # no set -e and no || exit: the run happens whether the check passed or not
        (f"#!/bin/sh\n{FETCH}\n{CHECK}\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n{CHECK}; {RUN}\n", 3),
        # the check's failure ignored
        (f"#!/bin/sh\nset -e\n{FETCH}\n{CHECK} || true\n{RUN}\n", 5),
        (f"#!/bin/sh\nset -e\n{FETCH}\n{CHECK} || echo mismatch\n{RUN}\n", 5),
        # set -e switched off before the check, or the check in an && list (set -e
        # does not stop a script there)
        (f"#!/bin/sh\nset -e\n{FETCH}\nset +e\n{CHECK}\n{RUN}\n", 6),
        (f"#!/bin/sh\nset -e\n{FETCH}\ncd /tmp && {CHECK}\n{RUN}\n", 5),
        # the check after the run, or of another file
        (f"#!/bin/sh\nset -e\n{FETCH}\n{RUN}\n{CHECK}\n", 4),
        (f"#!/bin/sh\nset -e\n{FETCH}\necho \"{H}  /tmp/other.sh\" | sha256sum -c -\n{RUN}\n", 5),
        # the same last part in another directory: not the file that runs
        (f"#!/bin/sh\nset -e\n{FETCH}\necho \"{H}  tool.sh\" | sha256sum -c -\n{RUN}\n", 5),
        # no pinned digest: a checksum file, a digest too short, only printed, not -c
        (f"#!/bin/sh\nset -e\n{FETCH}\nsha256sum -c /tmp/tool.sh.sha256\n{RUN}\n", 5),
        (f"#!/bin/sh\nset -e\n{FETCH}\necho \"{H[:40]}  /tmp/tool.sh\" | sha256sum -c -\n"
         f"{RUN}\n", 5),
        (f"#!/bin/sh\nset -e\n{FETCH}\nsha256sum /tmp/tool.sh\n{RUN}\n", 5),
        (f"#!/bin/sh\nset -e\n{FETCH}\necho \"{H}  /tmp/tool.sh\" | sha256sum\n{RUN}\n", 5),
        # one line: the check does not gate the run
        (f"#!/bin/sh\n{FETCH} && {CHECK} || {RUN}\n", 2),
        (f"#!/bin/sh\n{FETCH} && {CHECK} & {RUN}\n", 2),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || exit 1 & {RUN}\n", 3),
        # the check negated, in the background, or where it may never run
        (f"#!/bin/sh\nset -e\n{FETCH}\n! {CHECK}\n{RUN}\n", 5),
        (f"#!/bin/sh\nset -e\n{FETCH}\n{CHECK} &\n{RUN}\n", 5),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || exit 1 &\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\nif false; then {CHECK} || exit 1; fi\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\nwhile false; do {CHECK} || exit 1; done\n{RUN}\n", 4),
        (f"#!/bin/sh\nset -e\n{FETCH}\nif false; then\n{CHECK}\nfi\n{RUN}\n", 7),
        (f"#!/bin/sh\nset -e\n{FETCH}\nverify() {{\n{CHECK}\n}}\n{RUN}\n", 7),
        (f"#!/bin/sh\n{FETCH}\nverify() {{ {CHECK} || exit 1; }}\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\ncat <<EOF\n{CHECK} || exit 1\nEOF\n{RUN}\n", 6),
        (f"#!/bin/sh\n{FETCH}\n# {CHECK} || exit 1\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n( {CHECK} || exit 1 )\n{RUN}\n", 4),
        # a group that may not end the script, or that the run is in
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ echo bad; }}\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ exit 1 & }}\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ ( exit 1 ); }}\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ false && exit 1; }}\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ exit 1; echo; }}\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ if true; then exit 1; fi; }}\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ echo bad; exit 1; }} &\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ echo bad; exit 1; }} | cat\n{RUN}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{exit 1;}}\n{RUN}\n", 4),  # '{exit' is a word
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{ {RUN}; exit 1; }}\n", 3),
        # a group over several lines that may not end the script, that the run is in,
        # or that does not close before the run
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  echo bad\n}}\n{RUN}\n", 6),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  exit 1\n  echo after\n}}\n{RUN}\n", 7),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  exit 1 &\n}}\n{RUN}\n", 6),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  {RUN}\n  exit 1\n}}\n", 4),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  echo bad\n  exit 1\n{RUN}\n}}\n", 6),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  if true; then exit 1; fi\n}}\n{RUN}\n", 6),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  (exit 1)\n}}\n{RUN}\n", 6),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  false && exit 1\n}}\n{RUN}\n", 6),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  exit 1\n}} &\n{RUN}\n", 6),
        (f"#!/bin/sh\n{FETCH}\n{CHECK} && {{\n  exit 1\n}}\n{RUN}\n", 6),
        (f"#!/bin/sh\n{FETCH}\nfalse || {{\n  exit 1\n}}\n{CHECK}\n{RUN}\n", 7),
        (f"#!/bin/sh\n{FETCH}\n{{ echo bad; exit 1; }} || {CHECK}\n{RUN}\n", 4),
        # set -e given in a function never called
        (f"#!/bin/sh\nstrict() {{\nset -e\n}}\n{FETCH}\n{CHECK}\n{RUN}\n", 7),
    ],
)  # fmt: skip
def test_a_check_that_does_not_gate_keeps_the_error(text: str, line: int) -> None:
    assert download_codes("scripts/install.sh", text) == [("SP520", line)]


def test_markdown_code_needs_the_check_to_stop_the_run_itself() -> None:
    """An agent runs Markdown's lines one by one: ``set -e`` means nothing there, so a
    check on its own line gates nothing, and ``|| exit`` or ``&&`` does."""
    fence = f"```sh\n{FETCH}\n{{}}\n{RUN}\n```\n"
    # curl from a named HTTPS host shown in Markdown code: SP521 (a warning)
    assert download_codes("SKILL.md", fence.format(CHECK)) == [("SP521", 4)]
    assert download_codes("SKILL.md", fence.format("set -e\n" + CHECK)) == [("SP521", 5)]
    assert download_codes("SKILL.md", fence.format(CHECK + " || exit 1")) == []
    assert download_codes("SKILL.md", fence.format(CHECK + " || { echo bad; exit 1; }")) == []
    assert download_codes("SKILL.md", fence.format(CHECK + " || {\n  exit 1\n}")) == []
    one_line = f"```sh\n{FETCH}\n{CHECK} && {RUN}\n```\n"
    assert download_codes("SKILL.md", one_line) == []


def test_the_checked_files_are_the_ones_the_digest_line_names() -> None:
    parsed = ShellLine(f'echo "{H}  a.sh" "{H} *b.sh" | sha256sum -c -', False)
    cmds = parsed.frames[0].cmds
    assert checked_files(parsed, cmds, 1) == {"a.sh", "b.sh"}
    assert checked_files(parsed, cmds, 0) == set()  # echo checks nothing
    parsed = ShellLine(f"sha256sum -c <<< '{H}  ./c.sh'", False)
    assert checked_files(parsed, parsed.frames[0].cmds, 0) == {"c.sh"}
    parsed = ShellLine(f"sha256sum <<< '{H}  c.sh'", False)  # no -c: it hashes stdin
    assert checked_files(parsed, parsed.frames[0].cmds, 0) == set()


def test_gated_follows_the_and_or_list() -> None:
    parsed = ShellLine(f"{CHECK} && a && b; c", False)
    # echo (0) | sha256sum (1) && a (2) && b (3); c (4)
    assert gated(parsed, parsed.frames[0]) == {2: {"/tmp/tool.sh"}, 3: {"/tmp/tool.sh"}}
    # echo (0) | sha256sum (1) || exit (2); c (3); d (4)
    parsed = ShellLine(f"{CHECK} || exit 1; c; d", False)
    assert gated(parsed, parsed.frames[0]) == {3: {"/tmp/tool.sh"}, 4: {"/tmp/tool.sh"}}
    parsed = ShellLine(f"{CHECK} || true; c", False)
    assert gated(parsed, parsed.frames[0]) == {}
    # echo (0) | sha256sum (1) || { a (2); exit (3); } (4); c (5): the group runs when
    # the check failed, and is not gated
    parsed = ShellLine(f"{CHECK} || {{ a; exit 1; }}; c", False)
    assert gated(parsed, parsed.frames[0]) == {5: {"/tmp/tool.sh"}}


@pytest.mark.parametrize(
    ("line", "end"),
    [
        ("{ exit 1; }", 1),
        ("{ echo bad >&2; rm -f x; exit 3; }; c", 3),
        ("{ return; }", 1),
        ("{ echo bad; }", None),
        ("{ exit 1 & }", None),
        ("{ a && exit 1; }", None),
        ("{ exit 1; } &", None),
        ("{ exit 1; } | cat", None),
        ("{ exit 1; } >&2", None),
        ("{exit 1;}", None),
        ("{ while :; do exit; done; }", None),
        ("{ echo bad", None),
        ("echo { exit 1; }", None),
    ],
)
def test_a_group_ends_the_script_only_when_it_always_exits(line: str, end: int | None) -> None:
    parsed = ShellLine(line, False)
    assert exit_group(parsed, parsed.frames[0].cmds, 0) == end


@pytest.mark.parametrize(
    ("text", "on"),
    [
        ("set -e\n", True),
        ("set -euo pipefail\n", True),
        ("set -o errexit\n", True),
        ("set -e\nset +e\n", False),
        ("set -e\nset +o errexit\n", False),
        ("set -u\n", False),
        ("set -o pipefail\n", False),
        ("#!/bin/sh -e\n", True),
        ("#!/usr/bin/env bash\n", False),
        ("# set -e\n", False),
        ("echo set -e\n", False),
    ],
)
def test_errexit(text: str, on: bool) -> None:
    assert (errexit_since(text + "x\n", len(text)) is not None) is on


def test_install_admits_a_script_that_checks_its_download(tmp_path: Path) -> None:
    """The real CLI: lint passes the checked install script (no error, nothing at all
    from the download rules) and fails the same script without its check; a group that
    exits when the check fails gates the run after it, not the run inside it."""
    skill = tmp_path / "skills" / "tool"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: tool\ndescription: Installs the tool, checked by its digest.\n---\n\n"
        "Run `scripts/install.sh`.\n"
    )
    script = skill / "scripts" / "install.sh"
    script.write_text(f"#!/bin/sh\nset -eu\n{FETCH}\n{CHECK}\n{RUN}\n")
    result = run_cli("lint", str(tmp_path), "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SP52" not in result.stdout
    script.write_text(f"#!/bin/sh\nset -eu\n{FETCH}\n{RUN}\n")
    result = run_cli("lint", str(tmp_path), "--format", "json")
    assert result.returncode == 1
    assert '"SP520"' in result.stdout
    # the check's failure handled by a group that exits: a gate; the run inside it: none
    group = "{\n  echo 'bad checksum' >&2\n  exit 1\n}"
    script.write_text(f"#!/bin/sh\n{FETCH}\n{CHECK} || {group}\n{RUN}\n")
    result = run_cli("lint", str(tmp_path), "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SP52" not in result.stdout
    script.write_text(f"#!/bin/sh\n{FETCH}\n{CHECK} || {{\n  {RUN}\n  exit 1\n}}\n")
    result = run_cli("lint", str(tmp_path), "--format", "json")
    assert result.returncode == 1
    assert '"SP520"' in result.stdout
