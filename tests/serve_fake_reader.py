"""A test-only stand-in for ``skillpack.archive.reader`` (built on the bundle branch).

Until the real reader is merged, the serve tests that need *bundle mode* (the
stdlib-only start-up path) install this module as ``skillpack.archive.reader`` in a
bootstrap. Its "bundle" is a JSON file holding a manifest and the directory the bytes
live in; it implements the agreed API: ``open_bundle(path, *, mode) -> Bundle`` with
``.manifest``, ``.read_raw(entry)``, ``.close()``. Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillpack.manifest import FileEntry, Manifest, SkillEntry


class FakeBundle:
    def __init__(self, path: Path) -> None:
        data = json.loads(Path(path).read_text("utf-8"))
        self.path = Path(path)
        self._files: dict[str, str] = data["paths"]
        self.manifest = Manifest(
            data["name"],
            data["version"],
            tuple(
                SkillEntry(
                    s["skill_path"],
                    s["uri"],
                    s["frontmatter"],
                    tuple(FileEntry(**f) for f in s["files"]),
                )
                for s in data["skills"]
            ),
        )

    def read_raw(self, entry: FileEntry) -> bytes:
        with open(self._files[entry.uri], "rb") as fh:
            return fh.read(entry.size + 1)

    def close(self) -> None:
        pass


def open_bundle(path: Path, *, mode: str = "full") -> FakeBundle:
    return FakeBundle(path)


def write_fake_bundle(tree_dir: Path, out: Path) -> Path:
    """Hash ``tree_dir`` with the real discovery + manifest code; write the JSON stand-in."""
    from skillpack.config import resolve_config
    from skillpack.discovery import discover
    from skillpack.manifest import build_manifest

    tree = discover(resolve_config([tree_dir]))
    manifest = build_manifest(tree)
    data: dict[str, Any] = {
        "name": manifest.name,
        "version": manifest.version,
        "skills": [
            {
                "skill_path": s.skill_path,
                "uri": s.uri,
                "frontmatter": dict(s.frontmatter),
                "files": [
                    {
                        "path": f.path,
                        "uri": f.uri,
                        "size": f.size,
                        "digest": f.digest,
                        "executable": f.executable,
                    }
                    for f in s.files
                ],
            }
            for s in manifest.skills
        ],
        "paths": {s.uri(f.rel): str(f.path) for s in tree.skills for f in s.files},
    }
    out.write_text(json.dumps(data), "utf-8")
    return out


BOOTSTRAP = """\
import importlib.util, sys, types
spec = importlib.util.spec_from_file_location("skillpack.archive.reader", {fake!r})
reader = importlib.util.module_from_spec(spec)
package = types.ModuleType("skillpack.archive")
package.__path__ = []
package.reader = reader
sys.modules["skillpack.archive"] = package
sys.modules["skillpack.archive.reader"] = reader
spec.loader.exec_module(reader)
from skillpack.__main__ import main
sys.exit(main(["serve", *sys.argv[1:]]))
"""


def bootstrap_command(python: list[str], *args: str) -> list[str]:
    """``PYTHON -c BOOTSTRAP ARGS``: ``skillpack serve ARGS`` with this stand-in reader
    (``python`` is the interpreter and its flags)."""
    return [*python, "-c", BOOTSTRAP.format(fake=str(Path(__file__).resolve())), *args]
