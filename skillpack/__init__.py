"""skillpack: lint, lock, build, sign and serve Agent Skills bundles for MCP.

The public API is imported lazily so that ``import skillpack`` stays cheap (the
server's start-up path depends on it).

Data flow: source tree -> :func:`discover` -> lint -> :func:`build_manifest` ->
lock -> archive (+ signature) -> loader -> server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillpack._internal.version import __version__

_EXPORTS = {
    "Config": "skillpack.source.config",
    "load_config": "skillpack.source.config",
    "resolve_config": "skillpack.source.config",
    "discover": "skillpack.source.discovery",
    "SourceTree": "skillpack.source.discovery",
    "SourceSkill": "skillpack.source.discovery",
    "parse_skill_md": "skillpack.source.frontmatter",
    "FrontmatterError": "skillpack.source.frontmatter",
    "Manifest": "skillpack.manifest",
    "SkillEntry": "skillpack.manifest",
    "FileEntry": "skillpack.manifest",
    "build_manifest": "skillpack.source.entries",
    "SkillpackError": "skillpack.errors",
}

__all__ = [
    "Config",
    "FileEntry",
    "FrontmatterError",
    "Manifest",
    "SkillEntry",
    "SkillpackError",
    "SourceSkill",
    "SourceTree",
    "__version__",
    "build_manifest",
    "discover",
    "load_config",
    "parse_skill_md",
    "resolve_config",
]

if TYPE_CHECKING:
    from skillpack.errors import SkillpackError
    from skillpack.manifest import FileEntry, Manifest, SkillEntry
    from skillpack.source.config import Config, load_config, resolve_config
    from skillpack.source.discovery import SourceSkill, SourceTree, discover
    from skillpack.source.entries import build_manifest
    from skillpack.source.frontmatter import FrontmatterError, parse_skill_md


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'skillpack' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
