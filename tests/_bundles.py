"""Helpers for the bundle tests: small projects, and rewriting archives into hostile ones."""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

from tests.conftest import run_cli, write_skill

COMMENT = b"skillpack-bundle/1"
LOCK = ".skillpack/skillpack.lock"
Entry = tuple[zipfile.ZipInfo, bytes]
Change = Callable[[list[Entry]], list[Entry]]


def make_project(root: Path, name: str = "demo", version: str = "1.0.0") -> Path:
    """A project with two skills, a nested one, an executable and a binary file."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "skillpack.toml").write_text(
        f'name = "{name}"\nversion = "{version}"\nroots = ["skills"]\n', encoding="utf-8"
    )
    skills = root / "skills"
    write_skill(skills, "code-review", files={"references/checklist.md": "- [ ] tests\n"})
    write_skill(
        skills,
        "tools",
        files={"scripts/run.sh": "#!/bin/sh\necho ok\n", "assets/blob.bin": bytes(range(256))},
    )
    (skills / "tools" / "scripts" / "run.sh").chmod(0o755)
    write_skill(skills, "tools/nested", files={"notes.md": "nested notes\n"})
    return root


def build(project: Path, out: Path, *extra: str) -> Path:
    proc = run_cli("build", project, "-o", out, "--no-lint", *extra)
    assert proc.returncode == 0, proc.stderr
    return out


def entries(path: Path) -> list[Entry]:
    with zipfile.ZipFile(path) as zf:
        return [(info, zf.read(info)) for info in zf.infolist()]


def info(name: str, mode: int = 0o100644, method: int = zipfile.ZIP_DEFLATED) -> zipfile.ZipInfo:
    zi = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
    zi.create_system = 3
    zi.external_attr = mode << 16
    zi.compress_type = method
    return zi


def same_info(zi: zipfile.ZipInfo, method: int | None = None) -> zipfile.ZipInfo:
    """A fresh ZipInfo like ``zi`` (name, mode, method unless ``method`` is given)."""
    return info(zi.filename, zi.external_attr >> 16, zi.compress_type if method is None else method)


def add_entries(*new: Entry) -> Change:
    return lambda items: [*items, *new]


def replace_entry(name: str, make: Callable[[zipfile.ZipInfo, bytes], Entry]) -> Change:
    return lambda items: [
        make(zi, data) if zi.filename == name else (zi, data) for zi, data in items
    ]


def set_entry(name: str, data: bytes) -> Change:
    """Entry ``name`` holding ``data`` instead (same name, mode and method)."""
    return replace_entry(name, lambda zi, _: (same_info(zi), data))


def edit_lock(old: bytes, new: bytes) -> Change:
    return replace_entry(LOCK, lambda zi, d: (same_info(zi), d.replace(old, new, 1)))


def write_zip(path: Path, items: list[Entry], comment: bytes = COMMENT) -> Path:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are the point of some tests
        with zipfile.ZipFile(path, "w") as zf:
            for zi, data in items:
                zf.writestr(zi, data)
            zf.comment = comment
    return path


def rewrite(src: Path, dst: Path, change: Change) -> Path:
    return write_zip(dst, change(entries(src)))


def patch_sizes(data: bytes, name: str, size: int) -> bytes:
    """Set the uncompressed size of entry ``name`` in its local and central headers."""
    raw = name.encode()
    out = bytearray(data)
    for sig, size_at, name_len_at, header in (
        (b"PK\x03\x04", 22, 26, 30),
        (b"PK\x01\x02", 24, 28, 46),
    ):
        pos = out.find(sig)
        while pos >= 0:
            (n,) = struct.unpack_from("<H", out, pos + name_len_at)
            if bytes(out[pos + header : pos + header + n]) == raw:
                struct.pack_into("<L", out, pos + size_at, size)
            pos = out.find(sig, pos + 4)
    return bytes(out)


def data_offset(path: Path, name: str) -> tuple[int, int]:
    """(offset, length) of the stored data of entry ``name``."""
    with zipfile.ZipFile(path) as zf:
        zi = zf.getinfo(name)
    raw = path.read_bytes()
    n, m = struct.unpack_from("<HH", raw, zi.header_offset + 26)
    return zi.header_offset + 30 + n + m, zi.compress_size
