"""The signed statement's predicate: the Python check agrees with the published schema."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from skillpack._internal.schemas import validation_errors
from skillpack.signing.statement import PREDICATE_SCHEMA, _predicate_files

GOOD: dict[str, Any] = {
    "bundle": {"name": "acme", "version": "1.0.0"},
    "lock": {"digest": "sha256:" + "a" * 64},
    "files": [
        {"uri": "skill://a/SKILL.md", "digest": "sha256:" + "b" * 64, "size": 10},
        {"uri": "skill://a/x.md", "digest": "sha256:" + "c" * 64, "size": 0},
    ],
}
odd_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=2),
    st.sampled_from(
        [
            "",
            "x",
            "skill://",
            "skill://a",
            "sha256:" + "a" * 64,
            "SHA256:" + "a" * 64,
            "sha256:" + "A" * 64,
            "sha256:" + "a" * 63,
        ]
    ),
    st.just([]),
    st.just({}),
)
paths = st.sampled_from(
    [
        ("bundle",), ("bundle", "name"), ("bundle", "version"), ("lock",), ("lock", "digest"),
        ("files",), ("files", 0), ("files", 1, "uri"), ("files", 0, "digest"),
        ("files", 1, "size"), ("files", 0, "extra"), ("extra",), ("bundle", "extra"),
    ]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(paths, odd_values | st.just("__delete__")), max_size=3))
def test_the_python_check_and_the_schema_agree(edits: list[tuple[tuple[Any, ...], Any]]) -> None:
    predicate: Any = copy.deepcopy(GOOD)
    for path, value in edits:
        node = predicate
        for key in path[:-1]:
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                break
        else:
            try:
                if value == "__delete__":
                    del node[path[-1]]
                else:
                    node[path[-1]] = value
            except (KeyError, IndexError, TypeError):
                pass
    accepted = _predicate_files(predicate) is not None
    valid = isinstance(predicate, dict) and not validation_errors(PREDICATE_SCHEMA, predicate)
    assert accepted == valid


def test_a_good_predicate_gives_its_files() -> None:
    files = _predicate_files(GOOD)
    assert files is not None and [f.uri for f in files] == ["skill://a/SKILL.md", "skill://a/x.md"]
