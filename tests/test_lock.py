"""skillpack lock / lock --check through the real CLI, and the lock format itself."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import jsonschema
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillpack._internal.canonical import canonical_json
from skillpack._internal.schemas import load_schema
from skillpack.lockfile.lock import (
    lock_document,
    parse_lock,
    render_lock,
    render_skill,
    restore_nulls,
    skill_table,
    split_lock,
    split_nulls,
)
from skillpack.manifest import FileEntry, Manifest, SkillEntry
from tests._bundles import make_project
from tests.conftest import EXAMPLES, run_cli, write_skill


def test_lock_writes_canonical_file_and_rerun_rewrites_nothing(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    first = run_cli("lock", project)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("wrote ")
    assert "skillpack.lock (3 skills, 7 files)" in first.stdout
    lock = project / "skillpack.lock"
    text = lock.read_text("utf-8")
    assert text.startswith(
        'lock-version = "1.0"\ncreated-by = "skillpack"\nindex-digest = "sha256:'
    )
    doc = tomllib.loads(text)
    assert [s["path"] for s in doc["skills"]] == ["code-review", "tools", "tools/nested"]
    tools = doc["skills"][1]
    assert [f["path"] for f in tools["files"]] == [
        "SKILL.md",
        "assets/blob.bin",
        "nested/SKILL.md",
        "nested/notes.md",
        "scripts/run.sh",
    ]
    assert [f.get("executable", False) for f in tools["files"]] == [False] * 4 + [True]
    assert tools["files"][1] == {
        "path": "assets/blob.bin",
        "size": 256,
        "digest": "sha256:40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880",
    }
    os.utime(lock, (1_000_000, 1_000_000))
    again = run_cli("lock", project)
    assert again.returncode == 0
    assert "is up to date" in again.stdout
    assert lock.stat().st_mtime == 1_000_000  # not rewritten
    assert lock.read_text("utf-8") == text
    check = run_cli("lock", "--check", project)
    assert check.returncode == 0 and "up to date" in check.stdout


def test_lock_validates_against_schema(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    assert run_cli("lock", project).returncode == 0
    doc = tomllib.loads((project / "skillpack.lock").read_text("utf-8"))
    jsonschema.validate(doc, load_schema("lock.schema.json"))
    doc["skills"][0]["files"][0]["size"] = -1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, load_schema("lock.schema.json"))


def test_examples_lock_is_committed_and_current() -> None:
    proc = run_cli("lock", "--check", EXAMPLES)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("modify", "~ file references/checklist.md (12 -> 18 bytes"),
        ("add", "+ file references/extra.md (6 bytes)"),
        ("remove", "- file references/checklist.md"),
        ("skill", "+ skill brand-new (added, 1 file)"),
        ("drop", "- skill code-review (removed, 2 files)"),
        ("frontmatter", '~ frontmatter /description: "Does a useful thing.'),
    ],
)
def test_lock_check_lists_changes_and_exits_1(tmp_path: Path, change: str, expected: str) -> None:
    project = make_project(tmp_path / "p")
    assert run_cli("lock", project).returncode == 0
    skill = project / "skills" / "code-review"
    if change == "modify":
        (skill / "references" / "checklist.md").write_text("- [ ] tests, docs\n")
    elif change == "add":
        (skill / "references" / "extra.md").write_text("extra\n")
    elif change == "remove":
        (skill / "references" / "checklist.md").unlink()
    elif change == "skill":
        write_skill(project / "skills", "brand-new")
    elif change == "drop":
        import shutil

        shutil.rmtree(skill)
    else:
        write_skill(project / "skills", "code-review", description="Reviews code. Use it a lot.")
    before = (project / "skillpack.lock").read_bytes()
    proc = run_cli("lock", "--check", project)
    assert proc.returncode == 1
    assert "LCK004 the lock is out of date" in proc.stderr
    assert expected in proc.stderr
    assert "run 'skillpack lock'" in proc.stderr
    assert (project / "skillpack.lock").read_bytes() == before  # --check never writes


def test_lock_check_reports_missing_invalid_and_noncanonical_locks(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    proc = run_cli("lock", "--check", project)
    assert proc.returncode == 1 and "the lock does not exist" in proc.stderr
    assert run_cli("lock", project).returncode == 0
    lock = project / "skillpack.lock"
    good = lock.read_text("utf-8")
    lock.write_text(good.replace("\n\n", "\n\n\n", 1))  # same data, other formatting
    proc = run_cli("lock", "--check", project)
    assert proc.returncode == 1 and "not in canonical form" in proc.stderr
    lock.write_text(good.replace('name = "demo"', 'name = "demo"\nsurprise = 1'))
    proc = run_cli("lock", "--check", project)
    assert proc.returncode == 1 and "LCK002" in proc.stderr and "surprise" in proc.stderr
    lock.write_text(good.replace("size = 12", "size = 13"))  # hand-edited: the change is shown
    proc = run_cli("lock", "--check", project)
    assert proc.returncode == 1 and "out of date" in proc.stderr and "13 -> 12 bytes" in proc.stderr
    # reading that lock as a lock (diff, or inside a bundle) refuses it: the index-digest
    # covers the lock's data and its exact bytes
    proc = run_cli("diff", lock, project)
    assert proc.returncode == 2 and "LCK003 index-digest" in proc.stderr
    lock.write_text("not [ toml")
    proc = run_cli("lock", "--check", project)
    assert proc.returncode == 1 and "LCK001" in proc.stderr


FRONTMATTER_WITH_NULLS = """\
name: odd
description: Keeps every JSON value exactly. Use it to test the lock.
license:
metadata:
  ratio: 1.0
  count: 1
  flag: true
  nothing: null
  list: [a, null, 2, 2.5, {}]
  "key/with~slash": ~
"""


def test_nulls_and_number_types_survive_the_lock_exactly(tmp_path: Path) -> None:
    project = tmp_path / "p"
    write_skill(project, "odd", frontmatter=FRONTMATTER_WITH_NULLS)
    assert run_cli("lock", project).returncode == 0
    text = (project / "skillpack.lock").read_text("utf-8")
    assert (
        'frontmatter-nulls = [\n    "/license",\n    "/metadata/key~1with~0slash",\n'
        '    "/metadata/list/1",\n    "/metadata/nothing",\n]'
    ) in text
    assert "ratio = 1.0\n" in text and "count = 1\n" in text
    assert run_cli("build", project, "-o", tmp_path / "odd.skp", "--no-lint").returncode == 0
    proc = run_cli("inspect", tmp_path / "odd.skp", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    fm = json.loads(proc.stdout)["skills"][0]["frontmatter"]
    assert canonical_json(fm["metadata"]) == canonical_json(
        {
            "count": 1,
            "flag": True,
            "key/with~slash": None,
            "list": ["a", None, 2, 2.5, {}],
            "nothing": None,
            "ratio": 1.0,
        }
    )
    assert fm["license"] is None
    assert run_cli("lock", "--check", project).returncode == 0


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=5))
def test_split_and_restore_nulls_round_trip_through_toml(value: dict) -> None:
    import tomli_w

    stripped, nulls = split_nulls(value)
    parsed = tomllib.loads(tomli_w.dumps({"fm": stripped}))["fm"]
    assert canonical_json(restore_nulls(parsed, nulls)) == canonical_json(value)


def test_render_lock_is_a_function_of_the_manifest_only(tmp_path: Path) -> None:
    from skillpack.source.config import resolve_config
    from skillpack.source.discovery import discover
    from skillpack.source.entries import build_manifest

    manifest = build_manifest(discover(resolve_config([EXAMPLES])))
    assert render_lock(manifest) == (EXAMPLES / "skillpack.lock").read_bytes()


def _entry(index: int, frontmatter: dict, files: int) -> SkillEntry:
    path = f"team/skill-{index:03d}"
    made = [
        FileEntry(name, f"skill://{path}/{name}", 10 + i, "sha256:" + f"{i:x}" * 64, i % 2 == 1)
        for i, name in enumerate(["SKILL.md", *(f"references/f{i}.md" for i in range(files))])
    ]
    return SkillEntry(path, f"skill://{path}/SKILL.md", frontmatter, tuple(made))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.dictionaries(st.text(max_size=6), json_values, max_size=5), st.integers(0, 3)),
        min_size=1,
        max_size=4,
    )
)
def test_lock_rendered_per_skill_is_tomli_w_rendering_of_the_whole_document(skills: list) -> None:
    """Workers render each skill's table; joined, they are exactly tomli-w's output for the
    whole lock document (and tomllib reads the manifest back)."""
    import tomli_w

    manifest = Manifest(
        "n", "1.0", tuple(_entry(i, fm, files) for i, (fm, files) in enumerate(skills))
    )
    rendered = render_lock(manifest, [render_skill(s) for s in manifest.skills])
    whole = tomli_w.dumps(lock_document(manifest, split_lock(rendered)[0])).encode()
    assert rendered == whole
    assert parse_lock(rendered, "test").manifest == manifest


bare_keys = st.from_regex(r"[A-Za-z0-9_-]{1,6}", fullmatch=True)
tricky_text = st.text(st.sampled_from('ab-é/ "\\\t\n\x00\x7f\u2028'), max_size=8)
plain_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | tricky_text,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(bare_keys, children, max_size=3)
    ),
    max_leaves=10,
)
digests = st.sampled_from(["sha256:" + "ab" * 32, "sha256:" + "0" * 64, "x", ""])


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(bare_keys | tricky_text, plain_values, max_size=5),
    tricky_text,
    st.lists(st.tuples(tricky_text, st.integers(0, 10**12), digests, st.booleans()),
             min_size=1, max_size=3),
)  # fmt: skip
@example(
    {"k": 'a\x7f"\\\n', "t": {"u": ["\x00"]}},
    'p"\x7f',
    [("SKILL.md", 1, "sha256:" + "ab" * 32, False)],
)
def test_skill_tables_are_tomli_w_bytes(frontmatter: dict, path: str, files: list) -> None:
    """render_skill writes most tables itself (and leaves the rest to tomli-w): the bytes
    are tomli-w's for any frontmatter, path, file name, size or digest."""
    import tomli_w

    skill = SkillEntry(
        path,
        f"skill://{path}/SKILL.md",
        frontmatter,
        tuple(FileEntry(p, f"skill://{path}/{p}", n, d, x) for p, n, d, x in files),
    )
    assert render_skill(skill) == tomli_w.dumps({"skills": [skill_table(skill)]})


def test_plain_skill_tables_are_written_without_tomli_w(monkeypatch: pytest.MonkeyPatch) -> None:
    import tomli_w

    skill = _entry(1, {"name": "s", "metadata": {"tags": ["a", "b"], "n": 1.5}, "x": None}, 2)
    expected = tomli_w.dumps({"skills": [skill_table(skill)]})
    monkeypatch.setattr(tomli_w, "dumps", None)
    assert render_skill(skill) == expected


def _mutations(doc: dict) -> list[dict]:
    import copy

    out = [copy.deepcopy(doc)]
    edits = [
        ("index-digest", lambda d: d.__setitem__("index-digest", "sha256:XYZ")),
        ("file digest", lambda d: d["skills"][0]["files"][0].__setitem__("digest", "md5:00")),
        ("file size", lambda d: d["skills"][0]["files"][0].__setitem__("size", -1)),
        ("file extra", lambda d: d["skills"][0]["files"][0].__setitem__("mode", 420)),
        ("file path", lambda d: d["skills"][0]["files"][0].__setitem__("path", "")),
        ("executable", lambda d: d["skills"][1]["files"][0].__setitem__("executable", "yes")),
        ("no files", lambda d: d["skills"][0].__setitem__("files", [])),
        ("skill path", lambda d: d["skills"][0].__setitem__("path", "../x")),
        ("skill extra", lambda d: d["skills"][0].__setitem__("extra", 1)),
        ("missing uri", lambda d: d["skills"][1].pop("uri")),
        ("nulls", lambda d: d["skills"][0].__setitem__("frontmatter-nulls", ["x"])),
    ]
    for _, edit in edits:
        changed = copy.deepcopy(doc)
        edit(changed)
        out.append(changed)
    return out


def test_lock_validation_gives_the_verdicts_of_the_schema_as_published() -> None:
    """Validation inlines the schema's local definitions (one reference per file was the
    slowest part of reading a large lock): same errors, at the same places."""
    from skillpack._internal.schemas import validation_errors

    doc = tomllib.loads((EXAMPLES / "skillpack.lock").read_text("utf-8"))
    published = jsonschema.Draft202012Validator(load_schema("lock.schema.json"))
    for case in _mutations(doc):
        expected = sorted(
            (".".join(map(str, e.absolute_path)) or "(top level)", e.message)
            for e in published.iter_errors(case)
        )
        assert validation_errors("lock.schema.json", case) == expected
    assert len({str(validation_errors("lock.schema.json", c)) for c in _mutations(doc)}) == 12


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_index_joined_from_each_skills_part_is_the_canonical_index(
    data: st.DataObject,
) -> None:
    """The build renders each skill's part of the index where it processes the skill;
    joined, they are the canonical bytes of the whole index document."""
    from skillpack._internal.canonical import canonical_bytes
    from skillpack.lockfile.index import index_bytes, index_document, index_skill_text

    texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
    values = st.recursive(
        st.none() | st.booleans() | st.integers() | texts,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
        max_leaves=6,
    )
    # names with characters JSON escapes (quotes, backslashes, controls) or keeps as
    # they are (non-ASCII), as a URI path holds them decoded or percent-encoded
    names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6)
    skills = []
    for i in range(data.draw(st.integers(0, 4))):
        frontmatter = data.draw(st.dictionaries(texts, values, max_size=3))
        path = f"s{i}/{data.draw(names)}"
        files = [FileEntry("SKILL.md", f"skill://{path}/SKILL.md", 3, "sha256:" + "a" * 64)]
        for name in data.draw(st.lists(names, max_size=3, unique=True)):
            size, executable = data.draw(st.integers(0, 2**40)), data.draw(st.booleans())
            files.append(FileEntry(name, f"skill://{path}/{name}", size, "sha256:" + "c" * 64,
                                   executable))  # fmt: skip
        skills.append(
            SkillEntry(path, f"skill://{path}/SKILL.md", dict(frontmatter, name=f"s{i}"),
                       tuple(files))
        )  # fmt: skip
    manifest = Manifest(data.draw(texts), data.draw(texts), tuple(skills))
    body = "sha256:" + "b" * 64
    joined = index_bytes(manifest, body, [index_skill_text(s) for s in manifest.skills])
    assert joined == canonical_bytes(index_document(manifest, body)) == index_bytes(manifest, body)
