"""skillpack.source.paths.tree_problems: what a tree of published paths cannot hold,
held to a plain reading of its rules (every path against every earlier one)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillpack.source.paths import (
    CLASH,
    COLLISION,
    PathProblem,
    collision_key,
    tree_problems,
    unsafe_published_path,
)


def reference(paths: list[str]) -> list[PathProblem]:
    """The rules read literally: each path against every path accepted before it."""
    accepted: list[tuple[str, str]] = []  # (collision key, path), in order
    found = []
    for path in dict.fromkeys(paths):
        unsafe = unsafe_published_path(path)
        if unsafe is not None:
            found.append(PathProblem(path, unsafe[0], unsafe[1]))
            continue
        key = collision_key(path)
        same = [p for k, p in accepted if k == key]
        if same:
            why = f"and '{same[0]}' differ only in case or Unicode normalization"
            found.append(PathProblem(path, COLLISION, why, same[0]))
            continue
        below = [p for k, p in accepted if k.startswith(key + "/")]
        if below:
            why = f"is a file, and '{below[0]}' needs a directory there"
            found.append(PathProblem(path, CLASH, why, below[0]))
            continue
        above = sorted((len(k), p) for k, p in accepted if key.startswith(k + "/"))
        if above:
            clash = above[0][1]  # the outermost
            why = f"needs a directory where '{clash}' is a file"
            found.append(PathProblem(path, CLASH, why, clash))
            continue
        accepted.append((key, path))
    return found


SEGMENTS = st.sampled_from(["a", "A", "b", "B", "c", "\u00e9", "e\u0301", "x.md", "X.MD", ".d"])
PATHS = st.lists(st.lists(SEGMENTS, min_size=1, max_size=4).map("/".join), max_size=14)


@settings(max_examples=600, deadline=None)
@given(PATHS)
def test_tree_problems_is_the_plain_reading(paths: list[str]) -> None:
    assert list(tree_problems(paths)) == reference(paths)


def test_examples() -> None:
    assert list(tree_problems(["s/a", "s/b/c", "s/A", "s/b", "s/a/x", "s/b/c"])) == [
        PathProblem("s/A", COLLISION, "and 's/a' differ only in case or Unicode normalization",
                    "s/a"),
        PathProblem("s/b", CLASH, "is a file, and 's/b/c' needs a directory there", "s/b/c"),
        PathProblem("s/a/x", CLASH, "needs a directory where 's/a' is a file", "s/a"),
    ]  # fmt: skip


#: plain segments only: the whole tree is judged at once (paths.\_plain_and_apart) unless
#: two collide or clash
PLAIN = st.lists(
    st.lists(st.sampled_from(["a", "A", "b", "c-1", "x.md", "X.md", "_", "~"]), min_size=1,
             max_size=5).map("/".join),
    max_size=30,
)  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(PLAIN)
def test_plain_trees_judged_at_once_as_one_by_one(paths: list[str]) -> None:
    assert list(tree_problems(paths)) == reference(paths)


def test_a_line_break_inside_a_path_is_judged() -> None:
    """The paths joined by line breaks would read as two plain paths."""
    assert [p.kind for p in tree_problems(["a/b\nc", "d"])] == ["malformed"]
    assert [p.kind for p in tree_problems(["a\n", "b"])] == ["malformed"]


@settings(max_examples=600, deadline=None)
@given(PLAIN)
def test_a_skills_plain_names_judged_at_once_as_one_by_one(rels: list[str]) -> None:
    """lint's SP206/SP207 check of one skill's file names (checks.paths.file_names):
    where its shortcut says plain and apart, the check path by path finds nothing; it
    finds something for every tree the shortcut turns down."""
    from types import SimpleNamespace

    from skillpack.lint.checks import paths as checks

    files = [SimpleNamespace(rel=rel, path=rel) for rel in dict.fromkeys(rels)]
    ctx = SimpleNamespace(
        skill=SimpleNamespace(files=files), finding=lambda code, *rest, **kw: code
    )
    shortcut = checks._plain_apart([f.rel for f in files])
    original = checks._plain_apart
    checks._plain_apart = lambda rels: False
    try:
        found = list(checks.file_names(ctx))  # type: ignore[arg-type]
    finally:
        checks._plain_apart = original
    assert shortcut == (not found), (rels, found)
