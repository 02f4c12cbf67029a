"""The strict frontmatter reader: every refusal of issue section 4, with its position."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillpack.source.frontmatter import FrontmatterError, parse_skill_md


def _refusal(text: str | bytes) -> FrontmatterError:
    with pytest.raises(FrontmatterError) as info:
        parse_skill_md(text)
    return info.value


REFUSALS = [
    # (frontmatter lines, code, line, column) -- line 1 is the opening fence
    ("---\n---\n---\n", "SP004", 2, 1),  # empty block: not a mapping
    ("a: 1\n--- b: 2\n", "SP016", 3, 1),  # not a fence: a second document
    ("a: 1\n...\n", "SP016", 3, 1),
    ("%YAML 1.2\na: 1\n", "SP005", 2, 1),
    ("%TAG ! tag:example.com,2000:\na: 1\n", "SP005", 2, 1),
    ("a: !!str 1\n", "SP006", 2, 4),
    ("a: !local x\n", "SP006", 2, 4),
    ("a: &anchor x\n", "SP007", 2, 4),
    ("a: x\nb: *anchor\n", "SP007", 3, 4),
    ("<<: {a: 1}\n", "SP008", 2, 1),
    ("b:\n  <<: {a: 1}\n", "SP008", 3, 3),
    ("1: x\n", "SP009", 2, 1),
    ("true: x\n", "SP009", 2, 1),
    ("null: x\n", "SP009", 2, 1),
    ("? [a]\n: x\n", "SP009", 2, 3),
    ("a: 1\nb: 2\na: 3\n", "SP010", 4, 1),
    ("m:\n  k: 1\n  k: 2\n", "SP010", 4, 3),
    ("a: " + "[" * 16 + "]" * 16 + "\n", "SP011", 2, 19),
    ("a: " + "x" * (64 * 1024) + "\n", "SP012", 2, 1),
    ("a: x\u0085y\n", "SP014", 2, 5),
    ("a: x\u2028y\n", "SP014", 2, 5),
    ("a: x\u2029y\n", "SP014", 2, 5),
    ('a: "x\\Ly"\n', "SP014", 2, 4),  # an escape producing LINE SEPARATOR
    ("a: 9007199254740992\n", "SP015", 2, 4),
    ("a: -9007199254740992\n", "SP015", 2, 4),
    ("a: 1e400\n", "SP015", 2, 4),
    ("a: [b\n", "SP003", 3, 1),
    ("a: b: c\n", "SP003", 2, 5),
    ("a:\tb\n", "SP003", 2, 3),
]
AMBIGUOUS = [
    "yes",
    "Yes",
    "YES",
    "no",
    "No",
    "NO",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "y",
    "Y",
    "n",
    "N",
    "=",
    "010",
    "0o10",
    "1:20",
    "1_000",
    ".inf",
    "-.Inf",
    ".nan",
    ".NaN",
    "2024-01-31",
    "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10 -5",
    "1e3",
    "0b1010",
    "190:20:30.15",
    "1_000.5",
]


@pytest.mark.parametrize(("block", "code", "line", "column"), REFUSALS)
def test_refusals_name_code_line_and_column(block: str, code: str, line: int, column: int) -> None:
    text = block if block.startswith("---") else f"---\n{block}---\nbody\n"
    error = _refusal(text)
    assert (error.code, error.line, error.column) == (code, line, column), error
    assert error.hint


@pytest.mark.parametrize("value", AMBIGUOUS)
def test_ambiguous_plain_scalars_are_refused_with_a_quoting_hint(value: str) -> None:
    error = _refusal(f"---\nname: x\nvalue: {value}\n---\n")
    assert (error.code, error.line, error.column) == ("SP013", 3, 8)
    assert f'"{value}"' in error.hint
    # quoted, the same text is accepted as a string
    assert parse_skill_md(f'---\nvalue: "{value}"\n---\n').data == {"value": value}
    assert parse_skill_md(f"---\nvalue: '{value}'\n---\n").data == {"value": value}


def test_ambiguous_keys_and_items_are_refused_too() -> None:
    assert _refusal("---\nyes: 1\n---\n").code == "SP013"
    error = _refusal("---\nlist: [a, off]\n---\n")
    assert (error.code, error.line, error.column) == ("SP013", 2, 11)


def _codes(error: FrontmatterError) -> list[tuple[str, int, int]]:
    return [(r.code, r.line, r.column) for r in error.refusals]


def test_every_refusal_of_a_block_is_found_in_file_order() -> None:
    error = _refusal(
        "---\nname: x\na: yes\nb: no\nc: on\nm:\n  d: off\n  e: 010\nlist: [y, 1_000]\n---\n"
    )
    assert _codes(error) == [
        ("SP013", 3, 4),
        ("SP013", 4, 4),
        ("SP013", 5, 4),
        ("SP013", 7, 6),
        ("SP013", 8, 6),
        ("SP013", 9, 8),
        ("SP013", 9, 11),
    ]
    assert error is error.refusals[0]  # the first is the one raised


def test_refusals_of_different_kinds_are_all_found() -> None:
    error = _refusal(
        '---\na: !!str 1\nb: &x w\nc: *x\nb: 2\n1: z\n<<: {k: v}\nd: 1e400\ne: "x\\Ly"\n---\n'
    )
    assert [code for code, _, _ in _codes(error)] == [
        "SP006", "SP007", "SP007", "SP010", "SP009", "SP008", "SP015", "SP014",
    ]  # fmt: skip


def test_refusals_before_a_syntax_error_are_kept_with_it() -> None:
    error = _refusal("---\na: yes\nb: [c\n---\n")
    assert [code for code, _, _ in _codes(error)] == ["SP013", "SP003"]


def test_every_line_separator_and_directive_is_refused_on_the_raw_text() -> None:
    error = _refusal("---\na: x\u2028y\nb: x\u0085y\u0085\n%YAML 1.2\n---\n")
    assert _codes(error) == [("SP014", 2, 5), ("SP014", 3, 5), ("SP014", 3, 7), ("SP005", 4, 1)]


def test_an_oversized_block_is_refused_alone_and_unread() -> None:
    error = _refusal("---\na: yes\nb: " + "x" * (64 * 1024) + "\n---\n")
    assert _codes(error) == [("SP012", 2, 1)]


def test_a_key_is_called_a_key() -> None:
    error = _refusal("---\non: push\nvalue: off\n---\n")
    assert [r.message.split(" is ")[0] for r in error.refusals] == [
        "key 'on'",
        "plain value 'off'",
    ]
    assert _refusal("---\n9007199254740993: x\n---\n").message.startswith(
        "key '9007199254740993' is an integer"
    )
    assert "key contains" in _refusal('---\n"k\\L": x\n---\n').message


def test_missing_and_unterminated_fences_and_encoding() -> None:
    assert (_refusal("name: x\n").code, _refusal("").code) == ("SP001", "SP001")
    error = _refusal("---\nname: x\n\nbody\n")
    assert (error.code, error.line) == ("SP002", 1)
    error = _refusal(b"---\nname: \xff\n---\n")
    assert (error.code, error.line, error.column) == ("SP017", 2, 7)


def test_accepted_values_are_json_compatible() -> None:
    fm = parse_skill_md(
        "\ufeff---\r\n"
        "name: pdf-processing  # a comment\r\n"
        "description: >-\r\n  Extract text.\r\n  Fill forms.\r\n"
        "count: 12\r\nratio: 1.5\r\nbig: 9007199254740991\r\nflag: true\r\nnothing: null\r\n"
        "hex: 0x1F\r\ntilde: ~\r\nneg: -3\r\nexp: 1.0e+3\r\n"
        "metadata:\r\n  owner: docs\r\n  tags: [a, 'b', \"c\"]\r\n"
        "---\r\nbody\r\n"
    )
    assert fm.data == {
        "name": "pdf-processing",
        "description": "Extract text. Fill forms.",
        "count": 12,
        "ratio": 1.5,
        "big": 9007199254740991,
        "flag": True,
        "nothing": None,
        "hex": 31,
        "tilde": None,
        "neg": -3,
        "exp": 1000.0,
        "metadata": {"owner": "docs", "tags": ["a", "b", "c"]},
    }
    assert fm.has_bom and fm.crlf
    assert fm.body == "body\r\n"
    assert fm.positions[("metadata", "tags")] == (17, 3)
    assert fm.positions[("metadata", "tags", 1)] == (17, 13)


def test_nesting_of_sixteen_levels_is_accepted() -> None:
    fm = parse_skill_md("---\na: " + "[" * 15 + "]" * 15 + "\n---\n")
    value = fm.data["a"]
    for _ in range(14):
        value = value[0]
    assert value == []


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=200))
def test_reader_never_crashes_on_any_text(text: str) -> None:
    try:
        fm = parse_skill_md("---\n" + text + "\n---\n")
    except FrontmatterError as error:
        assert error.code.startswith("SP0") and error.line >= 1 and error.column >= 1
    else:
        assert isinstance(fm.data, dict)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_reader_never_crashes_on_any_bytes(data: bytes) -> None:
    try:
        fm = parse_skill_md(data)
    except FrontmatterError as error:
        assert error.code.startswith("SP0") and error.line >= 1 and error.column >= 1
    else:
        assert isinstance(fm.data, dict)


yaml_ish = st.lists(
    st.sampled_from(
        [
            "a",
            "b:",
            " ",
            "  ",
            "-",
            "[",
            "]",
            "{",
            "}",
            ",",
            ":",
            "#",
            "&x",
            "*x",
            "!t",
            "'",
            '"',
            "|",
            ">",
            "\n",
            "\t",
            "yes",
            "010",
            "?",
            "%",
            "...",
            "---",
            "<<",
            "\\",
            "\u2028",
            "1e9",
            "~",
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(yaml_ish)
def test_reader_never_crashes_on_yaml_like_text(text: str) -> None:
    test_reader_never_crashes_on_any_text.hypothesis.inner_test(text)  # type: ignore[attr-defined]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="aAeEfFlLnNoOrRsStTuUyY\u017f\u212a0123456789.:~=<-_+ ", max_size=9))
def test_plain_scalars_resolve_as_both_schemas_read_them(s: str) -> None:
    """resolve_plain's shortcut for a scalar that starts with a letter (no type but a
    few short words does) agrees with reading it through both schemas."""
    from skillpack.source.frontmatter.resolve import resolve12, resolve_plain, yaml11_reading

    try:
        got: object = resolve_plain(s, 1, 1)
    except FrontmatterError:
        got = "refused"
    reading11, value = yaml11_reading(s), resolve12(s)
    if isinstance(value, str) and reading11 is None:
        assert got == s
    elif reading11 is not None:
        assert got == "refused"
