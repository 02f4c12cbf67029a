"""SP305's first step (skillpack.lint.secrets): a few tests over a file's bytes tell
whether it holds any pattern's marker. They must say exactly what looking for every
marker says, or a secret would go unreported (a miss) or every file be searched (a
false alarm costs only time, but the tests would no longer tell them apart)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillpack.lint.secrets import PATTERNS, find_secrets, holds_marker

MARKERS = sorted({m for p in PATTERNS for m in p.markers})


def _holds_any(data: bytes) -> bool:
    return holds_marker(data)


def test_each_marker_alone_and_in_text_is_found() -> None:
    for marker in MARKERS:
        for data in (marker, b"x" + marker, marker + b"x", b"lorem ipsum\n" + marker + b" dolor"):
            assert _holds_any(data), (marker, data)


def test_their_near_misses_are_not() -> None:
    # each marker less its last byte, or with it changed: no marker at all
    for marker in MARKERS:
        for near in (marker[:-1], marker[:-1] + b"\x00"):
            assert not any(m in near for m in MARKERS)
            assert not _holds_any(near), near


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(MARKERS),
            st.sampled_from([m[:-1] for m in MARKERS]),
            st.binary(max_size=12),
            st.sampled_from([b"A", b"g", b"gh", b"AK", b"xo", b"sk", b"hooks.", b"PRIVATE "]),
        ),
        max_size=8,
    )
)
def test_the_tests_say_what_every_marker_says(parts: list[bytes]) -> None:
    data = b"".join(parts)
    assert _holds_any(data) == any(m in data for m in MARKERS)


def test_a_secret_is_still_reported() -> None:
    token = b"ghp_" + b"a1B2" * 9
    hits = list(find_secrets(b"# setup\nexport GITHUB_TOKEN=" + token + b"\n"))
    assert [h.label for h in hits] == ["a GitHub token"]
    assert list(find_secrets(b"# setup\nexport GITHUB_TOKEN=$TOKEN\n")) == []
