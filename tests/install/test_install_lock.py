"""The install lock: canonical bytes, and its two readings agree."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillpack.install import lockfile
from skillpack.install.lockfile import (
    InstalledDir,
    InstalledSkill,
    InstallLock,
    InstallLockError,
    LockedFile,
    Signer,
    SourcePin,
    parse_install_lock,
    render_install_lock,
)

digests = st.sampled_from(["sha256:" + c * 64 for c in "0123456789abcdef"])
names = st.from_regex(r"[a-z0-9][a-z0-9._-]{0,12}", fullmatch=True)
text = st.text(st.sampled_from('ab-é/ "\\\t.[]\u2028'), min_size=1, max_size=10)
segment = st.from_regex(r"[A-Za-z0-9_~-][A-Za-z0-9._~ é-]{0,8}", fullmatch=True)
paths = st.lists(segment, min_size=1, max_size=3).map("/".join)


@st.composite
def locks(draw: st.DrawFn) -> InstallLock:
    # a source is a normalized relative path (the lock refuses anything else)
    sources = draw(st.lists(st.sampled_from(["", "../", "../../"]).flatmap(
        lambda up: paths.map(lambda p: up + p)), min_size=1, max_size=3, unique=True))  # fmt: skip
    pins = tuple(
        SourcePin(
            s,
            draw(text),
            draw(text),
            draw(digests),
            draw(st.none() | digests),
            draw(
                st.none()
                | st.builds(Signer, st.sampled_from(["key", "keyless"]), text, st.none() | text)
            ),
        )
        for s in sources
    )
    skills = []
    for name in draw(st.lists(names, max_size=4, unique=True)):
        agent_dirs = draw(st.lists(st.sampled_from([".agents/skills", ".claude/skills",
                                                    "/abs/x y/skills"]), min_size=1,
                                   max_size=3, unique=True))  # fmt: skip
        link = draw(st.booleans()) and len(agent_dirs) > 1
        directories = tuple(
            InstalledDir(f"{d}/{name}", tuple(draw(st.lists(names, max_size=2))), link and i > 0)
            for i, d in enumerate(agent_dirs)
        )
        files = tuple(
            LockedFile(p, draw(st.integers(0, 10**9)), draw(digests), draw(st.booleans()))
            for p in draw(st.lists(paths, min_size=1, max_size=4, unique=True))
        )
        skills.append(InstalledSkill(name, draw(st.sampled_from(sources)), draw(paths),
                                     directories, files))  # fmt: skip
    return InstallLock(pins, tuple(skills)).normalized()


@settings(max_examples=150, deadline=None)
@given(locks())
def test_the_canonical_reading_and_tomllib_agree(lock: InstallLock) -> None:
    data = render_install_lock(lock)
    read = parse_install_lock(data, "x")
    assert read == lock
    # read without tomllib unless a string needed an escape or holds a tab ("]" and
    # U+2028 in a value, which end no line of the canonical form, are read as they are)
    assert (read.canonical == data) == (b"\\" not in data and b"\t" not in data)
    # the slow path (tomllib and the schema) reads the same lock from the same bytes
    assert lockfile._slow_read(data.decode(), "x") == lock
    tomllib.loads(data.decode())  # and it is TOML


#: a lock of one source and one skill of one file
ONE_SKILL = InstallLock(
    (SourcePin("a.skp", "acme", "1.0.0", "sha256:" + "a" * 64),),
    (InstalledSkill("review", "a.skp", "review",
                    (InstalledDir(".agents/skills/review", ("codex",)),),
                    (LockedFile("SKILL.md", 3, "sha256:" + "b" * 64),)),),
)  # fmt: skip


def test_a_lock_in_another_layout_is_read_in_full() -> None:
    lock = ONE_SKILL
    data = render_install_lock(lock) + b"# edited by hand\n"
    assert parse_install_lock(data, "x") == lock


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ((b'source = "a.skp"\nname', b'source = "b.skp"\nname'), "is not pinned"),
        ((b"size = 3", b"size = -3"), "schema"),
        ((b'"sha256:bbbb', b'"sha256:BBBB'), "at 'skills.0.files.0.digest'"),
        ((b'path = "SKILL.md"', b'path = "../SKILL.md"'), "unsafe"),
        ((b'name = "review"', b'name = ".hidden"'), "not a valid skill name"),
        ((b'lock-version = "1.0"', b'lock-version = "2.0"'), "schema"),
        ((b"[[skills]]", b"[[skills"), "not valid TOML"),
    ],
)
def test_a_lock_that_is_not_valid_is_refused(edit: tuple[bytes, bytes], message: str) -> None:
    lock = ONE_SKILL
    data = render_install_lock(lock).replace(*edit)
    with pytest.raises(InstallLockError, match=message) as caught:
        parse_install_lock(data, "skillpack-install.lock")
    assert caught.value.code == "INS011"


@settings(max_examples=300, deadline=None)
@given(locks(), st.data())
def test_the_canonical_reading_accepts_only_what_it_reads_right(
    lock: InstallLock, data: st.DataObject
) -> None:
    """Lines of a canonical lock changed at random: whenever the line-by-line reading
    takes the text (without rendering it), tomllib reads the same lock from it and the
    text is that lock's canonical rendering."""
    lines = render_install_lock(lock).decode().splitlines(keepends=True)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(lines) - 1))
        line = lines[at]
        edit = data.draw(st.sampled_from(["drop", "dup", "char", "swap"]))
        if edit == "drop":
            del lines[at]
        elif edit == "dup":
            lines.insert(at, line)
        elif edit == "swap" and at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
        elif line.strip():
            pos = data.draw(st.integers(0, len(line) - 1))
            lines[at] = line[:pos] + data.draw(st.sampled_from('",[]{} x\\=\t0')) + line[pos:]
        if not lines:
            return
    text = "".join(lines)
    try:
        read = parse_install_lock(text.encode(), "x")
    except InstallLockError:
        return
    if read.canonical is not None:
        assert render_install_lock(read) == text.encode()
        assert lockfile._slow_read(text, "x") == read


def test_a_refusal_names_the_entry_as_the_locks() -> None:
    data = render_install_lock(ONE_SKILL).replace(
        b'source = "a.skp"\nname', b'source = "b.skp"\nname'
    )
    with pytest.raises(InstallLockError) as caught:
        parse_install_lock(data, "skillpack-install.lock")
    assert caught.value.message == (
        "the install lock's skill 'review': its source 'a.skp' is not pinned"
    )
    with pytest.raises(InstallLockError) as caught:
        parse_install_lock(b"\xff", "skillpack-install.lock")
    assert caught.value.message.startswith("the install lock is not UTF-8")
