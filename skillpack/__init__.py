"""skillpack: lint, lock, build, sign and serve Agent Skills bundles for MCP.

The public API is imported lazily so that ``import skillpack`` stays cheap (the
server's start-up path depends on it).

Data flow: source tree -> :func:`discover` -> lint -> :func:`build_manifest` ->
lock -> archive (+ signature) -> loader -> server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Config": "skillpack.config",
    "load_config": "skillpack.config",
    "resolve_config": "skillpack.config",
    "discover": "skillpack.discovery",
    "SourceTree": "skillpack.discovery",
    "SourceSkill": "skillpack.discovery",
    "parse_skill_md": "skillpack.frontmatter",
    "FrontmatterError": "skillpack.frontmatter",
    "Manifest": "skillpack.manifest",
    "SkillEntry": "skillpack.manifest",
    "FileEntry": "skillpack.manifest",
    "build_manifest": "skillpack.manifest",
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
    from .config import Config, load_config, resolve_config
    from .discovery import SourceSkill, SourceTree, discover
    from .errors import SkillpackError
    from .frontmatter import FrontmatterError, parse_skill_md
    from .manifest import FileEntry, Manifest, SkillEntry, build_manifest


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'skillpack' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
