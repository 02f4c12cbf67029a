"""Discovery: which skills and files a tree publishes, in which order, under which URIs."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pathspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillpack.source.config import DEFAULT_EXCLUDE, config_from_table
from skillpack.source.discovery import (
    SKIP_DOTFILE,
    SKIP_MISCASED,
    SKIP_SPECIAL,
    SKIP_SYMLINK,
    SPLIT_MIN_ENTRIES,
    SourceTree,
    _NamePatterns,
    _sorted_entries,
    discover,
    gitignore_spec,
    skills_for_paths,
)
from tests.lintutil import skill_md, write


def _discover(root: Path, **table: object) -> SourceTree:
    return discover(config_from_table(table, root, None))


def _files(tree: SourceTree, skill_path: str) -> list[str]:
    skill = tree.skill(skill_path)
    assert skill is not None, [s.skill_path for s in tree.skills]
    return [f.rel for f in skill.files]


def test_nested_skills_and_their_files(tmp_path: Path) -> None:
    write(tmp_path / "git-workflow" / "SKILL.md", skill_md("git-workflow"))
    write(tmp_path / "git-workflow" / "guide.md", "x")
    write(tmp_path / "git-workflow" / "commit-messages" / "SKILL.md", skill_md("commit-messages"))
    write(tmp_path / "git-workflow" / "commit-messages" / "examples.md", "x")
    write(tmp_path / "not-a-skill" / "notes.md", "x")  # outside every skill: not published
    tree = _discover(tmp_path)
    assert [s.skill_path for s in tree.skills] == ["git-workflow", "git-workflow/commit-messages"]
    # the enclosing skill publishes the nested skill's files too
    assert _files(tree, "git-workflow") == [
        "SKILL.md",
        "commit-messages/SKILL.md",
        "commit-messages/examples.md",
        "guide.md",
    ]
    assert _files(tree, "git-workflow/commit-messages") == ["SKILL.md", "examples.md"]
    nested = tree.skill("git-workflow/commit-messages")
    assert nested is not None and nested.parent == "git-workflow"
    assert nested.uri("examples.md") == "skill://git-workflow/commit-messages/examples.md"


def test_prefixes_and_a_root_that_is_itself_a_skill(tmp_path: Path) -> None:
    write(tmp_path / "billing" / "refunds" / "SKILL.md", skill_md("refunds"))
    write(tmp_path / "solo" / "SKILL.md", skill_md("solo"))
    tree = _discover(
        tmp_path,
        roots=[{"path": "billing", "prefix": "acme/billing"}, {"path": "solo", "prefix": "x"}],
    )
    assert [s.skill_path for s in tree.skills] == ["acme/billing/refunds", "x/solo"]
    refunds = tree.skill("acme/billing/refunds")
    assert refunds is not None
    assert refunds.uri("SKILL.md") == "skill://acme/billing/refunds/SKILL.md"


def test_order_is_skill_md_first_then_uri_bytes(tmp_path: Path) -> None:
    skill = tmp_path / "s"
    write(skill / "SKILL.md", skill_md("s"))
    for name in ("b.md", "B.md", "a b.md", "a-b.md", "é.md", "z/a.md", "_.md", "a.md"):
        write(skill / name, "x")
    tree = _discover(tmp_path)
    files = _files(tree, "s")
    assert files[0] == "SKILL.md"
    encoded = [tree.skills[0].uri(rel).encode() for rel in files[1:]]
    assert encoded == sorted(encoded)
    # "é.md" is "%C3%A9.md" and "a b.md" is "a%20b.md": '%' sorts before letters and '-'
    assert files[1:] == ["é.md", "B.md", "_.md", "a b.md", "a-b.md", "a.md", "b.md", "z/a.md"]
    assert tree.skills[0].uri("a b.md") == "skill://s/a%20b.md"
    assert tree.skills[0].uri("é.md") == "skill://s/%C3%A9.md"


def test_skipped_entries_are_reported_never_followed(tmp_path: Path) -> None:
    skill = tmp_path / "s"
    write(skill / "SKILL.md", skill_md("s"))
    write(tmp_path / "secret.txt", "outside")
    os.symlink("../secret.txt", skill / "link.txt")
    os.symlink("../", skill / "loop")  # a directory link: never walked
    os.mkfifo(skill / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(skill / "sock"))
        write(skill / ".hidden.md", "x")
        write(skill / ".git" / "HEAD", "x")
        write(skill / ".skillpackignore", "")  # read, not reported
        tree = _discover(tmp_path)
    finally:
        sock.close()
    (s,) = tree.skills
    assert [f.rel for f in s.files] == ["SKILL.md"]
    assert [(k.rel, k.kind, k.detail) for k in s.skipped] == [
        (".git", SKIP_DOTFILE, ""),
        (".hidden.md", SKIP_DOTFILE, ""),
        ("fifo", SKIP_SPECIAL, "FIFO"),
        ("link.txt", SKIP_SYMLINK, "../secret.txt"),
        ("loop", SKIP_SYMLINK, "../"),
        ("sock", SKIP_SPECIAL, "socket"),
    ]


def test_exclude_include_and_skillpackignore(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "s"
    write(skill / "SKILL.md", skill_md("s"))
    for rel in (
        "a.md",
        "data/big.csv",
        "data/keep.csv",
        "build/out.txt",
        "__pycache__/x.pyc",
        "scripts/run.py",
        "scripts/run.pyc",
        "drafts/wip.md",
    ):
        write(skill / rel, "x")
    write(skill / ".skillpackignore", "drafts/\n")
    write(tmp_path / ".skillpackignore", "*.csv\n!keep.csv\n")  # above the root: applies too

    default = _discover(tmp_path, roots=["skills"])
    assert _files(default, "s") == [
        "SKILL.md",
        "a.md",
        "build/out.txt",
        "data/keep.csv",
        "scripts/run.py",
    ]

    extended = _discover(tmp_path, roots=["skills"], **{"extend-exclude": ["build/"]})
    assert "build/out.txt" not in _files(extended, "s")
    assert "scripts/run.py" in _files(extended, "s")

    replaced = _discover(tmp_path, roots=["skills"], exclude=[])  # no default excludes
    assert "__pycache__/x.pyc" in _files(replaced, "s")

    included = _discover(tmp_path, roots=["skills"], include=["skills/s/scripts/**"])
    assert _files(included, "s") == ["SKILL.md", "scripts/run.py"]  # SKILL.md always


def test_miscased_skill_md_is_a_problem_not_a_skill(tmp_path: Path) -> None:
    write(tmp_path / "almost" / "skill.md", skill_md("almost"))
    tree = _discover(tmp_path)
    assert tree.skills == []
    assert [(p.rel, p.kind) for p in tree.problems] == [("almost/skill.md", SKIP_MISCASED)]


def test_skills_for_paths(tmp_path: Path) -> None:
    write(tmp_path / "a" / "SKILL.md", skill_md("a"))
    write(tmp_path / "a" / "refs" / "x.md", "x")
    write(tmp_path / "a" / "inner" / "SKILL.md", skill_md("inner"))
    write(tmp_path / "b" / "SKILL.md", skill_md("b"))
    tree = _discover(tmp_path)

    def chosen(*rels: str) -> list[str]:
        return [s.skill_path for s in skills_for_paths(tree, [tmp_path / r for r in rels])]

    assert chosen("a/refs/x.md") == ["a"]
    assert chosen("a/inner/SKILL.md") == ["a", "a/inner"]  # the enclosing skill publishes it
    assert chosen("b") == ["b"]
    assert chosen(".") == ["a", "a/inner", "b"]
    assert chosen("a/refs/x.md", "b/SKILL.md") == ["a", "b"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_directory(tmp_path: Path) -> None:
    write(tmp_path / "s" / "SKILL.md", skill_md("s"))
    locked = tmp_path / "s" / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        tree = _discover(tmp_path)
    finally:
        locked.chmod(0o755)
    assert [k.kind for k in tree.skills[0].skipped] == ["unreadable"]


def test_discover_within_collects_only_the_touched_skills(tmp_path: Path) -> None:
    write(tmp_path / "a" / "SKILL.md", skill_md("a"))
    write(tmp_path / "a" / "refs" / "x.md", "x")
    write(tmp_path / "a" / "inner" / "SKILL.md", skill_md("inner"))
    write(tmp_path / "a" / "inner" / ".hidden", "x")
    write(tmp_path / "b" / "SKILL.md", skill_md("b"))
    write(tmp_path / "b" / "y.md", "y")
    os.makedirs(os.fsencode(tmp_path / "c") + b"/\xff")  # a non-UTF-8 directory: never walked
    write(Path(os.fsdecode(os.fsencode(tmp_path / "c") + b"/\xff/d/SKILL.md")), skill_md("d"))
    config = config_from_table({}, tmp_path, None)
    full = discover(config)
    partial = discover(config, within=[tmp_path / "a" / "inner" / "SKILL.md"])
    assert [s.skill_path for s in partial.skills] == [s.skill_path for s in full.skills]
    assert [s.skill_path for s in full.skills] == ["a", "a/inner", "b"]
    assert [s.complete for s in partial.skills] == [True, True, False]
    for skill in partial.skills[:2]:
        whole = full.skill(skill.skill_path)
        assert whole is not None
        assert skill.files == whole.files and skill.skipped == whole.skipped
    assert partial.skills[2].files == []


def test_symlinked_skills_are_reported_not_skipped_in_silence(tmp_path: Path) -> None:
    """Issue 10 §2: a skill directory that is a link, or a SKILL.md that is one, is a
    lint finding (SP307) and stops the build; a link into a root searched anyway, or to
    a directory holding no skill, is nothing to report."""
    from tests.conftest import run_cli
    from tests.lintutil import lint_json

    project = tmp_path / "catalog"
    write(project / "skills" / "real" / "SKILL.md", skill_md("real"))
    elsewhere = tmp_path / "vendor-skills"
    write(elsewhere / "release" / "SKILL.md", skill_md("release"))  # one skill
    write(elsewhere / "pack" / "lint" / "SKILL.md", skill_md("lint"))  # a folder of skills
    write(tmp_path / "docs" / "triage.md", skill_md("triage"))
    write(tmp_path / "assets" / "logo.txt", "no skill here\n")
    os.symlink("../../vendor-skills/release", project / "skills" / "release")
    os.symlink("../../vendor-skills/pack", project / "skills" / "pack")
    (project / "skills" / "triage").mkdir()
    os.symlink("../../../docs/triage.md", project / "skills" / "triage" / "SKILL.md")
    os.symlink("real", project / "skills" / "alias")  # found at skills/real anyway
    os.symlink("../assets", project / "assets")  # no skill behind it
    proc, report = lint_json(project)
    assert proc.returncode == 1
    assert report["summary"]["skills"] == 1
    found = {f["path"]: f["message"] for f in report["findings"]}
    assert set(found) == {"skills/release", "skills/pack", "skills/triage/SKILL.md"}
    assert all(f["code"] == "SP307" and f["severity"] == "error" for f in report["findings"])
    assert found["skills/release"] == (
        "symlink to '../../vendor-skills/release' is not followed: the skills behind it are "
        "not published"
    )
    assert found["skills/triage/SKILL.md"].startswith(
        "SKILL.md is a symlink to '../../../docs/triage.md': links are never followed"
    )
    build = run_cli("build", project)
    assert build.returncode == 1 and "SP307" in build.stderr
    accepted = run_cli("lint", "--ignore", "SP307", project)
    assert accepted.returncode == 0, accepted.stdout


# --- gitignore patterns that name an entry: matched without pathspec -------------------
_NAME_CHARS = "ab.-_"
#: the names discovery matches (relative paths: never "." or "..")
_names = st.text(_NAME_CHARS, min_size=1, max_size=4).filter(lambda n: n not in (".", ".."))
_globs = st.lists(
    st.one_of(st.sampled_from(list(_NAME_CHARS)), st.just("*"), st.just("?"), st.just("[ab]")),
    min_size=1,
    max_size=5,
).map("".join)
_patterns = st.lists(
    st.tuples(_globs, st.booleans()).map(lambda g: g[0] + ("/" if g[1] else "")),
    min_size=1,
    max_size=3,
)
_paths = st.tuples(st.lists(_names, min_size=1, max_size=4), st.booleans()).map(
    lambda p: "/".join(p[0]) + ("/" if p[1] else "")
)


@settings(max_examples=400, deadline=None)
@given(patterns=_patterns, path=_paths)
def test_name_patterns_match_as_pathspec_does(patterns: list[str], path: str) -> None:
    """The default excludes and patterns like them are matched without importing
    pathspec; the answers are pathspec's."""
    patterns = [p for p in patterns if "**" not in p]
    spec = gitignore_spec(patterns)
    if not patterns:
        assert spec is None
        return
    assert isinstance(spec, _NamePatterns), patterns
    expected = pathspec.GitIgnoreSpec.from_lines(patterns).match_file(path)
    assert spec.match_file(path) == expected, (patterns, path)


def test_default_excludes_are_name_patterns_and_others_go_to_pathspec() -> None:
    assert isinstance(gitignore_spec(DEFAULT_EXCLUDE), _NamePatterns)
    assert gitignore_spec(["", "# a comment"]) is None
    for other in ("docs/*.md", "!keep.pyc", "**/x", "a\\*", "x ", "[!a]b", "/top"):
        assert isinstance(gitignore_spec([other]), pathspec.GitIgnoreSpec), other


def test_a_walk_with_the_default_excludes_does_not_import_pathspec(tmp_path: Path) -> None:
    write(tmp_path / "one" / "SKILL.md", skill_md("one"))
    write(tmp_path / "one" / "__pycache__" / "x.pyc", "x")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from skillpack.source.config import config_from_table\n"
        "from skillpack.source.discovery import discover\n"
        f"tree = discover(config_from_table({{}}, Path({str(tmp_path)!r}), None))\n"
        "assert [f.rel for f in tree.skills[0].files] == ['SKILL.md']\n"
        "assert 'pathspec' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


def test_every_path_found_is_the_path_of_its_file(tmp_path: Path) -> None:
    """The paths discovery makes from their directory's path (cheaper than parsing each
    whole path again) are the very paths of the files and skills, names with spaces,
    dots and non-ASCII letters included."""
    write(tmp_path / "skills" / "a b" / "SKILL.md", skill_md("a-b"))
    for rel in ("x y/z.md", "ü/é.md", "v1.2/n..md", "deep/er/est/f.txt"):
        write(tmp_path / "skills" / "a b" / rel, "text\n")
    tree = discover(config_from_table({}, tmp_path, None))
    (skill,) = tree.skills
    assert skill.directory == Path(os.path.join(tmp_path, "skills", "a b"))
    assert type(skill.directory) is type(Path())
    for f in skill.files:
        expected = Path(os.path.join(skill.directory, *f.rel.split("/")))
        assert f.path == expected and str(f.path) == str(expected)
        assert type(f.path) is type(expected) and f.path.parts == expected.parts
        assert f.path.read_bytes() == expected.read_bytes()
    assert sorted(f.rel for f in skill.files) == sorted(
        ["SKILL.md", "x y/z.md", "ü/é.md", "v1.2/n..md", "deep/er/est/f.txt"]
    )


def _odd_tree(root: Path) -> None:
    """A root of more than SPLIT_MIN_ENTRIES subdirectories holding every kind of entry
    a walk reports: nested skills, prefixes, skipped entries, problems outside skills,
    ignore files and excludes, names with spaces and non-ASCII letters."""
    for i in range(SPLIT_MIN_ENTRIES + 9):
        skill = root / f"s{i:03d}"
        write(skill / "SKILL.md", skill_md(f"s{i:03d}"))
        write(skill / "refs" / "deep" / "x.md", "x\n")
        write(skill / "scripts" / "run.sh", "echo hi\n")
        (skill / "scripts" / "run.sh").chmod(0o755)
        if i % 5 == 0:
            write(skill / "nested" / "SKILL.md", skill_md("nested"))
            write(skill / "nested" / "n.md", "n\n")
        if i % 7 == 0:
            write(skill / ".hidden", "x")
            os.symlink("../refs", skill / "scripts" / "link")
        if i % 13 == 0:  # a name that is not UTF-8: reported, with its path
            with open(os.path.join(os.fsencode(skill), b"bad\xff.md"), "wb") as fh:
                fh.write(b"x")
        if i % 11 == 0:
            write(skill / "build" / "out.txt", "excluded\n")
            write(skill / ".skillpackignore", "*.log\n")
            write(skill / "debug.log", "ignored\n")
    for team in ("team a", "tëam-b"):
        for i in range(3):
            write(root / team / f"t{i}" / "SKILL.md", skill_md(f"t{i}"))
            write(root / team / f"t{i}" / "ü" / "é.md", "é\n")
    write(root / "notes" / "skill.md", "miscased\n")  # a problem outside every skill
    os.symlink("s001", root / "zz-link")  # a link to a directory searched: no problem
    os.symlink("s002/SKILL.md", root / "SKILL.mdx")
    write(root / "plain.txt", "x")


def test_a_root_walked_by_several_processes_is_walked_as_by_one(tmp_path: Path) -> None:
    """discover(jobs=2) shares a large root's entries between processes; the tree is
    equal to the one-process walk, field by field (paths, sizes, modes, skipped
    entries, problems, order), and each path is the path of its file."""
    _odd_tree(tmp_path)
    config = config_from_table({"exclude": ["build/"]}, tmp_path, None)
    one = discover(config, jobs=1)
    assert len(one.skills) > SPLIT_MIN_ENTRIES and one.problems
    assert any(k.kind == "non-utf8" for s in one.skills for k in s.skipped)
    for jobs in (2, 3):
        shared = discover(config, jobs=jobs)
        assert shared == one
        for a, b in zip(shared.skills, one.skills, strict=True):
            assert a.root is b.root or a.root == b.root
            for fa, fb in zip(a.files, b.files, strict=True):
                assert fa.path.parts == fb.path.parts and str(fa.path) == str(fb.path)
                assert fa.path.read_bytes() == fb.path.read_bytes()
    within = [tmp_path / "s010" / "refs"]
    assert discover(config, within, jobs=2) == discover(config, within, jobs=1)


def test_a_root_walk_is_shared_only_when_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small root, or SKILLPACK_JOBS=1, walks in this process alone (no fork)."""
    from skillpack._internal import parallel

    forks: list[int] = []
    real = parallel.map_ranges
    monkeypatch.setattr(
        parallel,
        "map_ranges",
        lambda *a: forks.append(a[1]) or real(*a),  # type: ignore[func-returns-value]
    )
    for i in range(SPLIT_MIN_ENTRIES - 1):
        write(tmp_path / f"s{i}" / "SKILL.md", skill_md(f"s{i}"))
    config = config_from_table({}, tmp_path, None)
    discover(config, jobs=2)
    assert forks == []
    write(tmp_path / "last" / "SKILL.md", skill_md("last"))
    discover(config, jobs=2)
    assert forks == [SPLIT_MIN_ENTRIES]
    monkeypatch.setenv("SKILLPACK_JOBS", "1")
    discover(config)
    assert forks == [SPLIT_MIN_ENTRIES]


def test_meanwhile_runs_once_while_forked_walkers_walk(tmp_path: Path) -> None:
    """A build prepares its pass (meanwhile) while discovery's forked processes walk a
    large root: it runs once, here, and the tree is the same; a walk in one process
    does not run it (nothing to overlap)."""
    for i in range(SPLIT_MIN_ENTRIES + 1):
        write(tmp_path / f"s{i}" / "SKILL.md", skill_md(f"s{i}"))
    config = config_from_table({}, tmp_path, None)
    calls: list[int] = []
    shared = discover(config, jobs=2, meanwhile=lambda: calls.append(os.getpid()))
    assert calls == [os.getpid()]
    assert shared == discover(config, jobs=1, meanwhile=lambda: calls.append(0))
    assert calls == [os.getpid()]


@pytest.mark.parametrize(
    "names",
    [
        [b"b", b"a", b"Z", b"_x", b"a-b", b"a.b", b"a0"],  # ASCII: sorted as strings
        # not ASCII: UTF-8 of several lengths, and bytes that are not UTF-8 (surrogate
        # escapes, which sort apart from their bytes as strings: U+DCFF after U+00E9)
        [b"z", "\u00e9".encode(), "\uffe0".encode(), "\U0001f600".encode(), b"\xff", b"\xc3"],
    ],
)
def test_a_directory_is_walked_in_the_byte_order_of_its_names(
    tmp_path: Path, names: list[bytes]
) -> None:
    """Each directory's entries are walked in the byte order of their names, whatever
    they are (the shortcut for ASCII names sorts them as strings)."""
    for name in names:
        with open(os.path.join(os.fsencode(tmp_path), name), "wb"):
            pass
    with os.scandir(tmp_path) as it:
        walked = [os.fsencode(entry.name) for entry in _sorted_entries(it)]
    assert walked == sorted(names)
