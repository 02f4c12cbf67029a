"""The frontmatter fast path gives exactly what the ruamel event walk gives, or nothing.

``fast_parse`` is checked against the reference path (``check_block`` then
``walk_events``, ruamel.yaml's event stream): a hypothesis property over blocks built
from tricky pieces, every SKILL.md of the examples, the sample tree and the shared
corpus (when present), and the public ``parse_skill_md``. Its notion of printable
characters is checked against ruamel.yaml's reader (the reason ruamel.yaml is pinned to
one minor series).
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from skillpack.source.frontmatter import (
    FrontmatterError,
    KeyPath,
    parse_skill_md,
    parse_yaml_subset,
)
from skillpack.source.frontmatter.events import walk_events
from skillpack.source.frontmatter.fastpath import FAST_UNSAFE, fast_parse
from skillpack.source.frontmatter.text import check_block
from tests.conftest import EXAMPLES, SAMPLE, public_trees

Positions = dict[KeyPath, tuple[int, int]]

ORDINARY_KEYS = ["name", "description", "license", "metadata", "owner", "a", "b_c", "x.y"]
ORDINARY_VALUES = [
    "x", "skill-0001", "Apache-2.0", "Complete terms in LICENSE.txt", "team-1", "1", "0",
    "1.5", "Bash(git:*) Read", '"1.1"', "'2'", "true", "héllo", "http://x", "a, b.", "x  ",
]  # fmt: skip
KEYS = [
    "name", "description", "license", "metadata", "version", "a", "b_c", "x.y", "k-1",
    "_k", "K", "inf", "nan", "e1", "true", "True", "null", "NULL", "1", "on", "y", "no",
    "<<", "=", "~", "-k", "a b", "k:", '"q"', "'q'", "x" * 99, "x" * 100, "x" * 101,
]  # fmt: skip
VALUES = [
    "", "x", "skill-0001", "Apache-2.0", "Complete terms in LICENSE.txt", "team-1",
    "1", "-1", "+1", "0", "1.5", ".5", "1.", "1e3", "1e+3", "1.5e-3", "0o7", "012", "0x1F",
    "0b101", "1_000", "12:30", "1:2:3", "9007199254740991", "9007199254740993", "1e400",
    "yes", "no", "On", "y", "~", "null", "Null", "true", "False", ".inf", "-.inf", ".nan",
    "2024-01-02", "2024-1-2 10:00:00", "http://x", "https://e.com/a?b=c#d", "a:b", "a: b",
    "a:", "a #b", "a#b", "#x", "-x", "- x", "-", "--", "---", "...", "a ---", "?x", "? x",
    ":x", ": x", "[x]", "{x}", "x]", "x}", "a, b", "&a x", "*a", "!t x", "!!str 1", "|",
    "|-", ">", ">-", "%x", "@x", "`x`", "=", "<<", "Bash(python3:*) Read",
    '"q"', '""', '"a b"', '"a\\"b"', '"a\\nb"', "\"a'b\"", '"a', 'a"', '"a" b', '"x" # c',
    "'s'", "''", "'it''s'", "'a\"b'", "'a\\b'", "'a", "'x' ", '"x"   ', "x # c",
    "héllo", "日本語", "emoji \U0001f389", "a  b", "x ", "x   ", "a\u00a0b", "a:\u00a0b",
    "x\u00a0", "\u00a0x", "plain text, with commas.", "x\ty", "\tx", "\ufeffx", "x\x7f",
    "x\x01", "x\x85y", "x\u2028y", "x\ufffe", "\ue000", "\uff01", "x\ry",
]  # fmt: skip
SEPARATORS = [": "] * 8 + [":", ":  ", " : ", ":\t", ": \t"]
ODD_LINES = [
    "", "", "  ", "# c", "  # c", "#", " #x", "- x", "  - x", "---", "...", "just text",
    "key", "? k", ": v", "%YAML 1.2", "\t", "  ...", "\ufeff", "[a, b]", "{a: 1}",
]  # fmt: skip
INDENTS = [0] * 6 + [1, 2, 2, 2, 3, 4, 4]


def reference(block: str, line_offset: int = 0) -> tuple[object, Positions] | FrontmatterError:
    """The ruamel path: the raw-text checks, then the event walk, bypassing the fast path."""
    positions: Positions = {}
    try:
        check_block(block, line_offset)
        return walk_events(block, line_offset, positions), positions
    except FrontmatterError as exc:
        return exc


def assert_same(block: str, line_offset: int = 0) -> bool:
    """Assert the fast path agrees with the ruamel path; True when it handled ``block``."""
    fast = fast_parse(block, line_offset)
    if fast is None:
        return False
    expected = reference(block, line_offset)
    assert not isinstance(expected, FrontmatterError), (block, expected)
    data, positions = fast
    # repr tells 1 from True from 1.0 and shows key order
    assert repr(data) == repr(expected[0]), block
    assert list(positions.items()) == list(expected[1].items()), block
    return True


def _key(rng: random.Random) -> str:
    return rng.choice(ORDINARY_KEYS if rng.random() < 0.85 else KEYS)


def _entry(rng: random.Random, indent: int) -> str:
    separator = ": " if rng.random() < 0.9 else rng.choice(SEPARATORS)
    value = rng.choice(ORDINARY_VALUES if rng.random() < 0.8 else VALUES)
    return " " * indent + _key(rng) + separator + value


def tricky_block(rng: random.Random) -> str:
    lines: list[str] = []
    indent = 0
    for _ in range(rng.randint(1, 7)):
        roll = rng.random()
        if roll < 0.1:
            lines.append(rng.choice(ODD_LINES))
            continue
        if roll < 0.45:  # open a nested mapping, usually indented the ordinary way
            lines.append(" " * indent + _key(rng) + rng.choice([":", ":", ":  "]))
            indent += rng.choice([2, 2, 2, 1, 3, 4, 0])
        elif roll < 0.6:  # dedent: to an open level or anywhere
            indent = rng.choice([0, 0, max(indent - 2, 0), rng.choice(INDENTS)])
        lines.append(_entry(rng, indent))
    ending = rng.choice(["\n"] * 12 + ["\r\n", "\r\n", "mixed", "\r"])
    if ending == "mixed":
        return "".join(line + rng.choice(["\n", "\r\n"]) for line in lines)
    return ending.join(lines) + rng.choice([ending, ending, ""])


def realistic_block(rng: random.Random) -> str:
    words = ["Tag", "folder", "verify", "build", "policy", "archive", "commit", "report"]
    description = " ".join(rng.choice(words) for _ in range(rng.randint(3, 20))) + "."
    lines = [f"name: skill-{rng.randint(0, 9999):04d}", f"description: {description}"]
    if rng.random() < 0.7:
        lines.append(rng.choice(["license: Apache-2.0", "license: Complete terms in LICENSE.txt"]))
    if rng.random() < 0.5:
        lines.append("allowed-tools: Bash(git:*) Read")
    if rng.random() < 0.7:
        lines += ["metadata:", f"  owner: team-{rng.randint(1, 9)}"]
        lines.append(rng.choice(['  version: "1.1"', "  version: '2'", "  reviewed: true"]))
    return "\n".join(lines) + "\n"


def test_fast_path_agrees_with_ruamel_on_tricky_blocks() -> None:
    rng = random.Random(2640)
    cases = 6000
    blocks = [tricky_block(rng) for _ in range(cases)]
    handled = [block for block in blocks if assert_same(block, rng.choice([0, 1, 7]))]
    # the grammar must exercise the fast path, not only its fallbacks
    assert len(handled) > cases // 5
    assert sum("\r\n" in block for block in handled) > 50
    nested = [block for block in handled if "\n  " in block.replace("\r\n", "\n")]
    assert len(nested) > 100


#: characters that matter to YAML's grammar and to the scalar resolvers, for drawn values
VALUE_ALPHABET = "ab yZ019._-+:#'\"\\,[]{}&*!|>%@`?~=<\t\u00a0\u00e9\u2028\x85\ufeff\U0001f389"


@st.composite
def drawn_blocks(draw: st.DrawFn) -> tuple[str, int]:
    """A block of entry lines, nested mappings, odd lines and drawn values, with its line
    offset: the same pieces as :func:`tricky_block`, drawn by hypothesis (so a failure
    shrinks to a small block)."""
    ordinary = st.sampled_from(ORDINARY_VALUES)
    values = st.one_of(
        ordinary, ordinary, ordinary, st.sampled_from(VALUES), st.text(VALUE_ALPHABET, max_size=8)
    )
    keys = st.sampled_from(ORDINARY_KEYS * 4 + KEYS)
    lines: list[str] = []
    indent = 0
    for _ in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["entry"] * 5 + ["open"] * 3 + ["dedent"] * 2 + ["odd"]))
        if kind == "odd":
            lines.append(draw(st.sampled_from(ODD_LINES)))
            continue
        if kind == "open":
            lines.append(" " * indent + draw(keys) + draw(st.sampled_from([":", ":  "])))
            indent += draw(st.sampled_from([2, 1, 3, 4, 0]))
        elif kind == "dedent":
            indent = draw(st.sampled_from([0, max(indent - 2, 0), *INDENTS]))
        separator = draw(st.sampled_from([": "] * 20 + SEPARATORS))
        lines.append(" " * indent + draw(keys) + separator + draw(values))
    ending = draw(st.sampled_from(["\n"] * 6 + ["\r\n", "\r\n", "\r"]))
    final = draw(st.sampled_from([ending, ""]))
    return ending.join(lines) + final, draw(st.sampled_from([0, 1, 7]))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn_blocks())
@example(("name: x\nmetadata:\n  owner: a\n  deep:\n    k: 1\n  after: 2\ntop: 3\n", 1))
@example(("a: '1'\r\nb: \"x y\"\r\n", 0))
def test_fast_path_agrees_with_ruamel_property(case: tuple[str, int]) -> None:
    """Whatever block the fast path handles, it reads exactly as the event walk does."""
    block, line_offset = case
    assert_same(block, line_offset)


@st.composite
def plain_blocks(draw: st.DrawFn) -> str:
    """Blocks the fast path mostly handles: entry lines and nested mappings indented the
    ordinary way, with drawn one-line values (plain, quoted, odd characters)."""
    scalar = st.text(VALUE_ALPHABET.replace("\t", ""), min_size=1, max_size=10)
    values = st.one_of(
        st.sampled_from(ORDINARY_VALUES),
        scalar,
        scalar.map(lambda v: f'"{v}"'),
        scalar.map(lambda v: f"'{v}'"),
    )
    lines: list[str] = []
    depth = 0
    for _ in range(draw(st.integers(1, 8))):
        key = draw(st.sampled_from(ORDINARY_KEYS + KEYS[:12]))
        if depth < 3 and draw(st.integers(0, 3)) == 0:
            lines.append("  " * depth + key + ":")
            depth += 1
            continue
        lines.append("  " * depth + key + ": " + draw(values))
        depth = draw(st.integers(0, depth))
    return "\n".join(lines) + "\n"


@settings(max_examples=1500, deadline=None)
@given(plain_blocks(), st.sampled_from([0, 1, 7]))
def test_fast_path_agrees_with_ruamel_on_plain_blocks_property(block: str, offset: int) -> None:
    assert_same(block, offset)


def test_fast_path_leaves_to_ruamel_every_character_ruamel_refuses() -> None:
    """The fast path's copy of ruamel.yaml's printable characters is not wider than the
    original: a character ruamel's reader refuses never reaches the line reader."""
    from ruamel.yaml.reader import Reader

    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    refused = set(Reader.NON_PRINTABLE.findall(every))
    assert refused  # the class still exists and still refuses something
    assert all(FAST_UNSAFE.match(c) for c in refused)


def test_fast_path_refuses_exactly_the_characters_outside_its_printable_ranges() -> None:
    printable = re.compile(
        "[\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
    )
    for code in range(sys.maxunicode + 1):
        c = chr(code)
        assert bool(FAST_UNSAFE.match(c)) != bool(printable.match(c)), hex(code)


def test_fast_path_handles_realistic_blocks() -> None:
    rng = random.Random(1)
    blocks = [realistic_block(rng) for _ in range(300)]
    assert all(assert_same(block, 1) for block in blocks)


@pytest.mark.parametrize(
    "block",
    [
        "name: x\nmetadata:\n  owner: a\n  deep:\n    k: 1\n  after: 2\ntop: 3\n",
        "m:\n\n  # comment\n  k: v\n",  # blank and comment lines before the first child
        "m:   \n  k: v\n",  # trailing spaces after an empty value
        "a:\n# c\nb: 1\n",  # an empty value before a comment: null
        "a:\n  b:\nc:\n",  # nulls at two levels
        "a: x\r\nm:\r\n  k: 'v'\r\n",
        "q: \"\"\ns: ''\nd: \"a 'b' #c: d\"\n",
    ],
)
def test_fast_path_handles_and_agrees(block: str) -> None:
    assert assert_same(block, 1)


@pytest.mark.parametrize(
    "block",
    [
        "",
        "# only a comment\n",
        "a: b\n  c\n",  # a multi-line plain scalar
        "a: b\n  c: d\n",  # a deeper entry after a value: ruamel refuses
        "a:\n    b: 1\n  c: 2\n",  # a dedent between levels
        " a: 1\n",  # the first entry indented
        "a: 1 # note\n",
        "a: 1\na: 2\n",  # duplicate: ruamel's SP010
        "true: x\n",  # a key that is not a string: SP009
        "a: yes\n",  # ambiguous: SP013
        "a:\n- x\n",
        "a:\tb\n",
        "a: b\rc: d\n",
        "a:\n b:\n  c:\n   d:\n    e: 1\n",  # deeper than the fast path goes
    ],
)
def test_fast_path_leaves_doubtful_blocks_to_ruamel(block: str) -> None:
    assert fast_parse(block, 0) is None


def test_refusals_are_unchanged() -> None:
    # the fast path never refuses: ruamel's walk gives the exact error, position included
    for block in ("a: 1\na: 2\n", "a: yes\n", "1: x\n", "a: 9007199254740993\n"):
        expected = reference(block, 4)
        assert isinstance(expected, FrontmatterError)
        with pytest.raises(FrontmatterError) as info:
            parse_yaml_subset(block, 4)
        assert (info.value.code, info.value.line, info.value.column) == (
            expected.code,
            expected.line,
            expected.column,
        )


def _skill_files() -> list[Path]:
    roots = [EXAMPLES, SAMPLE, *public_trees()]
    return sorted(path for root in roots for path in root.rglob("SKILL.md"))


@pytest.mark.parametrize("path", _skill_files(), ids=str)
def test_every_example_and_corpus_skill_reads_the_same(path: Path) -> None:
    document = parse_skill_md(path.read_bytes())
    expected = reference(document.block, document.block_line - 1)
    assert not isinstance(expected, FrontmatterError)
    assert repr(document.data) == repr(expected[0])
    assert list(document.positions.items()) == list(expected[1].items())
    if path.is_relative_to(EXAMPLES):
        # the examples are all plain frontmatter: the fast path reads every one
        assert assert_same(document.block, document.block_line - 1)
