"""The safe reader: one hostile archive per refusal, tamper tests, fast and full modes."""

from __future__ import annotations

import hashlib
import json
import re
import struct
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from skillpack.bundle import BundleError
from skillpack.bundle.reader import open_bundle
from skillpack.content import IntegrityError
from tests._bundles import (
    LOCK,
    Entry,
    add_entries,
    build,
    data_offset,
    edit_lock,
    entries,
    info,
    make_project,
    patch_sizes,
    replace_entry,
    rewrite,
    same_info,
    write_zip,
)
from tests.conftest import REPO, cli_env, run_cli

INDEX = ".skillpack/index.json"
CHECKLIST = "code-review/references/checklist.md"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_project(tmp_path_factory.mktemp("reader") / "p")
    (root / "skills" / "tools" / "assets" / "zeros.bin").write_bytes(bytes(2 << 20))
    return root


@pytest.fixture(scope="module")
def base(project: Path) -> Path:
    return build(project, project.parent / "base.skp")


@pytest.fixture(scope="module")
def stored(project: Path) -> Path:
    return build(project, project.parent / "stored.skp", "--compression", "stored")


def _drop(name: str) -> Callable[[list[Entry]], list[Entry]]:
    return lambda items: [(zi, d) for zi, d in items if zi.filename != name]


def _edit_index(items: list[Entry]) -> list[Entry]:
    def change(zi: zipfile.ZipInfo, data: bytes) -> Entry:
        doc = json.loads(data)
        doc["skills"][0]["frontmatter"]["description"] = "Something else entirely."
        return same_info(zi), json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()

    return replace_entry(INDEX, change)(items)


HOSTILE = {
    "absolute": (add_entries((info("/etc/evil.md"), b"x")), "BND002", "/etc/evil.md"),
    "parent": (add_entries((info("tools/../../evil.md"), b"x")), "BND003", "tools/../../evil.md"),
    "backslash": (add_entries((info("tools\\evil.md"), b"x")), "BND004", "tools\\evil.md"),
    "drive": (add_entries((info("C:/evil.md"), b"x")), "BND005", "C:/evil.md"),
    "symlink": (
        add_entries((info("tools/link", 0o120777), b"/etc/passwd")),
        "BND006",
        "symbolic link",
    ),
    "directory": (
        add_entries((info("tools/dir/", 0o040755), b"")),
        "BND006",
        "tools/dir/: directory",
    ),
    "fifo": (add_entries((info("tools/pipe", 0o010644), b"")), "BND006", "tools/pipe"),
    "duplicate": (add_entries((info("tools/SKILL.md"), b"x")), "BND007", "tools/SKILL.md"),
    "case": (add_entries((info("tools/skill.md"), b"x")), "BND008", "'tools/SKILL.md'"),
    "nfc": (
        add_entries((info("tools/caf\u00e9.md"), b"1"), (info("tools/cafe\u0301.md"), b"2")),
        "BND008",
        "NFC normalization",
    ),
    "clash": (
        add_entries((info("tools/SKILL.md/x.md"), b"x")),
        "BND019",
        "tools/SKILL.md/x.md: needs a directory where 'tools/SKILL.md' is a file",
    ),
    "clash-case": (
        add_entries((info("tools/Nested"), b"x")),
        "BND019",
        "tools/nested/SKILL.md: needs a directory where 'tools/Nested' is a file",
    ),
    "size": (
        replace_entry(CHECKLIST, lambda zi, d: (same_info(zi), d + b"more")),
        "BND009",
        f"{CHECKLIST}: size 16 differs from the locked 12",
    ),
    "bomb": (
        replace_entry(
            "tools/assets/zeros.bin", lambda zi, d: (same_info(zi, zipfile.ZIP_DEFLATED), d)
        ),
        "BND010",
        "tools/assets/zeros.bin: compression ratio",
    ),
    "unlisted": (
        add_entries((info("tools/extra.md"), b"x")),
        "BND011",
        "tools/extra.md: file not listed",
    ),
    "missing": (
        _drop("tools/nested/notes.md"),
        "BND012",
        "tools/nested/notes.md: listed in the lock",
    ),
    "schema": (
        edit_lock(b'lock-version = "1.0"', b'lock-version = "9.9"'),
        "BND013",
        "does not match its schema",
    ),
    "lock-edit": (edit_lock(b"size = 12\n", b"size = 13\n"), "BND013", "index-digest"),
    "index": (_edit_index, "BND014", ".skillpack/index.json"),
    "empty-segment": (add_entries((info("tools//x.md"), b"x")), "BND016", "tools//x.md"),
    "reserved": (add_entries((info(".skillpack/extra"), b"x")), "BND016", ".skillpack/extra"),
    "method": (
        replace_entry(CHECKLIST, lambda zi, d: (same_info(zi, zipfile.ZIP_BZIP2), d)),
        "BND017",
        f"{CHECKLIST}: unsupported compression method 12",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_verify_refuses_hostile_archive(case: str, base: Path, tmp_path: Path) -> None:
    change, code, text = HOSTILE[case]
    hostile = rewrite(base, tmp_path / f"{case}.skp", change)
    proc = run_cli("verify", hostile)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert code in proc.stderr and text in proc.stderr, proc.stderr


def test_refuses_archives_that_are_not_bundles(base: Path, tmp_path: Path) -> None:
    plain = write_zip(tmp_path / "plain.zip", entries(base), comment=b"")
    proc = run_cli("verify", plain)
    assert proc.returncode == 1 and "BND015 not a skillpack bundle" in proc.stderr
    junk = tmp_path / "junk.skp"
    junk.write_bytes(b"not a zip at all")
    proc = run_cli("inspect", junk)
    assert proc.returncode == 1 and "BND001" in proc.stderr
    proc = run_cli("verify", tmp_path / "absent.skp")
    # a missing path is USE001 in every command (it was BND001 "bundle not found" here)
    assert proc.returncode == 2 and "USE001 path does not exist" in proc.stderr


def test_declared_size_smaller_than_the_data_is_refused(stored: Path, tmp_path: Path) -> None:
    # the entry inflates to 40 bytes but its headers and the lock say 12
    lying = rewrite(
        stored,
        tmp_path / "lying.skp",
        replace_entry(CHECKLIST, lambda zi, d: (same_info(zi, zipfile.ZIP_DEFLATED), b"-" * 40)),
    )
    lying.write_bytes(patch_sizes(lying.read_bytes(), CHECKLIST, 12))
    proc = run_cli("verify", lying)
    assert proc.returncode == 1
    assert f"BND010 {CHECKLIST}: inflates beyond its declared 12 bytes" in proc.stderr


@pytest.mark.parametrize(
    "name",
    [
        LOCK,
        INDEX,
        "code-review/SKILL.md",
        CHECKLIST,
        "tools/scripts/run.sh",
        "tools/assets/blob.bin",
        "tools/nested/notes.md",
    ],
)
def test_one_flipped_byte_fails_verify_naming_the_entry(
    name: str, stored: Path, tmp_path: Path
) -> None:
    proc = run_cli("verify", _flipped(stored, name, tmp_path / "tampered.skp"))
    assert proc.returncode == 1
    assert name in proc.stderr, proc.stderr


def _flipped(bundle: Path, name: str, out: Path) -> Path:
    """``bundle`` with one bit flipped in the middle of entry ``name``'s data."""
    offset, length = data_offset(bundle, name)
    raw = bytearray(bundle.read_bytes())
    raw[offset + length // 2] ^= 0x01
    out.write_bytes(raw)
    return out


def test_every_flipped_byte_in_a_deflated_bundle_is_caught(base: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(base) as zf:
        names = [i.filename for i in zf.infolist()]
    for name in names:
        offset, length = data_offset(base, name)
        raw = bytearray(base.read_bytes())
        raw[offset + length // 2] ^= 0x10
        tampered = tmp_path / "t.skp"
        tampered.write_bytes(raw)
        with pytest.raises((BundleError, IntegrityError)) as caught:
            open_bundle(tampered, mode="full").close()
        assert name in str(caught.value) or name.split("/", 1)[1] in str(caught.value)


def test_crc_consistent_tampering_is_caught_by_the_digest(stored: Path, tmp_path: Path) -> None:
    offset, length = data_offset(stored, CHECKLIST)
    raw = bytearray(stored.read_bytes())
    raw[offset] = ord("+")
    crc = zlib.crc32(bytes(raw[offset : offset + length]))
    with zipfile.ZipFile(stored) as zf:
        header = zf.getinfo(CHECKLIST).header_offset
    struct.pack_into("<L", raw, header + 14, crc)
    cd = bytes(raw).find(b"PK\x01\x02" + bytes(raw[header + 4 : header + 6]), offset)
    while bytes(raw[cd + 46 : cd + 46 + len(CHECKLIST)]) != CHECKLIST.encode():
        cd = bytes(raw).find(b"PK\x01\x02", cd + 4)
    struct.pack_into("<L", raw, cd + 16, crc)
    tampered = tmp_path / "crc.skp"
    tampered.write_bytes(raw)
    assert zipfile.ZipFile(tampered).testzip() is None  # a zip tool sees nothing wrong
    proc = run_cli("verify", tampered)
    assert proc.returncode == 1
    assert "INT001 skill://code-review/references/checklist.md: digest" in proc.stderr


def test_fast_mode_api(base: Path, project: Path, tmp_path: Path) -> None:
    with open_bundle(base, mode="full") as full:
        expected = full.manifest
    with open_bundle(base, mode="fast") as fast:
        assert fast.manifest == expected
        assert fast.lock_bytes == (project / "skillpack.lock").read_bytes()
        assert fast.lock_digest == "sha256:" + hashlib.sha256(fast.lock_bytes).hexdigest()
        assert fast.archive_digest() == "sha256:" + hashlib.sha256(base.read_bytes()).hexdigest()
        skill = fast.manifest.skill("skill://tools/SKILL.md")
        assert skill is not None
        run = skill.file("skill://tools/scripts/run.sh")
        assert run is not None and run.executable
        assert fast.read_verified(run) == b"#!/bin/sh\necho ok\n"
        assert fast.entry(run).mode == 0o100755
    # fast mode checks each file when it is read, not before
    offset, _ = data_offset(base, "tools/scripts/run.sh")
    raw = bytearray(base.read_bytes())
    raw[offset + 1] ^= 0xFF
    (tmp_path / "t.skp").write_bytes(raw)
    with open_bundle(tmp_path / "t.skp", mode="fast") as fast:
        assert fast.read_verified(skill.files[0]).startswith(b"---\n")
        with pytest.raises(BundleError, match=re.escape("tools/scripts/run.sh")):
            fast.read_verified(run)
    bad_index = rewrite(base, tmp_path / "i.skp", _edit_index)
    with pytest.raises(BundleError, match=re.escape("BND014 .skillpack/index.json: index digest")):
        open_bundle(bad_index, mode="fast")


def test_fast_mode_imports_only_the_standard_library(base: Path) -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from skillpack.bundle.reader import open_bundle\n"
        f"b = open_bundle({str(base)!r}, mode='fast')\n"
        "for s, f in b.manifest.files(): b.read_verified(f)\n"
        "new = set(sys.modules) - before\n"
        "names = {m.split('.')[0] for m in new} - set(sys.stdlib_module_names)\n"
        "print(sorted(names)); print(sorted(m for m in sys.modules if m.startswith('skillpack')))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(), capture_output=True, text=True, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr
    third_party, ours = proc.stdout.splitlines()
    assert third_party == "['skillpack']"
    for heavy in (
        "skillpack.source.config",
        "skillpack.source.discovery",
        "skillpack.cli",
        "skillpack.bundle.diff",
    ):
        assert f"'{heavy}'" not in ours


def _relock(lock: bytes, index: bytes, new_body: bytes) -> tuple[bytes, bytes]:
    """A lock with ``new_body`` after its prologue and an index that vouches for it: both
    digests made right, as a tool other than skillpack might write them."""
    from skillpack.lockfile.prologue import lock_body_digest, split_lock

    doc = json.loads(index)
    doc["lock-body"] = lock_body_digest(new_body)
    new_index = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    digest = "sha256:" + hashlib.sha256(new_index).hexdigest()
    old_digest, _ = split_lock(lock)
    prologue = lock[: len(lock) - len(split_lock(lock)[1])]
    return prologue.replace(old_digest.encode(), digest.encode()) + new_body, new_index


def test_full_mode_reads_a_canonical_lock_without_parsing_it(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bundle skillpack wrote holds the canonical lock of the manifest its index
    describes: the full mode takes the manifest from the index, checks it as a lock's
    manifest is checked, renders it and compares bytes; the TOML is never parsed."""
    import skillpack.lockfile.lock as lock_module

    with open_bundle(base, mode="full") as bundle:
        parsed = lock_module.parse_lock(bundle.lock_bytes, LOCK).manifest
    monkeypatch.setattr(lock_module, "parse_lock", None)  # any call fails
    with open_bundle(base, mode="full") as bundle:
        assert bundle.manifest == parsed


def test_a_valid_lock_in_another_layout_is_parsed_and_accepted(base: Path, tmp_path: Path) -> None:
    """The same data written another way (here: a comment and a blank line more, the
    digests made to agree) is not the canonical rendering: the reader parses it in full
    and accepts it, with the same manifest."""
    from skillpack.lockfile.prologue import split_lock

    items = entries(base)
    lock = next(d for zi, d in items if zi.filename == LOCK)
    index = next(d for zi, d in items if zi.filename == INDEX)
    body = split_lock(lock)[1] + b"\n# written by another tool\n"
    new_lock, new_index = _relock(lock, index, body)
    assert new_lock != lock
    changed = replace_entry(LOCK, lambda zi, _: (same_info(zi), new_lock))
    other = rewrite(base, tmp_path / "other.skp",
                    lambda i: replace_entry(INDEX, lambda zi, _: (same_info(zi), new_index))(
                        changed(i)))  # fmt: skip
    with open_bundle(base, mode="full") as a, open_bundle(other, mode="full") as b:
        assert a.manifest == b.manifest
    assert run_cli("verify", other).returncode == 0


def test_canonical_and_parsed_locks_give_the_same_manifest(base: Path) -> None:
    """The fast reading of a lock and its full parse agree, for every bundle shape the
    tests build (nested skills, executables, binary files)."""
    from skillpack.bundle.reader import _canonical_lock_manifest, _parsed_lock_manifest

    items = dict((zi.filename, d) for zi, d in entries(base))
    lock, index = items[LOCK], items[INDEX]
    fast = _canonical_lock_manifest(lock, index)
    assert fast is not None
    assert fast == _parsed_lock_manifest(lock, index)
    # a manifest the lock reader would refuse is never taken from the index
    doc = json.loads(index)
    doc["skills"][0]["files"][0][2] = "sha256:" + "G" * 64
    assert _canonical_lock_manifest(lock, json.dumps(doc).encode()) is None
    # nor one canonical JSON cannot hold (json.loads reads NaN; the index never has it)
    doc = json.loads(index)
    doc["skills"][0]["frontmatter"]["ratio"] = float("nan")
    assert _canonical_lock_manifest(lock, json.dumps(doc).encode()) is None


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_an_extra_field_in_the_local_header_moves_the_data_and_is_read_there(
    method: int, stored: Path, tmp_path: Path
) -> None:
    """skillpack writes no extra fields, and the reader reads header, name and data of
    such an entry at once; an archive whose entry carries one (another zip tool) has its
    data further on, which the reader finds and verifies there: tampering still fails."""

    def with_extra(zi: zipfile.ZipInfo, data: bytes) -> Entry:
        again = same_info(zi, method)
        again.extra = struct.pack("<HH", 0xCAFE, 4) + b"skp!"  # an unknown field, 8 bytes
        return again, data

    odd = rewrite(stored, tmp_path / "extra.skp", replace_entry(CHECKLIST, with_extra))
    proc = run_cli("verify", odd)
    assert proc.returncode == 0, proc.stderr
    with open_bundle(odd) as bundle:
        entry = next(f for s in bundle.manifest.skills for f in s.files if f.path.endswith(
            "checklist.md"))  # fmt: skip
        assert (
            bundle.read_verified(entry)
            == (stored.parent / "p/skills/code-review/references/checklist.md").read_bytes()
        )
    proc = run_cli("verify", _flipped(odd, CHECKLIST, tmp_path / "tampered.skp"))
    assert proc.returncode == 1 and CHECKLIST in proc.stderr, proc.stderr
