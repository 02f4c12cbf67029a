"""A host's marketplace as a typed value: its plugins and where each comes from.

:func:`read_marketplace` reads ``.claude-plugin/marketplace.json`` (Claude Code) or
``.agents/plugins/marketplace.json`` (Codex) under a repository root and returns a
:class:`Marketplace`; installing ``--plugin NAME`` from a marketplace starts here. A
source is one of:

* ``relative``: a directory of the same repository (``"./plugins/x"``, Codex's
  ``{"source": "local", "path": ...}`` and its ``{"source": "url", "url": "./"}``);
* ``github``: ``{"source": "github", "repo": "OWNER/REPO"}`` (``ref``, ``sha``);
* ``url``: a git URL (``ref``, ``sha``);
* ``git-subdir``: a directory (``path``) of a git repository at ``url``;
* ``npm``: a package (Claude Code only; nothing in skillpack fetches it).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from skillpack.errors import Location, SkillpackError
from skillpack.plugins import errors as _errors  # noqa: F401  (registers the PLG codes)
from skillpack.plugins.formats import BAD_FIELD, OUTSIDE, Problem, check_marketplace, show
from skillpack.plugins.hosts import CLAUDE, HOSTS, MARKETPLACE_HOSTS
from skillpack.plugins.jsonpos import Document, JSONSyntaxError, Pos, read_json

START = Pos(1, 1)

SourceKind = Literal["relative", "github", "url", "git-subdir", "npm"]


@dataclass(frozen=True)
class PluginSource:
    """Where a marketplace's plugin is fetched from (see the module's list)."""

    kind: SourceKind
    #: ``relative``: the directory from the marketplace root, normalized POSIX without
    #: ``./`` (``""`` is the root); ``git-subdir``: the directory in the repository
    path: str = ""
    repo: str = ""  #: ``github``: OWNER/REPO
    url: str = ""  #: ``url``, ``git-subdir``: the git URL
    ref: str = ""
    sha: str = ""
    package: str = ""  #: ``npm``

    def directory(self, root: Path) -> Path | None:
        """A ``relative`` source's directory under the marketplace ``root``; None for
        the other kinds."""
        if self.kind != "relative":
            return None
        return root / self.path if self.path else root


@dataclass(frozen=True)
class MarketplacePlugin:
    """One entry of a marketplace."""

    name: str
    source: PluginSource
    description: str = ""
    version: str = ""
    #: Claude Code's ``skills`` list (paths from the source's directory), None when absent
    skills: tuple[str, ...] | None = None
    #: Claude Code's ``strict`` (false: the entry is the whole manifest); None when absent
    strict: bool | None = None
    pos: Pos = START  #: where the entry starts in the file
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Marketplace:
    """A marketplace file read and checked: its name and its plugins, in file order."""

    host: str
    path: Path  #: the marketplace file
    root: Path  #: the directory relative sources are resolved from
    name: str
    plugins: tuple[MarketplacePlugin, ...]
    document: Document = field(repr=False, compare=False)

    def plugin(self, name: str) -> MarketplacePlugin | None:
        return next((p for p in self.plugins if p.name == name), None)

    def require(self, name: str) -> MarketplacePlugin:
        """The plugin ``name``, or ``PLG004`` listing the plugins there are."""
        found = self.plugin(name)
        if found is None:
            names = ", ".join(p.name for p in self.plugins) or "none"
            raise SkillpackError(
                "PLG004",
                f"the marketplace '{self.name}' lists no plugin '{name}' (it lists: {names})",
                Location(str(self.path)),
            )
        return found


def _relative(path: str) -> str:
    """``./plugins/x/`` -> ``plugins/x``; ``./`` -> ``""``."""
    normal = posixpath.normpath(path.replace("\\", "/"))
    return "" if normal == "." else normal


def plugin_source(value: Any, plugin_root: str = "") -> PluginSource:
    """The source of a checked entry (``check_marketplace`` found no problem with it);
    ``plugin_root``: Claude Code's ``metadata.pluginRoot``, the directory of bare names."""
    if isinstance(value, str):
        if plugin_root and not value.startswith("./"):
            value = posixpath.join(plugin_root, value)
        return PluginSource("relative", _relative(value))
    kind = value["source"]
    text = {k: v for k, v in value.items() if isinstance(v, str)}
    ref, sha = text.get("ref", ""), text.get("sha", "")
    if kind == "local" or (kind == "url" and text["url"].startswith(("./", "../"))):
        # Codex's local path, and the relative "url" obra/superpowers' marketplace uses
        return PluginSource("relative", _relative(text.get("path") or text["url"]))
    if kind == "github":
        return PluginSource("github", repo=text["repo"], ref=ref, sha=sha)
    if kind == "git-subdir":
        return PluginSource("git-subdir", _relative(text["path"]), url=text["url"], ref=ref,
                            sha=sha)  # fmt: skip
    if kind == "npm":
        return PluginSource("npm", package=text["package"], ref=text.get("version", ""))
    return PluginSource("url", url=text["url"], ref=ref, sha=sha)


def marketplace_file(root: Path, host: str) -> Path:
    if host not in MARKETPLACE_HOSTS:
        raise ValueError(f"{host} has no marketplace file")
    return root / HOSTS[host].marketplace


def load_document(path: Path, data: bytes) -> Document:
    """``data`` read strictly, or ``PLG002`` at the fault's line and column."""
    try:
        return read_json(data)
    except JSONSyntaxError as exc:
        raise SkillpackError(
            "PLG002", f"not strict JSON: {exc.message}",
            Location(str(path), exc.pos.line, exc.pos.column),
        ) from None  # fmt: skip


def shape_error(path: Path, doc: Document, problems: list[Problem]) -> SkillpackError:
    """``PLG003`` for the first of ``problems``, the others as details."""

    def where(p: Problem) -> Location:
        pos = doc.at(p.pointer)
        return Location(str(path), pos.line, pos.column)

    first, rest = problems[0], problems[1:]
    return SkillpackError(
        "PLG003", first.message, where(first),
        hint="`skillpack lint` lists every problem of the host manifests (SP6xx)",
        details=[f"{where(p).render()}: {p.message}" for p in rest[:9]],
    )  # fmt: skip


def parse_marketplace(host: str, path: Path, data: bytes, root: Path) -> Marketplace:
    """A marketplace from its bytes; ``PLG002``/``PLG003`` when it cannot be read as the
    host reads it (a problem in an entry's name or source, or the file's shape)."""
    doc = load_document(path, data)
    problems = [p for p in check_marketplace(host, doc) if p.kind in (BAD_FIELD, OUTSIDE)]
    if problems:
        raise shape_error(path, doc, problems)
    value: dict[str, Any] = doc.value  # type: ignore[assignment]
    metadata = value.get("metadata")
    root_of_names = metadata.get("pluginRoot", "") if isinstance(metadata, dict) else ""
    plugins = []
    for i, entry in enumerate(value["plugins"]):
        skills = entry.get("skills")
        plugins.append(
            MarketplacePlugin(
                name=entry["name"],
                source=plugin_source(entry["source"], root_of_names if host == CLAUDE else ""),
                description=entry.get("description", ""),
                version=entry.get("version", ""),
                skills=(skills,) if isinstance(skills, str)
                else tuple(skills) if isinstance(skills, list) else None,
                strict=entry.get("strict"),
                pos=doc.value_at(("plugins", i)),
                raw=entry,
            )
        )  # fmt: skip
    return Marketplace(host, path, root, value["name"], tuple(plugins), doc)


def read_marketplace(root: Path, host: str) -> Marketplace:
    """The ``host``'s marketplace (``claude`` or ``codex``) of the repository at ``root``.

    Raises ``PLG001`` when the file is missing, ``PLG002`` when it is not strict JSON,
    ``PLG003`` (naming ``file:line:col`` and the field) when it is not what the host
    reads. Relative sources are returned as they are written, resolved only by
    :meth:`PluginSource.directory`; nothing here checks that they exist (lint does)."""
    path = marketplace_file(root, host)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SkillpackError(
            "PLG001", f"no {HOSTS[host].label} marketplace: {HOSTS[host].marketplace} "
            "does not exist", Location(str(path)),
        ) from None  # fmt: skip
    except OSError as exc:
        raise SkillpackError(
            "PLG001", f"cannot read the marketplace: {exc.strerror}", Location(str(path))
        ) from None
    return parse_marketplace(host, path, data, root)


__all__ = [
    "Marketplace",
    "MarketplacePlugin",
    "PluginSource",
    "SourceKind",
    "parse_marketplace",
    "read_marketplace",
    "show",
]
