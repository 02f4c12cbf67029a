"""A test-only stand-in for the bundle reader, until the bundle branch's
``skillpack.archive.reader`` is merged here.

It implements the agreed surface (``open_bundle(path, *, mode="full") -> Bundle`` with
``.manifest``, ``.lock_bytes``, ``.lock_digest``, ``.archive_digest()``,
``.read_verified(entry)``, context manager) over a plain zip holding
``.skillpack/skillpack.lock`` (JSON of the manifest) and ``files/<skill path>/<file>``.
:func:`install` registers it as ``skillpack.archive.reader`` only when the real reader
is absent, so the same tests run against the real reader once it exists.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import sys
import types
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillpack.config import config_from_table
from skillpack.content import check_bytes
from skillpack.discovery import discover
from skillpack.manifest import FileEntry, Manifest, SkillEntry, build_manifest, file_digest
from skillpack.uri import SCHEME, file_uri

LOCK_PATH = ".skillpack/skillpack.lock"


def lock_bytes(manifest: Manifest) -> bytes:
    skills = [
        {
            "skill_path": s.skill_path,
            "uri": s.uri,
            "frontmatter": dict(s.frontmatter),
            "files": [
                {"path": f.path, "uri": f.uri, "size": f.size, "digest": f.digest} for f in s.files
            ],
        }
        for s in manifest.skills
    ]
    body = {"name": manifest.name, "version": manifest.version, "skills": skills}
    return json.dumps(body, sort_keys=True, indent=1).encode()


def manifest_from_lock(data: bytes) -> Manifest:
    body = json.loads(data)
    skills = tuple(
        SkillEntry(
            s["skill_path"],
            s["uri"],
            s["frontmatter"],
            tuple(FileEntry(f["path"], f["uri"], f["size"], f["digest"]) for f in s["files"]),
        )
        for s in body["skills"]
    )
    return Manifest(body["name"], body["version"], skills)


def member(uri: str) -> str:
    return "files/" + uri.removeprefix(SCHEME)


def write_archive(
    path: Path, lock: bytes, contents: Mapping[str, bytes], extra: Mapping[str, bytes] = {}
) -> Path:
    """A deterministic zip: the lock, then every file by URI, then ``extra`` members."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        members = {LOCK_PATH: lock, **{member(u): b for u, b in contents.items()}, **extra}
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            zf.writestr(info, members[name], compress_type=zipfile.ZIP_DEFLATED)
    path.write_bytes(buffer.getvalue())
    return path


def build_test_bundle(project: Path, out: Path) -> tuple[Path, Manifest, dict[str, bytes]]:
    """Discover the skills under ``project`` and pack them into the zip ``out``."""
    config = config_from_table({"name": "demo", "version": "1.0.0", "roots": ["."]}, project, None)
    tree = discover(config)
    manifest = build_manifest(tree)
    contents = {
        file_uri(skill.skill_path, sf.rel): sf.path.read_bytes()
        for skill in tree.skills
        for sf in skill.files
    }
    return write_archive(out, lock_bytes(manifest), contents), manifest, contents


def read_archive(path: Path) -> tuple[bytes, dict[str, bytes]]:
    """(lock bytes, {uri: bytes}) of an archive made by :func:`write_archive`."""
    with zipfile.ZipFile(path) as zf:
        names = [n for n in zf.namelist() if n.startswith("files/")]
        return zf.read(LOCK_PATH), {SCHEME + n[len("files/") :]: zf.read(n) for n in names}


class StubBundle:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._zip = zipfile.ZipFile(self.path)
        self.lock_bytes = self._zip.read(LOCK_PATH)
        self.lock_digest = "sha256:" + hashlib.sha256(self.lock_bytes).hexdigest()
        self.manifest = manifest_from_lock(self.lock_bytes)

    def archive_digest(self) -> str:
        return file_digest(self.path)[0]

    def read_verified(self, entry: FileEntry) -> bytes:
        return check_bytes(entry, self._zip.read(member(entry.uri)))

    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> StubBundle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def open_bundle(path: Path, *, mode: str = "full") -> StubBundle:
    bundle = StubBundle(path)
    if mode == "full":
        for _, entry in sorted(bundle.manifest.unique_files().items()):
            bundle.read_verified(entry)
    return bundle


def real_reader_available() -> bool:
    try:
        return importlib.util.find_spec("skillpack.archive.reader") is not None
    except ModuleNotFoundError:
        return False


def stub_modules() -> dict[str, types.ModuleType]:
    """``skillpack.archive`` and ``skillpack.archive.reader`` served by this stub."""
    package = types.ModuleType("skillpack.archive")
    package.__path__ = []
    reader = types.ModuleType("skillpack.archive.reader")
    reader.open_bundle = open_bundle  # type: ignore[attr-defined]
    package.reader = reader  # type: ignore[attr-defined]
    return {"skillpack.archive": package, "skillpack.archive.reader": reader}


def install() -> None:
    """Serve ``skillpack.archive.reader`` from this stub unless the real one exists."""
    if not real_reader_available():
        sys.modules.update(stub_modules())
