"""``skillpack fmt`` and ``skillpack lint --fix``: CLI behaviour and properties."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillpack.lint.fmt import CANONICAL_ORDER, format_text
from skillpack.source.frontmatter import parse_skill_md
from tests.conftest import run_cli
from tests.lintutil import lint_json, write

DIRTY = (
    "\ufeff---\r\n"
    "# Skill metadata\r\n"
    "metadata:\r\n"
    "  reviewed: yes  # by the docs team\r\n"
    "  since: 2024-01-31\r\n"
    "  tags: [on, off, plain]\r\n"
    "description: >-\r\n"
    "  Fills PDF forms.\r\n"
    "  # part of the description, not a comment\r\n"
    "x-extra: 010\r\n"
    "# the name comes last here\r\n"
    "name: forms\r\n"
    "---\r\n"
    "\r\n"
    "# Forms\r\n"
    "---\r\n"
    "Trailing spaces stay.   \r\n"
    "No final newline"
)
CLEAN = (
    "---\n"
    "# Skill metadata\n"
    "# the name comes last here\n"
    "name: forms\n"
    "description: >-\n"
    "  Fills PDF forms.\n"
    "  # part of the description, not a comment\n"
    "metadata:\n"
    '  reviewed: "yes"  # by the docs team\n'
    '  since: "2024-01-31"\n'
    '  tags: ["on", "off", plain]\n'
    'x-extra: "010"\n'
    "---\n"
    "\n"
    "# Forms\n"
    "---\n"
    "Trailing spaces stay.   \n"
    "No final newline\n"
)


def test_format_text_normalizes_and_keeps_comments_and_body() -> None:
    out, error = format_text(DIRTY)
    assert error is None
    assert out == CLEAN
    assert format_text(CLEAN) == (CLEAN, None)
    data = parse_skill_md(out).data
    assert data["metadata"] == {
        "reviewed": "yes",
        "since": "2024-01-31",
        "tags": ["on", "off", "plain"],
    }
    assert data["x-extra"] == "010"


def _skill(root: Path, name: str, text: str, mode: int = 0o644) -> Path:
    path = write(root / "skills" / name / "SKILL.md", text)
    path.chmod(mode)
    return path


def test_fmt_check_diff_and_write(tmp_path: Path) -> None:
    dirty = _skill(tmp_path, "forms", DIRTY.replace("name: forms", "name: forms"), 0o600)
    clean = _skill(tmp_path, "clean", CLEAN.replace("forms", "clean"))
    before = dirty.read_bytes()

    proc = run_cli("fmt", "--check", "skills", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == "would reformat skills/forms/SKILL.md\n"
    assert "1 file would be reformatted, 1 left unchanged" in proc.stderr
    assert dirty.read_bytes() == before

    proc = run_cli("fmt", "--diff", "skills", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.startswith("--- a/skills/forms/SKILL.md\n+++ b/skills/forms/SKILL.md\n")
    assert '+  reviewed: "yes"  # by the docs team\n' in proc.stdout
    assert "\\ No newline at end of file" in proc.stdout
    assert dirty.read_bytes() == before

    proc = run_cli("fmt", "skills", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "1 file reformatted, 1 left unchanged" in proc.stderr
    assert dirty.read_text("utf-8") == CLEAN
    assert stat.S_IMODE(dirty.stat().st_mode) == 0o600  # permissions kept
    assert clean.read_text("utf-8") == CLEAN.replace("forms", "clean")
    assert not [p for p in dirty.parent.iterdir() if p.name != "SKILL.md"]  # no temp files left

    proc = run_cli("fmt", "--check", "skills", cwd=tmp_path)
    assert proc.returncode == 0
    assert "0 files would be reformatted, 2 left unchanged" in proc.stderr


def test_fmt_paths_select_skills(tmp_path: Path) -> None:
    a = _skill(tmp_path, "a", "---\nname: a\ndescription: x\n---\nbody")
    b = _skill(tmp_path, "b", "---\nname: b\ndescription: x\n---\nbody")
    proc = run_cli("fmt", "skills/a/SKILL.md", cwd=tmp_path)
    assert proc.returncode == 0
    assert a.read_text() == "---\nname: a\ndescription: x\n---\nbody\n"
    assert b.read_text() == "---\nname: b\ndescription: x\n---\nbody"
    # a nested skill's SKILL.md is its own: the enclosing skill's SKILL.md is left alone
    inner = write(tmp_path / "skills" / "b" / "inner" / "SKILL.md", "---\nname: inner\n---\nx")
    proc = run_cli("fmt", "skills/b/inner/SKILL.md", cwd=tmp_path)
    assert proc.returncode == 0
    assert inner.read_text().endswith("x\n")
    assert b.read_text().endswith("body")
    proc = run_cli("fmt", "skills/b", cwd=tmp_path)
    assert b.read_text().endswith("body\n")


def test_fmt_reports_what_it_cannot_format(tmp_path: Path) -> None:
    broken = _skill(tmp_path, "broken", "---\r\nname: broken\r\nmeta: &a x\r\n---\r\nbody\r\n")
    before = broken.read_bytes()
    proc = run_cli("fmt", "skills", cwd=tmp_path)
    assert proc.returncode == 1
    assert (
        "skills/broken/SKILL.md:3:7: SP007 cannot format: anchor '&a' is not allowed" in proc.stderr
    )
    # a file fmt cannot format is left as it is, line endings included (issue 10 §6)
    assert broken.read_bytes() == before


def test_fmt_never_changes_a_file_it_cannot_format_and_counts_it_once(tmp_path: Path) -> None:
    broken = _skill(
        tmp_path,
        "broken",
        "\ufeff---\r\nname: broken\r\na: &x 1\r\nb: yes\r\na: 2\r\n---\r\nbody",
    )
    clean = _skill(tmp_path, "clean", "---\nname: clean\ndescription: x\n---\nbody\n")
    before = broken.read_bytes()
    for args in (("--check",), ("--diff",), ()):
        proc = run_cli("fmt", *args, "skills", cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        assert broken.read_bytes() == before
        assert "skills/broken" not in proc.stdout  # neither "would reformat" nor a diff
        # every reason (the SP013 is fmt's to fix, not a reason), each file counted once
        assert [line.split(" cannot format: ")[0] for line in proc.stderr.splitlines()[:-1]] == [
            "skills/broken/SKILL.md:3:4: SP007",
            "skills/broken/SKILL.md:5:1: SP010",
        ]
        verb = "reformatted" if not args else "would be reformatted"
        assert proc.stderr.splitlines()[-1] == (
            f"0 files {verb}, 1 left unchanged, 1 could not be formatted"
        )
    assert clean.read_text() == "---\nname: clean\ndescription: x\n---\nbody\n"


def test_fmt_refuses_an_oversized_frontmatter_like_lint(tmp_path: Path) -> None:
    entries = "".join(f"k{i}: [[value, {i}], yes]\n" for i in range(60_000))  # about 1.6 MB
    path = _skill(tmp_path, "huge", f"---\nname: huge\ndescription: x\n{entries}---\nbody\n")
    before = path.read_bytes()
    proc = run_cli("fmt", "--check", "skills", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "skills/huge/SKILL.md:2:1: SP012 cannot format: frontmatter is larger than 64 KiB",
        "0 files would be reformatted, 0 left unchanged, 1 could not be formatted",
    ]
    assert path.read_bytes() == before
    proc, report = lint_json(tmp_path, "skills")
    assert [f["code"] for f in report["findings"] if f["code"].startswith("SP0")] == ["SP012"]


def test_format_refuses_the_size_before_reading_any_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    import skillpack.lint.fmt as fmt

    def no_yaml(block: str) -> None:
        raise AssertionError("the YAML of an oversized block was read")

    monkeypatch.setattr(fmt, "yaml_events", no_yaml)
    text = "---\nname: x\nd: " + "y" * (65 * 1024) + "\n---\n"
    formatted, error = format_text(text)
    assert error is not None and error.code == "SP012"
    assert formatted == text


def test_lint_fix_applies_only_enabled_fixes(tmp_path: Path) -> None:
    text = "\ufeff---\r\ndescription: Fills forms.\r\nname: forms\r\nx-reviewed: yes\r\n---\r\nbody"
    path = _skill(tmp_path, "forms", text)
    proc, report = lint_json(tmp_path, "skills")
    # the field rules see the ambiguous value as it will be quoted: SP111 in this run too
    assert {f["code"] for f in report["findings"]} == {"SP013", "SP111", "SP405", "SP406",
                                                       "SP407"}  # fmt: skip
    assert report["summary"]["fixable"] == 4

    proc = run_cli("lint", "--fix", "--ignore", "SP407", "skills", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout  # only SP111 is left, a warning
    assert "Fixed 3 issues" in proc.stderr
    # key order is fmt's business, not a lint fix; SP407 was ignored: no newline added
    assert (
        path.read_text()
        == '---\ndescription: Fills forms.\nname: forms\nx-reviewed: "yes"\n---\nbody'
    )
    proc, report = lint_json(tmp_path, "skills")
    assert [f["code"] for f in report["findings"]] == ["SP111", "SP407"]


def test_a_syntax_error_blocks_the_frontmatter_fixes_and_is_named(tmp_path: Path) -> None:
    """An SP013 value cannot be quoted while the block does not parse: lint --fix says so
    and does not count it as fixable; fmt names the SP003 that stops it, not the SP013."""
    text = "---\nname: demo\ndescription: yes\nbad: [unclosed\n---\nBody"
    path = _skill(tmp_path, "demo", text)
    _, report = lint_json(tmp_path, "skills")
    by_code = {f["code"]: f for f in report["findings"]}
    assert set(by_code) == {"SP013", "SP003", "SP407"}
    assert by_code["SP013"]["fixable"] is False and by_code["SP407"]["fixable"] is True
    assert report["summary"]["fixable"] == 1
    assert "once the SP003 at line 5 is fixed" in by_code["SP013"]["hint"]

    proc = run_cli("lint", "--fix", "skills", cwd=tmp_path)
    assert proc.returncode == 1
    assert "Fixed 1 issue; found 2 errors" in proc.stderr and "fixable" not in proc.stderr
    assert path.read_text() == text + "\n"  # only the final newline: the YAML is left

    proc = run_cli("fmt", "skills", cwd=tmp_path)
    assert proc.returncode == 1
    assert "skills/demo/SKILL.md:5:1: SP003 cannot format: YAML syntax error" in proc.stderr
    assert "SP013" not in proc.stderr
    assert path.read_text() == text + "\n"


def test_lint_reports_what_a_file_holds_in_one_run(tmp_path: Path) -> None:
    """An ambiguous value (SP013) does not hide the field rules: SP107 is reported in the
    same run, at its own line, not after the SP013 is fixed."""
    _skill(tmp_path, "demo",
           "---\nname: demo\ndescription: yes\nmetadata: {version: 1.0}\n---\nBody\n")  # fmt: skip
    _, report = lint_json(tmp_path, "skills")
    found = [(f["code"], f["line"]) for f in report["findings"]]
    assert found == [("SP013", 3), ("SP107", 4)]
    proc = run_cli("lint", "--fix", "skills", cwd=tmp_path)
    assert "Fixed 1 issue; found 1 error" in proc.stderr
    _, after = lint_json(tmp_path, "skills")
    assert [(f["code"], f["line"]) for f in after["findings"]] == [("SP107", 4)]


# --- properties -------------------------------------------------------------------
# Plain scalars with the value a YAML 1.2 reader gives them once quoted where needed:
# ambiguous ones (YAML 1.1 reads them differently) keep their text as a string.
AMBIGUOUS = ["yes", "No", "ON", "off", "y", "n", "=", "010", "0o10", "1:20", "1_000",
             ".inf", "-.inf", ".nan", "2024-01-31", "2001-12-14t21:59:43.10-05:00", "1e3",
             "0b101"]  # fmt: skip
SAFE = {"hello": "hello", "12": 12, "-3": -3, "1.5": 1.5, "true": True, "false": False,
        "null": None, "~": None, "0x1F": 31, "v1.2": "v1.2", "a-b_c": "a-b_c",
        "Bash(git:*)": "Bash(git:*)", "0": 0, "3.0e+2": 300.0}  # fmt: skip
KEYS = [*CANONICAL_ORDER, "version", "x-extra", "tags", "zeta", "alpha"]

words = st.from_regex(r"[a-z][a-z0-9-]{2,12}", fullmatch=True).filter(
    lambda w: w not in {"yes", "off", "null", "true", "false"}
)
texts = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc"), blacklist_characters="\x85\u2028\u2029\ufffe\uffff"
    ),
    max_size=30,
)


@st.composite
def scalars(draw: st.DrawFn) -> tuple[str, object]:
    """(YAML source of a scalar, the value expected after fmt)."""
    kind = draw(st.sampled_from(["ambiguous", "safe", "word", "double", "single"]))
    if kind == "ambiguous":
        token = draw(st.sampled_from(AMBIGUOUS))
        return token, token
    if kind == "safe":
        token = draw(st.sampled_from(sorted(SAFE)))
        return token, SAFE[token]
    if kind == "word":
        word = draw(words)
        return word, word
    text = draw(texts)
    if kind == "double":
        return json.dumps(text, ensure_ascii=False), text
    return "'" + text.replace("'", "''") + "'", text


@st.composite
def values(draw: st.DrawFn, indent: int) -> tuple[list[str], object]:
    """(lines after 'key:', expected value): a scalar, a flow list, a block map or a literal."""
    kind = draw(st.sampled_from(["scalar", "scalar", "flow", "map", "literal"]))
    pad = " " * indent
    if kind == "scalar":
        source, value = draw(scalars())
        comment = draw(st.sampled_from(["", "  # note"]))
        return [f" {source}{comment}"], value
    if kind == "flow":
        items = draw(st.lists(scalars(), max_size=4))
        return [" [" + ", ".join(s for s, _ in items) + "]"], [v for _, v in items]
    if kind == "literal":
        lines = draw(
            st.lists(
                st.sampled_from(["text", "# not a comment", "more: text"]), min_size=1, max_size=3
            )
        )
        return [" |", *(f"{pad}  {line}" for line in lines)], "\n".join(lines) + "\n"
    keys = draw(st.lists(words, min_size=1, max_size=3, unique=True))
    lines, mapping = [""], {}
    for key in keys:
        source, value = draw(scalars())
        lines.append(f"{pad}  {key}: {source}")
        mapping[key] = value
    return lines, mapping


@st.composite
def skill_files(draw: st.DrawFn) -> tuple[str, dict[str, object], str]:
    """(SKILL.md text, the frontmatter expected after fmt, the body)."""
    keys = draw(st.permutations(KEYS))[: draw(st.integers(1, len(KEYS)))]
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append("# header comment")
    expected: dict[str, object] = {}
    for key in keys:
        if draw(st.booleans()):
            lines.append(f"# about {key}")
        value_lines, value = draw(values(0))
        lines.append(f"{key}:{value_lines[0]}")
        lines.extend(value_lines[1:])
        expected[key] = value
    if draw(st.booleans()):
        lines.append("# footer comment")
    body = draw(st.sampled_from(["", "\n# Title\n\nText.\n", "---\nnot frontmatter\n", "x"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.sampled_from(["", "\ufeff"]))
    text = bom + newline.join(["---", *lines, "---"]) + newline + body.replace("\n", newline)
    return text, expected, body


@settings(max_examples=200, deadline=None)
@given(skill_files())
def test_fmt_output_rereads_to_the_yaml12_reading_and_is_idempotent(
    case: tuple[str, dict[str, object], str],
) -> None:
    text, expected, body = case
    out, error = format_text(text)
    assert error is None, (error, text)
    fm = parse_skill_md(out)  # the strict reader accepts it...
    assert fm.data == expected  # ...as the YAML 1.2 reading, ambiguous values kept as text
    known = [k for k in fm.data if k in CANONICAL_ORDER]
    assert known == [k for k in CANONICAL_ORDER if k in fm.data]
    assert list(fm.data)[: len(known)] == known  # known keys first, in canonical order
    assert format_text(out) == (out, None)  # idempotent
    assert not out.startswith("\ufeff") and "\r\n" not in out and out.endswith("\n")
    assert fm.body == body if body.endswith("\n") or not body else fm.body == body + "\n"
    comments = sorted(line.strip() for line in text.splitlines() if line.strip().startswith("# "))
    assert (
        sorted(line.strip() for line in out.splitlines() if line.strip().startswith("# "))
        == comments
    )


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_fmt_never_crashes(text: str) -> None:
    out, error = format_text(text)
    assert isinstance(out, str)
    if error is None:
        assert format_text(out) == (out, None)
    else:
        assert error.code.startswith("SP0") and error.line >= 1


def test_fmt_keeps_the_exec_bit(tmp_path: Path) -> None:
    path = _skill(tmp_path, "tool", "---\nname: tool\ndescription: x\nversion: 1_0\n---\n", 0o755)
    assert run_cli("fmt", "skills", cwd=tmp_path).returncode == 0
    assert path.read_text() == '---\nname: tool\ndescription: x\nversion: "1_0"\n---\n'
    assert os.access(path, os.X_OK)


def test_examples_are_formatted() -> None:
    from tests.conftest import EXAMPLES

    proc = run_cli("fmt", "--check", "examples", cwd=EXAMPLES.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 files would be reformatted" in proc.stderr
